package tools

// The program output tool.

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/debugpy-guard/debugpy-guard/dap"
	"github.com/debugpy-guard/debugpy-guard/engine"
)

// beforeKey holds, in a call's context, where debugpy_output puts the
// output its entries continue, per category, and debugpy_source the lines
// above those it shows (derived.before: the policies that mask results
// read the result with it; the agent is not shown it).
type beforeKey struct{}

type outputArgs struct {
	Target
	Since    uint64 `json:"since,omitempty" jsonschema:"cursor from the last call's next (default: from the start of the buffer)"`
	Category string `json:"category,omitempty" jsonschema:"only stdout, stderr, console or important"`
	MaxItems int    `json:"max_items,omitempty" jsonschema:"output events to read (default 200); a run of one category comes back as one entry"`
}

type outputResult struct {
	Entries []dap.OutputEntry `json:"entries"`
	Next    uint64            `json:"next" jsonschema:"pass as since to read on"`
	Dropped uint64            `json:"dropped,omitempty" jsonschema:"entries lost to the buffer's bound before they were read"`
}

func output(ctx context.Context, ts *Toolset, s *dap.Session, a outputArgs) (outputResult, string, error) {
	if a.MaxItems <= 0 {
		a.MaxItems = 200
	}
	e, next, dropped := s.Output().Read(a.Since, a.Category, a.MaxItems)
	e = joinRuns(e)
	if before, ok := ctx.Value(beforeKey{}).(*[]engine.Before); ok && len(e) > 0 {
		var cats []string
		for _, x := range e {
			if !slices.Contains(cats, x.Category) {
				cats = append(cats, x.Category)
			}
		}
		for _, b := range s.Output().Before(max(a.Since, 1), cats, engine.MaxBefore) {
			*before = append(*before, engine.Before{Category: b.Category, Text: b.Text})
		}
	}
	var sb strings.Builder
	if dropped > 0 {
		fmt.Fprintf(&sb, "(%d earlier entries were dropped)\n", dropped)
	}
	for _, x := range e {
		fmt.Fprintf(&sb, "[%s] %s", x.Category, x.Text)
		if !strings.HasSuffix(x.Text, "\n") {
			sb.WriteString("\n")
		}
	}
	if len(e) == 0 {
		sb.WriteString("(no new output)\n")
	}
	fmt.Fprintf(&sb, "next cursor: %d", next)
	return outputResult{Entries: e, Next: next, Dropped: dropped}, sb.String(), nil
}

// joinRuns makes each run of entries of one category one entry, at the
// run's first cursor. A program writes its output in pieces (csv.writer a
// row at a time, print each argument), and the debugger's events cut it
// where it happened to flush, differently from run to run: read as one
// text, a table's rows are under their header and a value written in two
// pieces is whole, for the policies that mask secrets in results (a
// result's module sees the entries, not this tool's text).
func joinRuns(es []dap.OutputEntry) []dap.OutputEntry {
	out := make([]dap.OutputEntry, 0, len(es))
	for _, x := range es {
		if n := len(out); n > 0 && out[n-1].Category == x.Category {
			out[n-1].Text += x.Text
			continue
		}
		out = append(out, x)
	}
	return out
}
