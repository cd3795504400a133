package dap

import (
	"path/filepath"
	"strings"

	godap "github.com/google/go-dap"
)

// What a session may read (docs/SECURITY.md, files): the files of the stacks
// debugpy reported, the sources it reported as loaded, and everything under
// the directories of a launch that a person approved (the program's
// directory and its cwd). Nothing the agent names on an unapproved call
// widens it: a path mapping does not, a breakpoint file does not.

// ownedFiles is the set, kept by the session under its mutex.
type ownedFiles struct {
	files map[string]bool // resolved paths
	roots []string        // resolved directories
}

// noteFrames records the files of frames.
func (s *Session) noteFrames(frames []godap.StackFrame) {
	for _, f := range frames {
		if f.Source != nil && f.Source.Path != "" {
			s.noteFile(f.Source.Path)
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

// ownRoot adds a directory whose files all belong to the session.
func (s *Session) ownRoot(dir string) {
	s.mu.Lock()
	s.owned.roots = append(s.owned.roots, resolved(dir))
	s.mu.Unlock()
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
		if path == r || strings.HasPrefix(path, r+string(filepath.Separator)) || r == "/" {
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
