package redact

import (
	"strings"
	"testing"
)

func TestMaskCommands(t *testing.T) {
	for _, c := range []struct{ in, want, found string }{
		{"mysql -uroot -pS3cret app", "mysql -uroot -p[redacted] app", "S3cret"},
		{"mysql -uroot -p app", "mysql -uroot -p app", ""}, // -p apart: a prompt, then the database
		{"rabbitmqctl add_user ada S3cret-q && rabbitmqctl list_users ada x", "rabbitmqctl add_user ada [redacted] && rabbitmqctl list_users ada x", "S3cret-q"},
		{"['rabbitmqctl', 'change_password', 'ada', 'S3cret-q']", "['rabbitmqctl', 'change_password', 'ada', '[redacted]']", "S3cret-q"},
		{"$pw = ConvertTo-SecureString 'S3cret-q' -AsPlainText -Force", "$pw = ConvertTo-SecureString '[redacted]' -AsPlainText -Force", "S3cret-q"},
		{"$ /usr/bin/mysql --password=S3cret", "$ /usr/bin/mysql --password=[redacted]", "S3cret"},
		{"['mysql', '-uroot', '-pS3cret', 'app']", "['mysql', '-uroot', '-p[redacted]', 'app']", "S3cret"},
		{"('/usr/bin/curl', '-u', 'ada:pa ss', 'url')", "('/usr/bin/curl', '-u', 'ada:[redacted]', 'url')", "pa ss"},
		{"curl -u ada:S3cret https://x", "curl -u ada:[redacted] https://x", "S3cret"},
		{"curl -u ada https://x", "curl -u ada https://x", ""},
		{"curl --user 'ada:S3 cret' https://x", "curl --user 'ada:[redacted]' https://x", "S3 cret"},
		{"running: curl -uada:S3cret x", "running: curl -uada:[redacted] x", "S3cret"},
		{"'-pS3 cret'", "'-pS3 cret'", ""}, // no program
		{"mysql '-pS3 cret'", "mysql '-p[redacted]'", "S3 cret"},
		{`mysql -pS3"cr et"`, `mysql -p[redacted]""`, "S3cr et"},
		{`mysql '-pS3'x`, `mysql '-p[redacted]'`, "S3x"},
		{"sshpass -p S3cret ssh h", "sshpass -p [redacted] ssh h", "S3cret"},
		{"['sshpass', '-p', 'S3cret', 'ssh', 'h']", "['sshpass', '-p', '[redacted]', 'ssh', 'h']", "S3cret"},
		{"redis-cli -a S3cret ping", "redis-cli -a [redacted] ping", "S3cret"},
		{"docker login -u ada -p S3cret", "docker login -u ada -p [redacted]", "S3cret"},
		{"docker run -p 8080:80 img", "docker run -p 8080:80 img", ""},
		{"openssl rsa -passin pass:S3cret -passout env:PW", "openssl rsa -passin pass:[redacted] -passout env:PW", "S3cret"},
		{"smbclient //h/s -U ada%S3cret", "smbclient //h/s -U ada%[redacted]", "S3cret"},
		{"keytool -list -storepass S3cret", "keytool -list -storepass [redacted]", "S3cret"},
		{"'mysql -pS3cret'", "'mysql -p[redacted]'", "S3cret"},
		{"x = 'mysql -pS3cret', 'other'", "x = 'mysql -p[redacted]', 'other'", "S3cret"},
		{"mysql -pS3cret; ssh -p 22 h", "mysql -p[redacted]; ssh -p 22 h", "S3cret"},
		{"see https://x/mysql -pX", "see https://x/mysql -pX", ""},
		{"mysql -- -pS3cret", "mysql -- -pS3cret", ""},
		{"Command '['mysql', '-pS3cret']' returned non-zero exit status 1.", "Command '['mysql', '-p[redacted]']' returned non-zero exit status 1.", "S3cret"},
		{"bash -o pipefail -ec 'mysql -pS3cret app | gzip'", "bash -o pipefail -ec 'mysql -p[redacted] app | gzip'", "S3cret"},
		{"['bash', '-c', \"mysql -p'S3 cret'\"]", "['bash', '-c', \"mysql -p'[redacted]'\"]", "S3 cret"},
		{"docker exec db sh -c 'mysql -pS3cret'", "docker exec db sh -c 'mysql -p[redacted]'", "S3cret"},
		{"sqlplus -S ada/S3cret@//db:1521/orcl @report.sql", "sqlplus -S ada/[redacted]@//db:1521/orcl @report.sql", "S3cret"},
		{"sqlplus / as sysdba", "sqlplus / as sysdba", ""},
		{`sqlplus 'ada/"p@ss w"@db'`, `sqlplus 'ada/[redacted]@db'`, `"p@ss w"`},
		{"['sqlldr', 'userid=ada/S3cret@db', 'control=x.ctl']", "['sqlldr', 'userid=ada/[redacted]@db', 'control=x.ctl']", "S3cret"},
		{"rman target ada/S3cret@prod catalog rc/C4t@rcat", "rman target ada/[redacted]@prod catalog rc/[redacted]@rcat", "S3cret,C4t"},
		{"htpasswd -b /etc/nginx/.htpasswd ada S3cret", "htpasswd -b /etc/nginx/.htpasswd ada [redacted]", "S3cret"},
		{"htpasswd -nbBC 10 ada S3cret", "htpasswd -nbBC 10 ada [redacted]", "S3cret"},
		{"htpasswd -c /etc/pw ada", "htpasswd -c /etc/pw ada", ""}, // no -b: it asks
		{"net user ada S3cret /add", "net user ada [redacted] /add", "S3cret"},
		{"net user ada * /add", "net user ada * /add", ""},
		{"net user ada /delete", "net user ada /delete", ""},
		{"net user /domain ada S3cret", "net user /domain ada [redacted]", "S3cret"},
		{"['vault', 'login', 'hvs.S3cret']", "['vault', 'login', '[redacted]']", "hvs.S3cret"},
		{"vault login -method=userpass username=ada", "vault login -method=userpass username=ada", ""},
		{"ssh-keygen -t ed25519 -N S3cret -f k\nmysql -pA1b2", "ssh-keygen -t ed25519 -N [redacted] -f k\nmysql -p[redacted]", "S3cret,A1b2"},
	} {
		var found []string
		got, changed := maskCommands(c.in, func(v string) { found = append(found, v) })
		if got != c.want || changed != (c.want != c.in) {
			t.Errorf("%q:\n got %q\nwant %q", c.in, got, c.want)
		}
		if c.found != "" && !strings.Contains(strings.Join(found, ","), c.found) || c.found == "" && len(found) > 0 {
			t.Errorf("%q: found %q, want %q", c.in, found, c.found)
		}
	}
}

