package redact

import (
	"strings"
	"testing"
)

// BenchmarkMaskLongTexts is maskText on texts of ~200 KB made of one
// shape repeated, each a reading's worst case: a reading that searched
// from each occurrence to the text's end, or made a scanner a pair, took
// time in the square of the text (docs/PERFORMANCE.md).
func BenchmarkMaskLongTexts(b *testing.B) {
	for _, c := range []struct{ name, text string }{
		{"pairs", strings.Repeat("('password', '<U20'), ", 10000)},
		{"cookie-headers", "x = '" + strings.Repeat("Set-Cookie: a=b ", 12000) + "'"},
		{"morsels", strings.Repeat("<Morsel: a=b", 20000)},
		{"element-pairs", strings.Repeat("<name>password</name><value>x", 8000)},
		{"elements", strings.Repeat("<password>", 20000)},
		{"elements-cut", strings.Repeat("<password>x", 20000)},
		{"elements-cut-quoted", strings.Repeat("<password>a',", 20000)},
		{"elements-closed", strings.Repeat("<password><![CDATA[x]]><a>y</a></password>", 5000)},
		{"element-names", strings.Repeat("<password ", 20000)},
		{"element-tags", strings.Repeat("<token>\n<a><b>", 15000)},
		{"cut-rows", strings.Repeat("INSERT INTO t (a, password) VALUES ('x', 'y", 5000)},
		{"cut-urls", strings.Repeat("https://a:b1", 20000)},
		{"tables", "[" + strings.Repeat("['user', 'password'], ", 10000) + "]"},
		{"arrays", strings.Repeat("array([(1, 2)], ", 10000) + "dtype=[('password', '<U20')])"},
		{"tuple-keys", "{" + strings.Repeat("('a', 'b', 'c', ", 10000) + "}"},
		{"redis-sequences", "(" + strings.Repeat("('AUTH', 'a', ", 15000) + ")"},
		{"redis-words", "('AUTH', " + strings.Repeat("'a', ", 40000) + ")"},
		{"redis-lines", strings.Repeat("ACL SETUSER a >b1 'AUTH x y' ", 8000)},
		{"auth-lines", strings.Repeat("Authorization: x\n", 12000)},
		{"seed-words", strings.Repeat("abandon ability able about above absent ", 6000)},
		{"prose-words", strings.Repeat("the client sent an access token to the server and found nothing ", 3000)},
		{"pickle-pairs", "b'\\x80\\x04}\\x94(" + strings.Repeat("\\x8c\\x08password\\x94\\x8c\\x02pw\\x94", 4000) + "u.'"},
		{"wif-shaped", strings.Repeat("5HueCGU8rMjxEXxiPuD5BDku4MkFqeZyd4dZ1jvhTVqvbTLvyTK ", 4000)},
	} {
		b.Run(c.name, func(b *testing.B) {
			b.SetBytes(int64(len(c.text)))
			for b.Loop() {
				maskText(c.text, nil)
			}
		})
	}
}
