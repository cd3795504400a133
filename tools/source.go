package tools

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"

	"github.com/debugpy-guard/debugpy-guard/dap"
	"github.com/debugpy-guard/debugpy-guard/engine"
)

// readLines reads the lines of file within n of line (all of the first 2n+1
// lines when line is 0), marking line as current, and above, the text of
// the lines before them: at most engine.MaxBefore bytes, from a line's
// start (derived.before: a window that starts inside a value, a key block
// or a table is masked with what it continues). A file with a NUL byte in
// the lines up to the last one shown is not text (a SQLite database, an
// archive): it is refused, since what it holds in its bytes (a password
// column's values) is in no shape a mask reads.
func readLines(file string, line, n int) (lines []sourceLine, above string, err error) {
	f, err := openJudged(file)
	if err != nil {
		return nil, "", fmt.Errorf("read source: %w (attached to a remote debuggee? set path_mappings in debugpy_session_start)", err)
	}
	defer f.Close()
	lo, hi := line-n, line+n
	if line == 0 {
		lo, hi = 1, 2*n+1
	}
	var before []byte // the lines above lo, cut to their last MaxBefore bytes from time to time
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for i := 1; sc.Scan() && i <= hi; i++ {
		if bytes.IndexByte(sc.Bytes(), 0) >= 0 {
			return nil, "", fmt.Errorf("%s is not a text file (line %d holds a NUL byte, which no source does): debugpy_source shows source, not a database's or an archive's bytes", file, i)
		}
		if i >= lo {
			lines = append(lines, sourceLine{Line: i, Text: sc.Text(), Current: i == line})
			continue
		}
		before = append(append(before, sc.Bytes()...), '\n')
		if len(before) > 2*engine.MaxBefore {
			before = lastLines(before, engine.MaxBefore)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, "", fmt.Errorf("read source %s: %w", file, err)
	}
	if len(lines) == 0 {
		return nil, "", fmt.Errorf("%s has no line %d", file, line)
	}
	return lines, string(lastLines(before, engine.MaxBefore)), nil
}

// lastLines is the end of text (lines, each ended by a newline) of at most
// max bytes that starts a line: a copy when it is cut. A line longer than
// max is left out whole.
func lastLines(text []byte, max int) []byte {
	if len(text) <= max {
		return text
	}
	cut := text[len(text)-max:]
	if i := bytes.IndexByte(cut, '\n'); text[len(text)-max-1] != '\n' {
		cut = cut[i+1:]
	}
	return append([]byte(nil), cut...)
}

// openJudged opens the file at path, which the gate judged resolved:
// absolute, clean, with no symbolic link on the way. A link found on the
// way now was put there since, by whoever can write to one of its
// directories (a program the session runs, another user), and would make
// the read another file than the one judged; so the kernel walks the path
// refusing every link (openat2's RESOLVE_NO_SYMLINKS). Where openat2 is
// missing (Linux before 5.6, a seccomp filter that refuses it), the file
// is opened and then must be the one at path (the kernel's own name for
// it, /proc/self/fd). Only a regular file is read: a FIFO would hold the
// call until someone writes to it (it is opened without waiting), a
// device is no source.
func openJudged(path string) (*os.File, error) {
	const flags = unix.O_RDONLY | unix.O_CLOEXEC | unix.O_NOCTTY | unix.O_NONBLOCK
	var f *os.File
	fd, err := unix.Openat2(unix.AT_FDCWD, path, &unix.OpenHow{Flags: flags, Resolve: unix.RESOLVE_NO_SYMLINKS | unix.RESOLVE_NO_MAGICLINKS})
	switch {
	case err == nil:
		f = os.NewFile(uintptr(fd), path)
	case errors.Is(err, unix.ENOSYS) || errors.Is(err, unix.EPERM):
		if f, err = openAtItsName(path, flags); err != nil {
			return nil, err
		}
	case errors.Is(err, unix.ELOOP):
		return nil, fmt.Errorf("open %s: a symbolic link is on its way now, which was not when the call was judged: call again", path)
	default:
		return nil, &os.PathError{Op: "open", Path: path, Err: err}
	}
	fi, err := f.Stat()
	if err == nil && !fi.Mode().IsRegular() {
		err = fmt.Errorf("%s is not a regular file (%s): debugpy_source reads source files", path, fi.Mode().Type())
	}
	if err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

// openAtItsName opens path, a resolved path, and keeps the file only if
// the kernel names it path: no link was followed on the way.
func openAtItsName(path string, flags int) (*os.File, error) {
	fd, err := unix.Open(path, flags, 0)
	if err != nil {
		return nil, &os.PathError{Op: "open", Path: path, Err: err}
	}
	f := os.NewFile(uintptr(fd), path)
	name, err := os.Readlink("/proc/self/fd/" + strconv.Itoa(fd))
	if err != nil || name != path {
		f.Close()
		return nil, fmt.Errorf("open %s: the file opened is not the one judged (it is %q now): call again", path, name)
	}
	return f, nil
}

type sourceArgs struct {
	Target
	File         string `json:"file,omitempty" jsonschema:"file (default: where the program stopped)"`
	Line         int    `json:"line,omitempty" jsonschema:"line to centre on (default: the stop's line)"`
	ContextLines *int   `json:"context_lines,omitempty" jsonschema:"lines before and after (default 10)"`
}

type sourceLine struct {
	Line    int    `json:"line"`
	Text    string `json:"text"`
	Current bool   `json:"current,omitempty"`
}

type sourceResult struct {
	File  string       `json:"file"`
	Lines []sourceLine `json:"lines"`
}

func source(ctx context.Context, ts *Toolset, a sourceArgs) (sourceResult, string, error) {
	// a.File is the file the gate judged (derive): the argument, or the
	// stop's file when the call named none, resolved. Empty, there was no
	// stop to take it from when the call was judged, and a stop since is
	// not read: its file was judged by nobody.
	file, line := a.File, a.Line
	if file == "" || line == 0 {
		s, err := ts.session(ctx, a.Session)
		switch {
		case err != nil && file == "":
			return sourceResult{}, "", err
		case file == "" && s.Info().State == dap.StateStopped:
			return sourceResult{}, "", errors.New("the program stopped after this call was judged, with no file to read then: call again")
		case file == "":
			return sourceResult{}, "", fmt.Errorf("give file: %v", notStopped(s))
		case err == nil:
			if _, last := s.Stops(); last != nil && realPath(last.File) == file {
				line = last.Line
			}
		}
	}
	n := 10
	if a.ContextLines != nil {
		n = *a.ContextLines
	}
	if n < 0 || n > 500 {
		return sourceResult{}, "", fmt.Errorf("context_lines %d: use 0 to 500", n)
	}
	lines, above, err := readLines(file, line, n)
	if err != nil {
		return sourceResult{}, "", err
	}
	if before, ok := ctx.Value(beforeKey{}).(*[]engine.Before); ok && above != "" {
		*before = []engine.Before{{Category: engine.BeforeSource, Text: above}}
	}
	var sb strings.Builder
	for _, l := range lines {
		mark := "  "
		if l.Current {
			mark = "->"
		}
		fmt.Fprintf(&sb, "%s %5d  %s\n", mark, l.Line, l.Text)
	}
	return sourceResult{File: file, Lines: lines}, strings.TrimRight(sb.String(), "\n"), nil
}