// TestCommandsAgreeWithPython: command lines of every program of the
// table, with secrets of any printable bytes (blanks, quotes, $, \, :),
// written as shlex.join writes them, as a list's repr (sys.argv), in a
// CalledProcessError's message, as a string's repr holding a shell's
// line and as sh -c's argument, after sudo, env, timeout, docker exec
// or kubectl exec too, are masked and read back by shlex.split and ast.literal_eval:
// every secret reads as the mask, every other argument as it was.
func TestCommandsAgreeWithPython(t *testing.T) {
	againstPython(t, commandDocs, commandCheck, 5000, func(s string) string { out, _ := maskCommands(s, nil); return out })
}

const commandDocs = `
import json, random, shlex, subprocess, sys
rng = random.Random(int(sys.argv[1]))
M = "[redacted]"
def secret():
    chars = "abcXYZ019 '\"$\\\\:%,-=!#;&|()[]{}*?~^"  # no @: it ends an Oracle connect string's password
    s = "".join(rng.choice(chars) for _ in range(rng.randint(1, 12)))
    return rng.choice(["s3", "S3", "k9"]) + s
def forms(s):
    # (program, [arguments], [arguments masked]) for each option of the table
    g = lambda o, u="": ([o + u + s], [o + u + M])
    a = lambda o, u="": ([o, u + s], [o, u + M])
    return [
        ("mysql",) + g("-p"), ("mysqldump",) + g("--password="), ("mariadb",) + g("-p"),
        ("curl",) + a("-u", "ada:"), ("curl",) + g("-u", "ada:"), ("curl",) + a("--user", "ada:"),
        ("curl",) + a("-U", "px:"), ("curl",) + a("--proxy-user", "px:"), ("curl",) + a("-E", "c.pem:"), ("curl",) + a("--pass"),
        ("wget",) + a("--http-password"), ("wget",) + g("--password="), ("sshpass",) + a("-p"), ("sshpass",) + g("-p"),
        ("redis-cli",) + a("-a"), ("ldapsearch",) + a("-w"), ("ldapsearch",) + g("-w"), ("ldappasswd",) + a("-s"),
        ("zip",) + a("-P"), ("7z",) + g("-p"), ("openssl",) + a("-passin", "pass:"), ("openssl",) + a("-passout", "pass:"),
        ("keytool",) + a("-storepass"), ("jarsigner",) + a("-keypass"), ("smbclient",) + a("-U", "ada%"),
        ("smbclient",) + g("--user=", "ada%"), ("sqlcmd",) + g("-P"), ("mongosh",) + a("-p"), ("mongodump",) + g("--password="),
        ("mosquitto_pub",) + a("-P"), ("ssh-keygen",) + a("-N"), ("ssh-keygen",) + g("-P"), ("lftp",) + a("-u", "ada,"),
        ("snmpwalk",) + a("-A"), ("snmpget",) + g("-X"), ("snmpwalk",) + a("-c"), ("snmpbulkget",) + g("-c"),
        ("sqlplus", ["-S", "ada/" + s + "@db"], ["-S", "ada/" + M + "@db"]), ("expdp", ["ada/" + s + "@db"], ["ada/" + M + "@db"]),
        ("sqlldr", ["userid=ada/" + s + "@//h:1521/x"], ["userid=ada/" + M + "@//h:1521/x"]),
        ("rman", ["target", "ada/" + s + "@prod"], ["target", "ada/" + M + "@prod"]),
        ("htpasswd", ["-b", "/etc/pw", "ada", s], ["-b", "/etc/pw", "ada", M]), ("htpasswd", ["-nbB", "ada", s], ["-nbB", "ada", M]),
        ("htpasswd", ["-bBC", "10", "f", "ada", s], ["-bBC", "10", "f", "ada", M]), ("htpasswd", ["-b", "-r", "9", "-c", "f", "ada", s], ["-b", "-r", "9", "-c", "f", "ada", M]),
        ("net", ["user", "ada", s], ["user", "ada", M]), ("net.exe", ["user", "ada", s, "/add"], ["user", "ada", M, "/add"]),
        ("nmcli", ["device", "wifi", "connect", "Home-5G", "password", s], ["device", "wifi", "connect", "Home-5G", "password", M]),
        ("nmcli", ["connection", "modify", "home", "wifi-sec.psk", s], ["connection", "modify", "home", "wifi-sec.psk", M]),
        ("wpa_passphrase", ["Home-5G", s], ["Home-5G", M]),
        ("vault", ["login", s.replace("=", "")], ["login", M]), ("vault", ["login", "-no-print", s.replace("=", "")], ["login", "-no-print", M]),
        ("rabbitmqctl", ["add_user", "ada", s], ["add_user", "ada", M]), ("rabbitmqctl", ["change_password", "ada", s], ["change_password", "ada", M]),
        ("ConvertTo-SecureString", [s, "-AsPlainText", "-Force"], [M, "-AsPlainText", "-Force"]), ("ConvertTo-SecureString", ["-String", s, "-AsPlainText"], ["-String", M, "-AsPlainText"]),
        ("xfreerdp",) + g("/p:"), ("xfreerdp3", ["/u:ada", "/p:" + s, "/v:host"], ["/u:ada", "/p:" + M, "/v:host"]), ("sdl-freerdp",) + g("/gp:"),
        ("wlfreerdp",) + g("/pth:"), ("rdesktop",) + a("-p"), ("rdesktop",) + g("-p"), ("plink",) + a("-pw"), ("pscp",) + a("-pw"),
        ("ipmitool",) + a("-P"), ("ipmitool",) + g("-P"), ("mysqladmin", ["password", s], ["password", M]),
        ("mysqladmin", ["-u", "root", "password", s], ["-u", "root", "password", M]), ("cqlsh",) + a("-p"), ("mycli",) + g("--password="),
        ("influx",) + a("-password"), ("clickhouse-client",) + a("--password"), ("svn",) + g("--password="),
        ("db2", ["connect", "to", "sample", "user", "ada", "using", s], ["connect", "to", "sample", "user", "ada", "using", M]),
        ("http",) + a("-a", "ada:"), ("http",) + g("--auth=", "ada:"), ("etcdctl",) + g("--user=", "root:"), ("etcdctl",) + a("--password"),
        ("curl",) + a("--oauth2-bearer"),
    ]
NOISE = ["-v", "-q", "--verbose", "--host=db", "db.example", "some file.txt", "x:y", "$HOME", "it's", "a\"b", "-h", "10.0.0.1"]
n = int(sys.argv[2])
for i in range(n):
    s = secret()
    prog, args, masked = rng.choice(forms(s))
    path = rng.choice(["", "/usr/bin/", "/opt/x y/"])
    pre = [rng.choice(NOISE) for _ in range(rng.randint(0, 2))]
    if prog in ("sqlplus", "expdp", "htpasswd", "wpa_passphrase", "rabbitmqctl", "ConvertTo-SecureString", "mysqladmin", "db2"):  # the secret is the nth argument that is no option
        pre = [w for w in pre if w.startswith("-")]
    post = [rng.choice(NOISE) for _ in range(rng.randint(0, 2))]
    lead = ["login"] if prog in ("docker", "podman") else []
    argv = [path + prog] + lead + pre + args + post
    want = [path + prog] + lead + pre + masked + post
    if rng.random() < 0.2:
        argv = rng.choice([["sudo"], ["env", "A=1"], ["timeout", "5"], ["docker", "exec", "-i", "db"], ["kubectl", "exec", "pod", "--"]]) + argv
        want = argv[:len(argv) - len(want)] + want
    form = rng.choice(["shell", "list", "tuple", "error", "repr", "sh"])
    if form == "shell":
        text = rng.choice(["", "$ ", "running: "]) + shlex.join(argv)
    elif form == "list":
        text = repr(argv)
    elif form == "tuple":
        text = repr(tuple(argv))
    elif form == "error":
        text = str(subprocess.CalledProcessError(1, argv))
    elif form == "repr":
        text = repr(shlex.join(argv))
    else:
        text = shlex.join(["sh", "-c", shlex.join(argv)])
    print(json.dumps([text, form, json.dumps(want), s]))
`

