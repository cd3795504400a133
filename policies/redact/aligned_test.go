package redact

import (
	"strings"
	"testing"
)

func TestMaskAligned(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		// pandas: a DataFrame, its footer, a value with a blank.
		{"      user    password   n\n0      ada  s3cret-one   1\n1  bob lee         x y  22\n[2 rows x 3 columns]\n",
			"      user    password   n\n0      ada  [redacted]   1\n1  bob lee         [redacted]  22\n[2 rows x 3 columns]\n"},
		// A table of names and values between bars (Markdown, tabulate's
		// pipe, a box): a secret's row's value, one word with a digit or a
		// symbol (found 2026-12-08); a field's description left.
		{"| Setting | Value |\n|---|---|\n| API key | sk-9f3Qz81 |\n| region | eu-west-1 |\n| password | required |\n",
			"| Setting | Value |\n|---|---|\n| API key | [redacted] |\n| region | eu-west-1 |\n| password | required |\n"},
		{"│ token │ ghx-2291a │\n│ user  │ ada       │\n", "│ token │ [redacted] │\n│ user  │ ada       │\n"},
		// tabulate's simple and psql's: rule lines passed over.
		{"user    password\n------  ----------\nada     s3cret-one\n", "user    password\n------  ----------\nada     [redacted]\n"},
		{" user | password \n------+----------\n ada  | s3cret-1\n(1 row)\n", " user | password \n------+----------\n ada  | [redacted]\n(1 row)\n"},
		{"| user | API Key |\n|------|---------|\n| ada  | k-1 2   |\n", "| user | API Key |\n|------|---------|\n| ada  | [redacted]   |\n"},
		// A traceback's statement is no header, though a line below lines
		// up with it; a header of a column named for a keyword still is.
		{"    assert c5.password is None\nAssertionError: assert 'x' is None\n", "    assert c5.password is None\nAssertionError: assert 'x' is None\n"},
		{"if    password\nx     s3cret-9\n", "if    password\nx     [redacted]\n"},
		// A Series: a row's (a label's value), a column's (every value).
		{"user               ada\npassword    s3cret-one\nn                    1\nName: 0, dtype: object\n",
			"user               ada\npassword    [redacted]\nn                    1\nName: 0, dtype: object\n"},
		{"0    s3cret-one\n1           x y\nName: password, dtype: object\n", "0    [redacted]\n1           [redacted]\nName: password, dtype: object\n"},
		// Labels and values lined up: the value, and what reads as a
		// column below too (a header and its rows look the same).
		{"user        ada\npassword    s3cret\nhost        db\n", "user        ada\npassword    [redacted]\n[redacted]        db\n"},
		// Names as Python folds them (NFKC): full-width letters, a no-break space.
		{"      user    ｐａｓｓｗｏｒｄ\n0      ada    zz-s3cret-1\n", "      user    ｐａｓｓｗｏｒｄ\n0      ada    [redacted]\n"},
		{"user  API\u00a0Key\nada   zz-s3cret-2\n", "user  API\u00a0Key\nada   [redacted]\n"},
		{"0    zz-s3cret-5\nName: ＡＰＩ_ＫＥＹ, dtype: object\n", "0    [redacted]\nName: ＡＰＩ_ＫＥＹ, dtype: object\n"},
		// Prose joins the columns: no table.
		{"The password policy:\nusers must change it every 90 days.\n", "The password policy:\nusers must change it every 90 days.\n"},
		{"Password  reset email sent\nTo: ada@example.org\n", "Password  reset email sent\nTo: ada@example.org\n"},
		{"password\n", "password\n"},
	} {
		if got, _ := maskAligned(c.in, nil, nil); got != c.want {
			t.Errorf("maskAligned(%q)\n got %q\nwant %q", c.in, got, c.want)
		}
	}
}

