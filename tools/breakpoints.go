package tools

// The breakpoint tools: set, remove, list, and the exception filters.

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/debugpy-guard/debugpy-guard/dap"
)

type breakpointArgs struct {
	Target
	File         string `json:"file" jsonschema:"source file path (on this machine)"`
	Line         int    `json:"line" jsonschema:"1-based line"`
	Condition    string `json:"condition,omitempty" jsonschema:"Python expression: stop only when true"`
	HitCondition string `json:"hit_condition,omitempty" jsonschema:"stop on the Nth hit, e.g. 3, >=3, %2"`
	LogMessage   string `json:"log_message,omitempty" jsonschema:"log this message instead of stopping; {expr} is interpolated"`
}

type breakpointResult struct {
	Breakpoint dap.Breakpoint `json:"breakpoint"`
}

func absFile(f string) (string, error) {
	if f == "" {
		return "", errors.New("file is required")
	}
	abs, err := filepath.Abs(f)
	if err != nil {
		return "", err
	}
	// debugpy keeps a breakpoint in a file that does not exist, unverified,
	// and the answer repeats its path, masked where it spells a secret of
	// the session: a path of made-up directories, /x/guess1/guess2/...,
	// tried a guess a directory (docs/SECURITY.md, "The mask answers
	// guesses"). So the file must exist, and this error does not repeat it.
	if fi, err := os.Stat(abs); err != nil || fi.IsDir() {
		return "", errors.New("the file is no file (it does not exist, or is a directory): a breakpoint is set in, or removed from, a file that exists; debugpy_stack_trace and debugpy_source show the program's files, and debugpy_remove_breakpoint also takes a breakpoint_id")
	}
	return abs, nil
}

func setBreakpoint(ctx context.Context, ts *Toolset, a breakpointArgs) (breakpointResult, string, error) {
	switch {
	case a.Line == 0:
		return breakpointResult{}, "", errors.New("line is required: the 1-based line to stop at")
	case a.Line < 0:
		return breakpointResult{}, "", fmt.Errorf("line %d: lines start at 1", a.Line)
	}
	s, err := ts.session(ctx, a.Session)
	if err != nil {
		return breakpointResult{}, "", err
	}
	file, err := absFile(a.File)
	if err != nil {
		return breakpointResult{}, "", err
	}
	cctx, cancel := ts.rctx(ctx)
	defer cancel()
	bp, err := s.AddBreakpoint(cctx, dap.Breakpoint{File: file, Line: a.Line, Condition: a.Condition,
		HitCondition: a.HitCondition, LogMessage: a.LogMessage})
	if err != nil {
		return breakpointResult{}, "", err
	}
	text := fmt.Sprintf("breakpoint %d at %s:%d", bp.ID, bp.File, bp.Line)
	if bp.Verified {
		text += fmt.Sprintf(", verified, bound to line %d", bp.BoundLine)
	} else {
		text += ", not verified yet"
		if bp.Message != "" {
			text += ": " + bp.Message
		}
	}
	return breakpointResult{Breakpoint: bp}, text, nil
}

type removeArgs struct {
	Target
	BreakpointID int    `json:"breakpoint_id,omitempty" jsonschema:"id from debugpy_set_breakpoint"`
	File         string `json:"file,omitempty" jsonschema:"with line: remove the breakpoints there"`
	Line         int    `json:"line,omitempty"`
}

type breakpointList struct {
	Breakpoints []dap.Breakpoint `json:"breakpoints"`
}

func removeBreakpoint(ctx context.Context, ts *Toolset, s *dap.Session, a removeArgs) (breakpointList, string, error) {
	var file string
	if a.BreakpointID == 0 {
		if a.File == "" || a.Line == 0 {
			return breakpointList{}, "", errors.New("give breakpoint_id, or file and line")
		}
		var err error
		if file, err = absFile(a.File); err != nil {
			return breakpointList{}, "", err
		}
	}
	cctx, cancel := ts.rctx(ctx)
	defer cancel()
	removed, err := s.RemoveBreakpoint(cctx, a.BreakpointID, file, a.Line)
	if err != nil {
		return breakpointList{}, "", err
	}
	if len(removed) == 0 {
		return breakpointList{}, "", errors.New("no such breakpoint: call debugpy_list_breakpoints")
	}
	return breakpointList{Breakpoints: removed}, fmt.Sprintf("removed %d breakpoint(s)", len(removed)), nil
}

func listBreakpoints(ctx context.Context, ts *Toolset, s *dap.Session, a Target) (breakpointList, string, error) {
	l := breakpointList{Breakpoints: s.Breakpoints()}
	if l.Breakpoints == nil {
		l.Breakpoints = []dap.Breakpoint{}
	}
	var lines []string
	for _, bp := range l.Breakpoints {
		lines = append(lines, fmt.Sprintf("%d: %s:%d verified=%t bound=%d", bp.ID, bp.File, bp.Line, bp.Verified, bp.BoundLine))
	}
	if len(lines) == 0 {
		return l, "no breakpoints", nil
	}
	return l, strings.Join(lines, "\n"), nil
}

type exceptionArgs struct {
	Target
	Filters []string `json:"filters" jsonschema:"any of raised, uncaught, userUnhandled"`
}

type exceptionFilters struct {
	Filters []string `json:"filters"`
}

// checkFilters refuses an exception filter debugpy does not have.
func checkFilters(filters []string) error {
	for _, f := range filters {
		if f != "raised" && f != "uncaught" && f != "userUnhandled" {
			return fmt.Errorf("unknown exception filter %q: use raised, uncaught or userUnhandled", f)
		}
	}
	return nil
}

func setExceptionBreakpoints(ctx context.Context, ts *Toolset, s *dap.Session, a exceptionArgs) (exceptionFilters, string, error) {
	if err := checkFilters(a.Filters); err != nil {
		return exceptionFilters{}, "", err
	}
	cctx, cancel := ts.rctx(ctx)
	defer cancel()
	if err := s.SetExceptionBreakpoints(cctx, a.Filters); err != nil {
		return exceptionFilters{}, "", err
	}
	f := s.ExceptionFilters()
	return exceptionFilters{Filters: f}, fmt.Sprintf("exception filters: %v", f), nil
}