const commandCheck = `
import ast, json, shlex, subprocess, sys
for line in sys.stdin:
    text, masked, form, want, s = json.loads(line)
    want = json.loads(want)
    try:
        if form == "shell":
            got = shlex.split(masked)
            got = got[len(got) - len(want):]  # after "$ " or "running: "
        elif form in ("list", "tuple"):
            got = list(ast.literal_eval(masked))
        elif form == "error":
            pre, post = "Command '", "' returned non-zero exit status 1."
            if not masked.startswith(pre) or not masked.endswith(post):
                raise ValueError("not the message")
            got = ast.literal_eval(masked[len(pre):-len(post)])
        elif form == "repr":
            got = shlex.split(ast.literal_eval(masked))
        else:
            sh = shlex.split(masked)
            if sh[:2] != ["sh", "-c"] or len(sh) != 3:
                raise ValueError("not sh -c: %r" % sh)
            got = shlex.split(sh[2])
    except Exception as e:
        got = ["does not parse: %r" % e]
    print(json.dumps("" if got == want else "got %r, want %r" % (got, want)))
`

// FuzzMaskCommands: any text is masked without a panic and keeps its
// line ends.
func FuzzMaskCommands(f *testing.F) {
	fuzzKeepsLines(f, func(t *testing.T, s string) string { out, _ := maskCommands(s, nil); return out },
		"mysql -pS3 '-pA\"b'", "['curl', '-u', 'a:b\\'c']", "sh -c 'sh -c '\"'\"'mysql -pX'\"'\"''", "x = 'ldappasswd -s \\'p\\'', 1\n7z -p")
}

