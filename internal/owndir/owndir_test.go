package owndir

import (
	"errors"
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
	open := t.TempDir()
	os.Symlink(dir, filepath.Join(open, "link"))
	os.Chmod(open, 0o777)
	if err := Check(filepath.Join(open, "link")); err == nil || !strings.Contains(err.Error(), "can be written by others") {
		t.Fatalf("a link to one in a directory open to others (they may point it elsewhere): %v", err)
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

// TestReadFile: a file of this user's, on a way of their entries closed to
// others (a sticky directory, as /tmp, allowed), is read, through links
// too, as the kernel follows them; one that another user could change, or
// point elsewhere (the file, a directory on the way, a directory holding a
// link on the way, a link of another user's), is refused, and so is what
// is not a regular file.
func TestReadFile(t *testing.T) {
	// base/d/sub/f.toml, base/d/f.toml, base/links/ (all closed).
	mk := func(t *testing.T) string {
		base := t.TempDir()
		os.MkdirAll(filepath.Join(base, "d", "sub"), 0o755)
		os.Mkdir(filepath.Join(base, "links"), 0o755)
		os.WriteFile(filepath.Join(base, "d", "sub", "f.toml"), []byte("sub"), 0o644)
		os.WriteFile(filepath.Join(base, "d", "f.toml"), []byte("d"), 0o644)
		return base
	}
	read := func(t *testing.T, path, want string) {
		t.Helper()
		b, err := ReadFile(path)
		if err != nil || string(b) != want {
			t.Fatalf("ReadFile(%s) = %q, %v; want %q", path, b, err, want)
		}
	}
	base := mk(t)
	read(t, filepath.Join(base, "d", "sub", "f.toml"), "sub")
	os.Symlink(filepath.Join(base, "d", "sub"), filepath.Join(base, "links", "abs"))
	os.Symlink("../d/sub/f.toml", filepath.Join(base, "links", "rel"))
	read(t, filepath.Join(base, "links", "abs", "f.toml"), "sub")
	read(t, filepath.Join(base, "links", "rel"), "sub")
	// As the kernel reads it: links/abs/.. is d, not links.
	read(t, filepath.Join(base, "links", "abs")+"/../f.toml", "d")
	t.Chdir(filepath.Join(base, "links"))
	read(t, "abs/f.toml", "sub")
	os.Chmod(base, 0o777|os.ModeSticky)
	read(t, filepath.Join(base, "d", "f.toml"), "d")

	for _, c := range []struct {
		name, path, want string
		spoil            func(base string)
	}{
		{"open", "d/f.toml", "can be written by others", func(b string) { os.Chmod(filepath.Join(b, "d", "f.toml"), 0o666) }},
		{"its directory open", "d/sub/f.toml", "can be written by others", func(b string) { os.Chmod(filepath.Join(b, "d", "sub"), 0o777) }},
		{"a directory above open", "d/sub/f.toml", "can be written by others", func(b string) { os.Chmod(filepath.Join(b, "d"), 0o775) }},
		{"its link's directory open", "links/rel", "can be written by others", func(b string) {
			os.Symlink("../d/sub/f.toml", filepath.Join(b, "links", "rel"))
			os.Chmod(filepath.Join(b, "links"), 0o777)
		}},
		{"its link's target open", "links/rel", "can be written by others", func(b string) {
			os.Symlink("../d/sub/f.toml", filepath.Join(b, "links", "rel"))
			os.Chmod(filepath.Join(b, "d", "sub", "f.toml"), 0o646)
		}},
		{"a loop", "links/a", "more than 40 symbolic links", func(b string) {
			os.Symlink("b", filepath.Join(b, "links", "a"))
			os.Symlink("a", filepath.Join(b, "links", "b"))
		}},
		{"a directory", "d/sub", "not a regular file", func(string) {}},
		{"missing", "d/none.toml", "no such file", func(string) {}},
	} {
		t.Run(c.name, func(t *testing.T) {
			b := mk(t)
			c.spoil(b)
			_, err := ReadFile(filepath.Join(b, c.path))
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("got %v, want %q", err, c.want)
			}
			if byOthers := strings.Contains(c.want, "by others"); errors.Is(err, ErrOthers) != byOthers {
				t.Fatalf("errors.Is(%v, ErrOthers) = %v", err, !byOthers)
			}
		})
	}
	t.Run("another user's", func(t *testing.T) {
		if os.Geteuid() != 0 {
			t.Skip("giving a file to another user needs root (CI runs as root)")
		}
		b := mk(t)
		f := filepath.Join(b, "d", "f.toml")
		os.Chown(f, 65534, 65534)
		if _, err := ReadFile(f); err == nil || !strings.Contains(err.Error(), "belongs to user 65534") {
			t.Fatalf("a file: got %v", err)
		}
		// A link of theirs in a sticky directory (/tmp): they may point it
		// elsewhere whenever they like.
		os.Chmod(filepath.Join(b, "links"), 0o777|os.ModeSticky)
		link := filepath.Join(b, "links", "theirs")
		os.Symlink("../d/sub/f.toml", link)
		if err := os.Lchown(link, 65534, 65534); err != nil {
			t.Fatal(err)
		}
		if _, err := ReadFile(link); err == nil || !strings.Contains(err.Error(), "symbolic link of another user's") {
			t.Fatalf("a link: got %v", err)
		}
	})
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

// BenchmarkReadFile reads a 4 MB module (a Go module's size) five
// directories down, beside os.ReadFile of the same file: what the checks
// on the way add to each policy file read at start and at a reload.
func BenchmarkReadFile(b *testing.B) {
	dir := filepath.Join(b.TempDir(), "a", "b", "c", "d")
	os.MkdirAll(dir, 0o755)
	file := filepath.Join(dir, "team.wasm")
	os.WriteFile(file, make([]byte, 4<<20), 0o644)
	for _, c := range []struct {
		name string
		read func(string) ([]byte, error)
	}{{"owndir", ReadFile}, {"os", os.ReadFile}} {
		b.Run(c.name, func(b *testing.B) {
			for b.Loop() {
				if _, err := c.read(file); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
