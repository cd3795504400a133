package redact

import (
	"encoding/json"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/debugpy-guard/debugpy-guard/plugins/sdk"
	"github.com/debugpy-guard/debugpy-guard/policies/internal/policytest"
)

func TestMaskShapes(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"Bearer eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmN", "Bearer [redacted]"},
		{"eyJabc.def", "eyJabc.def"}, // too short to be a token
		// a password's hash: crypt(3)'s, bcrypt, htpasswd's, Django's; not a price or a variable
		{"root:$6$rounds=5000$saltsalt$Hx0jRkNwfcKL5GtWl7Te.W1Gu7aUCb0Er:19000:0:::", "root:[redacted]:19000:0:::"},
		{"ada:$apr1$abcd1234$S3cretHashXyzAbc012345.", "ada:[redacted]"},
		{"pbkdf2_sha256$600000$saltsalt$S3cretHashBase64AbcDefGhi0123=", "[redacted]"},
		{"price $5 and $6 total, $1$ab$short, echo $HOME", "price $5 and $6 total, $1$ab$short, echo $HOME"},
		// after a '=' (an environment's line, an option): a hash's own byte, yet no word's
		{"ADMIN_HASH=$6$saltsalt$Hx0jRkNwfcKL5GtWl7Te.W1Gu7aUCb0Er", "ADMIN_HASH=[redacted]"},
		{"--hash=pbkdf2_sha256$600000$saltsalt$S3cretHashBase64AbcDefGhi0123=", "--hash=[redacted]"},
		{"a$6$saltsalt$Hx0jRkNwfcKL5GtWl7Te.W1Gu7aUCb0Er x.pbkdf2_sha256$1$s$S3cretHashBase64AbcDefGhi0123=", "a$6$saltsalt$Hx0jRkNwfcKL5GtWl7Te.W1Gu7aUCb0Er x.pbkdf2_sha256$1$s$S3cretHashBase64AbcDefGhi0123="}, // inside a word
		// MySQL's native hash, as mysql.user shows it; an LDAP userPassword's
		{"| root | *2470C0C06DEE42FD1618BB99005ADCA2EC9D1E19 |", "| root | [redacted] |"},
		{"x*2470C0C06DEE42FD1618BB99005ADCA2EC9D1E19 *2470C0C06DEE42FD1618BB99005ADCA2EC9D1E1 *2470c0c06dee42fd1618bb99005adca2ec9d1e19", "x*2470C0C06DEE42FD1618BB99005ADCA2EC9D1E19 *2470C0C06DEE42FD1618BB99005ADCA2EC9D1E1 *2470c0c06dee42fd1618bb99005adca2ec9d1e19"},
		{"h = '{ssha}W6ph5Mm5Pz8GgiULbPgzG37mj9g=' and {CRYPT}$6$saltsalt$Hx0jRkNwfcKL5GtWl7Te.W1Gu7aUCb0Er", "h = '[redacted]' and [redacted]"},
		{"{SHA}short {note}W6ph5Mm5Pz8GgiULbPgzG37mj9g=", "{SHA}short {note}W6ph5Mm5Pz8GgiULbPgzG37mj9g="},
		// a PEM private key in base64, as a Kubernetes secret holds it; a certificate kept
		{"tls.crt: LS0tLS1CRUdJTiBDRVJUSUZJQ0FURS0tLS0tCk1JSUI=\ntls.key: LS0tLS1CRUdJTiBSU0EgUFJJVkFURSBLRVktLS0tLQpNSUlFb3dJQkFBS0NBUUVBYWJjZGVmZ2hpamtsbW5vcAotLS0tLUVORCBSU0EgUFJJVkFURSBLRVktLS0tLQo=\n",
			"tls.crt: LS0tLS1CRUdJTiBDRVJUSUZJQ0FURS0tLS0tCk1JSUI=\ntls.key: [redacted]\n"},
		// PuTTY's key file: its private lines, which no banner marks
		{"Public-Lines: 1\nAAAAC3NzaC1lZDI1NTE5AAAAIHx\nPrivate-Lines: 2\nAAAAIGs3cr3t\nAAAAIGmore\nPrivate-MAC: 0123\n",
			"Public-Lines: 1\nAAAAC3NzaC1lZDI1NTE5AAAAIHx\nPrivate-Lines: 2\n[redacted]\n[redacted]\nPrivate-MAC: 0123\n"},
		{`'Private-Lines: 2\nAAAAIGs3cr3t\nAAAAIGmore\nPrivate-MAC: 0123\n'`, `'Private-Lines: 2\n[redacted]\nPrivate-MAC: 0123\n'`}, // in a repr
		// a URL's password cut short before its '@' (found 2026-12-08): a
		// log's url[:40], a slice, pydevd's cut; not a port, a list of
		// hosts' ports, a placeholder or a template
		{"https://ada:S3cr3t-", "https://ada:[redacted]"},
		{"['https://ada:S3cr3t-', 'x'] sent https://ada:pW0rd... (truncated)", "['https://ada:[redacted]', 'x'] sent https://ada:[redacted]... (truncated)"},
		{"'postgres://app:p4ss...example.org/app'", "'postgres://app:[redacted]...example.org/app'"},
		{" * Running on http://127.0.0.1:5000\x1b[0m 'http://127.0.0.1:5000\\x1b[0m'", " * Running on http://127.0.0.1:5000\x1b[0m 'http://127.0.0.1:5000\\x1b[0m'"},
		{"mongodb://h1:27017,h2:27017/db https://example.com:443. ws://host:port http://{host}:{port} http://%s:%d http://[::1]:8080 http://localhost:${PORT}",
			"mongodb://h1:27017,h2:27017/db https://example.com:443. ws://host:port http://{host}:{port} http://%s:%d http://[::1]:8080 http://localhost:${PORT}"},
		// HTTP Basic credentials, named or not: base64 of user:password
		{"sending Basic dXNlcjpwYXNz to host", "sending Basic [redacted] to host"},
		{"auth=basic  YWRhOmh1bnRlcjI=, x", "auth=basic  [redacted], x"},
		{`'GET / HTTP/1.1\r\nBasic dXNlcjpwYXNz'`, `'GET / HTTP/1.1\r\nBasic [redacted]'`}, // after a repr's escape
		{"Basic usage: run it. Basic authentication. Basic YWRtaW4= xBasic dXNlcjpwYXNz", "Basic usage: run it. Basic authentication. Basic YWRtaW4= xBasic dXNlcjpwYXNz"},
		{"x eyJhb.eyJzd.sig12 y eyJhb.eyJzd.sig34", "x [redacted] y [redacted]"},
		// shapes that overlap: the union is masked (a JWT's shape inside a
		// hash's last field, as crypt wrote it once in TestPasswordHashesAgreeWithCrypt)
		{"u: $6$jJtrP/XQuXcSG7gg$9caqIp5ecbg0reyJ812zQGzEW3ynxq25PJEOEVTvru8u4T8RumHEMBIelJZbbnmMyxOsLovk.awYDZ.LD8OGa1", "u: [redacted]"},
		{"https://u:eyJhb.eyJzd.sig12-AKIAIOSFODNN7EXAMPLE@h/ x", "https://u:[redacted]@h/ x"},
		{"-----BEGIN RSA PRIVATE KEY-----\nMIIE\n-----END RSA PRIVATE KEY----- after", "[redacted]\n[redacted]\n[redacted] after"}, // its lines kept
		{"-----BEGIN EC PRIVATE KEY-----\r\nMHQ\r\n-----END EC PRIVATE KEY-----\r\n", "[redacted]\r\n[redacted]\r\n[redacted]\r\n"},
		{"-----BEGIN PRIVATE KEY-----\nMIIE cut", "[redacted]\n[redacted]"},
		{"-----BEGIN CERTIFICATE-----\nMIIE", "-----BEGIN CERTIFICATE-----\nMIIE"}, // public: kept
		{"{'key': 'AKIAIOSFODNN7EXAMPLE'}", "{'key': '[redacted]'}"},
		{"ASIAIOSFODNN7EXAMPLEX", "ASIAIOSFODNN7EXAMPLEX"}, // 17: not a key id
		{"xAKIAIOSFODNN7EXAMPLE", "xAKIAIOSFODNN7EXAMPLE"}, // not a word of its own
		// after an escape, as a repr or JSON writes a text's lines: a word's start
		{`'AKIAIOSFODNN7EXAMPLE\nAKIAIOSFODNN7EXAMPLF\tASIAIOSFODNN7EXAMPLG'`, `'[redacted]\n[redacted]\t[redacted]'`},
		{`"ghp_aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\nghp_bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb\u2028sk_live_abcdefghijklmnopqr"`, `"[redacted]\n[redacted]\u2028[redacted]"`},
		{`'\x1bghp_bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb'`, `'\x1b[redacted]'`},
		{"xghp_bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb", "xghp_bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb"}, // inside a word
		{"Asia/Tokyo", "Asia/Tokyo"},
		{"ParseResult(scheme='postgres', netloc='app:p%40ss-1@db:5432', path='/app')", "ParseResult(scheme='postgres', netloc='app:[redacted]@db:5432', path='/app')"},
		{`{"netloc": "app:pw-1@db"}`, `{"netloc": "app:[redacted]@db"}`},
		{"SplitResult(netloc='db:5432', path='/a@b')", "SplitResult(netloc='db:5432', path='/a@b')"},
	} {
		if got, _ := maskShapes(c.in, nil); got != c.want {
			t.Errorf("maskShapes(%q) = %q, want %q", c.in, got, c.want)
		}
	}
	// A URL's password is handed over as written and as the program holds
	// it, percent-decoded.
	for _, c := range []struct{ in, found string }{
		{"postgres://app:p%40ss-s3cret%21@db/x", "p%40ss-s3cret%21,p@ss-s3cret!"},
		{"redis://:pl%41in%zz%4@cache", "pl%41in%zz%4,plAin%zz%4"},
		{"https://u:plain@h", "plain"},
		{"Basic YWRhOmh1bnRlcjI=", "YWRhOmh1bnRlcjI=,hunter2"}, // and its password, as the program holds it
	} {
		var got []string
		maskShapes(c.in, func(v string) { got = append(got, v) })
		if strings.Join(got, ",") != c.found {
			t.Errorf("maskShapes(%q) handed over %q, want %q", c.in, got, c.found)
		}
	}
}