// BenchmarkMaskCommands: a line of many commands, each in a string of
// its own, is read in its length's time.
func BenchmarkMaskCommands(b *testing.B) {
	for _, c := range []struct{ name, s string }{
		{"strings", strings.Repeat("'mysql -pS3cret', ", 5000)},
		{"words", strings.Repeat("mysql -x ", 5000)},
		{"words2", strings.Repeat("mysql -x ", 10000)},
	} {
		b.Run(c.name, func(b *testing.B) {
			for b.Loop() {
				maskCommands(c.s, nil)
			}
		})
	}
}

// TestShellQuotingAgreesWithBash: what bash writes of variables that hold
// secrets (declare -p, export -p, set, printf %q: "...", '...', $'...'
// with its escapes, a blank escaped by a backslash), as printed and as the
// repr of a variable that keeps it, values with blanks, quotes,
// backslashes, dollars, tabs, line ends and other letters: no run
// of 8 letters and digits of a secret left, the other variables' values
// shown.
func TestShellQuotingAgreesWithBash(t *testing.T) {
	againstPython(t, shellDocs, shellCheck, 400, func(s string) string { out, _ := maskText(s, nil); return out })
}

const shellDocs = `
import json, os, random, string, subprocess, sys
rng = random.Random(int(sys.argv[1]))
NAMES = ["DB_PASSWORD", "API_TOKEN", "PGPASSWORD", "CLIENT_SECRET", "AWS_SECRET_ACCESS_KEY", "password"]
ODD = " '\"\\\\$\t\n!*?;&|<>()é\x01"
def secret():
    s = "S"
    for _ in range(rng.randint(12, 24)):
        s += rng.choice(ODD) if rng.random() < 0.2 else rng.choice(string.ascii_letters + string.digits)
    return s
for n in range(int(sys.argv[2])):
    names = rng.sample(NAMES, rng.randint(1, 3))
    env = {k: v for k, v in os.environ.items() if k not in NAMES}
    secrets = {k: secret() for k in names}
    env.update(secrets)
    control = "ctrl%dvalue" % n
    env["USER_NAME"] = control
    shown = names + ["USER_NAME"]
    script = rng.choice([
        "declare -p " + " ".join(shown),
        "export -p | grep -E '^declare -x (%s)='" % "|".join(shown),
        "for v in %s; do printf '%%s=%%q\\n' \"$v\" \"${!v}\"; done" % " ".join(shown),
        "set | grep -aE '^(%s)='" % "|".join(shown),
    ])
    out = subprocess.run(["bash", "-c", script], env=env, capture_output=True, text=True).stdout
    if rng.random() < 0.5:
        out = repr(out)  # as a variable that keeps it shows it
    print(json.dumps([out, json.dumps(list(secrets.values())), control]))
`

