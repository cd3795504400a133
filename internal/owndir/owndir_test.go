package owndir

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestCheck: a directory of this user's, closed to others, passes; one that
// others could change (its own mode, a file's, a subdirectory's, a
// directory above it that is not sticky, an entry of another user's, a
// symbolic link inside it) does not.
func TestCheck(t *testing.T) {
	mk := func(t *testing.T) string {
		base := t.TempDir()
		dir := filepath.Join(base, "d")
		os.MkdirAll(filepath.Join(dir, "sub"), 0o755)
		os.WriteFile(filepath.Join(dir, "code.py"), []byte("x = 1\n"), 0o644)
		os.WriteFile(filepath.Join(dir, "sub", "code.bin"), []byte{1}, 0o600)
		return dir
	}
	dir := mk(t)
	if err := Check(dir); err != nil {
		t.Fatalf("a directory of one's own: %v", err)
	}
	link := filepath.Join(t.TempDir(), "link")
	os.Symlink(dir, link)
	if err := Check(link); err != nil {
		t.Fatalf("a link to one (resolved): %v", err)
	}
	sticky := filepath.Dir(dir)
	os.Chmod(sticky, 0o777|os.ModeSticky)
	if err := Check(dir); err != nil {
		t.Fatalf("under a sticky directory open to all, as /tmp: %v", err)
	}

	for _, c := range []struct {
		name, want string
		spoil      func(dir string)
	}{
		{"itself open", "can be written by others", func(d string) { os.Chmod(d, 0o777) }},
		{"itself sticky", "can be written by others", func(d string) { os.Chmod(d, 0o777|os.ModeSticky) }},
		{"a file open", "can be written by others", func(d string) { os.Chmod(filepath.Join(d, "code.py"), 0o666) }},
		{"a subdirectory open", "can be written by others", func(d string) { os.Chmod(filepath.Join(d, "sub"), 0o775) }},
		{"a parent open", "can be written by others", func(d string) { os.Chmod(filepath.Dir(d), 0o777) }},
		{"a link inside", "symbolic link", func(d string) { os.Symlink("/etc/passwd", filepath.Join(d, "sub", "x")) }},
	} {
		t.Run(c.name, func(t *testing.T) {
			d := mk(t)
			c.spoil(d)
			if err := Check(d); err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("got %v, want %q", err, c.want)
			}
		})
	}
	t.Run("another user's", func(t *testing.T) {
		if os.Geteuid() != 0 {
			t.Skip("giving a file to another user needs root (CI runs as root)")
		}
		d := mk(t)
		if err := os.Chown(filepath.Join(d, "sub", "code.bin"), 65534, 65534); err != nil {
			t.Fatal(err)
		}
		if err := Check(d); err == nil || !strings.Contains(err.Error(), "belongs to user 65534") {
			t.Fatalf("got %v", err)
		}
	})
	if err := Check(filepath.Join(dir, "missing")); err == nil {
		t.Fatal("a directory that is not there")
	}
}

// TestFile: a file of this user's, closed to others, in a directory of
// theirs or under a sticky one, passes; one open to others, in a directory
// open to others, or not a regular file does not.
func TestFile(t *testing.T) {
	mk := func(t *testing.T) *os.File {
		dir := filepath.Join(t.TempDir(), "d")
		os.Mkdir(dir, 0o700)
		f, err := os.OpenFile(filepath.Join(dir, "log"), os.O_RDWR|os.O_CREATE, 0o600)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { f.Close() })
		return f
	}
	f := mk(t)
	if err := File(f); err != nil {
		t.Fatalf("a file of one's own: %v", err)
	}
	os.Chmod(filepath.Dir(f.Name()), 0o777|os.ModeSticky)
	if err := File(f); err != nil {
		t.Fatalf("in a sticky directory open to all, as /tmp: %v", err)
	}
	for _, c := range []struct {
		name, want string
		spoil      func(f *os.File)
	}{
		{"open", "can be written by others", func(f *os.File) { os.Chmod(f.Name(), 0o622) }},
		{"its directory open", "can be written by others", func(f *os.File) { os.Chmod(filepath.Dir(f.Name()), 0o777) }},
		{"a parent open", "can be written by others", func(f *os.File) { os.Chmod(filepath.Dir(filepath.Dir(f.Name())), 0o777) }},
	} {
		t.Run(c.name, func(t *testing.T) {
			f := mk(t)
			c.spoil(f)
			if err := File(f); err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("got %v, want %q", err, c.want)
			}
		})
	}
	d, err := os.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	if err := File(d); err == nil || !strings.Contains(err.Error(), "not a regular file") {
		t.Fatalf("a directory: %v", err)
	}
}

// BenchmarkCheck checks a directory of 100 files, as a compilation cache
// that has kept a hundred modules' code (the server checks it once at
// start).
func BenchmarkCheck(b *testing.B) {
	dir := filepath.Join(b.TempDir(), "cache", "wazero-v1-amd64-linux")
	os.MkdirAll(dir, 0o700)
	for i := range 100 {
		os.WriteFile(filepath.Join(dir, strconv.Itoa(i)), []byte{1}, 0o600)
	}
	for b.Loop() {
		if err := Check(filepath.Dir(dir)); err != nil {
			b.Fatal(err)
		}
	}
}
