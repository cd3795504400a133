// Command debugpy-guard is an MCP server that lets an AI agent drive debugpy,
// with a policy gate in front of every tool call.
//
// This file is wiring only: the subcommands live beside it and call into
// the packages.
package main

import (
	"fmt"
	"io"
	"log/slog"
	"os"

	"github.com/debugpy-guard/debugpy-guard/dap"
)

const usage = `debugpy-guard: debugpy tools for AI agents, behind a policy gate

usage:
  debugpy-guard serve [--config FILE]   the guarded MCP server on stdio (SIGHUP or a change to FILE reloads it)
  debugpy-guard check [--config FILE]   validate a config, load its modules, show which apply to which tool
  debugpy-guard demo                    run serve and walk a debugging session through its policy
  debugpy-guard approvals               list the calls waiting for a person's approval
  debugpy-guard approve ID              let a waiting call run once (the agent retries it)
  debugpy-guard deny ID                 refuse a waiting call
  debugpy-guard audit verify FILE...    check an audit log's hash chain; non-zero on any edit, gap or reordering
  debugpy-guard policy new|build|test|eval|bench ...
                                        the policy author's kit (debugpy-guard policy help)
  debugpy-guard tools [--json]          list the tool catalogue (name, category, description); --json: each
                                        tool's record (risk, schema, what the default policy does with it)
  debugpy-guard pyshim                  print the directory that puts the speed fix into a program you
                                        start yourself: PYTHONPATH=$(debugpy-guard pyshim) python3 -m debugpy ...
  debugpy-guard version

debugpy-guard COMMAND --help says more of each.
` + docs

var version = "0.1.0-dev"

func main() {
	level := slog.LevelWarn
	if os.Getenv("DEBUGPY_GUARD_LOG") == "debug" {
		level = slog.LevelDebug
	} else if os.Getenv("DEBUGPY_GUARD_LOG") == "info" {
		level = slog.LevelInfo
	}
	log := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: level}))
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr, log))
}

func run(args []string, stdout, stderr io.Writer, log *slog.Logger) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return 2
	}
	switch args[0] {
	case "serve":
		return serve(args[1:], os.Stdin, stdout, stderr, log)
	case "check":
		return check(args[1:], stdout, stderr, log)
	case "audit":
		return auditCmd(args[1:], stdout, stderr)
	case "approvals":
		return approvals(args[1:], stdout, stderr)
	case "approve", "deny":
		return answer(args[1:], args[0] == "approve", os.Stdin, stdout, stderr)
	case "policy":
		return policyCmd(args[1:], stdout, stderr, log)
	case "tools":
		return toolsCmd(args[1:], stdout, stderr)
	case "help", "-h", "-help", "--help":
		fmt.Fprint(stdout, usage)
		return 0
	case "--version", "-version":
		args[0] = "version"
	}
	if _, ok := commands[args[0]]; !ok {
		fmt.Fprintf(stderr, "unknown command %q\n\n%s", args[0], usage)
		return 2
	}
	// The commands that take no arguments but --help.
	fs := newFlags(args[0])
	if ok, code := parseFlags(fs, args[1:], stdout, stderr); !ok {
		return code
	}
	if fs.NArg() > 0 {
		return usageError(stderr, args[0], fmt.Sprintf("unexpected argument %q", fs.Arg(0)))
	}
	switch args[0] {
	case "demo":
		if err := demo(stdout, stderr); err != nil {
			fmt.Fprintln(stderr, "demo:", err)
			return 1
		}
	case "pyshim":
		dir, err := dap.ShimDir()
		if err != nil {
			fmt.Fprintln(stderr, "debugpy-guard pyshim:", err)
			return 1
		}
		fmt.Fprintln(stdout, dir)
	case "version":
		fmt.Fprintln(stdout, "debugpy-guard", version)
	}
	return 0
}
