package redact

import (
	"strings"
	"testing"
)

func TestMaskHTMLTables(t *testing.T) {
	for _, c := range []struct{ in, want, found string }{
		{"<table><tr><th>user</th><th>password</th></tr><tr><td>ada</td><td>p&amp;1</td></tr></table>",
			"<table><tr><th>user</th><th>password</th></tr><tr><td>ada</td><td>[redacted]</td></tr></table>", "p&1"},
		{"<TABLE><TR><TH></TH><TH>API Key</TH></TR>\n<TR><TH>0</TH><TD> k-1 </TD></TR></TABLE>",
			"<TABLE><TR><TH></TH><TH>API Key</TH></TR>\n<TR><TH>0</TH><TD> [redacted] </TD></TR></TABLE>", "k-1"},
		{"<table><tr><th colspan=\"2\">name</th><th>token</th></tr><tr><td>a</td><td>b</td><td><b>t-1</b> x</td></tr></table>",
			"<table><tr><th colspan=\"2\">name</th><th>token</th></tr><tr><td>a</td><td>b</td><td><b>[redacted]</b> [redacted]</td></tr></table>", "t-1"},
		{"<table><thead><tr><th></th><th>password</th></tr><tr><th>key</th><th></th></tr></thead><tbody><tr><th>k1</th><td>pw-1x</td></tr></tbody></table>",
			"<table><thead><tr><th></th><th>password</th></tr><tr><th>key</th><th></th></tr></thead><tbody><tr><th>k1</th><td>[redacted]</td></tr></tbody></table>", "pw-1x"}, // an index's name
		{"<table><tr><th>password</th></tr></table><table><tr><td>kept</td></tr></table>", "<table><tr><th>password</th></tr></table><table><tr><td>kept</td></tr></table>", ""},
		{"<table><tr><th>user</th><th>role</th></tr><tr><td>ada</td><td>admin</td></tr></table>", "<table><tr><th>user</th><th>role</th></tr><tr><td>ada</td><td>admin</td></tr></table>", ""},
		{"<table><tr><th>password<td>x-1<tr><th>user<td>y-2", "<table><tr><th>password<td>[redacted]<tr><th>user<td>y-2", "x-1"}, // labels; end tags left out
	} {
		var found []string
		got, changed := maskHTMLTables(c.in, nil, func(v string) { found = append(found, v) })
		if got != c.want || changed != (c.want != c.in) {
			t.Errorf("%q:\n got %q\nwant %q", c.in, got, c.want)
		}
		if c.found != "" && !strings.Contains(strings.Join(found, ","), c.found) || c.found == "" && len(found) > 0 {
			t.Errorf("%q: found %q, want %q", c.in, found, c.found)
		}
	}
}

// TestHTMLTablesAgreeWithPandas: tables pandas' to_html and tabulate's
// html write, with secret columns among others and values full of what
// HTML escapes, blanks and letters that are not ASCII, are masked and read
// back with Python's html.parser: every cell under a secret's header reads
// as the mask, every other cell as it was (an index's name in a second
// header row too).
func TestHTMLTablesAgreeWithPandas(t *testing.T) {
	againstPython(t, htmlDocs, htmlCheck, 1000, func(s string) string { out, _ := maskHTMLTables(s, nil, nil); return out })
}

const htmlDocs = `
import json, random, sys
import pandas as pd
from tabulate import tabulate
rng = random.Random(int(sys.argv[1]))
SECRET = ["password", "api_key", "API Key", "token", "db_password", "Secret"]
PLAIN = ["user", "role", "host", "count", "note"]
def value():
    chars = "abcXYZ019 &<>\"'é日"
    return "".join(rng.choice(chars) for _ in range(rng.randint(1, 10))).strip() or "v"
for i in range(int(sys.argv[2])):
    cols = rng.sample(PLAIN, rng.randint(1, 3)) + rng.sample(SECRET, rng.randint(1, 2))
    rng.shuffle(cols)
    rows = [[value() for _ in cols] for _ in range(rng.randint(1, 5))]
    if rng.random() < 0.5:
        df = pd.DataFrame(rows, columns=cols)
        plain = [c for c in cols if c not in SECRET]
        if plain and len(cols) > 1 and rng.random() < 0.3:
            df = df.set_index(plain[0])  # its name in a second header row
        text = df.to_html(index=rng.random() < 0.7)
    else:
        text = tabulate(rows, headers=cols, tablefmt="html")
    print(json.dumps([text, json.dumps(cols)]))
`

const htmlCheck = `
import json, sys
from html.parser import HTMLParser
M = "[redacted]"
SECRET = {"password", "api_key", "API Key", "token", "db_password", "Secret"}
class Rows(HTMLParser):
    def __init__(self):
        super().__init__()
        self.rows, self.cell = [], None
    def handle_starttag(self, tag, attrs):
        if tag == "tr":
            self.rows.append([])
        elif tag in ("td", "th"):
            self.cell = [tag, ""]
            self.rows[-1].append(self.cell)
    def handle_endtag(self, tag):
        if tag in ("td", "th"):
            self.cell = None
    def handle_data(self, data):
        if self.cell is not None:
            self.cell[1] += data
def rows(text):
    p = Rows()
    p.feed(text)
    return p.rows
for line in sys.stdin:
    text, masked, cols = json.loads(line)
    a, b = rows(text), rows(masked)
    why = ""
    if len(a) != len(b) or any(len(x) != len(y) for x, y in zip(a, b)):
        why = "the table's shape changed"
    else:
        header = [c[1].strip() for c in a[0]]
        for r in range(1, len(a)):
            for k, (x, y) in enumerate(zip(a[r], b[r])):
                secret = header[k] in SECRET
                if secret and x[0] == "td" and y[1].replace(M, "").strip() != "":
                    why = "row %d column %s reads %r" % (r, header[k], y[1])
                elif (not secret or x[0] == "th") and x[1] != y[1]:
                    why = "row %d column %s reads %r, was %r" % (r, header[k], y[1], x[1])
    print(json.dumps(why))
`

// FuzzMaskHTMLTables: any text is masked without a panic and keeps its
// line ends.
func FuzzMaskHTMLTables(f *testing.F) {
	fuzzKeepsLines(f, func(t *testing.T, s string) string { out, _ := maskHTMLTables(s, nil, func(string) {}); return out },
		"<table><tr><th>password<th colspan=3>x<tr><td>a\nb<td>c", "<th>token</th><td>x</td>", "<TR><TH>api_key</TH><TD>k</TD>")
}