// TestWholeShapes: a mask that would cut a credential of a well-known shape
// short covers it whole, and the host is handed it; one beside a shape
// leaves it to maskShapes.
func TestWholeShapes(t *testing.T) {
	const argon = "$argon2id$v=19$m=65536,t=3,p=4$c2FsdHNhbHRzYWx0$Zm9vYmFyYmF6cXV4cXV1eHh4eHh4eHh4"
	jwt := "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmN"
	for _, c := range []struct {
		in     string
		spans  [][2]int
		want   string
		handed []string
	}{
		{"password=" + argon, [][2]int{{9, 20}}, "password=[redacted]", []string{argon}},                               // the pair's value read to its '='
		{"k: abc " + jwt + " x", [][2]int{{3, 15}}, "k: [redacted] x", []string{jwt}},                                  // a span over a shape's start
		{"k: " + jwt + " " + jwt, [][2]int{{3 + len(jwt) - 4, 3 + len(jwt) + 5}}, "k: [redacted]", []string{jwt, jwt}}, // over two, joined
		{"k: abc " + jwt, [][2]int{{3, 6}}, "k: [redacted] " + jwt, nil},                                               // beside one
		{"k: " + jwt, [][2]int{{0, 3 + len(jwt)}}, "[redacted]", nil},                                                  // holding one whole
	} {
		sdk.TakeSecrets()
		if got := writeSpans(c.in, c.spans, remember); got != c.want {
			t.Errorf("writeSpans(%q, %v) = %q, want %q", c.in, c.spans, got, c.want)
		}
		if got := sdk.TakeSecrets(); !slices.Equal(got, c.handed) {
			t.Errorf("writeSpans(%q, %v) handed over %q, want %q", c.in, c.spans, got, c.handed)
		}
	}
	// Through the masks: password='s pair ends at the hash's '=', where
	// the rest read as no hash.
	if got, _ := maskText("password="+argon+"\nuser=ada", nil); got != "password=[redacted]\nuser=ada" {
		t.Errorf("maskText = %q", got)
	}
}

func TestSecretNames(t *testing.T) {
	for _, n := range []string{"password", "DB_PASSWORD", "passwd", "apiKey", "api_key", "client_secret", "auth_header", "refresh_token", "privateKey",
		"pass", "DB_PASS", "smtp_pw"} {
		if !isSecretName(n, nil) {
			t.Errorf("%s is a secret's name", n)
		}
	}
	for _, n := range []string{"user", "items", "bypass", "keys", strings.Repeat("x", 100)} {
		if isSecretName(n, nil) {
			t.Errorf("%s is not a secret's name", n)
		}
	}
	if !isSecretName("ssn", map[string]bool{"ssn": true}) {
		t.Error("settings.names are secret names")
	}
}

