package tools

import (
	"bufio"
	"fmt"
	"os"
)

// readLines reads the lines of file within n of line (all of the first 2n+1
// lines when line is 0), marking line as current.
func readLines(file string, line, n int) ([]SourceLine, error) {
	f, err := os.Open(file)
	if err != nil {
		return nil, fmt.Errorf("read source: %w (attached to a remote debuggee? set path_mappings in debugpy_session_start)", err)
	}
	defer f.Close()
	lo, hi := line-n, line+n
	if line == 0 {
		lo, hi = 1, 2*n+1
	}
	var out []SourceLine
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for i := 1; sc.Scan() && i <= hi; i++ {
		if i >= lo {
			out = append(out, SourceLine{Line: i, Text: sc.Text(), Current: i == line})
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
