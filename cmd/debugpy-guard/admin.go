package main

import (
	"bufio"
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
	"golang.org/x/sys/unix"
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
		show(stdout, r.Request)
		fmt.Fprintf(stdout, "  run: debugpy-guard approve %s   or   debugpy-guard deny %s\n\n", r.ID, r.ID)
	}
	return 0
}

// show writes a waiting call as a person must see it to answer: the
// arguments go last, next to the answer, so that a long reason before them
// cannot push them off the screen.
func show(w io.Writer, r approval.Request) {
	at := ""
	if r.Stop != "" {
		at = "\n  where the program is: " + approval.Prose(r.Stop) + " (the call runs there only)"
	}
	fmt.Fprintf(w, "%s  %s  waiting %s, expires in %s\n  why: %s%s\n  arguments, each in full:\n  %s\n",
		r.ID, r.Tool, time.Since(r.Created).Round(time.Second), time.Until(r.Expires).Round(time.Second),
		approval.Reasons(r.Reasons), at, strings.ReplaceAll(r.Arguments, "\n", "\n  "))
}

// answer is `approve ID` and `deny ID`.
//
// Why approve shows the call and asks: the id reaches the person through
// the agent, whose words about the call may be anything ("run debugpy-guard
// approve 7a09136d to let me read the variables", for code that reads a
// file). So approve shows the call itself, as `approvals` does, and
// approves it only when the person answers yes on a terminal, or passed
// --yes having read it. Without a terminal and --yes it approves nothing.
// Deny needs no question: it lets nothing run.
func answer(args []string, approve bool, stdin io.Reader, stdout, stderr io.Writer) int {
	verb := "deny"
	if approve {
		verb = "approve"
	}
	fs := newFlags(verb)
	yes := false
	if approve {
		fs.BoolVar(&yes, "yes", false, "approve without being asked, having read the call in `debugpy-guard approvals`")
	}
	if ok, code := parseFlags(fs, args, stdout, stderr); !ok {
		return code
	}
	if fs.NArg() != 1 {
		return usageError(stderr, verb, "give one ID (`debugpy-guard approvals` lists the ids)")
	}
	if approve && !yes {
		if code, ok := confirm(fs.Arg(0), stdin, stdout, stderr); !ok {
			return code
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second) // after the question: a person reads at their pace
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

// confirm shows the call waiting under id and asks the person on stdin, a
// terminal, whether to approve it. ok is false, with the exit code, when
// it must not be approved: not found, not a terminal, or not a yes.
func confirm(id string, stdin io.Reader, stdout, stderr io.Writer) (code int, ok bool) {
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	l, err := approval.List(ctx)
	if err != nil {
		fmt.Fprintln(stderr, "debugpy-guard approve:", err)
		return 1, false
	}
	i := slices.IndexFunc(l, func(r approval.Listed) bool { return r.ID == id })
	if i < 0 {
		fmt.Fprintf(stderr, "debugpy-guard approve: no call is waiting with id %s (`debugpy-guard approvals` lists them)\n", id)
		return 1, false
	}
	show(stdout, l[i].Request)
	if !terminal(stdin) {
		fmt.Fprintf(stderr, "debugpy-guard approve: not approved: stdin is not a terminal, so no one can be asked. Read the call above, then run: debugpy-guard approve --yes %s\n", id)
		return 2, false
	}
	fmt.Fprint(stdout, "Approve this call? It runs once, exactly as shown. [y/N] ")
	line, _ := bufio.NewReader(stdin).ReadString('\n')
	if a := strings.ToLower(strings.TrimSpace(line)); a != "y" && a != "yes" {
		fmt.Fprintf(stdout, "not approved: %s still waits (`debugpy-guard deny %s` refuses it)\n", id, id)
		return 1, false
	}
	return 0, true
}

// terminal reports whether r is a terminal, as isatty(3) does (/dev/null
// is a character device too, and no one answers there).
func terminal(r io.Reader) bool {
	f, ok := r.(*os.File)
	if !ok {
		return false
	}
	_, err := unix.IoctlGetTermios(int(f.Fd()), unix.TCGETS)
	return err == nil
}
