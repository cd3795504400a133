package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"
)

// docs is where the documentation is, for someone with only the binary.
const docs = `Docs: README.md, docs/POLICY_GUIDE.md, docs/SECURITY.md and plugins/ABI.md in
https://github.com/debugpy-guard/debugpy-guard (the source this binary was built from).
`

// env are the environment variables serve reads.
const env = `Environment:
  DEBUGPY_GUARD_LOG=debug|info        log more to stderr (default: warnings and errors)
  DEBUGPY_GUARD_REQUEST_TIMEOUT=15s   how long an evaluate or set_variable may run before it is
                                      reported stuck (a Go duration)
  DEBUGPY_GUARD_NODELAY=off           turn off the speed fix put into programs it launches
  DEBUGPY_GUARD_MAX_RESULT=32KiB      the most of a result's text, and of its structured content, an
                                      agent gets; a longer one is cut, saying how to read the rest
  DEBUGPY_GUARD_CPUPROFILE=FILE       write a CPU profile of serve to FILE when it exits (go tool pprof
                                      FILE), for measuring the server; docs/PERFORMANCE.md
  XDG_STATE_HOME                      the audit log is $XDG_STATE_HOME/debugpy-guard/audit.jsonl (default
                                      ~/.local/state/debugpy-guard/audit.jsonl) unless [audit] path says
  XDG_RUNTIME_DIR                     the approval socket is in $XDG_RUNTIME_DIR/debugpy-guard (default
                                      /tmp/debugpy-guard-UID), where debugpy-guard approvals finds it
`

// command is a subcommand's help: how to call it and what it does.
type command struct {
	usage string // after "usage: debugpy-guard "
	about string
}

// commands are the subcommands' help texts, by name ("policy new" for the
// policy kit's).
var commands = map[string]command{
	"serve": {"serve [--config FILE]", "The guarded MCP server on stdio: MCP messages only on stdout, logs on stderr.\n" +
		"SIGHUP or a change to FILE reloads the config. Without --config: the embedded default policy.\n\n" + env},
	"check":     {"check [--config FILE]", "Validate a config, load its modules, and show which modules apply to which tool in each phase.\n"},
	"demo":      {"demo", "Run `debugpy-guard serve` with the embedded default policy and walk a debugging session\nthrough it, approvals included (a sample program in a temporary directory).\n"},
	"approvals": {"approvals", "List the calls waiting for a person's approval, in every server of this user, with their\narguments in full.\n"},
	"approve": {"approve [--yes] ID", "Let a waiting call run once: the agent retries it with the same arguments\n" +
		"(`debugpy-guard approvals` lists the ids). It shows the call and asks on the terminal first:\n" +
		"the id comes to you through the agent, whose words about the call may be anything. --yes\n" +
		"approves without asking, for a call you have read; without a terminal, nothing is approved\nwithout --yes.\n"},
	"deny":  {"deny ID", "Refuse a waiting call (`debugpy-guard approvals` lists the ids).\n"},
	"audit": {"audit verify FILE...", "Check an audit log's hash chain: exit 0 when every record verifies, 1 on any edit, gap or\nreordering (and the records before it that verify).\n"},
	"tools": {"tools [--json]", "List the tool catalogue: name, category (read, write, execute) and description. With --json,\n" +
		"each tool's record: category, risk (read low, write medium, execute high), annotations, input\n" +
		"schema, and what the embedded default policy does with it (its modules, and its decision on a\n" +
		"typical call), all derived from the catalogue and the policy.\n"},
	"pyshim": {"pyshim", "Print the directory that puts the speed fix into a program you start yourself:\n" +
		"  PYTHONPATH=$(debugpy-guard pyshim) python3 -m debugpy --listen 127.0.0.1:5678 prog.py\n"},
	"version":      {"version", "Print the version.\n"},
	"policy new":   {"policy new NAME [--lang L]", "Write NAME/, a policy project that builds with no network: the sample rule, its tests, case\nfiles, a config to try it with and a README. L: go (default), c, rust, assemblyscript, rego.\n"},
	"policy build": {"policy build DIR", "Build DIR/NAME.wasm with the project's toolchain (reproducibly), load it as serve would, and\nprint its sha256 and the config stanza that pins it.\n"},
	"policy test": {"policy test [--config FILE | --module WASM [--settings JSON] [--entrypoint E]] [-v] PATH...",
		"Run case files (a directory: those in it and below; configs are skipped). Exit 0: all pass; 2: a case\nfailed (its trace is printed); 1: an error. A case file's own config wins over --config.\n"},
	"policy eval": {"policy eval [--config FILE | --module WASM] --tool TOOL [--args JSON] [--phase result --result JSON] [--json]",
		"One decision with its full trace: each module's verdict, time and reason.\n"},
	"policy bench": {"policy bench [--config FILE | --module WASM] [--tool TOOL [--args JSON]] [--n N]",
		"Latency per module and per chain (p50, p99, calls/s): each module on a typical call of the first\ntool whose chain holds it, or every one on --tool's call.\n"},
}

// helpText is the help of a command: usage, what it does, its flags (fs
// may be nil), and where the docs are.
func helpText(name string, fs *flag.FlagSet) string {
	c := commands[name]
	var b strings.Builder
	fmt.Fprintf(&b, "usage: debugpy-guard %s\n\n%s", c.usage, c.about)
	if fs != nil {
		n := 0
		fs.VisitAll(func(*flag.Flag) { n++ })
		if n > 0 {
			b.WriteString("\nFlags:\n")
			out := fs.Output()
			fs.SetOutput(&b)
			fs.PrintDefaults()
			fs.SetOutput(out)
		}
	}
	b.WriteString("\n" + docs)
	return b.String()
}

// newFlags is a subcommand's flag set, which parseFlags parses.
func newFlags(name string) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(io.Discard) // parseFlags says what went wrong
	return fs
}

// parseFlags parses args into fs. When the command must stop, ok is false
// and code its exit status: -h or --help prints the command's help on
// stdout (0); a bad flag prints the error and the usage on stderr (2).
func parseFlags(fs *flag.FlagSet, args []string, stdout, stderr io.Writer) (ok bool, code int) {
	err := fs.Parse(args)
	switch {
	case err == nil:
		return true, 0
	case errors.Is(err, flag.ErrHelp):
		fmt.Fprint(stdout, helpText(fs.Name(), fs))
		return false, 0
	}
	fmt.Fprintf(stderr, "debugpy-guard %s: %v\nusage: debugpy-guard %s (--help says more)\n", fs.Name(), err, commands[fs.Name()].usage)
	return false, 2
}

// usageError is what a command says when its arguments are wrong.
func usageError(stderr io.Writer, name, why string) int {
	fmt.Fprintf(stderr, "debugpy-guard %s: %s\nusage: debugpy-guard %s (--help says more)\n", name, why, commands[name].usage)
	return 2
}