func TestMaskAssignments(t *testing.T) {
	for _, c := range []struct{ in, want, found string }{
		{`DB_PASSWORD = "s3cr3t-hunter2"`, `DB_PASSWORD = "[redacted]"`, "s3cr3t-hunter2"},
		{"AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI/K7MDENG\nAWS_REGION=eu-west-1\n", "AWS_SECRET_ACCESS_KEY=[redacted]\nAWS_REGION=eu-west-1\n", "wJalrXUtnFEMI/K7MDENG"},
		{"export GITHUB_TOKEN='abc def'", "export GITHUB_TOKEN='[redacted]'", "abc def"},
		{`  "api_key": "k-123",`, `  "api_key": "[redacted]",`, "k-123"},
		{"password: hunter22 # old", "password: [redacted]", "hunter22 # old"}, // configparser's value, comment and all
		{"DB_PASSWORD = os.environ['DB_PASSWORD']", "DB_PASSWORD = os.environ['DB_PASSWORD']", ""},
		{"if password == other:", "if password == other:", ""},
		{"author = 'Ada'", "author = 'Ada'", ""},
		{"password = hunter two words", "password = [redacted]", "hunter two words"},
		{"token: x y z  # rotated", "token: [redacted]", "x y z  # rotated"},
		{"PASSWORD=abc#def", "PASSWORD=[redacted]", "abc#def"}, // a '#' inside a word is the value's
		{"password=abc,def;ghi", "password=[redacted]", "abc,def;ghi"},
		{`  "secret": 1234,`, `  "secret": [redacted],`, "1234"},
		{"password := read()", "password := read()", ""},
		{"password = a if b else f(c)", "password = [redacted] if b else f(c)", "a"},
		// YAML: a block under a secret's key (yaml.dump of a dict, of a list).
		{"api_key:\n  prod: k-1x\n  dev: 'k 2x'\n  retries: 3\nname: app\n", "api_key:\n  prod: [redacted]\n  dev: '[redacted]'\n  retries: [redacted]\nname: app\n", "k-1x,k 2x,3"},
		{"passwords:\n- p-1x\n- \"p-2x\" # old\nhost: db", "passwords:\n- [redacted]\n- \"[redacted]\" # old\nhost: db", "p-1x,p-2x"},
		{"db:\n  token:\n    value: t-1x\n\n    scopes:\n    - read\n  host: x\n", "db:\n  token:\n    value: [redacted]\n\n    scopes:\n    - [redacted]\n  host: x\n", "t-1x,read"},
		{"users:\n- name: ada\n  password: p-1x\n- password: p-2x\n  name: bob\n", "users:\n- name: ada\n  password: [redacted]\n- password: [redacted]\n  name: bob\n", "p-1x,p-2x"},
		{"- secret:\n    k: v-1x\n- other: v\n", "- secret:\n    k: [redacted]\n- other: v\n", "v-1x"},
		{"token:   # below\r\n  \"k\": \"v-1x\"\r\nx: 1\r\n", "token:   # below\r\n  \"k\": \"[redacted]\"\r\nx: 1\r\n", "v-1x"},
		{"password:\nname: ada\n", "password:\nname: ada\n", ""}, // an empty value, then the next key
		// An INI section or a TOML table named for a secret: every value in it.
		{"[db]\nhost = x\n[api_keys]\nprod = k-1x\ndev: \"k 2x\"\n\n[app]\nname = y\n", "[db]\nhost = x\n[api_keys]\nprod = [redacted]\ndev: \"[redacted]\"\n\n[app]\nname = y\n", "k-1x,k 2x"},
		{"[credentials.\"prod\"]  # live\nkey_id = \"a-1x\"\n[[servers]]\nip = \"10.0.0.1\"\n", "[credentials.\"prod\"]  # live\nkey_id = \"[redacted]\"\n[[servers]]\nip = \"10.0.0.1\"\n", "a-1x"},
		{"['password']\nx = 1\n", "['password']\nx = 1\n", ""}, // a list's repr, not a header
	} {
		var got []string
		out, _ := maskAssignments(c.in, nil, func(v string) { got = append(got, v) })
		if out != c.want || strings.Join(got, ",") != c.found {
			t.Errorf("maskAssignments(%q) = %q %q, want %q %q", c.in, out, got, c.want, c.found)
		}
	}
}

