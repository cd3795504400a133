package tools

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/debugpy-guard/debugpy-guard/engine"
)

// A file with a NUL byte (a SQLite database, an archive) is not source:
// refused, whichever lines are asked for, so that its bytes (a password
// column's values) are not shown; a text file's lines are.
func TestReadLinesRefusesBinary(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "app.db")
	os.WriteFile(db, []byte("SQLite format 3\x00\x10\x00\nrow\n\x00\x01adasqlite-s3cret-pw\nlast\n"), 0o600)
	for _, line := range []int{0, 1, 3, 4} {
		if _, _, err := readLines(db, line, 0); err == nil || !strings.Contains(err.Error(), "not a text file") {
			t.Errorf("line %d: %v", line, err)
		}
	}
	src := filepath.Join(dir, "app.py")
	os.WriteFile(src, []byte("a = 1\nb = 'é'\n"), 0o600)
	if lines, above, err := readLines(src, 2, 1); err != nil || len(lines) != 2 || lines[1].Text != "b = 'é'" || above != "" {
		t.Fatalf("a text file: %v %q %v", lines, above, err)
	}
}

// The lines above a window are handed on with it (derived.before), their
// last engine.MaxBefore bytes at most, from a line's start, each ended by
// a newline; a line longer than that is left out whole.
func TestReadLinesAbove(t *testing.T) {
	dir := t.TempDir()
	var file []string
	for i := 1; i <= 3000; i++ {
		file = append(file, fmt.Sprintf("line %d %s", i, strings.Repeat("x", i%97)))
	}
	src := filepath.Join(dir, "big.py")
	os.WriteFile(src, []byte(strings.Join(file, "\n")+"\n"), 0o600)
	for _, line := range []int{1, 2, 12, 400, 2999} {
		lines, above, err := readLines(src, line, 10)
		if err != nil {
			t.Fatal(err)
		}
		var want string
		for i := lines[0].Line - 1; i >= 1; i-- {
			l := file[i-1] + "\n"
			if len(want)+len(l) > engine.MaxBefore {
				break
			}
			want = l + want
		}
		if above != want {
			t.Errorf("line %d: above is %d bytes from %.20q, want %d from %.20q", line, len(above), above, len(want), want)
		}
	}
	long := filepath.Join(dir, "long.py")
	os.WriteFile(long, []byte("a = 1\n"+strings.Repeat("y", engine.MaxBefore+5)+"\nb = 2\nc = 3\n"), 0o600)
	if _, above, err := readLines(long, 4, 0); err != nil || above != "b = 2\n" {
		t.Errorf("a line longer than the bound: %q %v", above, err)
	}
}

// The handler reads the file the gate judged: a resolved path, with no
// symbolic link on the way. A link put on the way since (a directory
// swapped for a link to another, the file for a link to a secret) is
// refused, by openat2 and by the fallback alike, and so is a file that is
// not regular (a FIFO would hold the call until someone wrote to it).
func TestOpenJudged(t *testing.T) {
	dir := realPath(t.TempDir())
	secret := filepath.Join(dir, "home", ".pgpass")
	os.MkdirAll(filepath.Dir(secret), 0o700)
	os.WriteFile(secret, []byte("db:5432:app:ada:pg-s3cret\n"), 0o600)
	app := filepath.Join(dir, "app")
	os.MkdirAll(filepath.Join(app, "pkg"), 0o755)
	src := filepath.Join(app, "pkg", "x.py")
	os.WriteFile(src, []byte("x = 1\n"), 0o644)
	linked := filepath.Join(app, "linked.py")
	os.Symlink(secret, linked)
	swapped := filepath.Join(app, "swapped")
	os.Symlink(filepath.Dir(secret), swapped)
	fifo := filepath.Join(app, "fifo.py")
	if err := unix.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	flags := unix.O_RDONLY | unix.O_CLOEXEC | unix.O_NOCTTY | unix.O_NONBLOCK
	for _, c := range []struct{ path, want string }{
		{src, ""},
		{linked, "symbolic link"}, // the file swapped for a link
		{filepath.Join(swapped, ".pgpass"), "symbolic link"}, // a directory swapped for one
		{fifo, "not a regular file"},
		{app, "not a regular file"},
		{filepath.Join(app, "gone.py"), "no such file"},
	} {
		f, err := openJudged(c.path)
		if c.want == "" {
			if err != nil {
				t.Fatalf("%s: %v", c.path, err)
			}
			b, _ := io.ReadAll(f)
			f.Close()
			if string(b) != "x = 1\n" {
				t.Fatalf("%s: read %q", c.path, b)
			}
		} else if err == nil || !strings.Contains(err.Error(), c.want) {
			if f != nil {
				f.Close()
			}
			t.Errorf("%s: %v, want %q", c.path, err, c.want)
		}
		// The fallback, where openat2 is missing (a FIFO is opened by it
		// without waiting, and refused by openJudged's check after).
		f, err = openAtItsName(c.path, flags)
		switch {
		case c.want == "symbolic link" && (err == nil || !strings.Contains(err.Error(), "not the one judged")):
			t.Errorf("fallback, %s: %v", c.path, err)
		case c.want == "" && err != nil:
			t.Errorf("fallback, %s: %v", c.path, err)
		}
		if f != nil {
			f.Close()
		}
	}
	if _, _, err := readLines(linked, 1, 1); err == nil || strings.Contains(err.Error(), "s3cret") {
		t.Fatalf("readLines through a link: %v", err)
	}
}
