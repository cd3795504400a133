package dap

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"unicode"

	godap "github.com/google/go-dap"
)

// What a session may read (docs/SECURITY.md, files): the files of the stacks
// debugpy reported, the sources it reported as loaded, and everything under
// the directories of a launch that a person approved (the program's
// directory and its cwd, unless one holds the home directory). Nothing the
// agent names on an unapproved call widens it: a breakpoint file does not;
// a path mapping would, through the files debugpy names under its local
// root, so the modules judge each mapping as a grant (tools/derive.go).

// ownedFiles is the set, kept by the session under its mutex.
type ownedFiles struct {
	files map[string]bool // resolved paths
	roots []string        // resolved directories
	// progs are where a launched program's own modules are found: its
	// script's directory (sys.path[0]) and its cwd (for -m). A directory
	// that holds the home directory counts here, unlike among the roots:
	// it names the program's modules, and grants no read.
	progs []string
}

// noteFrames records the files of frames, and the directory of a module's
// code of the program's own (a frame of a module's top level, not a
// library's: pydevd shows those as "subtle") as a directory of its
// modules: an attached program's script, whose directory no launch named.
func (s *Session) noteFrames(frames []godap.StackFrame) {
	for _, f := range frames {
		if f.Source != nil && f.Source.Path != "" {
			s.noteFile(f.Source.Path)
			if f.Name == "<module>" && f.PresentationHint != "subtle" && filepath.IsAbs(f.Source.Path) {
				s.programDir(filepath.Dir(f.Source.Path))
			}
		}
	}
}

func (s *Session) noteFile(path string) {
	s.mu.Lock()
	known := s.owned.files[path]
	s.mu.Unlock()
	if known {
		return
	}
	r := resolved(path)
	s.mu.Lock()
	if s.owned.files == nil {
		s.owned.files = map[string]bool{}
	}
	s.owned.files[path] = true // the spelling debugpy used, and
	s.owned.files[r] = true    // the file it names
	s.mu.Unlock()
}

// ownRoot adds a directory whose files all belong to the session, but for
// one that holds a home directory: a script run from ~ (or a launch with
// cwd / or ~) would make every file of the user's, ~/.ssh, ~/.pgpass and
// ~/.kube among them, the session's, readable with nobody asked. There the
// program's own files belong to it as any other session's do (its stacks,
// its loaded sources), and the rest needs a person.
func (s *Session) ownRoot(dir string) {
	r := resolved(dir)
	if holdsHome(r) {
		s.log.Info("a launch's directory holds the home directory: its files are not the session's", "dir", r)
		return
	}
	s.mu.Lock()
	s.owned.roots = append(s.owned.roots, r)
	s.mu.Unlock()
}

// programDir adds a directory where the program's own modules are.
func (s *Session) programDir(dir string) {
	s.mu.Lock()
	known := slices.Contains(s.owned.progs, dir)
	s.mu.Unlock()
	if known {
		return
	}
	r := resolved(dir)
	s.mu.Lock()
	for _, d := range []string{dir, r} { // as given (known next time), and resolved
		if !slices.Contains(s.owned.progs, d) {
			s.owned.progs = append(s.owned.progs, d)
		}
	}
	s.mu.Unlock()
}

// ProgramModule reports whether name, a dotted name as a class's repr
// gives it (<class 'pkg.conf.Config'>: a module's name, then maybe its
// classes'), names a module of the program's own: name.py or
// name/__init__.py, or those of a leading part of name, under a directory
// where a launched program's modules are. A part that is no identifier
// (a class's __module__ is any string the program sets) names none, nor
// does a name of more than maxModuleParts parts (each is a file to ask).
func (s *Session) ProgramModule(name string) bool {
	parts := strings.Split(name, ".")
	if len(parts) > maxModuleParts {
		return false
	}
	for _, p := range parts {
		if !identifier(p) {
			return false
		}
	}
	s.mu.Lock()
	dirs := slices.Clone(s.owned.progs)
	s.mu.Unlock()
	for n := len(parts); n > 0; n-- {
		rel := filepath.Join(parts[:n]...)
		for _, d := range dirs {
			for _, f := range []string{rel + ".py", filepath.Join(rel, "__init__.py")} {
				if fi, err := os.Stat(filepath.Join(d, f)); err == nil && fi.Mode().IsRegular() {
					return true
				}
			}
		}
	}
	return false
}

// maxModuleParts bounds the dotted parts of a name ProgramModule reads.
const maxModuleParts = 16

// identifier reports whether p is a Python identifier's shape: letters,
// digits and underscores, not starting with a digit.
func identifier(p string) bool {
	for i, r := range p {
		if !(r == '_' || unicode.IsLetter(r) || i > 0 && unicode.IsDigit(r)) {
			return false
		}
	}
	return p != ""
}

// holdsHome reports whether dir (resolved) is /, the home directory, or
// a directory above it.
func holdsHome(dir string) bool {
	if dir == "/" {
		return true
	}
	home, err := os.UserHomeDir()
	if err != nil || home == "" {
		return false
	}
	home = resolved(home)
	return home == dir || strings.HasPrefix(home, dir+string(filepath.Separator))
}

// Reported reports whether debugpy reported path (resolved): a frame's
// file or a loaded source's.
func (s *Session) Reported(path string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.owned.files[path]
}

// Owns reports whether the session may read path, a resolved absolute path
// (symlinks resolved: the caller reads this very path).
func (s *Session) Owns(path string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.owned.files[path] {
		return true
	}
	for _, r := range s.owned.roots {
		if path == r || strings.HasPrefix(path, r+string(filepath.Separator)) { // never / (holdsHome)
			return true
		}
	}
	return false
}

func resolved(p string) string {
	if r, err := filepath.EvalSymlinks(p); err == nil {
		if a, err := filepath.Abs(r); err == nil {
			return a
		}
	}
	return filepath.Clean(p)
}
