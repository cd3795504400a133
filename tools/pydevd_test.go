package tools

import (
	"bufio"
	"encoding/json"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// pydevd's own functions, from the debugpy the tests run: the code the
// gate derives must be the code pydevd compiles.
const pydevdScript = `
import json, os, sys
import debugpy
sys.path.insert(0, os.path.join(os.path.dirname(debugpy.__file__), "_vendored", "pydevd"))
from _pydevd_bundle.pydevd_vars import _expression_to_evaluate
from _pydevd_bundle.pydevd_utils import convert_dap_log_message_to_expression
from _pydevd_bundle.pydevd_process_net_command_json import PyDevJsonCommandProcessor
hit = PyDevJsonCommandProcessor._get_hit_condition_expression
for line in sys.stdin:
    s = json.loads(line)
    h = hit(None, s)
    print(json.dumps({
        "dedent": _expression_to_evaluate(s.replace("@LINE@", "\n")),
        "log": convert_dap_log_message_to_expression(s),
        "hit": None if h is None else h.replace("@HIT@", "1"),
    }), flush=True)
`

// TestDerivedCodeIsPydevds compares the gate's pydevd transformations with
// pydevd's own on generated and tricky inputs.
func TestDerivedCodeIsPydevds(t *testing.T) {
	inputs := []string{
		"x", "  x", "  x\n  y", "  x\n y", "\tx\n\ty", " \n  x\n  y", "\f x", "x@LINE@y", "  a@LINE@  b", "\u3000x\n\u3000y", "\u00a0x", "\x1cx\x1cy", " x\r\n y", " x\u2028 y", " x\v y",
		"5", " 5 ", "+5", "-5", "05", "5_0", "٣", "%2", " % 2", "==3", ">=3", "<3", "> 1 or x", "%2 or __import__('os')", "x", "", " ", "\u3000 5",
		"n is {n}", "{a}{b}", "{{a}}", "{a{b}c}", "{", "}", "a{ b }c", "{}", "{ }", "x' {y}", "x\" {y}", "'\"{y}", "\\{y}", "\n{y}\t", "é {x}", "\x00{x}", "\u2028{x}", "{x) or (y}", "{\u3000x\u3000}",
	}
	rnd := rand.New(rand.NewSource(3))
	alphabet := []string{" ", "\t", "\n", "\r", "\f", "\v", "\u00a0", "\u3000", "\x1c", "\u2028", "{", "}", "'", "\"", "\\", "%", "=", ">", "<", "x", "1", "@LINE@", "@HIT@", "é"}
	for i := 0; i < 3000; i++ {
		var b strings.Builder
		for n := rnd.Intn(12); n >= 0; n-- {
			b.WriteString(alphabet[rnd.Intn(len(alphabet))])
		}
		inputs = append(inputs, b.String())
	}
	script := filepath.Join(t.TempDir(), "pydevd.py")
	os.WriteFile(script, []byte(pydevdScript), 0o644)
	var in strings.Builder
	for _, s := range inputs {
		j, _ := json.Marshal(s)
		in.Write(j)
		in.WriteByte('\n')
	}
	cmd := exec.Command("/usr/bin/python3", script)
	cmd.Stdin = strings.NewReader(in.String())
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("pydevd (make deps installs python3-debugpy): %v", err)
	}
	sc := bufio.NewScanner(strings.NewReader(string(out)))
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	i, bad := 0, 0
	for ; sc.Scan(); i++ {
		var want struct {
			Dedent, Log string
			Hit         *string
		}
		if err := json.Unmarshal(sc.Bytes(), &want); err != nil {
			t.Fatal(err)
		}
		s := inputs[i]
		got := []string{pydevdDedent(pydevdLines(s)), logMessageCode(s)}
		wants := []string{want.Dedent, want.Log}
		if want.Hit != nil && s != "" {
			got, wants = append(got, hitConditionCode(s)), append(wants, *want.Hit)
		}
		for k := range got {
			if got[k] != wants[k] && bad < 20 {
				bad++
				t.Errorf("%q (%s): gate %q, pydevd %q", s, []string{"dedent", "log message", "hit condition"}[k], got[k], wants[k])
			}
		}
	}
	if i != len(inputs) {
		t.Fatalf("pydevd answered %d of %d", i, len(inputs))
	}
}
