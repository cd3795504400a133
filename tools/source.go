package tools

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"os"
	"strings"
)

// readLines reads the lines of file within n of line (all of the first 2n+1
// lines when line is 0), marking line as current. A file with a NUL byte in
// the lines up to the last one shown is not text (a SQLite database, an
// archive): it is refused, since what it holds in its bytes (a password
// column's values) is in no shape a mask reads.
func readLines(file string, line, n int) ([]sourceLine, error) {
	f, err := os.Open(file)
	if err != nil {
		return nil, fmt.Errorf("read source: %w (attached to a remote debuggee? set path_mappings in debugpy_session_start)", err)
	}
	defer f.Close()
	lo, hi := line-n, line+n
	if line == 0 {
		lo, hi = 1, 2*n+1
	}
	var out []sourceLine
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for i := 1; sc.Scan() && i <= hi; i++ {
		if bytes.IndexByte(sc.Bytes(), 0) >= 0 {
			return nil, fmt.Errorf("%s is not a text file (line %d holds a NUL byte, which no source does): debugpy_source shows source, not a database's or an archive's bytes", file, i)
		}
		if i >= lo {
			out = append(out, sourceLine{Line: i, Text: sc.Text(), Current: i == line})
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("read source %s: %w", file, err)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%s has no line %d", file, line)
	}
	return out, nil
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
	file, line := a.File, a.Line
	if file == "" || line == 0 {
		s, err := ts.session(ctx, a.Session)
		if err != nil {
			if file == "" {
				return sourceResult{}, "", err
			}
		} else if _, last := s.Stops(); last != nil {
			if file == "" {
				file = last.File
			}
			if line == 0 && file == last.File {
				line = last.Line
			}
		} else if file == "" {
			return sourceResult{}, "", fmt.Errorf("give file: %v", notStopped(s))
		}
	}
	n := 10
	if a.ContextLines != nil {
		n = *a.ContextLines
	}
	if n < 0 || n > 500 {
		return sourceResult{}, "", fmt.Errorf("context_lines %d: use 0 to 500", n)
	}
	lines, err := readLines(file, line, n)
	if err != nil {
		return sourceResult{}, "", err
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
