// Package owndir checks that what the server takes code and policy from
// can be changed by no one but its user (and root).
//
// Why: the server loads code from two directories it made itself, the
// compiled policy modules (plugins' wazero cache, machine code run in the
// server) and the Python files it puts into every program it starts
// (dap's pyshim, run in the debuggee). A directory another user can write
// to, or rename out of the way (one of its parents open to them, such as
// a $XDG_CACHE_HOME on a shared disk, or /tmp/debugpy-guard-UID made by
// them first), would let them swap that code for theirs: the policies'
// verdicts, or code in a program run as root. As OpenSSH's StrictModes
// checks a user's files, so Check checks the directory, every entry on
// the way to it, and everything in it.
//
// File checks a file the server writes that others must not change, the
// audit log: a log that another user (or the debuggee, run as another
// user as docs/SECURITY.md advises) could make first, or swap, is theirs
// to rewrite, hash chain and all.
//
// ReadFile reads a file the server takes its policy from, the config and
// the modules it names: whoever can change those decides every call (and
// serve reloads a config when it changes).
//
// Each follows the path as the kernel does, entry by entry from /, and
// checks every entry on the way: a directory, or a symbolic link, that
// another user can change would let them point the path elsewhere
// (resolve).
package owndir

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
)

// ErrOthers is wrapped by every error that says someone other than this
// user and root could change an entry, for callers to say what to do.
var ErrOthers = errors.New("someone else can change it")

type othersError struct{ msg string }

func (e *othersError) Error() string { return e.msg }
func (e *othersError) Unwrap() error { return ErrOthers }

func others(format string, args ...any) error {
	return &othersError{fmt.Sprintf(format, args...)}
}

// Check returns an error unless dir, every entry on the way to it
// (symbolic links followed, each checked) and everything below it are
// owned by this user or root and writable by no one else, and nothing
// below it is a symbolic link. A directory on the way that others may
// write to is allowed when it is sticky (/tmp): there no one but its owner
// renames what it holds.
func Check(dir string) error {
	uid := os.Geteuid()
	real, err := resolve(dir, uid)
	if err != nil {
		return err
	}
	fi, err := os.Lstat(real)
	if err != nil {
		return err
	}
	if err := owned(real, fi, uid, false); err != nil {
		return err
	}
	return filepath.WalkDir(real, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if p == real {
			return nil
		}
		if d.Type()&fs.ModeSymlink != 0 {
			return fmt.Errorf("%s is a symbolic link", p)
		}
		fi, err := d.Info()
		if err != nil {
			return err
		}
		return owned(p, fi, uid, false)
	})
}

// File returns an error unless f, opened without following a final
// symbolic link (O_NOFOLLOW), is a regular file owned by this user or root
// and writable by no one else, and every entry on the way to it is owned
// by this user or root and writable by no one else, or is a sticky
// directory (/tmp: there no one but a file's owner renames or removes it).
func File(f *os.File) error {
	uid := os.Geteuid()
	if _, err := regular(f, uid); err != nil {
		return err
	}
	_, err := resolve(filepath.Dir(f.Name()), uid)
	return err
}

// ReadFile reads the file at path when it, and every entry on the way to
// it (symbolic links followed, each checked), are owned by this user or
// root and writable by no one else, a sticky directory on the way (/tmp)
// excepted; otherwise it returns an error that names the entry and why.
// The file is opened at the path resolve checked, without following a
// link, and checked again once open: nothing on the way can be changed by
// another user in between.
func ReadFile(path string) ([]byte, error) {
	uid := os.Geteuid()
	real, err := resolve(path, uid)
	if err != nil {
		return nil, err
	}
	f, err := os.OpenFile(real, os.O_RDONLY|syscall.O_NOFOLLOW, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := regular(f, uid)
	if err != nil {
		return nil, err
	}
	buf := bytes.NewBuffer(make([]byte, 0, fi.Size()+bytes.MinRead)) // one allocation, as os.ReadFile
	_, err = buf.ReadFrom(f)
	return buf.Bytes(), err
}

// regular checks an open file: a regular file, owned by uid or root,
// writable by no one else.
func regular(f *os.File, uid int) (fs.FileInfo, error) {
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%s is not a regular file (%v)", f.Name(), fi.Mode())
	}
	return fi, owned(f.Name(), fi, uid, false)
}

// maxLinks bounds the symbolic links followed for one path, as the
// kernel's own bound (40 on Linux) does.
const maxLinks = 40

// resolve follows path from / as the kernel does, one entry at a time,
// and returns it with every symbolic link replaced by its target. It
// checks each entry on the way, the last one too (owned): a symbolic link
// must be owned by uid or root, anything else must be owned by uid or root
// and writable by no one else, a sticky directory excepted (there no one
// renames an entry they do not own, and each entry taken from it is
// checked in turn). Why not filepath.EvalSymlinks and a
// check of the result: a link in a directory another user can write to,
// or a link of theirs, can be pointed elsewhere, and the result does not
// show it was on the way.
func resolve(path string, uid int) (string, error) {
	if !filepath.IsAbs(path) {
		wd, err := os.Getwd() // it may name links ($PWD): each is followed and checked below
		if err != nil {
			return "", err
		}
		path = wd + string(filepath.Separator) + path // not Join: it cleans "link/.." lexically
	}
	done := string(filepath.Separator)
	fi, err := os.Lstat(done)
	if err != nil {
		return "", err
	}
	if err := owned(done, fi, uid, true); err != nil {
		return "", err
	}
	rest := strings.Split(path, string(filepath.Separator))
	for links := 0; len(rest) > 0; {
		name := rest[0]
		rest = rest[1:]
		switch name {
		case "", ".":
			continue
		case "..":
			done = filepath.Dir(done) // done has no link in it: its parent is the kernel's
			continue
		}
		p := filepath.Join(done, name)
		fi, err := os.Lstat(p)
		if err != nil {
			return "", err
		}
		if err := owned(p, fi, uid, true); err != nil {
			return "", err
		}
		if fi.Mode()&fs.ModeSymlink == 0 {
			done = p
			continue
		}
		if links++; links > maxLinks {
			return "", fmt.Errorf("%s: more than %d symbolic links on the way", path, maxLinks)
		}
		target, err := os.Readlink(p)
		if err != nil {
			return "", err
		}
		if filepath.IsAbs(target) {
			done = string(filepath.Separator)
		}
		rest = append(strings.Split(target, string(filepath.Separator)), rest...)
	}
	return done, nil
}

// owned checks one entry: its owner is uid or root, and no one else may
// write to it (a sticky directory, when above, excepted; a symbolic link's
// mode means nothing, its owner alone can point it elsewhere).
func owned(p string, fi fs.FileInfo, uid int, above bool) error {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return fmt.Errorf("%s: no owner to check", p)
	}
	link := fi.Mode()&fs.ModeSymlink != 0
	switch {
	case int(st.Uid) != uid && st.Uid != 0 && link:
		return others("%s is a symbolic link of another user's: they can point it elsewhere", p)
	case int(st.Uid) != uid && st.Uid != 0:
		return others("%s belongs to user %d, not to this user (%d) or root", p, st.Uid, uid)
	case link:
		return nil
	}
	if fi.Mode().Perm()&0o022 != 0 && !(above && fi.IsDir() && fi.Mode()&fs.ModeSticky != 0) {
		return others("%s can be written by others (mode %v)", p, fi.Mode())
	}
	return nil
}