const shellCheck = `
import json, re, sys
for line in sys.stdin:
    text, masked, secrets, control = json.loads(line)
    bad = []
    for s in json.loads(secrets):
        for run in re.findall(r"[A-Za-z0-9]{8,}", s):
            if any(run[i:i + 8] in masked for i in range(len(run) - 7)):
                bad.append((s, run))
    print(json.dumps("left %r" % bad if bad else "" if control in masked else "the control masked"))
`

func TestMaskLogins(t *testing.T) {
	imap, smtp := maskIMAPLogin, maskSMTPAuth
	for _, c := range []struct {
		mask            func(string, func(string)) (string, bool)
		in, want, found string
	}{
		{imap, "  09:10.04 > b'CJKG1 LOGIN ada \"S3c \\\\\"r\\\\\\\\t\"'", "  09:10.04 > b'CJKG1 LOGIN ada \"[redacted]\"'", "S3c \\\\\"r\\\\\\\\t"},
		{imap, "A1 LOGIN ada S3cretAtom\r\n", "A1 LOGIN ada [redacted]\r\n", "S3cretAtom"},
		{smtp, `captured = "send: 'AUTH LOGIN YWRh\\r\\n'\nreply: b'334 UGFzc3dvcmQ6\\r\\n'\nreply: retcode (334); Msg: b'UGFzc3dvcmQ6'\nsend: 'UzNjcjN0LXgx\\r\\n'\nreply: retcode (235); Msg: b'ok'\n"`,
			`captured = "send: 'AUTH LOGIN YWRh\\r\\n'\nreply: b'334 UGFzc3dvcmQ6\\r\\n'\nreply: retcode (334); Msg: b'UGFzc3dvcmQ6'\nsend: '[redacted]\\r\\n'\nreply: retcode (235); Msg: b'ok'\n"`, "UzNjcjN0LXgx"}, // a capture's repr
		{imap, "a001 LOGIN \"ada b\" \"p w\"", "a001 LOGIN \"ada b\" \"[redacted]\"", "p w"},
		{imap, "the LOGIN page for ada", "the LOGIN page for ada", ""},
		{smtp, "send: 'AUTH LOGIN YWRh\\r\\n'\nreply: retcode (334); Msg: b'UGFzc3dvcmQ6'\nsend: 'UzNjcmV0\\r\\n'\nreply: retcode (235); Msg: b'ok'\nsend: 'quit\\r\\n'\n",
			"send: 'AUTH LOGIN YWRh\\r\\n'\nreply: retcode (334); Msg: b'UGFzc3dvcmQ6'\nsend: '[redacted]\\r\\n'\nreply: retcode (235); Msg: b'ok'\nsend: 'quit\\r\\n'\n", "UzNjcmV0"},
		{smtp, "send: 'mail FROM:<ada@x>\\r\\n'\n", "send: 'mail FROM:<ada@x>\\r\\n'\n", ""},
	} {
		var found []string
		got, _ := c.mask(c.in, func(v string) { found = append(found, v) })
		if got != c.want || strings.Join(found, ",") != c.found {
			t.Errorf("%q:\n got %q %q\nwant %q %q", c.in, got, found, c.want, c.found)
		}
	}
}

