package redact

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/debugpy-guard/debugpy-guard/plugins/abi"
	"github.com/debugpy-guard/debugpy-guard/plugins/sdk"
	"github.com/debugpy-guard/debugpy-guard/policies/internal/policytest"
)

// A debugpy_source window that starts inside what masks it (a value
// assigned over lines, a key block in a string, a YAML key's block, a
// table's rows) is read with the file's lines above it (derived.before):
// read alone, each window showed its part, and windows one after another
// showed it all (found 2026-12-07). Read with them, no window shows a
// piece of a secret; the lines that are no secret's are shown as they are.
func TestSourceWindowReadWithWhatItContinues(t *testing.T) {
	sdk.HandlePrepared(Prepare)
	defer sdk.Handle(nil)
	const body = "MHcCAQEEIBkg4LVWM9nuwNSk3yByxZpYRTBnVJk5owkRmkoVkHbIoAoGCCqGSM49\n" +
		"AwEHoUQDQgAEcmC1oZMNnqANd8ad6u3x9f5OeHgV4CsYEEJRc1XJL+qGv3l0X3ce\n" +
		"k2V7r0yFh3AFpbbHsX1yqYs0ZqDnYPE1Fg=="
	files := []struct {
		name, text string
		secrets    []string
	}{
		{"a key block in a string", "import os\n\nFIXTURE = \"\"\"-----BEGIN EC PRIVATE KEY-----\n" + body +
			"\n-----END EC PRIVATE KEY-----\"\"\"\n\nx = compute(1)\n", []string{"MHcCAQEEIBkg", "AwEHoUQDQgAE", "k2V7r0yFh3AF"}},
		{"a value assigned over lines", "import os\n\nDB_PASSWORD = (\n    \"first-piece-x1\"\n    \"second-piece-y2\"\n)\nx = compute(1)\n",
			[]string{"first-piece-x1", "second-piece-y2"}},
		{"a YAML key's block", "service: app\napi_key: |\n  yaml-line-one-z3\n  yaml-line-two-w4\nx: compute\n",
			[]string{"yaml-line-one-z3", "yaml-line-two-w4"}},
		{"a table's rows", "user,password\nada,csv-pass-q7\nbob,csv-pass-r8\n", []string{"csv-pass-q7", "csv-pass-r8"}},
	}
	// A key's DER in base64, a string literal a line, as a program's
	// source holds one: until 2026-12-07 only its first line was masked.
	keyLines := strings.Split(body, "\n")
	for _, layout := range []struct{ name, open, line, close string }{
		{"a list", "KEY_LINES = [\n", "    \"%[1]s\",\n", "]\n"},
		{"an implicit concatenation", "KEY_B64 = (\n", "    '%[1]s'\n", ")\n"},
		{"a dict's values", "PARTS = {\n", "    \"l%[2]d\": \"%[1]s\",\n", "}\n"},
		{"bytes joined", "blob = b''.join([\n", "    b\"%[1]s\",  # a comment\n", "])\n"},
	} {
		text := "import os\n\n" + layout.open
		for i, l := range keyLines {
			text += fmt.Sprintf(layout.line, l, i)
		}
		files = append(files, struct {
			name, text string
			secrets    []string
		}{"a DER key's lines in " + layout.name, text + layout.close + "x = compute(1)\n", []string{"MHcCAQEEIBkg", "AwEHoUQDQgAE", "k2V7r0yFh3AF"}})
	}
	for _, f := range files {
		lines := strings.Split(strings.TrimSuffix(f.text, "\n"), "\n")
		leaked := false // read alone, a window showed a secret's piece: the test can fail
		for lo := 2; lo <= len(lines); lo++ {
			for hi := lo; hi <= len(lines); hi++ {
				above := strings.Join(lines[:lo-1], "\n") + "\n"
				with := sourceWindow(t, lines, lo, hi, above)
				for _, s := range f.secrets {
					if strings.Contains(with, s) {
						t.Errorf("%s, lines %d-%d: %q shown: %s", f.name, lo, hi, s, with)
					}
				}
				if (f.name != "a table's rows" || lo > 1) && strings.Contains(strings.Join(lines[lo-1:hi], "\n"), "compute") && !strings.Contains(with, "compute") {
					t.Errorf("%s, lines %d-%d: the code below the secret masked: %s", f.name, lo, hi, with)
				}
				alone := sourceWindow(t, lines, lo, hi, "")
				for _, s := range f.secrets {
					leaked = leaked || strings.Contains(alone, s)
				}
			}
		}
		if !leaked {
			t.Errorf("%s: no window read alone showed a secret: the test cannot fail", f.name)
		}
	}
	// The text above is cut at 32 KiB, where a string may seem to begin
	// (the end of a docstring): the window is masked as read alone too.
	lines := []string{`    the end of a docstring the cut began inside`, `"""`, `x = 1`, `DB_PASSWORD = 'alone-masked-v5'`, `y = 2`}
	if got := sourceWindow(t, lines, 4, 5, strings.Join(lines[:3], "\n")+"\n"); strings.Contains(got, "alone-masked-v5") {
		t.Errorf("read with a cut that opens a string: %s", got)
	}
}

// sourceWindow is redact's result for lines lo to hi (1-based) of a file,
// with above as derived.before ("" for none).
func sourceWindow(t *testing.T, lines []string, lo, hi int, above string) string {
	t.Helper()
	type line struct {
		Line int    `json:"line"`
		Text string `json:"text"`
	}
	var ls []line
	for i := lo; i <= hi; i++ {
		ls = append(ls, line{i, lines[i-1]})
	}
	res, _ := json.Marshal(map[string]any{"file": "/app/settings.py", "lines": ls})
	derived := `{"before":[]}`
	if above != "" {
		b, _ := json.Marshal(map[string]any{"before": []abi.Before{{Category: abi.BeforeSource, Text: above}}})
		derived = string(b)
	}
	return shownResult(t, policytest.Case{Phase: "result", Tool: "debugpy_source", Result: string(res), Derived: derived})
}
