package main

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// Every subcommand answers -h and --help with its usage on stdout, exit 0,
// and does nothing else: no demo run, no approval looked up, no file
// opened or written. Through the binary, as a user meets it.
func TestEveryCommandAnswersHelp(t *testing.T) {
	if len(commands) < 15 {
		t.Fatalf("%d commands with help; the catalogue of commands shrank?", len(commands))
	}
	home := t.TempDir()
	env := []string{"HOME=" + home, "XDG_CACHE_HOME=" + filepath.Join(home, "cache"), "XDG_RUNTIME_DIR=" + filepath.Join(home, "run"), "XDG_STATE_HOME=" + filepath.Join(home, "state")}
	for name := range commands {
		for _, flag := range []string{"--help", "-h", "-help"} {
			args := append(strings.Fields(name), flag)
			if name == "audit" {
				args = []string{"audit", "verify", flag}
			}
			cmd := exec.Command(binary, args...)
			cmd.Dir = home
			cmd.Env = append(os.Environ(), env...)
			var stdout, stderr bytes.Buffer
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			err := cmd.Run()
			out := stdout.String()
			if err != nil || stderr.Len() > 0 || !strings.HasPrefix(out, "usage: debugpy-guard "+name) || !strings.Contains(out, "github.com/debugpy-guard/debugpy-guard") {
				t.Errorf("%v: %v\nstdout:\n%s\nstderr:\n%s", args, err, out, stderr.String())
			}
		}
	}
	if entries, _ := os.ReadDir(home); len(entries) != 0 {
		t.Errorf("--help left files behind in HOME: %v", entries)
	}
	if out, code := runIn(t, home, env, "serve", "--help"); code != 0 || !strings.Contains(out, "DEBUGPY_GUARD_REQUEST_TIMEOUT") || !strings.Contains(out, "-config") {
		t.Errorf("serve --help lists neither the environment nor the flags:\n%s", out)
	}
	for _, v := range [][]string{{"--version"}, {"version"}, {"-version"}} {
		if out, code := runIn(t, home, env, v...); code != 0 || !strings.HasPrefix(out, "debugpy-guard ") {
			t.Errorf("%v: %d %s", v, code, out)
		}
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"check", "extra"}, `debugpy-guard check: unexpected argument "extra"`},
		{[]string{"serve", "--nope"}, "debugpy-guard serve: flag provided but not defined: -nope\nusage: debugpy-guard serve [--config FILE]"},
		{[]string{"audit", "frob"}, `unknown audit command "frob"`},
		{[]string{"approve"}, "give one ID"},
		{[]string{"policy", "build"}, "give one DIR"},
		{[]string{"tools", "x"}, `debugpy-guard tools: unexpected argument "x"`},
		{[]string{"nope"}, `unknown command "nope"`},
	} {
		if out, code := runIn(t, home, env, c.args...); code != 2 || !strings.Contains(out, c.want) {
			t.Errorf("%v: want exit 2 and %q, got %d:\n%s", c.args, c.want, code, out)
		}
	}
}

// The server tells the model how a session goes here, in its initialize
// result.
func TestServeSendsInstructions(t *testing.T) {
	r := startRaw(t, rawOpts{})
	var init struct {
		Result struct {
			Instructions string `json:"instructions"`
		} `json:"result"`
	}
	line, _, _ := strings.Cut(r.seen.String(), "\n")
	if err := json.Unmarshal([]byte(line), &init); err != nil || !strings.HasPrefix(init.Result.Instructions, "Debug Python programs with debugpy.") ||
		!strings.Contains(init.Result.Instructions, "[ref N]") {
		t.Fatalf("initialize result: %v\n%s", err, line)
	}
}