// alignedDocs writes tables as pandas and tabulate do: DataFrames (some
// wide enough to wrap, some indexed by a column), a row's and a column's
// Series, and tabulate's formats; cells of words, numbers, blanks inside,
// letters that are not ASCII, and values longer than their headers. Each
// line: [text, the secret values' first 8 characters..., "|", the other
// columns' values that no secret column stands beside...].
const alignedDocs = `
import json, random, sys
import pandas as pd
from tabulate import tabulate
pd.set_option("display.width", 80)
rng = random.Random(int(sys.argv[1]))
SECRET = ["password", "api_key", "API Key", "token", "db_password", "secret", "Passwd", "auth_token"]
PLAIN = ["user", "host", "port", "city", "order id", "n", "status", "email"]
FMTS = ["plain", "simple", "github", "grid", "psql", "pipe", "orgtbl", "rst", "presto", "fancy_grid"]
def word():
    return rng.choice(["ada", "bob", "Lyon", "ok", "done", "x", "42", "3.5", "é", "Zürich", "a-b", "new york", "N/A"])
def plain():
    return " ".join(word() for _ in range(rng.choice([1, 1, 1, 2])))
def secret():
    s = "Zq" + "".join(rng.choice("abcdefghjkmnpqrstuvwxyz0123456789") for _ in range(6))
    r = rng.random()
    if r < 0.2:
        s += " " + plain()
    elif r < 0.3:
        s += "-" + "y" * rng.randint(20, 70)
    elif r < 0.4:
        s += "é日"
    return s
n = int(sys.argv[2])
for i in range(n):
    ncol = rng.randint(1, 6)
    names = rng.sample(PLAIN, min(ncol, len(PLAIN)))
    k = rng.randrange(len(names))
    names[k] = rng.choice(SECRET)
    if ncol > 2 and rng.random() < 0.3:
        names[(k + 1) % ncol] = rng.choice([x for x in SECRET if x not in names])
    secret_cols = [j for j, c in enumerate(names) if c in SECRET]
    rows = [[secret() if j in secret_cols else plain() for j in range(len(names))] for _ in range(rng.randint(1, 7))]
    kind = rng.random()
    near = set()
    for j in secret_cols:
        near |= {j - 1, j, j + 1}
    if kind < 0.45:
        df = pd.DataFrame(rows, columns=names)
        if rng.random() < 0.2 and len(names) > 1 and (k != 0):
            df = df.set_index(names[0])
            near |= {0, 1}
        text = repr(df)
        shown = [r[j] for r in rows for j in range(len(names)) if j not in near]
        if "\\\\" in text or "..." in text or df.index.name is not None:
            shown = [] # wrapped, columns left out, or an index named: no control
    elif kind < 0.55:
        s = pd.DataFrame(rows, columns=names).iloc[0]
        text = repr(s)
        shown = []
        rows = rows[:1]
    elif kind < 0.65:
        col = names[k]
        s = pd.DataFrame(rows, columns=names)[col]
        text = repr(s)
        shown = []
        secret_cols = [k]
        rows = [[r[k] if j == k else "" for j in range(len(names))] for r in rows]
    else:
        fmt = rng.choice(FMTS)
        text = tabulate(rows, headers=names, tablefmt=fmt)
        shown = [r[j] for r in rows for j in range(len(names)) if j not in near]
    secrets = [r[j][:8] for r in rows for j in secret_cols]
    print(json.dumps([text] + secrets + ["|"] + shown))
`

// TestAlignedAgreesWithPandasAndTabulate masks 1,500 tables pandas and
// tabulate wrote: no secret column's value is left (its first 8
// characters, which a value cut short by pandas shows too), and each value
// of a column that no secret column stands beside is shown as it was.
func TestAlignedAgreesWithPandasAndTabulate(t *testing.T) {
	againstPython(t, alignedDocs, alignedCheck, 1500, func(s string) string { out, _ := maskText(s, nil); return out })
}

const alignedCheck = `
import json, sys
for line in sys.stdin:
    doc = json.loads(line)
    text, masked, rest = doc[0], doc[1], doc[2:]
    bar = rest.index("|")
    secrets, shown = rest[:bar], rest[bar + 1:]
    why = ""
    for s in secrets:
        if s in masked:
            why = "a secret's value is left: " + s
            break
    else:
        for v in shown:
            if v not in masked:
                why = "a value is masked that no secret's column stands beside: " + v
                break
    print(json.dumps(why))
`

// FuzzMaskAligned: any text is masked without a panic and keeps its line
// ends; each value handed over is a piece of the text.
func FuzzMaskAligned(f *testing.F) {
	fuzzKeepsLines(f, func(t *testing.T, s string) string {
		out, _ := maskAligned(s, nil, func(v string) {
			if v == "" || !strings.Contains(s, v) {
				t.Fatalf("handed over %q, not a piece of %q", v, s)
			}
		})
		return out
	}, "      user    password\n0      ada  s3cret-one\n", "| a | token |\n|---|---|\n| x | y |\n",
		"password    x\nn           1\nName: 0, dtype: object\n", "0    x\nName: api_key, dtype: object\n", "╒══╤══╕\n│ token │ é │\n│ 日本 │ x │\n",
		"| password | x1y2 |\n| token |\n", "│ API key │ k-9 │\n")
}

// BenchmarkMaskAligned reads texts of 20,000 lines that each could be a
// table's header or row: every one should take time in step with its
// length (two secrets' columns on every line once sorted their masks by
// insertion, 0.9 s natively).
func BenchmarkMaskAligned(b *testing.B) {
	for _, c := range []struct{ name, text string }{
		{"header-rows", "user  password\n" + strings.Repeat("ada   x\n", 20000)},
		{"two-columns", strings.Repeat("password  token\n", 20000)},
		{"labels", strings.Repeat("password    s3cret\nuser        ada\n", 10000)},
		{"series", strings.Repeat("password    s3cret\nName: 0, dtype: object\n", 10000)},
	} {
		b.Run(c.name, func(b *testing.B) {
			b.SetBytes(int64(len(c.text)))
			for b.Loop() {
				maskAligned(c.text, nil, nil)
			}
		})
	}
}
