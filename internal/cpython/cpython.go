// Package cpython finds the CPython that the differential tests hold the
// project's readings of Python to (its parser, its repr, its JSON): for
// tests only.
package cpython

import (
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
