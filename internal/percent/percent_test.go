package percent

import (
	"net/url"
	"testing"
)

// Decode agrees with net/url where net/url accepts the text (PathUnescape,
// and QueryUnescape with plus), and keeps a % without two hex digits.
func TestDecode(t *testing.T) {
	for _, s := range []string{"", "plain", "p%40ss", "a%2fb%2Fc", "%C3%A9t%c3%a9", "a+b%20c", "%", "100%", "%4", "%zz%41", "%%41", "+%2B+"} {
		for _, plus := range []bool{false, true} {
			got := Decode(s, plus)
			want, err := url.PathUnescape(s)
			if plus {
				want, err = url.QueryUnescape(s)
			}
			if err == nil && got != want {
				t.Errorf("Decode(%q, %v) = %q, net/url %q", s, plus, got, want)
			}
		}
	}
	for s, want := range map[string]string{"%": "%", "100%": "100%", "%4": "%4", "%zz%41": "%zzA", "%%41": "%A"} {
		if got := Decode(s, false); got != want {
			t.Errorf("Decode(%q) = %q, want %q", s, got, want)
		}
	}
	if !HasEscape("x%2F") || HasEscape("100% %z %4") {
		t.Error("HasEscape")
	}
}

// FuzzDecode: whatever the text, Decode agrees with net/url wherever
// net/url decodes it.
func FuzzDecode(f *testing.F) {
	f.Add("p%40ss+w0rd%2")
	f.Fuzz(func(t *testing.T, s string) {
		for _, plus := range []bool{false, true} {
			want, err := url.PathUnescape(s)
			if plus {
				want, err = url.QueryUnescape(s)
			}
			if got := Decode(s, plus); err == nil && got != want {
				t.Fatalf("Decode(%q, %v) = %q, net/url %q", s, plus, got, want)
			}
		}
	})
}
