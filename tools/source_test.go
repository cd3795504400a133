package tools

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A file with a NUL byte (a SQLite database, an archive) is not source:
// refused, whichever lines are asked for, so that its bytes (a password
// column's values) are not shown; a text file's lines are.
func TestReadLinesRefusesBinary(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "app.db")
	os.WriteFile(db, []byte("SQLite format 3\x00\x10\x00\nrow\n\x00\x01adasqlite-s3cret-pw\nlast\n"), 0o600)
	for _, line := range []int{0, 1, 3, 4} {
		if _, err := readLines(db, line, 0); err == nil || !strings.Contains(err.Error(), "not a text file") {
			t.Errorf("line %d: %v", line, err)
		}
	}
	src := filepath.Join(dir, "app.py")
	os.WriteFile(src, []byte("a = 1\nb = 'é'\n"), 0o600)
	if lines, err := readLines(src, 2, 1); err != nil || len(lines) != 2 || lines[1].Text != "b = 'é'" {
		t.Fatalf("a text file: %v %v", lines, err)
	}
}
