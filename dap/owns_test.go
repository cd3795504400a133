package dap

import (
	"os"
	"path/filepath"
	"testing"
)

// TestOwnsNotAboveHome: a launch's directories are the session's, but for
// one that holds the home directory (/, ~, /home): every file of the
// user's would then be read with nobody asked.
func TestOwnsNotAboveHome(t *testing.T) {
	home := filepath.Join(t.TempDir(), "home", "ada")
	proj := filepath.Join(home, "proj")
	os.MkdirAll(proj, 0o755)
	t.Setenv("HOME", home)
	s := newSession("t", nil)
	for _, dir := range []string{"/", filepath.Dir(home), home, home + "/", proj} {
		s.ownRoot(dir)
	}
	for path, want := range map[string]bool{
		filepath.Join(home, ".pgpass"):    false,
		filepath.Join(home, "notes.py"):   false,
		"/etc/hosts":                      false,
		filepath.Join(proj, "app.py"):     true,
		filepath.Join(proj, "a", "b.txt"): true,
		proj + "x/y":                      false, // a sibling that shares its prefix
	} {
		if got := s.Owns(path); got != want {
			t.Errorf("Owns(%s) = %v, want %v", path, got, want)
		}
	}
}
