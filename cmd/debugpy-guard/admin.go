package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"os"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/debugpy-guard/debugpy-guard/engine"
	"github.com/debugpy-guard/debugpy-guard/engine/approval"
	"github.com/debugpy-guard/debugpy-guard/engine/audit"
	"github.com/debugpy-guard/debugpy-guard/plugins"
	"github.com/debugpy-guard/debugpy-guard/tools"
)

// check validates a config, loads every module, and prints which modules
// apply to which tool in which phase.
func check(args []string, stdout, stderr io.Writer, log *slog.Logger) int {
	fs := newFlags("check")
	config := fs.String("config", "", "policy config (TOML); the embedded default when absent")
	if ok, code := parseFlags(fs, args, stdout, stderr); !ok {
		return code
	}
	if fs.NArg() > 0 {
		return usageError(stderr, "check", fmt.Sprintf("unexpected argument %q", fs.Arg(0)))
	}
	fail := func(err error) int {
		fmt.Fprintln(stderr, "debugpy-guard check:", err)
		return 1
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	rt := plugins.NewRuntime(plugins.Options{Log: log})
	defer rt.Close(context.Background())
	eng, err := loadEngine(ctx, *config, rt)
	if err != nil {
		return fail(err)
	}
	defer eng.Close(context.Background())
	if err := eng.Wait(ctx); err != nil {
		return fail(err)
	}
	cfg := eng.Config()
	fmt.Fprintf(stdout, "config %s: valid; %d module(s) loaded\n\n", cfg.File, len(cfg.Modules))
	tw := tabwriter.NewWriter(stdout, 2, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "MODULE\tSOURCE\tMODE")
	for _, name := range sortedKeys(cfg.Modules) {
		m := cfg.Modules[name]
		mode := m.Mode
		if mode == "" {
			mode = "enforce"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\n", name, m.Source, mode)
	}
	fmt.Fprintln(tw, "\nTOOL\tCATEGORY\tCALL PHASE\tRESULT PHASE\tWHEN NONE DECIDES")
	for _, s := range tools.Catalogue() {
		name := s.Tool.Name
		if cfg.Hides(name) {
			fmt.Fprintf(tw, "%s\t%s\t(hidden: denied)\t\t\n", name, s.Category)
			continue
		}
		call, def := eng.Chain(name, engine.PhaseCall)
		result, _ := eng.Chain(name, engine.PhaseResult)
		if def == "" {
			def = cfg.Default
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", name, s.Category, list(call), list(result), def)
	}
	tw.Flush()
	path, err := auditPath(cfg)
	if err != nil {
		return fail(err)
	}
	fmt.Fprintf(stdout, "\naudit log: %s (arguments: %s)\napproval: channels %s, timeout %v\n",
		path, cfg.Audit.Arguments, strings.Join(cfg.Approval.Channels, ", "), cfg.Approval.Wait())
	for _, w := range warnings(cfg) {
		fmt.Fprintln(stdout, "warning:", w)
	}
	return 0
}

// warnings are what check says of a config that loads but may not do what
// its author means.
func warnings(cfg *engine.Config) []string {
	var out []string
	for _, name := range sortedKeys(cfg.Modules) {
		m := cfg.Modules[name]
		if m.SHA256 == "" && !strings.HasPrefix(m.Source, "builtin:") {
			out = append(out, fmt.Sprintf("modules.%s has no sha256 pin: whatever bytes are at %s load (debugpy-guard policy build prints the pin; sha256sum works too)", name, m.Source))
		}
		if m.Mode == "monitor" && cfg.Audit.Arguments == "hash" {
			out = append(out, fmt.Sprintf("modules.%s is in monitor mode, and [audit] arguments = \"hash\" keeps only a hash of each call's arguments: set arguments = \"full\" to see which call each of its verdicts was for", name))
		}
	}
	return out
}

func list(s []string) string {
	if len(s) == 0 {
		return "-"
	}
	return strings.Join(s, ", ")
}

func sortedKeys[V any](m map[string]V) []string {
	return slices.Sorted(maps.Keys(m))
}

// auditCmd is `audit verify FILE...`.
func auditCmd(args []string, stdout, stderr io.Writer) int {
	fs := newFlags("audit")
	if len(args) > 0 && args[0] == "verify" {
		args = args[1:]
	} else if len(args) > 0 && args[0] != "-h" && args[0] != "--help" && args[0] != "-help" {
		return usageError(stderr, "audit", fmt.Sprintf("unknown audit command %q", args[0]))
	}
	if ok, code := parseFlags(fs, args, stdout, stderr); !ok {
		return code
	}
	if fs.NArg() == 0 {
		return usageError(stderr, "audit", "give the audit log files to verify")
	}
	code := 0
	for _, file := range fs.Args() {
		f, err := os.Open(file)
		if err != nil {
			fmt.Fprintln(stderr, "debugpy-guard audit verify:", err)
			code = 1
			continue
		}
		s, err := audit.Verify(f)
		f.Close()
		if err != nil {
			fmt.Fprintf(stderr, "%s: %v (the %d record(s) before it verify)\n", file, err, s.Records)
			code = 1
			continue
		}
		torn := ""
		if s.Torn > 0 { // engine/audit's package doc
			torn = fmt.Sprintf("; %d line(s) torn, cut while written by a process killed in its write (no call ran on them), the chain whole across them", s.Torn)
		}
		fmt.Fprintf(stdout, "%s: ok, %d record(s); last seq %d, hash %s%s\n", file, s.Records, s.LastSeq, s.LastHash, torn)
	}
	return code
}

// approvals lists the calls waiting for a person in every running server.
func approvals(args []string, stdout, stderr io.Writer) int {
	fs := newFlags("approvals")
	if ok, code := parseFlags(fs, args, stdout, stderr); !ok {
		return code
	}
	if fs.NArg() > 0 {
		return usageError(stderr, "approvals", fmt.Sprintf("unexpected argument %q", fs.Arg(0)))
	}
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	l, err := approval.List(ctx)
	if err != nil {
		fmt.Fprintln(stderr, "debugpy-guard approvals:", err)
		return 1
	}
	if len(l) == 0 {
		fmt.Fprintln(stdout, "no calls are waiting for approval")
		return 0
	}
	for _, r := range l {
		at := ""
		if r.Stop != "" {
			at = "\n  where the program is: " + approval.Prose(r.Stop) + " (the call runs there only)"
		}
		// The arguments go last, next to the command that answers: a long
		// reason before them cannot push them off the screen.
		fmt.Fprintf(stdout, "%s  %s  waiting %s, expires in %s\n  why: %s%s\n  arguments, each in full:\n  %s\n  run: debugpy-guard approve %s   or   debugpy-guard deny %s\n\n",
			r.ID, r.Tool, time.Since(r.Created).Round(time.Second), time.Until(r.Expires).Round(time.Second),
			approval.Reasons(r.Reasons), at, strings.ReplaceAll(r.Arguments, "\n", "\n  "), r.ID, r.ID)
	}
	return 0
}

// answer is `approve ID` and `deny ID`.
func answer(args []string, approve bool, stdout, stderr io.Writer) int {
	verb := "deny"
	if approve {
		verb = "approve"
	}
	fs := newFlags(verb)
	if ok, code := parseFlags(fs, args, stdout, stderr); !ok {
		return code
	}
	if fs.NArg() != 1 {
		return usageError(stderr, verb, "give one ID (`debugpy-guard approvals` lists the ids)")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	r, err := approval.Answer(ctx, fs.Arg(0), approve)
	if err != nil {
		fmt.Fprintf(stderr, "debugpy-guard %s: %v\n", verb, err)
		return 1
	}
	if approve {
		fmt.Fprintf(stdout, "approved %s: %s with\n%s\nmay run once, if the agent retries it with the same arguments before %s\n",
			r.ID, r.Tool, r.Arguments, r.Expires.Local().Format(time.TimeOnly))
	} else {
		fmt.Fprintf(stdout, "denied %s: %s with\n%s\nwill not run\n", r.ID, r.Tool, r.Arguments)
	}
	return 0
}
