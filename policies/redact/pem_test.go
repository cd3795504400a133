package redact

import (
	"encoding/hex"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/debugpy-guard/debugpy-guard/plugins/sdk"
	"github.com/debugpy-guard/debugpy-guard/policies/internal/policytest"
)

// TestNoKeyBlockShownAfterAnything: a PEM private key block shows none of
// its lines, whatever comes before it on its BEGIN line: each string
// literal of this package's tests (the secrets' names and values, the
// pairs, the assignments, the tables), alone, after a secret's name, and
// after a plain one, in the forms a program prints (a config line, a log
// line, a repr). A mask that took the BEGIN line with a value before it,
// a line at a time, left the block's key shown (found 2026-12-06:
// "password: x -----BEGIN EC PRIVATE KEY-----" then the key's lines).
func TestNoKeyBlockShownAfterAnything(t *testing.T) {
	const body = "MHcCAQEEIBkg4LVWM9nuwNSk3yByxZpYRTBnVJk5owkRmkoVkHbIoAoGCCqGSM49\n" +
		"AwEHoUQDQgAEcmC1oZMNnqANd8ad6u3x9f5OeHgV4CsYEEJRc1XJL+qGv3l0X3ce\n" +
		"k2V7r0yFh3AFpbbHsX1yqYs0ZqDnYPE1Fg=="
	keys := []string{"-----BEGIN EC PRIVATE KEY-----\n" + body + "\n-----END EC PRIVATE KEY-----\n",
		"-----BEGIN PGP PRIVATE KEY BLOCK-----\n\n" + body + "\n-----END PGP PRIVATE KEY BLOCK-----\n"}
	var before []string
	for _, l := range policytest.Literals(t) {
		if strings.Contains(l, "-----") || strings.Contains(body, l) {
			continue // a block of its own, a banner, or this test's key
		}
		l = strings.ReplaceAll(l, "\n", " ")
		before = append(before, l+" ", "password: "+l+" ", "secret = "+l+" ", "note: "+l+" ", "api_key="+l+" ")
	}
	for _, b := range before {
		key := keys[len(b)%2]
		for _, s := range []string{b + key, "INFO " + b + key + "done\n", "  " + b + key} {
			got, _ := maskText(s, map[string]bool{"pin": true})
			sdk.TakeSecrets()
			for _, line := range strings.Split(body, "\n") {
				if strings.Contains(got, line[:24]) {
					t.Fatalf("%q\nmasked: %q\nshows the key's line %q", s, got, line)
				}
			}
		}
	}
}

// TestNoKeyBlockShownInSource: debugpy_source's lines, read together, show
// none of a private key's lines: a PEM or PGP block in a string, in a
// comment, in a string's pieces, a PuTTY key file's private lines, and a
// window that starts inside a block with its END line in view (pemTail).
// Each line read alone, only the BEGIN line was masked (found 2026-12-06).
func TestNoKeyBlockShownInSource(t *testing.T) {
	body := []string{"MHcCAQEEIBkg4LVWM9nuwNSk3yByxZpYRTBnVJk5owkRmkoVkHbIoAoGCCqGSM49",
		"AwEHoUQDQgAEcmC1oZMNnqANd8ad6u3x9f5OeHgV4CsYEEJRc1XJL+qGv3l0X3ce", "k2V7r0yFh3AFpbbHsX1yqYs0ZqDnYPE1Fg=="}
	around := func(before []string, after ...string) []string {
		return append(append(slices.Clone(before), body...), after...)
	}
	files := [][]string{
		around([]string{`KEY = """-----BEGIN EC PRIVATE KEY-----`}, `-----END EC PRIVATE KEY-----"""`, "x = 1"),
		around([]string{`TEST_KEY = """`, `-----BEGIN EC PRIVATE KEY-----`}, `-----END EC PRIVATE KEY-----`, `"""`),
		around([]string{`# the fixture's key:`, `-----BEGIN PGP PRIVATE KEY BLOCK-----`, ``}, `-----END PGP PRIVATE KEY BLOCK-----`),
		around([]string{`PuTTY-User-Key-File-3: ssh-ed25519`, `Encryption: none`, `Private-Lines: 3`}, `Private-MAC: 0123`),
		// A window that starts inside the block: its END line in view.
		around(nil, `-----END EC PRIVATE KEY-----"""`, "x = 1"),
		around([]string{`    "`}, `    -----END RSA PRIVATE KEY-----`),
		append(append([]string{`pem = (`}, `    "`+body[0]+`\n"`, `    "`+body[1]+`\n"`, `    "`+body[2]+`\n"`), `    "-----END EC PRIVATE KEY-----\n")`),
	}
	sdk.HandlePrepared(Prepare)
	defer sdk.Handle(nil)
	for _, file := range files {
		var lines []map[string]any
		for i, l := range file {
			lines = append(lines, map[string]any{"line": i + 1, "text": l})
		}
		res, _ := json.Marshal(map[string]any{"file": "/app/keys.py", "lines": lines})
		out := shownResult(t, policytest.Case{Phase: "result", Tool: "debugpy_source", Result: string(res)})
		for _, b := range body {
			if strings.Contains(out, b[:20]) {
				t.Errorf("%q ...: shows the key's line %q\n%s", file[0], b, out)
			}
		}
	}
	// A public key's or a certificate's lines stay.
	for _, text := range []string{"MIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEA\n-----END PUBLIC KEY-----",
		"MIIDdzCCAl+gAwIBAgIEAgAAuTANBgkqhkiG9w0BAQUFADBa\n-----END CERTIFICATE-----"} {
		if got, changed := maskText(text, nil); changed {
			t.Errorf("%q masked: %q", text, got)
		}
	}
}

