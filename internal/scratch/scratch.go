// Package scratch gives a package's tests one temporary directory for what
// they build once (a policy module, a compilation cache), removed when they
// end, so that test runs leave nothing behind in the temporary directory.
package scratch

import (
	"fmt"
	"os"
	"testing"
)

// Main runs m (from a package's TestMain) with a new temporary directory
// named after prefix, whose path it stores in *dir for the tests; it
// removes the directory when they end and exits with their code.
func Main(m *testing.M, prefix string, dir *string) {
	d, err := os.MkdirTemp("", prefix)
	if err != nil {
		fmt.Fprintln(os.Stderr, "scratch:", err)
		os.Exit(1)
	}
	*dir = d
	code := m.Run()
	os.RemoveAll(d)
	os.Exit(code)
}