func TestMaskTokenShapes(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"ghp_" + strings.Repeat("a1", 18), "[redacted]"},
		{"token github_pat_" + strings.Repeat("B", 60) + " end", "token [redacted] end"},
		{"xoxb-1234567890-abcdefghij", "[redacted]"},
		{"stripe sk_live_51HxYzAbCdEfGhIjKlMn", "stripe [redacted]"},
		{"pk_live_51HxYzAbCdEfGhIjKlMn", "pk_live_51HxYzAbCdEfGhIjKlMn"}, // publishable
		{"postgres://app:pa55w0rd@db:5432/x", "postgres://app:[redacted]@db:5432/x"},
		{"https://example.com/a:b@c", "https://example.com/a:b@c"}, // a path, not userinfo
		{"ghp_short", "ghp_short"},
		{"key=sk-ant-api03-" + strings.Repeat("Ab3_-x", 15) + "AA", "key=[redacted]"},
		{"'sk-proj-" + strings.Repeat("aB1", 20) + "'", "'[redacted]'"},
		{"sk-" + strings.Repeat("Zz9", 16), "[redacted]"},
		{"hf_" + strings.Repeat("Qw", 17), "[redacted]"},
		{"sk-learn is a library; pip install scikit-learn", "sk-learn is a library; pip install scikit-learn"},
		{"task-" + strings.Repeat("a", 50), "task-" + strings.Repeat("a", 50)}, // not at a word's start
		// More well-known prefixes; a '.' inside where the form has one.
		{"hvs.CAESIJx8Lk2bQmP0aZ7yT4nW9Ab12", "[redacted]"},
		{"pypi-AgEIcHlwaS5vcmcCJGFiY2RlZmdo" + strings.Repeat("Ab1", 10), "[redacted]"},
		{"key SG.Ab12Cd34Ef56Gh78Ij90Kl.MnOpQrStUvWxYz0123456789abcdefghijklmnoPQ.", "key [redacted]."},
		{"SG.short.x", "SG.short.x"},
		{"dop_v1_" + strings.Repeat("0a", 32), "[redacted]"},
		{"shpat_" + strings.Repeat("f0", 16), "[redacted]"},
		{"gldt-Ab12Cd34Ef56Gh78Ij90", "[redacted]"},
		{"GOCSPX-Ab12Cd34Ef56Gh78Ij90KlMn", "[redacted]"},
		{"ya29.a0AfH6SMBx8Lk2bQmP0aZ7yT4nW9Ab12Cd34Ef56Gh78Ij.90KlMnOp", "[redacted]"},
		{"{'r': '1//0gabcdefghijklmnopqrstuvwxyz-ABCDEFGHIJKLMNOP'}", "{'r': '[redacted]'}"},
		{"amzn.mws.01234567-89ab-cdef-0123-456789abcdef", "[redacted]"},
		{"see https://example.org/1//0 for the page", "see https://example.org/1//0 for the page"},
		{"dckr_pat_Ab12Cd34Ef56Gh78Ij90KlMn", "[redacted]"},
		{"dapi" + strings.Repeat("0f", 16), "[redacted]"},
		{"figd_" + strings.Repeat("Ab1-", 10), "[redacted]"},
		{"sq0csp-" + strings.Repeat("Ab1_", 11), "[redacted]"},
		{"sk.eyJ1IjoibWFwYm94IiwiYSI6ImNrMDEyMzQ1Njc4OSJ9.Ab12Cd34Ef56Gh78Ij90Kl", "[redacted]"},
		{"NRAK-" + strings.Repeat("A1", 14), "[redacted]"},
		{"dapifoo", "dapifoo"},
		{"GET https://api.telegram.org/bot123456789:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw/sendMessage?chat_id=1",
			"GET https://api.telegram.org/bot[redacted]/sendMessage?chat_id=1"},
		{"https://api.telegram.org/file/bot123456789:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw/photos/1.jpg",
			"https://api.telegram.org/file/bot[redacted]/photos/1.jpg"},
		{"https://core.telegram.org/bots/api", "https://core.telegram.org/bots/api"},
		{"bot.run('MTk4NjIyNDgzNDcxOTI1MjQ4.Cl2FMQ.ZnCjm1XVW7vRze4b7Cq4se7kKWs')", "bot.run('[redacted]')"},
		{"run with OTk5OTk5OTk5OTk5OTk5OTk5.GhXyZw.AbCdEfGhIjKlMnOpQrStUvWxYz0123456789 now", "run with [redacted] now"},
		{"MTk4NjIyNDgzNDcxOTI1MjQ4.Cl2FMQ.short", "MTk4NjIyNDgzNDcxOTI1MjQ4.Cl2FMQ.short"},
		{"QUJDREVGR0hJSktMTU5PUFFSU1Q.Cl2FMQ.ZnCjm1XVW7vRze4b7Cq4se7kKWs", "QUJDREVGR0hJSktMTU5PUFFSU1Q.Cl2FMQ.ZnCjm1XVW7vRze4b7Cq4se7kKWs"}, // letters, not an id
		{"app: abc8Q~Xy.Zw-12_AbCdEfGhIjKlMnOpQrStUvW kept", "app: [redacted] kept"},
		{"value = 'r1x8Q~aBcDeFgHiJkLmNoPqRsTuVwXyZ0123456'", "value = '[redacted]'"},
		{"see Q~ and abc8Q~short", "see Q~ and abc8Q~short"},
		{"gsk_" + strings.Repeat("Ab1x", 13), "[redacted]"},
		{"AGE-SECRET-KEY-1" + strings.Repeat("QZ7", 20), "[redacted]"},
		{"secret_santa_gift_exchange_participants_by_department_v2", "secret_santa_gift_exchange_participants_by_department_v2"}, // a name
		{"-----BEGIN PGP PRIVATE KEY BLOCK-----\nlQOYBF0\n-----END PGP PRIVATE KEY BLOCK-----", "[redacted]\n[redacted]\n[redacted]"},
		{"-----BEGIN PGP PUBLIC KEY BLOCK-----\nmQENBF0\n-----END PGP PUBLIC KEY BLOCK-----", "-----BEGIN PGP PUBLIC KEY BLOCK-----\nmQENBF0\n-----END PGP PUBLIC KEY BLOCK-----"},
		// A signed URL's signature.
		{"https://acme.blob.core.windows.net/c/f?sv=2022-11-02&se=2026&sp=r&sig=Ab12Cd34Ef56Gh78Ij%2BKl%3D'", "https://acme.blob.core.windows.net/c/f?sv=2022-11-02&se=2026&sp=r&sig=[redacted]'"},
		{"https://b.s3.amazonaws.com/k?X-Amz-Date=20261205&X-Amz-Signature=0123456789abcdef0123456789abcdef&x=1", "https://b.s3.amazonaws.com/k?X-Amz-Date=20261205&X-Amz-Signature=[redacted]&x=1"},
		{"<a href=\"https://x.cloudfront.net/v?Expires=1&amp;Signature=Zx9-Yw8_Vu7TsRq6~&amp;Key-Pair-Id=K2\">", "<a href=\"https://x.cloudfront.net/v?Expires=1&amp;Signature=[redacted]&amp;Key-Pair-Id=K2\">"},
		{"https://storage.googleapis.com/b/o?X-Goog-Signature=0a1b2c3d4e5f6a7b8c9d#top", "https://storage.googleapis.com/b/o?X-Goog-Signature=[redacted]#top"},
		{"f(sig=signal.SIGTERM) and ?sig=1", "f(sig=signal.SIGTERM) and ?sig=1"}, // an argument; a value too short
		// Webhook URLs: the path is the credential.
		{"url='https://hooks.slack.com/services/T0ABC1DEF/B0GHI2JKL/abcdEFGHijklMNOPqrstUVWX'", "url='https://hooks.slack.com/services/[redacted]'"},
		{"https://discord.com/api/webhooks/112233445566778899/Zx9-Yw8_Vu7TsRq6PoNm5", "https://discord.com/api/webhooks/[redacted]"},
		{"https://contoso.webhook.office.com/webhookb2/0f1e2d3c-aaaa-bbbb-cccc-111122223333@9a8b7c6d-0000/IncomingWebhook/abc123def456/77aa-88bb x",
			"https://contoso.webhook.office.com/webhookb2/[redacted] x"},
		{"see https://hooks.slack.com/services/ for how", "see https://hooks.slack.com/services/ for how"}, // no path
		{"https://api.slack.com/messaging/webhooks", "https://api.slack.com/messaging/webhooks"},
	} {
		if got, _ := maskShapes(c.in, nil); got != c.want {
			t.Errorf("maskShapes(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

func TestMaskKeyValues(t *testing.T) {
	for _, c := range []struct{ in, want, found string }{
		{"Driver={ODBC};Server=db;UID=sa;PWD=Hunter;", "Driver={ODBC};Server=db;UID=sa;PWD=[redacted];", "Hunter"},
		// bash: $'...' (declare -p, set), backslashes (printf %q)
		{"declare -x DB_PASSWORD=$'S3c\\'r\\tt' x=1", "declare -x DB_PASSWORD=[redacted] x=1", "$'S3c\\'r\\tt'"},
		{"API_TOKEN=$'open x\nUSER=ada", "API_TOKEN=[redacted]\nUSER=ada", "$'open x"},
		{"PGPASSWORD=S3c\\)r\\ t\\;x USER=ada", "PGPASSWORD=[redacted] USER=ada", "S3c\\)r\\ t\\;x"},
		{"f(password=x, y)", "f(password=x, y)", ""},
		{"'Server=db;User Id=sa;Password=Hunter'", "'Server=db;User Id=sa;Password=[redacted]'", "Hunter"},
		{"Password=two words;Server=x", "Password=[redacted];Server=x", "two words"},
		{"PWD={a;b}}c};Server=y", "PWD=[redacted];Server=y", "{a;b}}c}"},
		{"host=db user=app password=Hunter dbname=x", "host=db user=app password=[redacted] dbname=x", "Hunter"},
		{"GET /x?user=a&token=Hunter&y=1", "GET /x?user=a&token=[redacted]&y=1", "Hunter"},
		{"DB_PASS=Hunter", "DB_PASS=[redacted]", "Hunter"},
		// Code, not values: keyword arguments, comparisons, other names.
		{"f(a, password=pw)", "f(a, password=pw)", ""},
		{"x = dict(token=tok, n=1)", "x = dict(token=tok, n=1)", ""},
		{"if password=='abc': pass", "if password=='abc': pass", ""},
		{"user=ada;port=5432", "user=ada;port=5432", ""},
		{"password=[redacted];", "password=[redacted];", ""},
	} {
		var got []string
		out, _ := maskKeyValues(c.in, nil, func(v string) { got = append(got, v) })
		if out != c.want || strings.Join(got, ",") != c.found {
			t.Errorf("maskKeyValues(%q) = %q %q, want %q %q", c.in, out, got, c.want, c.found)
		}
	}
}

// FuzzMaskKeyValues: a connection string's secret, after any text, is
// masked and handed over; no text makes it fail.
func FuzzMaskKeyValues(f *testing.F) {
	f.Add("Server=db;", "Hunter two")
	f.Add("{'x': 'a=b", "s3cr3t")
	f.Fuzz(func(t *testing.T, before, secret string) {
		maskKeyValues(before+secret, nil, nil)
		if secret == "" || strings.ContainsAny(secret, ";'\"\n\r&{}") {
			return
		}
		s := before + ";Password=" + secret + ";Server=x"
		out, _ := maskKeyValues(s, nil, nil)
		// masked whole, or inside an earlier value that runs to the end
		if !strings.HasSuffix(out, "=[redacted];Server=x") && !strings.HasSuffix(out, "[redacted]") {
			t.Fatalf("maskKeyValues(%q) = %q", s, out)
		}
	})
}

func TestMaskSource(t *testing.T) {
	for _, c := range []struct{ in, want, found string }{
		{"PASSWORD = (\n    \"abc-s3cret\"\n    \"Def s3cret\"\n)\nx = 'ok'\n", "PASSWORD = (\n    \"[redacted]\"\n    \"[redacted]\"\n)\nx = 'ok'\n", "abc-s3cret,Def s3cret"},
		{"password = \"\"\"\nmulti s3cret\n\nline\n\"\"\"\n", "password = \"\"\"\n[redacted]\n\n[redacted]\n\"\"\"\n", "\nmulti s3cret\n\nline\n,multi s3cret,line"},
		{"password: Optional[str] = 'annot-s3cret'\n", "password: Optional[str] = '[redacted]'\n", "annot-s3cret"},
		{"PASSWORD = 'a' + 'concat-s3cret'  # note\n", "PASSWORD = '[redacted]' + '[redacted]'  # note\n", "a,concat-s3cret"},
		{"PASSWORD = \\\n    'cont-s3cret'\n", "PASSWORD = \\\n    '[redacted]'\n", "cont-s3cret"},
		{"self.api_key = f'{x}key'\ncfg['password'] = b'item'\n", "self.api_key = f'[redacted]'\ncfg['password'] = b'[redacted]'\n", "{x}key,item"},
		{"password = os.environ.get('DB_PASSWORD', 'MySecretPassword1')\n", "password = os.environ.get('DB_PASSWORD', '[redacted]')\n", "MySecretPassword1"},
		{"a = password = 'chain'\nif ok: token = 'one-line'\n", "a = password = '[redacted]'\nif ok: token = '[redacted]'\n", "chain,one-line"},
		// Not a secret's assignment: a comparison, a keyword argument, another name.
		{"if password == 'x': pass\nf(password='kw')\nuser = 'ada'\nx = {'a': 'b'}\n", "", ""},
		{"password := 'walrus'\n", "", ""},
		{"PASSWORD = 'cut short", "PASSWORD = '[redacted]", "cut short"},
	} {
		var got []string
		out, changed := maskSource(c.in, nil, func(v string) { got = append(got, v) })
		want := c.want
		if want == "" {
			want = c.in
		}
		if out != want || changed != (c.want != "") || strings.Join(got, ",") != c.found {
			t.Errorf("maskSource(%q) = %q %v %q, want %q %q", c.in, out, changed, got, want, c.found)
		}
	}
}

// FuzzMaskSource: no source makes maskSource fail, and it keeps the lines.
func FuzzMaskSource(f *testing.F) {
	fuzzKeepsLines(f, func(t *testing.T, s string) string { out, _ := maskSource(s, nil, nil); return out },
		"PASSWORD = (\n 'a'\n 'b')\n", "password = '''x\ny'''\nz = 1")
}

// TestNetlocsAgreeWithURLLib: the results urllib.parse gives of URLs with
// a user and a password (any printable byte, percent-encoded as quote
// writes it), shown as repr writes them (urlparse's, urlsplit's, as a
// dict): the password is masked where the netloc spells it, all else
// stays.
func TestNetlocsAgreeWithURLLib(t *testing.T) {
	againstPython(t, netlocDocs, netlocCheck, 1500, func(s string) string { out, _ := maskShapes(s, nil); return out })
}

const netlocDocs = `
import json, random, string, sys
from urllib.parse import quote, urlparse, urlsplit
rng = random.Random(int(sys.argv[1]))
for i in range(int(sys.argv[2])):
    pw = "".join(rng.choice(string.printable[:94] + " é") for _ in range(rng.randint(1, 14)))
    raw = quote(pw, safe=rng.choice(["", "!$&'()*+,;=", "~"]))
    url = "%s://%s:%s@%s%s/%s" % (rng.choice(["postgres", "redis", "https"]), rng.choice(["app", "ada", "u-1"]), raw,
        rng.choice(["db", "10.0.0.1", "cache.internal"]), rng.choice(["", ":5432"]), rng.choice(["", "app", "a@b"]))
    u = rng.choice([urlparse, urlsplit])(url)
    text = rng.choice([repr(u), repr(u._asdict()), "netloc=%r" % u.netloc])
    print(json.dumps([text, raw]))
`

const netlocCheck = `
import json, sys
M = "[redacted]"
for line in sys.stdin:
    text, masked, raw = json.loads(line)
    i = text.index(":" + raw + "@")
    want = text[:i + 1] + M + text[i + 1 + len(raw):]
    print(json.dumps("" if masked == want else "want %r" % want))
`

// TestSignaturesAgreeWithURLLib: signed URLs as the clouds' SDKs write them
// (urlencode of the query, the signature percent-encoded or hex), shown as
// a string, in a list, in a dict, in a log line and in an HTML link
// (&amp;): the signature, as urllib.parse reads it back, is masked, and
// nothing else.
func TestSignaturesAgreeWithURLLib(t *testing.T) {
	againstPython(t, signatureDocs, signatureCheck, 1500, func(s string) string { out, _ := maskShapes(s, nil); return out })
}

const signatureDocs = `
import base64, html, json, os, random, sys
from urllib.parse import parse_qs, quote, urlencode, urlsplit
rng = random.Random(int(sys.argv[1]))
for i in range(int(sys.argv[2])):
    name = rng.choice(["sig", "Signature", "X-Amz-Signature", "X-Goog-Signature", "x-amz-signature", "SIG"])
    raw_sig = rng.choice([base64.b64encode(rng.randbytes(32)).decode(), rng.randbytes(32).hex(), base64.urlsafe_b64encode(rng.randbytes(20)).decode()])
    params = [(k, v) for k, v in [("sv", "2022-11-02"), ("se", "2026-12-05T10:00:00Z"), ("sp", "r"), ("X-Amz-Date", "20261205T100000Z"),
        ("Expires", "1767222000"), ("Key-Pair-Id", "K2JCJMDEHXQW5F"), ("response-content-type", "text/csv")] if rng.random() < 0.5]
    params.insert(rng.randint(0, len(params)), (name, raw_sig))
    safe = rng.choice(["", "/=", "~"])
    query = urlencode(params, quote_via=lambda s, safe_, enc, err: quote(s, safe=safe))
    url = "https://%s/%s?%s%s" % (rng.choice(["acme.blob.core.windows.net", "b.s3.amazonaws.com", "storage.googleapis.com", "d1.cloudfront.net"]),
        rng.choice(["c/report.csv", "k", "a/b c.txt"]), query, rng.choice(["", "", "#top"]))
    assert parse_qs(urlsplit(url).query)[name] == [raw_sig], url
    raw = quote(raw_sig, safe=safe)
    text = rng.choice([repr(url), repr([url, "x"]), repr({"url": url, "n": 1}), "GET %s HTTP/1.1 200" % url,
        '<a href="%s">report</a>' % html.escape(url)])
    print(json.dumps([text, name + "=" + raw]))
`

const signatureCheck = `
import json, sys
M = "[redacted]"
for line in sys.stdin:
    text, masked, pair = json.loads(line)
    name = pair[:pair.index("=") + 1]
    i = text.index(pair)
    want = text[:i + len(name)] + M + text[i + len(pair):]
    print(json.dumps("" if masked == want else "want %r" % want))
`

// TestBasicCredentialsAgreeWithPython: HTTP Basic credentials as
// requests and urllib3 write them (base64 of user:password encoded as
// latin-1, any printable user and password; and as UTF-8), in prose, a
// log line and a header: their shape alone masks the base64 wherever it
// stands; base64 of a text with no ':' (no credentials) and the words
// around it are shown. (Through all of redact, a line that names a secret,
// or whose random base64 holds a secret's word, Pw say, has any "Basic X"
// with a digit in X masked by the name's reading too.)
func TestBasicCredentialsAgreeWithPython(t *testing.T) {
	againstPython(t, basicDocs, basicCheck, 500, func(s string) string { out, _ := maskShapes(s, nil); return out })
}

const basicDocs = `
import base64, json, random, string, sys
rng = random.Random(int(sys.argv[1]))
def text(n, colon):
    chars = string.ascii_letters + string.digits + " !#%&*+-./;<=>?@[]^_{|}~" + "éüß" + (":" if colon else "")
    return "".join(rng.choice(chars) for _ in range(n))
for n in range(int(sys.argv[2])):
    # requests' _basic_auth_str and urllib3's make_headers encode as latin-1
    pair = "%s:%s" % (text(rng.randint(0, 12), False), text(rng.randint(6, 20), True))
    cred = "Basic " + base64.b64encode(pair.encode(rng.choice(["latin-1", "utf-8"]))).decode()
    other = "Basic " + base64.b64encode(text(rng.randint(4, 20), False).encode()).decode()
    line = rng.choice(["sending %s to host%d", "auth header %s for ctrl%d", "{'X-Auth': '%s', 'n': 'ctrl%d'}", "Proxy-Authorization: %s\nctrl%d"]) % (cred, n)
    print(json.dumps([line + "\n" + other + " ok\n", json.dumps([cred[len("Basic "):]]), json.dumps([other])]))
`

const basicCheck = `
import json, sys
for line in sys.stdin:
    text, masked, creds, controls = json.loads(line)
    left = [c for c in json.loads(creds) if c.rstrip("=") in masked]
    lost = [c for c in json.loads(controls) if c not in masked]
    print(json.dumps("left %r" % left if left else "controls masked %r" % lost if lost else ""))
`

// TestBase64KeysAgreeWithOpenSSL: private keys and certificates openssl
// writes (RSA, EC, Ed25519; PKCS#8 and the traditional forms; a bundle of
// a certificate and its key), base64-encoded as a Kubernetes secret's data
// holds them, on a line of YAML and in a dict's repr: each key's base64
// is masked, no 16 bytes of it left; each certificate's alone is shown.
func TestBase64KeysAgreeWithOpenSSL(t *testing.T) {
	againstPython(t, base64KeyDocs, base64KeyCheck, 24, func(s string) string { out, _ := maskText(s, nil); return out })
}

const base64KeyDocs = `
import base64, json, os, random, subprocess, sys, tempfile
rng = random.Random(int(sys.argv[1]))
d = tempfile.mkdtemp()
k, c = os.path.join(d, "k"), os.path.join(d, "c")
for n in range(int(sys.argv[2])):
    alg = rng.choice([["-newkey", "rsa:1024"], ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256"], ["-newkey", "ed25519"]])
    subprocess.run(["openssl", "req", "-x509", *alg, "-keyout", k, "-out", c, "-days", "1", "-nodes", "-subj", "/CN=ctrl%d" % n], check=True, capture_output=True)
    if rng.randrange(2) and "rsa:1024" in alg:
        subprocess.run(["openssl", "rsa", "-in", k, "-out", k, "-traditional"], check=True, capture_output=True)
    key, cert = open(k, "rb").read(), open(c, "rb").read()
    if rng.randrange(3) == 0:
        key = cert + key  # a bundle: the certificate first
    kb, cb = base64.b64encode(key).decode(), base64.b64encode(cert).decode()
    name = rng.choice(["tls.key", "ca.pem", "data", "bundle"])
    text = rng.choice(["data:\n  tls.crt: %s\n  %s: %s\n", "{'tls.crt': '%s', '%s': '%s'}"]) % (cb, name, kb)
    print(json.dumps([text, json.dumps([kb]), json.dumps([cb])]))
`

const base64KeyCheck = `
import json, sys
for line in sys.stdin:
    text, masked, keys, certs = json.loads(line)
    cs = json.loads(certs)
    # a bundle's base64 begins as its certificate's, which is shown
    left = [k[:20] for k in json.loads(keys) if any(k[i:i + 16] in masked and not any(k[i:i + 16] in c for c in cs) for i in range(0, len(k) - 15, 4))]
    lost = [c[:20] for c in cs if c not in masked]
    print(json.dumps("left %r" % left if left else "controls masked %r" % lost if lost else ""))
`

// TestPasswordHashesAgreeWithCrypt: password hashes as crypt(3) writes
// them (SHA-512, SHA-256, MD5, bcrypt, by Python's crypt), as openssl
// passwd writes htpasswd's $apr1$, as Django stores PBKDF2's, MySQL's
// native hash and an LDAP {SSHA}, in an
// /etc/shadow line, an htpasswd line, JSON, prose, after an option's = and
// at a line's start, printed and as a repr: no 8 bytes of a
// hash left, the users and prices and shell variables around them shown.
func TestPasswordHashesAgreeWithCrypt(t *testing.T) {
	againstPython(t, hashDocs, hashCheck, 300, func(s string) string { out, _ := maskText(s, nil); return out })
}

const hashDocs = `
import base64, crypt, hashlib, json, random, string, subprocess, sys, warnings
warnings.simplefilter("ignore")
rng = random.Random(int(sys.argv[1]))
METHODS = [crypt.METHOD_SHA512, crypt.METHOD_SHA256, crypt.METHOD_MD5, crypt.METHOD_BLOWFISH]
def salt(n):
    return "".join(rng.choice(string.ascii_letters + string.digits + "./") for _ in range(n))
def pw():
    return "".join(rng.choice(string.ascii_letters) for _ in range(10))
def one():
    k = rng.randint(0, 3)
    if k == 0:
        m = rng.choice(METHODS)  # the salt from rng, as mksalt would make it: the texts are the same each run
        return crypt.crypt(pw(), "$2b$%02d$%s" % (rng.choice([4, 5]), salt(22)) if m == crypt.METHOD_BLOWFISH else "$%s$%s" % (m.ident, salt(m.salt_chars)))
    if k == 1:
        return subprocess.run(["openssl", "passwd", rng.choice(["-apr1", "-1", "-5", "-6"]), "-salt", salt(8), pw()], capture_output=True, text=True, check=True).stdout.strip()
    if k == 3 and rng.randrange(3) == 0:  # MySQL's native password hash
        return "*" + hashlib.sha1(hashlib.sha1(pw().encode()).digest()).hexdigest().upper()
    if k == 3 and rng.randrange(2) == 0:  # an LDAP userPassword's salted SHA-1
        s = salt(4).encode()
        return rng.choice(["{SSHA}", "{ssha}"]) + base64.b64encode(hashlib.sha1(pw().encode() + s).digest() + s).decode()
    it = rng.choice([1000, 5000])  # Django uses 600000; the format is the same
    s = salt(12)
    return "pbkdf2_sha256$%d$%s$%s" % (it, s, base64.b64encode(hashlib.pbkdf2_hmac("sha256", pw().encode(), s.encode(), it)).decode())
for n in range(int(sys.argv[2])):
    lines, hashes, controls = [], [], []
    for k in range(rng.randint(1, 4)):
        h = one()
        user = "ctrl%dx%d" % (n, k)
        hashes.append(h.rsplit("$", 1)[-1].split("}")[-1])
        controls.append(user)
        lines.append(rng.choice(["%s:%s:19000:0:99999:7:::", "%s:%s", "{\"user\": \"%s\", \"hash\": \"%s\"}", "stored for %s: %s", "%s %s", "%s_HASH=%s", "--name %s --hash=%s", "%s\n%s", "%s\t%s"]) % (user, h))
    lines.append(rng.choice(["total: $5 and $12.50", "echo $HOME:$PATH", "cost $%d$%d" % (n, n + 1)]))
    controls.append(lines[-1])
    text = "\n".join(lines) + "\n"
    if rng.randrange(3) == 0:
        # As a listing shows it: a line end or a tab before a hash escaped.
        # Its lines are one line then, and a salt may read as a secret's
        # name (OsPw8f...: its part Pw), after which prose's reading of a
        # value takes the next word with a digit: only the hashes are
        # checked there; the printed texts check the controls.
        text, controls = repr(text), []
    print(json.dumps([text, json.dumps(hashes), json.dumps(controls)]))
`

const hashCheck = `
import json, sys
for line in sys.stdin:
    text, masked, hashes, controls = json.loads(line)
    bad = [h for h in json.loads(hashes) if any(h[i:i + 8] in masked for i in range(len(h) - 7))]
    lost = [c for c in json.loads(controls) if c not in masked]
    print(json.dumps("left %r" % bad if bad else "controls masked %r" % lost if lost else ""))
`

// An AWS secret access key beside its access key id, in the texts a
// program shows them in, is masked with the id; 40 bytes of the base64
// alphabet with no id near, a SHA-1 beside an id, or a base64 blob's
// padded run are not.
func TestAWSSecretBesideItsID(t *testing.T) {
	const id, sk = "AKIAIOSFODNN7EXAMPLE", "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"
	for _, s := range []string{
		"('" + id + "', '" + sk + "')",
		"ada,," + id + "," + sk + ",https://console.aws.amazon.com/",
		"{'sk': '" + sk + "', 'note': 'prod', 'id': '" + strings.Replace(id, "AKIA", "ASIA", 1) + "'}",
		"'" + id + `\n` + sk + `\n'`,
		id + " " + sk,
		// two pairs far apart: the second is looked for after the first
		id + " " + strings.Replace(sk, "w", "q", 1) + strings.Repeat(" ", 3*awsNear) + id + " " + sk,
	} {
		got, changed := maskTextTo(s, nil, nil)
		if !changed || strings.Contains(got, sk[:12]) || strings.Contains(got, sk[28:]) {
			t.Errorf("%q: the secret shown: %q", s, got)
		}
	}
	for _, s := range []string{
		"'" + sk + "'",
		id + " 3f786850e387550fdab836ed7e6dc881de23001b",
		id + " " + sk + "==",
		id + strings.Repeat(" ", awsNear) + sk,
	} {
		if got, _ := maskTextTo(s, nil, nil); !strings.Contains(got, sk[:12]) && !strings.Contains(got, "3f786850e387") {
			t.Errorf("%q: masked: %q", s, got)
		}
	}
}

// A tuple of an AWS key id and its secret, listed: its repr cuts the
// secret, its children show it whole, each alone; the secret's child is
// masked beside the id's, and not without it.
func TestAWSSecretRowsMasked(t *testing.T) {
	const id, sk = "'AKIAIOSFODNN7EXAMPLE'", "'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY'"
	listing := func(values ...string) string {
		var children []map[string]any
		for i, v := range values {
			children = append(children, map[string]any{"name": strconv.Itoa(i), "value": v, "type": "str"})
		}
		v := map[string]any{"name": "pair", "type": "tuple", "value": "('AKIAIOSFODNN7EXAMPLE', 'wJalrXUtnFEMI/K...XAMPLEKEY')", "children": children}
		res, _ := json.Marshal(map[string]any{"scope": "locals", "variables": []any{v}})
		return string(res)
	}
	sdk.HandlePrepared(Prepare)
	defer sdk.Handle(nil)
	for _, values := range [][]string{{id, sk}, {sk, "'prod'", id}} {
		if out := shownResult(t, policytest.Case{Phase: "result", Tool: "debugpy_variables", Result: listing(values...)}); strings.Contains(out, "wJalrXUtnFEMI/K7MDENG") {
			t.Errorf("%v: %s", values, out)
		}
	}
	if out := shownResult(t, policytest.Case{Phase: "result", Tool: "debugpy_variables", Result: listing("'ada'", sk)}); !strings.Contains(out, "wJalrXUtnFEMI/K7MDENG") {
		t.Errorf("with no id beside it: %s", out)
	}
}

// The pair in two variables of a scope (a frame's locals, a module's
// globals), under names of no secret: the secret's variable is masked
// beside the id's, and not without it; and a scope's strings are not read
// joined (a run of variables is no value's pieces).
func TestAWSSecretVariablesMasked(t *testing.T) {
	const id, sk = "'AKIAIOSFODNN7EXAMPLE'", "'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY'"
	scope := func(values ...string) string {
		var vars []map[string]any
		for i, v := range values {
			vars = append(vars, map[string]any{"name": "v" + strconv.Itoa(i), "value": v, "type": "str"})
		}
		res, _ := json.Marshal(map[string]any{"scope": "locals", "variables": vars})
		return string(res)
	}
	sdk.HandlePrepared(Prepare)
	defer sdk.Handle(nil)
	for _, values := range [][]string{{id, sk}, {sk, "'prod'", "1", id}, {"b" + id, "b" + sk}} {
		out := shownResult(t, policytest.Case{Phase: "result", Tool: "debugpy_variables", Result: scope(values...)})
		if strings.Contains(out, "wJalrXUtnFEMI/K7MDENG") || !strings.Contains(out, "prod") && len(values) > 2 {
			t.Errorf("%v: %s", values, out)
		}
	}
	if out := shownResult(t, policytest.Case{Phase: "result", Tool: "debugpy_variables", Result: scope("'ada'", sk)}); !strings.Contains(out, "wJalrXUtnFEMI/K7MDENG") {
		t.Errorf("with no id beside it: %s", out)
	}
	// ghp_ and its 36 characters in two variables: masked as a
	// container's children, which are a value's pieces; shown as a
	// scope's variables.
	const head, tail = "'ghp_'", "'16C7e42F292c6912E7710c838347Ae178B4a'"
	if out := shownResult(t, policytest.Case{Phase: "result", Tool: "debugpy_variables", Result: scope(head, tail)}); !strings.Contains(out, "16C7e42F292c6912") {
		t.Errorf("a scope's variables read joined: %s", out)
	}
}

// TestDERKeysAgreeWithCryptography: private keys of every kind the
// cryptography package makes (RSA, EC on four curves, Ed25519, Ed448,
// X25519, X448; PKCS#8, PKCS#1 and SEC1, and PKCS#12 bundles with their
// certificate), their DER without PEM armor as a program holds it: a
// bytes repr, base64 on one line and over 64-byte lines (a PEM body, in
// text and in a repr), hex in either case; alone, in a dict, after a
// label. No 16 bytes of a key's encoding are left; certificates, public
// keys and encrypted keys, the controls, are shown as they are.
func TestDERKeysAgreeWithCryptography(t *testing.T) {
	againstPython(t, derKeyDocs, derKeyCheck, 80, func(s string) string { out, _ := maskText(s, nil); return out })
}

const derKeyDocs = `
import base64, datetime, json, random, sys
from cryptography import x509
from cryptography.x509.oid import NameOID
from cryptography.hazmat.primitives import hashes, serialization as s
from cryptography.hazmat.primitives.asymmetric import ec, ed25519, ed448, rsa, x25519, x448
from cryptography.hazmat.primitives.serialization import pkcs12
rng = random.Random(int(sys.argv[1]))
def key():
    k = rng.randrange(9)
    if k < 2: return rsa.generate_private_key(65537, rng.choice([1024, 1024, 2048]))
    if k < 6: return ec.generate_private_key(rng.choice([ec.SECP256R1(), ec.SECP384R1(), ec.SECP521R1(), ec.SECP256K1()]))
    return rng.choice([ed25519.Ed25519PrivateKey, ed448.Ed448PrivateKey, x25519.X25519PrivateKey, x448.X448PrivateKey]).generate()
def cert(k):
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "ctrl")])
    now = datetime.datetime(2026, 1, 1)
    return x509.CertificateBuilder().subject_name(name).issuer_name(name).public_key(k.public_key()).serial_number(1).not_valid_before(now).not_valid_after(now + datetime.timedelta(days=1)).sign(k, hashes.SHA256())
def encodings(der, control):
    b = base64.b64encode(der).decode()
    lines = "\n".join(b[i:i + 64] for i in range(0, len(b), 64))
    # as numbers: list(der)'s repr, JSON's, and debugpy's display of it (its first 15, then ...)
    shown = "[" + ", ".join(map(str, der[:15])) + ", ...]"
    # and numpy's repr of an array of uint8, its numbers padded to one width, its lines wrapped
    np, line = "array([", "array(["
    for k, x in enumerate(der[:60]):
        item = "%3d" % x + (", " if k < 59 else "")
        if len(line) + len(item) > 75:
            np, line = np.rstrip() + "\n       ", "       "
        np, line = np + item, line + item
    one = [(b, b), (der.hex(), der.hex()), (der.hex().upper(), der.hex().upper()), (repr(list(der)), repr(list(der))),
           (json.dumps(list(der), separators=(",", ":")), json.dumps(list(der), separators=(",", ":"))), (shown, shown[1:-6]),
           (np + "], dtype=uint8)", np[7:])]
    return one if control else one + [(repr(der), repr(der)[2:-1]), (lines, lines), (repr(lines), repr(lines)[1:-1])]
signer = ec.generate_private_key(ec.SECP256R1())
for n in range(int(sys.argv[2])):
    k = key()
    kinds = [s.PrivateFormat.PKCS8]
    if isinstance(k, (rsa.RSAPrivateKey, ec.EllipticCurvePrivateKey)):
        kinds.append(s.PrivateFormat.TraditionalOpenSSL)
    if rng.randrange(4) == 0:
        der = pkcs12.serialize_key_and_certificates(b"app", signer, cert(signer), None, s.NoEncryption())
    else:
        der = k.private_bytes(s.Encoding.DER, rng.choice(kinds), s.NoEncryption())
    controls = [cert(signer).public_bytes(s.Encoding.DER), k.public_key().public_bytes(s.Encoding.DER, s.PublicFormat.SubjectPublicKeyInfo),
                k.private_bytes(s.Encoding.DER, s.PrivateFormat.PKCS8, s.BestAvailableEncryption(b"pw"))]
    text, shown = rng.choice(encodings(der, False))
    # A control in one word: random bytes that spell a secret's word in a
    # bytes repr (\nPW\xe9), and equal lines of base64 one of which holds
    # one by chance (...uPW5...: a table's header, maskAligned), are
    # masked by the readings of names, whatever they encode.
    ctext, cshown = rng.choice(encodings(rng.choice(controls), True))
    # The control first: a key's equal lines read as a table (above) would
    # take the lines below them for its rows.
    form = rng.choice(["%s", "{'ctrl': %s, 'blob': %s}", "ctrl: %s\ndata: %s\n"])
    quote = lambda t: t if t.startswith(("b'", 'b"', "'", '"')) else "'%s'" % t
    doc = form % quote(text) if form == "%s" else form % (quote(ctext), quote(text))
    print(json.dumps([doc, json.dumps([shown]), json.dumps([cshown] if form != "%s" else [])]))
`

const derKeyCheck = `
import json, sys
for line in sys.stdin:
    text, masked, keys, ctrls = json.loads(line)
    cs = json.loads(ctrls)
    left = [k[:24] for k in json.loads(keys) if any(k[i:i + 16] in masked and not any(k[i:i + 16] in c for c in cs) for i in range(0, len(k) - 15, 4))]
    lost = [c[:24] for c in cs if c not in masked]
    print(json.dumps("left %r" % left if left else "controls masked %r" % lost if lost else ""))
`

// An OpenSSH private key's body without its BEGIN and END lines (a test
// key of ssh-keygen's), over its lines, as text, as a repr, after a label:
// every line masked; a public key's line shown.
func TestOpenSSHBodyMasked(t *testing.T) {
	body := []string{"b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW",
		"QyNTUxOQAAACAFLxaKUYORuQ1bsiwFdUEC881WdR764ezWJuDyFlFkwQAAAIgxE9rEMRPa",
		"xAAAAAtzc2gtZWQyNTUxOQAAACAFLxaKUYORuQ1bsiwFdUEC881WdR764ezWJuDyFlFkwQ",
		"AAAEDnWb31D0H/+a7o/I+z8e8zXEM4W1NfM1jLZSa2wfhg/gUvFopRg5G5DVuyLAV1QQLz",
		"zVZ1Hvrh7NYm4PIWUWTBAAAAAXgBAgME"}
	lines := strings.Join(body, "\n")
	for _, s := range []string{lines, "'" + strings.Join(body, `\n`) + `\n'`, "key: " + lines + "\nnext: 1", strings.Join(body, "\r\n")} {
		got, changed := maskTextTo(s, nil, nil)
		for _, b := range body {
			if !changed || strings.Contains(got, b[len(b)-12:]) {
				t.Errorf("%.40q...: shows %q: %q", s, b, got)
			}
		}
	}
	pub := "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIAUvFopRg5G5DVuyLAV1QQLzzVZ1Hvrh7NYm4PIWUWTB x"
	if got, changed := maskTextTo(pub, nil, nil); changed {
		t.Errorf("a public key masked: %q", got)
	}
}

// TestURLPasswordsAgreeWithURLLib: URLs with a password of any character
// a network location may hold as written (an @ and a : too), as text, as
// a repr, as urllib.parse's results and xmlrpc.client's ServerProxy show
// them: no 6 bytes of urllib's password left, its host shown.
func TestURLPasswordsAgreeWithURLLib(t *testing.T) {
	againstPython(t, urlDocs, urlCheck, 600, func(s string) string { out, _ := maskText(s, nil); return out })
}

const urlDocs = `
import json, random, sys, urllib.parse, xmlrpc.client
rng = random.Random(int(sys.argv[1]))
# no w: a secret's name inside (Pw4:, pw=) is read as a pair, masked on
# over the host, which the check wants shown
CHARS = "abcdefghijklmnopqrstuvxyzABCDEFGHIJKLMNOPQRSTUVXYZ0123456789" * 2 + "@:!$&()*+,;=-._~%"
for n in range(int(sys.argv[2])):
    pw = "Q" + "".join(rng.choice(CHARS) for _ in range(rng.randint(7, 18)))
    host = "host%d.example.org" % n
    scheme = rng.choice(["https", "postgresql", "redis", "amqp", "mongodb+srv"])
    url = "%s://%s:%s@%s%s%s" % (scheme, rng.choice(["ada", "svc.user", "x"]), pw, host, rng.choice(["", ":5432"]), rng.choice(["", "/db", "/RPC2?x=1"]))
    parts = urllib.parse.urlsplit(url)
    form = rng.choice(["text", "repr", "split", "dict", "proxy"])
    if form == "text":
        out = "connecting to " + url + " now"
    elif form == "repr":
        out = repr([url])
    elif form == "split":
        out = repr(urllib.parse.urlparse(url))
    elif form == "dict":
        out = repr({"netloc": parts.netloc, "path": parts.path})
    else:
        out = repr(xmlrpc.client.ServerProxy("https" + url[len(scheme):]))
    print(json.dumps([out, json.dumps(parts.password), json.dumps(host)]))
`

const urlCheck = `
import json, sys
for line in sys.stdin:
    text, masked, pw, host = json.loads(line)
    pw = json.loads(pw)
    left = [pw[i:i + 6] for i in range(len(pw) - 5) if pw[i:i + 6] in masked]
    print(json.dumps("left %r" % left if left else "host masked" if json.loads(host) not in masked else ""))
`