// TestNoKeyBlockShownAsChildren: a list of a key file's lines (readlines,
// split, bytes), each line a child of the listing, shows none of the key's
// lines: the children's values are read together (childPieces). A list
// of plain words keeps every child as it is.
func TestNoKeyBlockShownAsChildren(t *testing.T) {
	body := []string{"MHcCAQEEIBkg4LVWM9nuwNSk3yByxZpYRTBnVJk5owkRmkoVkHbIoAoGCCqGSM49", "k2V7r0yFh3AFpbbHsX1yqYs0ZqDnYPE1Fg=="}
	key := append(append([]string{"-----BEGIN EC PRIVATE KEY-----"}, body...), "-----END EC PRIVATE KEY-----")
	repr := func(prefix, s string) string { // as Python writes it
		return prefix + "'" + strings.NewReplacer("\r", `\r`, "\n", `\n`).Replace(s) + "'"
	}
	listing := func(values []string) string {
		var children []map[string]any
		for i, v := range values {
			children = append(children, map[string]any{"name": strconv.Itoa(i), "value": v, "type": "str"})
		}
		v := map[string]any{"name": "lines", "type": "list", "value": "[" + strings.Join(values, ", ") + "]", "children": children}
		res, _ := json.Marshal(map[string]any{"scope": "locals", "variables": []any{v}})
		return string(res)
	}
	sdk.HandlePrepared(Prepare)
	defer sdk.Handle(nil)
	for _, form := range []struct {
		name   string
		prefix string
		eol    string
	}{{"readlines", "", "\n"}, {"split", "", ""}, {"bytes", "b", "\n"}, {"crlf", "", "\r\n"}} {
		var values []string
		for _, l := range key {
			values = append(values, repr(form.prefix, l+form.eol))
		}
		out := shownResult(t, policytest.Case{Phase: "result", Tool: "debugpy_variables", Result: listing(values)})
		for _, b := range body {
			if strings.Contains(out, b[:20]) {
				t.Errorf("%s: shows the key's line %q\n%s", form.name, b, out)
			}
		}
	}
	words := []string{"'alpha'", "'beta gamma'", "'user=ada'", "'-----'"}
	out, _ := sdk.Evaluate(policytest.Case{Phase: "result", Tool: "debugpy_variables", Result: listing(words)}.Request())
	if !strings.Contains(string(out), "nothing to redact") {
		t.Errorf("a list of words masked: %s", out)
	}
}

// shownResult is the result the agent gets after redact decides c: the
// rewritten result, or c's own when redact allows it as it is.
func shownResult(t *testing.T, c policytest.Case) string {
	t.Helper()
	out, failed := sdk.Evaluate(c.Request())
	sdk.TakeSecrets()
	var d struct {
		Decision string          `json:"decision"`
		Result   json.RawMessage `json:"result"`
	}
	if err := json.Unmarshal(out, &d); failed || err != nil || d.Decision != "allow" {
		t.Fatalf("%s: %v %s", c.Tool, err, out)
	}
	if d.Result == nil {
		return c.Result
	}
	return string(d.Result)
}

