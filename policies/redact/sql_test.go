package redact

import (
	"encoding/json"
	"os"
	"os/exec"
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
		// MySQL's strings (PyMySQL's mogrify): a backslash escapes the quote
		{`INSERT INTO users (name, password) VALUES ('bob', 'ab\'cdS3cr3t')`, `INSERT INTO users (name, password) VALUES ('bob', '[redacted]')`, "ab'cdS3cr3t"},
		{`UPDATE users SET password = 'x\'y\\z\nS3cr3t', name = 'o\'neil' WHERE id = 1`, `UPDATE users SET password = '[redacted]', name = 'o\'neil' WHERE id = 1`, "x'y\\z\nS3cr3t"},
		{`INSERT INTO t (name, token) VALUES ('a\\', 'T0k-x')`, `INSERT INTO t (name, token) VALUES ('a\\', '[redacted]')`, "T0k-x,T0k-x"}, // both readings agree
		{"INSERT INTO t (name, token) VALUES ('a', 'T0k\nen-x')", "INSERT INTO t (name, token) VALUES ('a', '[redacted]\n[redacted]')", "T0k\nen-x"},
		// Cut short inside a row (found 2026-12-08: a log's sql[:80] showed the piece)
		{"INSERT INTO users (name, password) VALUES ('ada', 'S3cr3t-", "INSERT INTO users (name, password) VALUES ('ada', '[redacted]", "S3cr3t-"},
		{`"INSERT INTO users (name, password) VALUES ('ada', 'S3cr3t-"`, `"INSERT INTO users (name, password) VALUES ('ada', '[redacted]"`, "S3cr3t-"},
		{`["INSERT INTO users (name, password) VALUES ('bob', 'k2'), ('ada', 'S3cr3t-", 'x']`, `["INSERT INTO users (name, password) VALUES ('bob', '[redacted]'), ('ada', '[redacted]", 'x']`, "k2,S3cr3t-"},
		{"INSERT INTO users (name, password) VALUES ('ad", "INSERT INTO users (name, password) VALUES ('ad", ""}, // cut before it
		{"INSERT INTO users (password, name) VALUES ('S3cr3t', 'ad", "INSERT INTO users (password, name) VALUES ('[redacted]', 'ad", "S3cr3t"},
	} {
		var found []string
		got, _ := maskSQL(c.in, nil, func(v string) { found = append(found, v) })
		if got != c.want || strings.Join(found, ",") != c.found {
			t.Errorf("%q:\n got %q %q\nwant %q %q", c.in, got, found, c.want, c.found)
		}
	}
}