// TestIMAPLoginAgreesWithImaplib: what imaplib's debug lines show of a
// LOGIN to a server on loopback (its password quoted, a quote or a
// backslash escaped, then the repr's escapes), printed and as a repr:
// no run of 8 letters and digits of a password left, the user shown.
func TestIMAPLoginAgreesWithImaplib(t *testing.T) {
	againstPython(t, imapDocs, shellCheck, 60, func(s string) string { out, _ := maskText(s, nil); return out })
}

const imapDocs = `
import contextlib, imaplib, io, json, random, socket, string, sys, threading
rng = random.Random(int(sys.argv[1]))
def serve(srv):
    c, _ = srv.accept()
    f = c.makefile("rwb")
    f.write(b"* OK ready\r\n"); f.flush()
    for line in f:
        tag, cmd = line.split()[:2]
        if cmd.upper() == b"LOGOUT":
            f.write(b"* BYE\r\n" + tag + b" OK\r\n"); f.flush()
            break
        if cmd.upper() == b"CAPABILITY":
            f.write(b"* CAPABILITY IMAP4rev1\r\n")
        f.write(tag + b" OK done\r\n"); f.flush()
    c.close()
for n in range(int(sys.argv[2])):
    pw = "S" + "".join(rng.choice(string.ascii_letters + string.digits) if rng.random() < 0.8 else rng.choice(" \"\\\\'!$") for _ in range(rng.randint(10, 20)))
    user = "ctrl%duser" % n
    srv = socket.socket()
    srv.bind(("127.0.0.1", 0))
    srv.listen(1)
    threading.Thread(target=serve, args=(srv,), daemon=True).start()
    err = io.StringIO()
    with contextlib.redirect_stderr(err):
        m = imaplib.IMAP4("127.0.0.1", srv.getsockname()[1])
        m.debug = 4
        m.login(user, pw)
        m.logout()
    srv.close()
    out = err.getvalue()
    if rng.random() < 0.5:
        out = repr(out)
    print(json.dumps([out, json.dumps([pw]), user]))
`