// TestKeyInHexMasked: a private key file's bytes in hex (bytes.hex(),
// binascii.hexlify), either case, in a repr, are masked whole; a
// certificate's are not.
func TestKeyInHexMasked(t *testing.T) {
	key := "-----BEGIN EC PRIVATE KEY-----\nMHcCAQEEIBkg4LVWM9nuwNSk3yByxZpYRTBnVJk5owkRmkoVkHbIoAoGCCqGSM49\n-----END EC PRIVATE KEY-----\n"
	lower := hex.EncodeToString([]byte(key))
	for _, s := range []string{"'" + lower + "'", "b'" + lower + "'", strings.ToUpper(lower), "key=" + lower + " ok"} {
		got, changed := maskText(s, nil)
		sdk.TakeSecrets()
		if !changed || strings.Contains(strings.ToLower(got), lower[60:100]) {
			t.Errorf("%.40q...: %q", s, got)
		}
	}
	cert := hex.EncodeToString([]byte("-----BEGIN CERTIFICATE-----\nMIIDdzCCAl+gAwIBAgIEAgAAuTANBgkqhkiG9w0BAQUFADBa\n-----END CERTIFICATE-----\n"))
	if got, changed := maskText("'"+cert+"'", nil); changed {
		t.Errorf("a certificate's hex masked: %q", got)
	}
}

// The children a joined reading masks (a key file's lines, each a child)
// are learned each on its own, 8 bytes or more: read later alone
// (lines[92]), a line of the key was shown, since only the lines joined
// were learned (found 2026-12-07). A token's prefix in a child of its own
// is not learned: it would mask every text that spells it.
func TestMaskedPiecesLearned(t *testing.T) {
	sdk.HandlePrepared(Prepare)
	defer sdk.Handle(nil)
	body := []string{"MHcCAQEEIBkg4LVWM9nuwNSk3yByxZpYRTBnVJk5owkRmkoVkHbIoAoGCCqGSM49",
		"AwEHoUQDQgAEcmC1oZMNnqANd8ad6u3x9f5OeHgV4CsYEEJRc1XJL+qGv3l0X3ce", "k2V7r0yFh3AFpbbHsX1yqYs0ZqDnYPE1Fg=="}
	lines := append(append([]string{"filler", "-----BEGIN EC PRIVATE KEY-----"}, body...), "-----END EC PRIVATE KEY-----", "ghp_", "16C7e42F292c6912E7710c838347Ae178B4a")
	var children []map[string]any
	for i, l := range lines {
		v := "'" + l + "'"
		if l == "ghp_" {
			children = append(children, map[string]any{"name": "n", "value": "1", "type": "int"}) // ends the run of strings
		}
		children = append(children, map[string]any{"name": strconv.Itoa(i), "value": v, "type": "str"})
	}
	res, _ := json.Marshal(map[string]any{"variables": []any{map[string]any{"name": "lines", "type": "list", "value": "['filler', ...]", "children": children}}})
	out, failed := sdk.Evaluate(policytest.Case{Phase: "result", Tool: "debugpy_variables", Result: string(res)}.Request())
	learned := sdk.TakeSecrets()
	if failed || strings.Contains(string(out), body[1][:20]) {
		t.Fatalf("the key shown: %s", out)
	}
	for _, l := range append(body, "16C7e42F292c6912E7710c838347Ae178B4a") {
		if !slices.Contains(learned, l) {
			t.Errorf("%.20s... not learned alone: %q", l, learned)
		}
	}
	if slices.Contains(learned, "ghp_") {
		t.Errorf("a prefix of 4 bytes learned: %q", learned)
	}
}

