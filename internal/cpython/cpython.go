// Package cpython finds the CPython that the differential tests hold the
// project's readings of Python to (its parser, its repr, its JSON), and
// starts the Python programs tests talk to: for tests only.
package cpython

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os/exec"
	"testing"
)

// Path is Debian's python3, which also runs debugpy (make deps installs
// it), or the first python3 on PATH; without one the test fails.
func Path(t testing.TB) string {
	t.Helper()
	for _, p := range []string{"/usr/bin/python3", "python3"} {
		if path, err := exec.LookPath(p); err == nil {
			return path
		}
	}
	t.Fatal("no python3: the differential test needs CPython (make deps installs it)")
	return ""
}

// Start runs python with args, kills it when the test ends, and returns it
// with the first line it printed: the program says when it is ready (a
// port it listens on, a mode it entered), and the test waits for that,
// not for a time.
func Start(t testing.TB, python string, args ...string) (*exec.Cmd, string) {
	t.Helper()
	cmd := exec.Command(python, args...)
	return cmd, StartCmd(t, cmd)
}

// StartCmd is Start for a command set up by the caller (its directory,
// environment, the user it runs as).
func StartCmd(t testing.TB, cmd *exec.Cmd) string {
	t.Helper()
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		t.Fatalf("%s printed no line: %q %v", cmd, line, err)
	}
	return line
}

// Run runs script with python, stdin on its standard input, and returns
// what it printed; when it fails, so does the test, with what it wrote to
// its standard error.
func Run(t testing.TB, python, script string, stdin []byte) []byte {
	t.Helper()
	cmd := exec.Command(python, "-c", script)
	cmd.Stdin = bytes.NewReader(stdin)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%s: %v\n%s", python, err, stderr.String())
	}
	return out
}

// JSONLines is vs in JSON, one a line: how tests hand Python their values.
func JSONLines[T any](vs []T) []byte {
	var b bytes.Buffer
	for _, v := range vs {
		line, _ := json.Marshal(v)
		b.Write(line)
		b.WriteByte('\n')
	}
	return b.Bytes()
}
