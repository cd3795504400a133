package dap

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	godap "github.com/google/go-dap"
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

// A class's module is the program's when its file is under the directory
// of the program's script or its cwd (the home directory too): a dotted
// name as a class's repr gives it, a leading part of it. A name that is
// no identifier's (a class's __module__ is any string) names no file.
func TestProgramModule(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	os.MkdirAll(filepath.Join(home, "pkg", "sub"), 0o755)
	os.WriteFile(filepath.Join(home, "conf.py"), nil, 0o644)
	os.WriteFile(filepath.Join(home, "pkg", "__init__.py"), nil, 0o644)
	os.WriteFile(filepath.Join(home, "pkg", "sub", "mod.py"), nil, 0o644)
	os.Mkdir(filepath.Join(home, "dir.py"), 0o755)
	s := newSession("t", nil)
	s.programDir(home)
	for name, want := range map[string]bool{
		"conf.Config":                     true,
		"conf.Config.Inner":               true,
		"pkg.Thing":                       true,
		"pkg.sub.mod.Config":              true,
		"pkg.sub.Other":                   true, // pkg, the package, is the program's
		"logging.Logger":                  false,
		"requests.sessions.Sess":          false,
		"dir.X":                           false, // a directory named like a module's file
		"..conf":                          false,
		"../conf.Config":                  false,
		"conf/../conf.Config":             false,
		"":                                false,
		"1conf.Config":                    false,
		"conf\x00.Config":                 false,
		"conf" + strings.Repeat(".A", 16): false, // too many parts to ask the file system about
	} {
		if got := s.ProgramModule(name); got != want {
			t.Errorf("ProgramModule(%q) = %v, want %v", name, got, want)
		}
	}
	if newSession("t", nil).ProgramModule("conf.Config") {
		t.Error("a session with no program's directory has no module of its own")
	}
	// An attached program's: the directory of its modules' top-level
	// frames, but for a library's (pydevd's "subtle").
	for _, c := range []struct {
		frame godap.StackFrame
		want  bool
	}{
		{godap.StackFrame{Name: "<module>", Source: &godap.Source{Path: filepath.Join(home, "app.py")}}, true},
		{godap.StackFrame{Name: "<module>", Source: &godap.Source{Path: filepath.Join(home, "app.py")}, PresentationHint: "subtle"}, false},
		{godap.StackFrame{Name: "main", Source: &godap.Source{Path: filepath.Join(home, "app.py")}}, false},
	} {
		s := newSession("t", nil)
		s.noteFrames([]godap.StackFrame{c.frame})
		if got := s.ProgramModule("conf.Config"); got != c.want {
			t.Errorf("after a frame %+v: %v, want %v", c.frame, got, c.want)
		}
	}
}
