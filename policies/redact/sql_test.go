package redact

import (
	"strings"
	"testing"
)

func TestMaskSQL(t *testing.T) {
	for _, c := range []struct{ in, want, found string }{
		{"INSERT INTO users (name, password) VALUES ('ada', 'S3cr3t-q')", "INSERT INTO users (name, password) VALUES ('ada', '[redacted]')", "S3cr3t-q"},
		{`insert or replace into "users" ("name", "api_key") values ('ada', 'it''s-k3y'), ('bob', 'k2-x99')`,
			`insert or replace into "users" ("name", "api_key") values ('ada', '[redacted]'), ('bob', '[redacted]')`, "it's-k3y,k2-x99"},
		{"INSERT INTO users (name, password) VALUES (?, ?)\n[generated in 0.00012s] ('ada', 'S3cr3t-p')\n",
			"INSERT INTO users (name, password) VALUES (?, ?)\n[generated in 0.00012s] ('ada', '[redacted]')\n", "S3cr3t-p"},
		{"INSERT INTO users (name, pin_password) VALUES (%s, %s)\n[cached since 2.1s ago] [('ada', 12345678), ('bob', 87654321)]\n",
			"INSERT INTO users (name, pin_password) VALUES (%s, %s)\n[cached since 2.1s ago] [('ada', [redacted]), ('bob', [redacted])]\n", ""},
		{"INSERT INTO users (id, token, name) VALUES (1, lower('T0k-x'), 'ada')", "INSERT INTO users (id, token, name) VALUES (1, lower('T0k-x'), 'ada')", ""}, // a call: left
		{"INSERT INTO t (name, value) VALUES ('a', 'b')", "INSERT INTO t (name, value) VALUES ('a', 'b')", ""},
		{"reinsert into (password) values ('x')", "reinsert into (password) values ('x')", ""},
		{"INSERT INTO t (name, token) VALUES ('a', 'T0k\nen-x')", "INSERT INTO t (name, token) VALUES ('a', '[redacted]\n[redacted]')", "T0k\nen-x"},
	} {
		var found []string
		got, _ := maskSQL(c.in, nil, func(v string) { found = append(found, v) })
		if got != c.want || strings.Join(found, ",") != c.found {
			t.Errorf("%q:\n got %q %q\nwant %q %q", c.in, got, found, c.want, c.found)
		}
	}
}

// TestSQLAgreesWithSQLite: INSERTs as sqlite3's trace shows them (the
// statement with its values written in, quotes doubled), one row or
// several, and as SQLAlchemy's echo prints a statement with placeholders
// and its parameters on the next line: masked, the statement run again by
// SQLite (and the parameters read back by ast): every value of a column
// named for a secret reads as the mask, every other as it was.
func TestSQLAgreesWithSQLite(t *testing.T) {
	againstPython(t, sqlDocs, sqlCheck, 1000, func(s string) string { out, _ := maskSQL(s, nil, nil); return out })
}

const sqlDocs = `
import json, random, sqlite3, string, sys
rng = random.Random(int(sys.argv[1]))
SECRET = ["password", "api_key", "token", "db_pass", "client_secret", "UserPassword"]
OTHER = ["name", "email", "note", "city", "n"]
def value(num):
    if num:
        return rng.randint(0, 10**6)
    return "".join(rng.choice(string.ascii_letters + string.digits + " ,;()-_=?%:$" + chr(39) + chr(34) + chr(92)) for _ in range(rng.randint(1, 14)))
for i in range(int(sys.argv[2])):
    cols = rng.sample(SECRET, rng.randint(1, 2)) + rng.sample(OTHER, rng.randint(1, 3))
    rng.shuffle(cols)
    nums = {c: c == "n" for c in cols}
    quote = rng.choice(['%s', '"%s"', '[%s]', '%s'])
    rows = [tuple(value(nums[c]) for c in cols) for _ in range(rng.randint(1, 3))]
    if rng.random() < 0.6:
        seen = []
        db = sqlite3.connect(":memory:")
        db.execute("CREATE TABLE t (%s)" % ", ".join(quote % c for c in cols))
        db.set_trace_callback(seen.append)
        sql = "INSERT INTO t (%s) VALUES %s" % (", ".join(quote % c for c in cols), ", ".join("(" + ", ".join("?" * len(cols)) + ")" for _ in rows))
        db.execute(sql, [v for r in rows for v in r])
        text, form = seen[-1], "sql"
    else:
        mark = rng.choice(["?", "%s"])
        stmt = "INSERT INTO t (%s) VALUES (%s)" % (", ".join(cols), ", ".join([mark] * len(cols)))
        params = rows[0] if len(rows) == 1 else rows
        text, form = "INFO sqlalchemy.engine.Engine %s\nINFO sqlalchemy.engine.Engine [generated in 0.00011s] %r" % (stmt, params), "echo"
    print(json.dumps([text, form, json.dumps(cols), json.dumps(rows), quote]))
`

const sqlCheck = `
import ast, json, sqlite3, sys
M = "[redacted]"
SECRET = {"password", "api_key", "token", "db_pass", "client_secret", "UserPassword"}
for line in sys.stdin:
    text, masked, form, cols, rows, quote = json.loads(line)
    cols, rows = json.loads(cols), [tuple(r) for r in json.loads(rows)]
    want = [tuple(M if c in SECRET else v for c, v in zip(cols, r)) for r in rows]
    try:
        if form == "sql":
            db = sqlite3.connect(":memory:")
            db.execute("CREATE TABLE t (%s)" % ", ".join(quote % c for c in cols))
            db.execute(masked)
            got = [tuple(r) for r in db.execute("SELECT * FROM t")]
        else:
            params = ast.literal_eval(masked.split("] ", 1)[1])
            got = [params] if isinstance(params, tuple) else params
        print(json.dumps("" if got == want else "got %r want %r" % (got, want)))
    except Exception as e:
        print(json.dumps("%s: %s" % (type(e).__name__, e)))
`

// FuzzMaskSQL: any text is masked without a panic and keeps its line ends.
func FuzzMaskSQL(f *testing.F) {
	for _, s := range []string{"INSERT INTO users (name, password) VALUES ('ada', 'S3cr3t-q')",
		"INSERT INTO users (name, password) VALUES (?, ?)\n[generated in 0.1s] ('ada', 'x1')\n", "insert into t (password) values ('a''", "INSERT INTO t (token) VALUES (:t)\n(b'x',)"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		m, _ := maskSQL(s, nil, nil)
		if strings.Count(m, "\n") != strings.Count(s, "\n") {
			t.Fatalf("%q masked %q: the line ends changed", s, m)
		}
	})
}