// TestKeyedChildrenReadALineEach: a mapping's values and an object's
// attributes are read together a line each, not end to end. End to end,
// os.environ's values made a URL whose authority ran on into the next
// value, and that value (PLAIN_VALUE's) was learned as a secret, and so
// masked wherever it showed (found 2026-12-07). A key's lines under keys
// are still read as one key.
func TestKeyedChildrenReadALineEach(t *testing.T) {
	sdk.HandlePrepared(Prepare)
	defer sdk.Handle(nil)
	read := func(children []map[string]any) (string, []string) {
		t.Helper()
		res, _ := json.Marshal(map[string]any{"variables": []any{map[string]any{"name": "d", "type": "dict", "value": "{...}", "children": children}}})
		out, failed := sdk.Evaluate(policytest.Case{Phase: "result", Tool: "debugpy_variables", Result: string(res)}.Request())
		if failed {
			t.Fatalf("failed: %s", out)
		}
		return string(out), sdk.TakeSecrets()
	}
	sdk.TakeSecrets()
	var env []map[string]any
	for _, kv := range [][2]string{{"XDG_RUNTIME_DIR", "/tmp/TestAttackSecretThroughAPath2750170262/001/run"}, {"XDG_CACHE_HOME", "/tmp/debugpy-guard-e2e-cache"}, {"DATABASE_URL", "postgres://app:envpw-s3cret@db/x"},
		{"PLAIN_VALUE", "plain-value"}, {"PYTHONIOENCODING", "utf-8"}, {"PYDEVD_USE_FRAME_EVAL", "NO"}} {
		env = append(env, map[string]any{"name": "b'" + kv[0] + "'", "value": "b'" + kv[1] + "'", "type": "bytes"})
	}
	out, learned := read(env)
	if strings.Contains(out, "envpw-s3cret") || !strings.Contains(out, "plain-value") || !strings.Contains(out, "debugpy-guard-e2e-cache") {
		t.Errorf("os.environ's values: %s", out)
	}
	if !slices.Contains(learned, "envpw-s3cret") {
		t.Errorf("the password not learned: %q", learned)
	}
	for _, l := range learned {
		if strings.Contains(l, "plain") || strings.Contains(l, "cache") {
			t.Errorf("learned %q", l)
		}
	}
	body := []string{"MHcCAQEEIBkg4LVWM9nuwNSk3yByxZpYRTBnVJk5owkRmkoVkHbIoAoGCCqGSM49",
		"AwEHoUQDQgAEcmC1oZMNnqANd8ad6u3x9f5OeHgV4CsYEEJRc1XJL+qGv3l0X3ce", "k2V7r0yFh3AFpbbHsX1yqYs0ZqDnYPE1Fg=="}
	var lines []map[string]any
	for i, l := range append(append([]string{"-----BEGIN EC PRIVATE KEY-----"}, body...), "-----END EC PRIVATE KEY-----") {
		lines = append(lines, map[string]any{"name": fmt.Sprintf("'l%d'", i), "value": "'" + l + "'", "type": "str"})
	}
	out, learned = read(lines)
	if strings.Contains(out, body[1][:20]) {
		t.Errorf("a key's lines under keys: %s", out)
	}
	for _, l := range body {
		if !slices.Contains(learned, l) {
			t.Errorf("%.20s... not learned alone: %q", l, learned)
		}
	}
}

// TestJWTPartsMasked: a JWT's parts as a list's items (token.split('.')),
// in a program that holds no more of the token, are read with their dots:
// each is masked and learned. Read joined without them, the signature was
// shown (found 2026-12-07).
func TestJWTPartsMasked(t *testing.T) {
	sdk.HandlePrepared(Prepare)
	defer sdk.Handle(nil)
	parts := []string{"eyJhbGciOiAiSFMyNTYiLCAidHlwIjogIkpXVCJ9", "eyJzdWIiOiAiMTIzNDU2Nzg5MCIsICJuYW1lIjogIkFkYSJ9",
		"LBpB1ZpfDctHBGHNycqidFVW67hopePmWGLTUbEntvY"}
	read := func(ps []string) (string, []string) {
		var children []map[string]any
		for i, p := range ps {
			children = append(children, map[string]any{"name": strconv.Itoa(i), "value": "'" + p + "'", "type": "str"})
		}
		res, _ := json.Marshal(map[string]any{"variables": []any{map[string]any{"name": "parts", "type": "list", "value": "[...]", "children": children}}})
		sdk.TakeSecrets()
		out, failed := sdk.Evaluate(policytest.Case{Phase: "result", Tool: "debugpy_variables", Result: string(res)}.Request())
		if failed {
			t.Fatalf("failed: %s", out)
		}
		return string(out), sdk.TakeSecrets()
	}
	out, learned := read(parts)
	for _, p := range parts {
		if strings.Contains(out, p) {
			t.Errorf("%.20s... shown: %s", p, out)
		}
		if !slices.Contains(learned, p) {
			t.Errorf("%.20s... not learned alone: %q", p, learned)
		}
	}
	// The control: strings that begin so but make no JWT.
	control := []string{"eyJust a word", "another", "and a third"}
	if out, learned := read(control); strings.Contains(out, "redacted") || len(learned) > 0 {
		t.Errorf("no JWT masked: %s, %q", out, learned)
	}
}
