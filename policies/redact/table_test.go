package redact

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/debugpy-guard/debugpy-guard/plugins/sdk"
)

func TestMaskTables(t *testing.T) {
	for _, c := range []struct{ in, want, found string }{
		{"user,password,host\r\nada,hunter2,db\r\nbob,\"it's, \"\"x\"\"\",db2\r\n", "user,password,host\r\nada,[redacted],db\r\nbob,\"[redacted]\",db2\r\n", "hunter2,it's, \"\"x\"\",it's, \"x\""},
		{"id;API Key\n1;k-1x\n2;\"k\n2x\"\nnot a row\n", "id;API Key\n1;[redacted]\n2;\"[redacted]\n[redacted]\"\nnot a row\n", "k-1x,k\n2x"},
		{"[stdout] user\ttoken\nada\tt-1x\n", "[stdout] user\ttoken\nada\t[redacted]\n", "t-1x"},
		{"user,password\nada,p-1x,extra\nbob,p-2x\n", "user,password\nada,p-1x,extra\nbob,p-2x\n", ""}, // the table ended at its first row
		{"user,host\nada,db\n", "user,host\nada,db\n", ""},
		{"the user, the password\nada, hunter2\n", "the user, the password\nada,[redacted]\n", " hunter2"},
		// Not a header: a repr's line split at its commas.
		{"{'api_key': {'dev': 'x',\n             'prod': 'y'},\n", "{'api_key': {'dev': 'x',\n             'prod': 'y'},\n", ""},
	} {
		var found []string
		got, _ := maskTables(c.in, nil, func(v string) { found = append(found, v) })
		if got != c.want || strings.Join(found, ",") != c.found {
			t.Errorf("maskTables(%q) = %q %q, want %q %q", c.in, got, found, c.want, c.found)
		}
	}
}

// tableDocs writes, with Python's csv module, tables a program writes
// (csv.writer, any of four delimiters, its default \r\n or \n between
// rows): headers with secrets' names and others, cells with delimiters,
// quotes, line ends, blanks and Unicode, text before and after. One JSON
// line a table: [text, header].
const tableDocs = `import csv, io, json, random, sys
rng = random.Random(int(sys.argv[1]))
names = ["user", "password", "api_key", "Access Token", "host", "note", "client-secret", "id"]
def cell():
    k = rng.randrange(7)
    if k == 0: return ""
    if k == 1: return "a,b;c\tq|r"
    if k == 2: return 'say "hi"'
    if k == 3: return "two\nlines"
    if k == 4: return " ünï %d " % rng.randrange(100)
    return "".join(rng.choice("abcxyz0123-_./") for _ in range(rng.randrange(1, 15)))
for _ in range(int(sys.argv[2])):
    d = rng.choice([",", ";", "\t", "|"])
    out = io.StringIO()
    w = csv.writer(out, delimiter=d, lineterminator=rng.choice(["\r\n", "\n"]))
    n = rng.randrange(2, 6)
    head = rng.sample(names, n)
    w.writerow(head)
    for _ in range(rng.randrange(0, 6)):
        w.writerow([cell() for _ in range(n)])
    text = rng.choice(["", "[stdout] rows:\n"]) + out.getvalue() + rng.choice(["", "done\n"])
    print(json.dumps([text, d]))
`

// tableCheck reads [original, masked, delimiter] and says what a reader of
// the masked table learns that it should not: every non-empty cell of a
// secret's column must read as the mask (a line of it at a time), the rest
// as it was.
const tableCheck = `import csv, io, json, re, sys
secret = {"password", "api_key", "access_token", "client_secret"}
def rows(text, d):
    start = text.index("\n") + 1 if text.startswith("[stdout]") else 0
    body = text[start:]
    if body.endswith("done\n"): body = body[:-5]
    return list(csv.reader(io.StringIO(body, newline=""), delimiter=d))
for line in sys.stdin:
    orig, masked, d = json.loads(line)
    a, b = rows(orig, d), rows(masked, d)
    why = ""
    if len(a) != len(b):
        why = "rows %d, masked %d" % (len(a), len(b))
    else:
        cols = [h.lower().replace(" ", "_").replace("-", "_") in secret for h in a[0]]
        for r, (x, y) in enumerate(zip(a, b)):
            if len(x) != len(y):
                why = "row %d: %r, masked %r" % (r, x, y); break
            for k, (u, v) in enumerate(zip(x, y)):
                if r > 0 and cols[k] and u != "":
                    # masked a line at a time: each of its lines the mask
                    ok = set(p for p in re.split(r"[\r\n]", v) if p) == {"[redacted]"}
                else:
                    ok = v == u
                if not ok:
                    why = "row %d column %d: %r read as %r" % (r, k, u, v); break
            if why: break
    print(json.dumps(why))
`

// TestTablesAgreeWithPythonCSV masks 1,500 tables csv.writer wrote and
// reads them back with csv.reader: every cell of a secret's column reads as
// the mask, every other cell as it was.
func TestTablesAgreeWithPythonCSV(t *testing.T) {
	againstPython(t, tableDocs, tableCheck, 1500, func(s string) string { out, _ := maskTables(s, nil, nil); return out })
}

// FuzzMaskTables: any text is masked without a panic and keeps its line
// ends; each cell handed over is a piece of the text, or one unquoted.
func FuzzMaskTables(f *testing.F) {
	fuzzKeepsLines(f, func(t *testing.T, s string) string {
		out, _ := maskTables(s, nil, func(v string) {
			if v == "" || !strings.Contains(s, v) && !strings.Contains(s, strings.ReplaceAll(v, `"`, `""`)) {
				t.Fatalf("handed over %q, not a piece of %q", v, s)
			}
		})
		return out
	}, "user,password\r\nada,\"a\"\"b\nc\"\r\n", "a;token\n1;x\n2;\"", "x\tapi_key\ny\tz\n")
}

// A debugpy_source result's lines are masked read together: a dict's values
// on the lines below its secret's key, a YAML key's block, a table's rows
// under their header; each line stays a line.
func TestSourceLinesReadTogether(t *testing.T) {
	src := []string{
		`CONFIG = {`, `    "api_key": {`, `        "prod": "k-1x",`, `    },`, `    "passwords": [`, `        """p-1x`, `p-2x""",`, `    ],`, `}`,
		`db:`, `  password:`, `    primary: y-1x`,
		`id,token`, `1,t-1x`,
	}
	want := []string{
		`CONFIG = {`, `    "api_key": {`, `        "prod": "[redacted]",`, `    },`, `    "passwords": [`, `        """[redacted]`, `[redacted]""",`, `    ],`, `}`,
		`db:`, `  password:`, `    primary: [redacted]`,
		`id,token`, `1,[redacted]`,
	}
	var lines []map[string]any
	for i, l := range src {
		lines = append(lines, map[string]any{"line": i + 1, "text": l})
	}
	b, _ := json.Marshal(map[string]any{"path": "/app/x", "lines": lines})
	v, err := sdk.Parse(b)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	got := sourceMasked(v, sdk.Value{}, nil, &n).Get("lines").Elements()
	if len(got) != len(want) {
		t.Fatalf("%d lines, want %d", len(got), len(want))
	}
	for i, l := range got {
		if text := l.Get("text").Str(); text != want[i] {
			t.Errorf("line %d: %q, want %q", i+1, text, want[i])
		}
	}
}