// FuzzMaskLogins: no text makes maskIMAPLogin or maskSMTPAuth fail, and
// each keeps a text's lines.
func FuzzMaskLogins(f *testing.F) {
	fuzzKeepsLines(f, func(t *testing.T, s string) string {
		out, _ := maskIMAPLogin(s, nil)
		out, _ = maskSMTPAuth(out, nil)
		return out
	}, "A1 LOGIN ada \"x\\\"", "A1 LOGIN \"ada", "A1 LOGIN ada\n\"x\"", " LOGIN  ", "send: 'AUTH LOGIN x'\nsend: '", "send: b'AUTH \nsend: \"\"\n")
}

// TestSMTPAuthAgreesWithSmtplib: what smtplib's debug lines show of an
// AUTH LOGIN or AUTH PLAIN to a server on loopback, printed or captured and
// shown as a string's repr (once or twice, its line ends escaped): no run
// of 8 letters and digits of the password's base64 left, the EHLO shown.
func TestSMTPAuthAgreesWithSmtplib(t *testing.T) {
	againstPython(t, smtpDocs, shellCheck, 100, func(s string) string { out, _ := maskText(s, nil); return out })
}

const smtpDocs = `
import base64, contextlib, io, json, random, smtplib, socket, string, sys, threading
rng = random.Random(int(sys.argv[1]))
def serve(srv):
    c, _ = srv.accept()
    f = c.makefile("rwb")
    f.write(b"220 hi\r\n"); f.flush()
    for line in f:
        l = line.strip().upper()
        if l.startswith(b"EHLO"):
            f.write(b"250-hi\r\n250 AUTH LOGIN PLAIN\r\n")
        elif l == b"AUTH LOGIN" or l.startswith(b"AUTH LOGIN "):
            f.write(b"334 UGFzc3dvcmQ6\r\n")
        elif l.startswith(b"QUIT"):
            f.write(b"221 bye\r\n"); f.flush()
            break
        else:
            f.write(b"235 ok\r\n")
        f.flush()
    c.close()
for n in range(int(sys.argv[2])):
    pw = "S" + "".join(rng.choice(string.ascii_letters + string.digits + " !$") for _ in range(rng.randint(10, 20)))
    mech = rng.choice(["LOGIN", "PLAIN"])
    srv = socket.socket()
    srv.bind(("127.0.0.1", 0))
    srv.listen(1)
    threading.Thread(target=serve, args=(srv,), daemon=True).start()
    err = io.StringIO()
    with contextlib.redirect_stderr(err):
        s = smtplib.SMTP("127.0.0.1", srv.getsockname()[1])
        s.set_debuglevel(1)
        s.ehlo()
        s.esmtp_features["auth"] = mech
        s.login("ctrl%d" % n, pw)
        s.quit()
    srv.close()
    # the password as the trace shows it: its base64 (PLAIN's after the user's part)
    shown = base64.b64encode(pw.encode()).decode() if mech == "LOGIN" else base64.b64encode(("\0ctrl%d\0" % n + pw).encode()).decode()[8:]
    text = rng.choice([lambda t: t, repr, lambda t: repr(repr(t)), lambda t: "captured = %r" % (t,)])(err.getvalue())  # printed, or the capture's repr
    print(json.dumps([text, json.dumps([shown]), "ehlo [127.0.0.1]"]))
`
