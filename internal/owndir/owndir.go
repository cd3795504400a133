// Package owndir checks that a directory the server takes code from can be
// changed by no one but its user (and root).
//
// Why: the server loads code from two directories it made itself, the
// compiled policy modules (plugins' wazero cache, machine code run in the
// server) and the Python files it puts into every program it starts
// (dap's pyshim, run in the debuggee). A directory another user can write
// to, or rename out of the way (one of its parents open to them, such as
// a $XDG_CACHE_HOME on a shared disk, or /tmp/debugpy-guard-UID made by
// them first), would let them swap that code for theirs: the policies'
// verdicts, or code in a program run as root. As OpenSSH's StrictModes
// checks a user's files, so this checks the directory, every directory
// above it, and everything in it.
//
// File checks a file the server writes that others must not change, the
// audit log: a log that another user (or the debuggee, run as another
// user as docs/SECURITY.md advises) could make first, or swap, is theirs
// to rewrite, hash chain and all.
package owndir

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
)

// Check returns an error unless dir (resolved), every directory above it
// and everything below it are owned by this user or root and writable by
// no one else, and nothing below it is a symbolic link. A directory above
// it that others may write to is allowed when it is sticky (/tmp): there
// no one but its owner renames what it holds.
func Check(dir string) error {
	real, err := filepath.EvalSymlinks(dir)
	if err != nil {
		return err
	}
	uid := os.Geteuid()
	if err := upward(real, uid, false); err != nil {
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
// and writable by no one else, and every directory above it is owned by
// this user or root and writable by no one else, or sticky (/tmp: there
// no one but a file's owner renames or removes it).
func File(f *os.File) error {
	fi, err := f.Stat()
	if err != nil {
		return err
	}
	if !fi.Mode().IsRegular() {
		return fmt.Errorf("%s is not a regular file (%v)", f.Name(), fi.Mode())
	}
	uid := os.Geteuid()
	if err := owned(f.Name(), fi, uid, false); err != nil {
		return err
	}
	dir, err := filepath.EvalSymlinks(filepath.Dir(f.Name()))
	if err != nil {
		return err
	}
	return upward(dir, uid, true)
}

// upward checks dir and every directory above it (owned); dir itself may
// be sticky when sticky is true, as a file's own directory may (there no
// one but the file's owner renames it), and the directories above it
// always may.
func upward(dir string, uid int, sticky bool) error {
	for p, above := dir, sticky; ; p, above = filepath.Dir(p), true {
		fi, err := os.Lstat(p)
		if err != nil {
			return err
		}
		if err := owned(p, fi, uid, above); err != nil {
			return err
		}
		if p == filepath.Dir(p) {
			return nil
		}
	}
}

// owned checks one entry: its owner is uid or root, and no one else may
// write to it (a sticky directory above the checked one excepted).
func owned(p string, fi fs.FileInfo, uid int, above bool) error {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return fmt.Errorf("%s: no owner to check", p)
	}
	if int(st.Uid) != uid && st.Uid != 0 {
		return fmt.Errorf("%s belongs to user %d, not to this user (%d) or root", p, st.Uid, uid)
	}
	if fi.Mode().Perm()&0o022 != 0 && !(above && fi.IsDir() && fi.Mode()&fs.ModeSticky != 0) {
		return fmt.Errorf("%s can be written by others (mode %v)", p, fi.Mode())
	}
	return nil
}