// TestSQLAgreesWithSQLite: INSERTs and UPDATEs as sqlite3's trace shows
// them (the statement with its values written in, quotes doubled), one
// row or several, and as SQLAlchemy's echo prints a statement with
// placeholders and its parameters on the next line: masked, the statement
// run again by SQLite (and the parameters read back by ast): every value
// of a column named for a secret reads as the mask, every other as it was.
func TestSQLAgreesWithSQLite(t *testing.T) {
	againstPython(t, sqlDocs, sqlCheck, 1200, func(s string) string { out, _ := maskSQL(s, nil, nil); return out })
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
    u = rng.random()
    if u < 0.2:  # an UPDATE, as sqlite3's trace shows it
        seen = []
        db = sqlite3.connect(":memory:")
        db.execute("CREATE TABLE t (%s)" % ", ".join(quote % c for c in cols))
        db.execute("INSERT INTO t VALUES (%s)" % ", ".join("?" * len(cols)), ["init"] * len(cols))
        db.set_trace_callback(seen.append)
        db.execute("UPDATE t SET %s WHERE rowid = ?" % ", ".join("%s = ?" % (quote % c) for c in cols), list(rows[0]) + [1])
        text, form, rows = seen[-1], "update", rows[:1]
    elif u < 0.35:  # an UPDATE with placeholders, as SQLAlchemy's echo prints it
        mark = rng.choice(["?", "%s"])
        stmt = "UPDATE t SET %s WHERE t.id = %s" % (", ".join("%s=%s" % (c, mark) for c in cols), mark)
        text, form, rows = "INFO sqlalchemy.engine.Engine %s\nINFO sqlalchemy.engine.Engine [generated in 0.00011s] %r" % (stmt, tuple(rows[0]) + (7,)), "echoupdate", rows[:1]
    elif rng.random() < 0.6:
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
        if form == "sql" or form == "update":
            db = sqlite3.connect(":memory:")
            db.execute("CREATE TABLE t (%s)" % ", ".join(quote % c for c in cols))
            if form == "update":
                db.execute("INSERT INTO t VALUES (%s)" % ", ".join("?" * len(cols)), ["init"] * len(cols))
            db.execute(masked)
            got = [tuple(r) for r in db.execute("SELECT * FROM t")]
        elif form == "echoupdate":
            got = [ast.literal_eval(masked.split("] ", 1)[1])]
            want = [w + (7,) for w in want]
        else:
            params = ast.literal_eval(masked.split("] ", 1)[1])
            got = [params] if isinstance(params, tuple) else params
        print(json.dumps("" if got == want else "got %r want %r" % (got, want)))
    except Exception as e:
        print(json.dumps("%s: %s" % (type(e).__name__, e)))
`

// FuzzMaskSQL: any text is masked without a panic and keeps its line ends.
func FuzzMaskSQL(f *testing.F) {
	fuzzKeepsLines(f, func(t *testing.T, s string) string { out, _ := maskSQL(s, nil, nil); return out },
		"INSERT INTO users (name, password) VALUES ('ada', 'S3cr3t-q')",
		"INSERT INTO users (name, password) VALUES (?, ?)\n[generated in 0.1s] ('ada', 'x1')\n", "insert into t (password) values ('a''", "INSERT INTO t (token) VALUES (:t)\n(b'x',)")
}

func TestMaskUpdates(t *testing.T) {
	for _, c := range []struct{ in, want, found string }{
		{"UPDATE users SET password=?, seen=? WHERE users.id = ?\n[generated in 0.0001s] ('S3cret-u', '2026-12-05', 1)",
			"UPDATE users SET password=?, seen=? WHERE users.id = ?\n[generated in 0.0001s] ('[redacted]', '2026-12-05', 1)", "S3cret-u"},
		{"UPDATE users SET name = 'ada', \"password\" = 'S3c''ret' WHERE id = 3", "UPDATE users SET name = 'ada', \"password\" = '[redacted]' WHERE id = 3", "S3c'ret"},
		{"UPDATE users SET login_count=?, name=? WHERE id=?\n[generated in 0.0001s] (3, 'ada', 1)", "UPDATE users SET login_count=?, name=? WHERE id=?\n[generated in 0.0001s] (3, 'ada', 1)", ""},
		{"the update set password rules", "the update set password rules", ""},
	} {
		var found []string
		got, _ := maskSQL(c.in, nil, func(v string) { found = append(found, v) })
		if got != c.want || strings.Join(found, ",") != c.found {
			t.Errorf("%q:\n got %q %q\nwant %q %q", c.in, got, found, c.want, c.found)
		}
	}
}

func TestMaskIdentified(t *testing.T) {
	for _, c := range []struct{ in, want, found string }{
		{"CREATE USER 'app'@'%' IDENTIFIED BY 'S3cret-my';", "CREATE USER 'app'@'%' IDENTIFIED BY '[redacted]';", "S3cret-my"},
		{"ALTER USER app IDENTIFIED WITH mysql_native_password BY 'S3c''r\\'t';", "ALTER USER app IDENTIFIED WITH mysql_native_password BY '[redacted]';", "S3c''r\\'t"},
		{"create user scott identified by Tiger123 default tablespace users;", "create user scott identified by [redacted] default tablespace users;", "Tiger123"},
		{"SET PASSWORD = PASSWORD('S3cret-old');", "SET PASSWORD = PASSWORD('[redacted]');", "S3cret-old"},
		{"SET PASSWORD FOR 'app'@'%' = 'S3cret-set';", "SET PASSWORD FOR 'app'@'%' = '[redacted]';", "S3cret-set"},
		{"GRANT ALL ON db.* TO 'app'@'%' IDENTIFIED BY \"S3cret-dq\"", "GRANT ALL ON db.* TO 'app'@'%' IDENTIFIED BY \"[redacted]\"", "S3cret-dq"},
		// prose, and a statement's other words
		{"the user identified by email ada", "the user identified by email ada", ""},
		{"SET password_policy = 'strict'", "SET password_policy = 'strict'", ""},
	} {
		var found []string
		got, _ := maskIdentified(c.in, func(v string) { found = append(found, v) })
		if got != c.want || strings.Join(found, ",") != c.found {
			t.Errorf("%q:\n got %q %q\nwant %q %q", c.in, got, found, c.want, c.found)
		}
	}
}

// FuzzMaskIdentified: no text makes it fail, and it keeps a text's lines.
func FuzzMaskIdentified(f *testing.F) {
	fuzzKeepsLines(f, func(t *testing.T, s string) string { out, _ := maskIdentified(s, nil); return out },
		"CREATE USER a IDENTIFIED BY 'x''y", "SET PASSWORD FOR a = PASSWORD(", "identified with", "set password =")
}

// TestIdentifiedAgreesWithSQLParse: MySQL's, MariaDB's and Oracle's
// account statements (CREATE USER, ALTER USER, GRANT ... IDENTIFIED [WITH
// plugin] BY, SET PASSWORD [FOR] = [PASSWORD(...)]) with random passwords
// (a quote doubled or escaped inside, blanks, semicolons), read by
// sqlparse: the masked statement is the same statement, its password's
// literal the only token changed, to '[redacted]'; no 8 bytes of a
// password left.
func TestIdentifiedAgreesWithSQLParse(t *testing.T) {
	againstPython(t, identifiedDocs, identifiedCheck, 1000, func(s string) string { out, _ := maskText(s, nil); return out })
}

const identifiedDocs = `
import json, random, string, sys
rng = random.Random(int(sys.argv[1]))
def password():
    s = "S"
    for _ in range(rng.randint(10, 20)):
        s += rng.choice(" ;,()@%-_=") if rng.random() < 0.15 else rng.choice(string.ascii_letters + string.digits)
    return s
def literal(p):
    q = rng.choice("'\"")
    esc = rng.choice(["double", "backslash"])
    if rng.random() < 0.3:
        p = p[:5] + q + p[5:]
    body = p.replace(q, q + q) if esc == "double" else p.replace(q, "\\" + q)
    return q + body + q, p
for n in range(int(sys.argv[2])):
    p = password()
    lit, p = literal(p)
    user = rng.choice(["'app'@'%'", "'ada'@'localhost'", "app", "'ctrl%d'@'%%'" % n])
    kind = rng.randint(0, 5)
    if kind == 0:
        st = "CREATE USER %s IDENTIFIED BY %s" % (user, lit)
    elif kind == 1:
        st = "ALTER USER %s IDENTIFIED WITH %s BY %s" % (user, rng.choice(["mysql_native_password", "caching_sha2_password"]), lit)
    elif kind == 2:
        st = "GRANT ALL PRIVILEGES ON db%d.* TO %s IDENTIFIED BY %s" % (n, user, lit)
    elif kind == 3:
        st = "SET PASSWORD FOR %s = %s" % (user, lit)
    elif kind == 4:
        st = "SET PASSWORD = PASSWORD(%s)" % lit
    else:
        p = "S" + "".join(rng.choice(string.ascii_letters + string.digits) for _ in range(rng.randint(10, 20)))
        st = "create user ctrl%d identified by %s default tablespace users" % (n, p)
    if rng.random() < 0.3:  # the keywords in lower case
        for w in ["CREATE USER", "ALTER USER", "IDENTIFIED WITH", "IDENTIFIED BY", "GRANT ALL PRIVILEGES ON", " TO ", "SET PASSWORD FOR", "SET PASSWORD", "PASSWORD("]:
            st = st.replace(w, w.lower())
    st += rng.choice([";", "", ";\n"])
    print(json.dumps([st, p]))
`

const identifiedCheck = `
import json, sqlparse, sys
M = "[redacted]"
def tokens(st):
    return [(t.ttype, t.value) for t in sqlparse.parse(st)[0].flatten() if not t.is_whitespace]
for line in sys.stdin:
    text, masked, p = json.loads(line)
    if any(p[i:i + 8] in masked for i in range(len(p) - 7)):
        print(json.dumps("left %r" % p))
        continue
    a, b = tokens(text), tokens(masked)
    if "identified by s" in text.lower() and not any(q in text for q in "'\""):
        ok = masked.lower().startswith(text.lower()[:text.lower().index("identified by") + 14]) and M in masked
    else:
        diff = [(x, y) for x, y in zip(a, b) if x != y]
        ok = len(a) == len(b) and len(diff) == 1 and diff[0][1][1] in ("'%s'" % M, '"%s"' % M) and str(diff[0][0][0]).startswith("Token.Literal.String")
    print(json.dumps("" if ok else "not the same statement: %r" % masked))
`

// TestSQLAgreesWithMariaDB: INSERTs (one row or several) and UPDATEs as
// PyMySQL's mogrify expands them, its own escaping writing the values in
// (a quote, a backslash, a line end escaped by a backslash), masked, and
// run again by MariaDB (a server the check starts on a socket of its own,
// no network): every value of a column named for a secret reads as the
// mask, every other as it was. Through maskText, no 6 bytes of a secret
// are left. Standard SQL's reading ends a string at \' and so left such a
// statement's secret whole.
func TestSQLAgreesWithMariaDB(t *testing.T) {
	if _, err := exec.LookPath("mariadbd"); err != nil {
		if _, err := os.Stat("/usr/sbin/mariadbd"); err != nil {
			t.Fatal("mariadbd is not installed: make deps installs mariadb-server-core and mariadb-client-core")
		}
	}
	againstPython(t, mariaDocs, mariaCheck, 400, func(s string) string {
		sql, _ := maskSQL(s, nil, nil)
		text, _ := maskText(s, nil)
		b, _ := json.Marshal([]string{sql, text})
		return string(b)
	})
}

const mariaDocs = `
import json, random, string, sys
from pymysql.converters import escape_item
rng = random.Random(int(sys.argv[1]))
SECRET = ["password", "api_key", "token", "db_pass"]
OTHER = ["name", "email", "note", "n"]
def value(col):
    if col == "n":
        return rng.randint(0, 10**6)
    s = "".join(rng.choice(string.ascii_letters + string.digits + " ,;()-_=?%:$" + chr(39) + chr(34) + chr(92) + chr(10)) for _ in range(rng.randint(0, 14)))
    return s + "".join(rng.choice(string.ascii_letters) for _ in range(6)) if col in SECRET else s
def lit(v):
    return escape_item(v, "utf8mb4")
for i in range(int(sys.argv[2])):
    cols = rng.sample(SECRET, rng.randint(1, 2)) + rng.sample(OTHER, rng.randint(1, 3))
    rng.shuffle(cols)
    rows = [[value(c) for c in cols] for _ in range(rng.randint(1, 3))]
    if rng.random() < 0.3:
        rows = rows[:1]
        st = "UPDATE t SET %s WHERE id = 1" % ", ".join("%s = %s" % (c, lit(v)) for c, v in zip(cols, rows[0]))
    else:
        st = "INSERT INTO t (%s) VALUES %s" % (", ".join(cols), ", ".join("(" + ", ".join(lit(v) for v in r) + ")" for r in rows))
    print(json.dumps([st, json.dumps(cols), json.dumps(rows)]))
`

const mariaCheck = `
import json, os, shutil, subprocess, sys, tempfile, time, pymysql
M = "[redacted]"
SECRET = {"password", "api_key", "token", "db_pass"}
d = tempfile.mkdtemp()
r = subprocess.run(["mariadb-install-db", "--no-defaults", "--datadir=" + d + "/data", "--user=root",
                    "--auth-root-authentication-method=normal", "--skip-test-db"], capture_output=True, text=True)
if r.returncode != 0:
    sys.exit("mariadb-install-db failed (make deps installs mariadb-server-core and mariadb-client-core):\n" + r.stdout + r.stderr)
server = subprocess.Popen([shutil.which("mariadbd") or "/usr/sbin/mariadbd", "--no-defaults", "--datadir=" + d + "/data", "--socket=" + d + "/sock",
                           "--skip-networking", "--user=root", "--skip-grant-tables", "--innodb-buffer-pool-size=8M",
                           "--log-error=" + d + "/err.log", "--pid-file=" + d + "/pid"])
try:
    while True:  # until the server answers on its socket (or has ended)
        try:
            db = pymysql.connect(unix_socket=d + "/sock", user="root", autocommit=True)
            break
        except pymysql.err.OperationalError:
            if server.poll() is not None:
                sys.exit("mariadbd ended: " + open(d + "/err.log").read())
            time.sleep(0.02)
    cur = db.cursor()
    cur.execute("CREATE DATABASE g")
    cur.execute("USE g")
    for line in sys.stdin:
        text, masked, cols, rows = json.loads(line)
        sql, whole = json.loads(masked)
        cols, rows = json.loads(cols), json.loads(rows)
        secrets = [v for r in rows for c, v in zip(cols, r) if c in SECRET]
        left = [v for v in secrets if any(v[i:i + 6] in whole for i in range(len(v) - 5))]
        if left:
            print(json.dumps("left %r in %r" % (left, whole)))
            continue
        want = [tuple(M if c in SECRET else v for c, v in zip(cols, r)) for r in rows]
        cur.execute("DROP TABLE IF EXISTS t")
        cur.execute("CREATE TABLE t (id INT, %s)" % ", ".join("%s %s" % (c, "BIGINT" if c == "n" else "TEXT") for c in cols))
        if text.startswith("UPDATE"):
            cur.execute("INSERT INTO t (id) VALUES (1)")
        try:
            cur.execute(sql)
            cur.execute("SELECT %s FROM t" % ", ".join(cols))
            got = [tuple(r) for r in cur.fetchall()]
            print(json.dumps("" if got == want else "got %r want %r" % (got, want)))
        except pymysql.err.MySQLError as e:
            print(json.dumps("%s: %s" % (type(e).__name__, e)))
finally:
    server.terminate()
    server.wait()
    shutil.rmtree(d)
`
