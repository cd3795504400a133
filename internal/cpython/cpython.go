// Package cpython finds the CPython that the differential tests hold the
// project's readings of Python to (its parser, its repr, its JSON), and
// starts the Python programs tests talk to: for tests only.
package cpython

import (
	"bufio"
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
		t.Fatalf("%s %v printed no line: %q %v", python, args, line, err)
	}
	return cmd, line
}
