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
)

const usage = `debugpy-guard: debugpy tools for AI agents, behind a policy gate

usage:
  debugpy-guard serve [--config FILE]   the guarded MCP server on stdio
  debugpy-guard demo                    drive the debugging tools against a bundled sample program
  debugpy-guard tools                   list the tool catalogue (name, category, description)
  debugpy-guard version

Not built yet: approval (a call that needs it is denied), the audit log,
reload, check, policy, audit, approvals.
See README.md.
`

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
	case "demo":
		if err := demo(stdout, log); err != nil {
			fmt.Fprintln(stderr, "demo:", err)
			return 1
		}
		return 0
	case "tools":
		listTools(stdout)
		return 0
	case "version":
		fmt.Fprintln(stdout, "debugpy-guard", version)
		return 0
	case "help", "-h", "--help":
		fmt.Fprint(stdout, usage)
		return 0
	}
	fmt.Fprintf(stderr, "unknown command %q\n\n%s", args[0], usage)
	return 2
}
