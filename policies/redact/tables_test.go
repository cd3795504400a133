package redact

import (
	"strings"
	"testing"

	"github.com/debugpy-guard/debugpy-guard/plugins/sdk"
	"github.com/debugpy-guard/debugpy-guard/policies/internal/policytest"
)

// TestTablesAgreeWithPython: tables held as rows, their header first, as
// Python shows them (csv.reader's rows, a list of tuples, printed, by
// pprint over lines, as JSON) and NumPy's structured arrays: no 8 bytes of
// a value under a secret's column left, the other columns' values shown.
func TestTablesAgreeWithPython(t *testing.T) {
	againstPython(t, tablesDocs, recordsCheck, 600, func(s string) string { out, _ := maskText(s, nil); return out })
}

const tablesDocs = `
import csv, io, json, pprint, random, string, sys
import numpy as np
rng = random.Random(int(sys.argv[1]))
SECRET = ["password", "api_key", "token", "client_secret", "DB_PASSWORD", "secret"]
OTHER = ["user", "host", "email", "port", "name", "region"]
def secret():
    return "S" + "".join(rng.choice(string.ascii_letters + string.digits + "-_./+=!") for _ in range(rng.randint(9, 20)))
for n in range(int(sys.argv[2])):
    ncols = rng.randint(2, 5)
    cols = rng.sample(OTHER, ncols)
    for k in rng.sample(range(ncols), rng.randint(1, max(1, ncols - 1))):
        cols[k] = rng.choice(SECRET)
    if ncols == 2 and cols[0] in SECRET and cols[1] not in SECRET:
        cols.reverse()  # a pair's shape: read as a pair (pairs.go), not a table
    secrets, controls, rows = [], [], []
    for r in range(rng.randint(1, 8)):
        row = []
        for k, c in enumerate(cols):
            if c in SECRET:
                v = secret()
                secrets.append(v)
            else:
                v = "ctrl%dx%dx%d" % (n, r, k)
                controls.append(v)
            row.append(v)
        rows.append(row)
    form = rng.choice(["csv", "tuples", "pprint", "json", "numpy"])
    if form == "csv":
        buf = io.StringIO()
        csv.writer(buf).writerows([cols] + rows)
        out = repr(list(csv.reader(io.StringIO(buf.getvalue()))))
    elif form == "tuples":
        out = repr([tuple(cols)] + [tuple(r) for r in rows])
    elif form == "pprint":
        out = pprint.pformat([cols] + rows, width=rng.choice([40, 80]))
    elif form == "json":
        out = json.dumps([cols] + rows, indent=rng.choice([None, None, 2]))
    else:
        names = [c + str(k) if cols.index(c) != k else c for k, c in enumerate(cols)]  # a dtype's fields are apart
        dt = [(c, "U24") for c in names]
        out = repr(np.array([tuple(r) for r in rows], dtype=dt))
    print(json.dumps([out, json.dumps(secrets), json.dumps(controls)]))
`

// A table listed a row a child: item 0 its header, each row's cells under
// a secret's column masked, and the other cells and rows shown.
func TestTableRowsMasked(t *testing.T) {
	sdk.HandlePrepared(Prepare)
	defer sdk.Handle(nil)
	res := `{"variables_reference":9,"variables":[` +
		`{"name":"0","value":"['user', 'password']","type":"list"},` +
		`{"name":"1","value":"['ada', 'S3cret-row1']","type":"list"},` +
		`{"name":"2","value":"['bob', 'S3cret-row2']","type":"list"},` +
		`{"name":"len()","value":"3","type":"int"}]}`
	out := shownResult(t, policytest.Case{Phase: "result", Tool: "debugpy_variables", Result: res})
	if strings.Contains(out, "S3cret") || !strings.Contains(out, "'ada'") || !strings.Contains(out, "'bob'") {
		t.Errorf("%s", out)
	}
}

// A table whose rows stop being plain (a nested container, a row cut
// short) is read to there: its rows before are masked, and the reading
// goes on past them (it went back to the text's start, for ever, found
// in review 2026-12-08).
func TestTableRowsNotPlain(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"[['user', 'password'], ['ada', 'S3cret-t1'], ['bob', ['nested']]]", "[['user', 'password'], ['ada', '[redacted]'], ['bob', ['nested']]]"},
		{"[['user', 'password'], ['ada', ['S3cret-t2']]]", "[['user', 'password'], ['ada', ['S3cret-t2']]]"},
		{"[('user', 'token'), ('ada', 'S3cret-t3'), ('bob', 'S3cr...", "[('user', 'token'), ('ada', '[redacted]'), ('bob', 'S3cr..."},
	} {
		if got, _ := maskTableRows(c.in, nil, nil); got != c.want {
			t.Errorf("%s:\n got %s\nwant %s", c.in, got, c.want)
		}
	}
}

// FuzzMaskTableRows: no text makes it fail or read for ever, and it keeps
// a text's lines.
func FuzzMaskTableRows(f *testing.F) {
	fuzzKeepsLines(f, func(t *testing.T, s string) string { out, _ := maskTableRows(s, nil, nil); return out },
		"[['user', 'password'], ['ada', ['x']]]", "[('a', 'token'), ('b', 'c'), (", "array([('a', 'b')], dtype=[('user', '<U1'), ('password', '<U1')])",
		"[['password'],\n ['x'],\n [", "((('", "[[\"it's\", 1]]\n[['user', 'password'], ['ada', 'x']]")
}
