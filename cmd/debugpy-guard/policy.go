package main

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"sort"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/debugpy-guard/debugpy-guard/engine"
	"github.com/debugpy-guard/debugpy-guard/engine/cases"
	"github.com/debugpy-guard/debugpy-guard/internal/benchstat"
	"github.com/debugpy-guard/debugpy-guard/plugins"
	"github.com/debugpy-guard/debugpy-guard/plugins/kit"
	"github.com/debugpy-guard/debugpy-guard/policies"
	"github.com/debugpy-guard/debugpy-guard/tools"
)

const policyUsage = `usage:
  debugpy-guard policy new NAME [--lang L]      write NAME/, a policy project that builds offline; L: go (default), c, rust, assemblyscript, rego
  debugpy-guard policy build DIR                build DIR/NAME.wasm, prove it loads, print its sha256 and config stanza
  debugpy-guard policy test [--config FILE | --module WASM [--settings JSON] [--entrypoint E]] PATH...
                                                run case files (a directory: those in it and below, configs skipped);
                                                exit 0 all pass, 1 error, 2 failures
  debugpy-guard policy eval [--config FILE | --module WASM] --tool TOOL [--args JSON] [--phase result --result JSON] [--json]
                                                one decision with its full trace
  debugpy-guard policy bench [--config FILE | --module WASM] [--tool TOOL [--args JSON]] [--n N]
                                                latency per module and per chain (p50, p99, calls/s)
Without --config or --module: the embedded default policy. debugpy-guard policy COMMAND --help
says more of each.
` + docs

func policyCmd(args []string, stdout, stderr io.Writer, log *slog.Logger) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, policyUsage)
		return 2
	}
	switch args[0] {
	case "new":
		return policyNew(args[1:], stdout, stderr)
	case "build":
		return policyBuild(args[1:], stdout, stderr)
	case "test":
		return policyTest(args[1:], stdout, stderr, log)
	case "eval":
		return policyEval(args[1:], stdout, stderr, log)
	case "bench":
		return policyBench(args[1:], stdout, stderr, log)
	case "help", "-h", "-help", "--help":
		fmt.Fprint(stdout, policyUsage)
		return 0
	}
	fmt.Fprintf(stderr, "unknown policy command %q\n\n%s", args[0], policyUsage)
	return 2
}

func policyNew(args []string, stdout, stderr io.Writer) int {
	fs := newFlags("policy new")
	lang := fs.String("lang", "go", "the project's language: "+strings.Join(kit.Langs, ", "))
	// NAME may come before the flags or after them.
	if ok, code := parseFlags(fs, args, stdout, stderr); !ok {
		return code
	}
	rest := fs.Args()
	if len(rest) > 0 {
		if ok, code := parseFlags(fs, rest[1:], stdout, stderr); !ok {
			return code
		}
		rest = append(rest[:1], fs.Args()...)
	}
	if len(rest) != 1 {
		return usageError(stderr, "policy new", "give one NAME")
	}
	name := rest[0]
	if err := kit.New(name, *lang); err != nil {
		fmt.Fprintln(stderr, "debugpy-guard policy new:", err)
		return 1
	}
	switch *lang {
	case "rego":
		fmt.Fprintf(stdout, "wrote %s/: a policy in Rego (policy.rego) for OPA's compiler, its opa tests, case files and README.md.\nNext:\n  cd %s\n  opa test .\n  debugpy-guard policy build .\n  debugpy-guard policy test cases\n", name, name)
	case "c", "rust", "assemblyscript":
		files := map[string][3]string{"c": {"C", "policy.c", "guard.h"}, "rust": {"Rust", "policy.rs", "guard.rs"},
			"assemblyscript": {"AssemblyScript", "policy.ts", "guard.ts"}}[*lang]
		fmt.Fprintf(stdout, "wrote %s/: a policy in %s (%s) on %s, case files and README.md.\nNext:\n  cd %s\n  debugpy-guard policy build .\n  debugpy-guard policy test cases\n",
			name, files[0], files[1], files[2], name)
	default:
		fmt.Fprintf(stdout, "wrote %s/: a policy in Go on the guest SDK (policy.go), its test, case files and README.md.\nNext:\n  cd %s\n  go test ./...\n  debugpy-guard policy build .\n  debugpy-guard policy test cases\n", name, name)
	}
	return 0
}

func policyBuild(args []string, stdout, stderr io.Writer) int {
	fs := newFlags("policy build")
	if ok, code := parseFlags(fs, args, stdout, stderr); !ok {
		return code
	}
	if fs.NArg() != 1 {
		return usageError(stderr, "policy build", "give one DIR, a policy project's directory")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	b, err := kit.Build(ctx, fs.Arg(0))
	if err != nil {
		fmt.Fprintln(stderr, "debugpy-guard policy build:", err)
		return 1
	}
	fmt.Fprintf(stdout, "built %s (%d bytes), sha256 %s\nit loads under ABI %s (exports, imports, instantiation).\n", b.Path, b.Size, b.SHA256, b.ABI)
	if b.Note != "" {
		fmt.Fprintf(stdout, "note: %s\n", b.Note)
	}
	fmt.Fprintf(stdout, "\npaste into your config (serve --config FILE):\n\n%s", b.Stanza())
	return 0
}

// policyEngines makes the engines of the policy commands: --config FILE,
// --module WASM (with --settings), or the embedded default; a case file's
// own config wins. close closes them all.
type policyEngines struct {
	config, module, settings, entrypoint string
	rt                                   *plugins.Runtime
	made                                 []*engine.Engine
}

func (p *policyEngines) flags(fs *flag.FlagSet) {
	fs.StringVar(&p.config, "config", "", "policy config (TOML); the embedded default when absent")
	fs.StringVar(&p.module, "module", "", "a module (.wasm) to run alone, on every tool in both phases")
	fs.StringVar(&p.settings, "settings", "{}", "with --module: its settings, as JSON (an OPA module's data)")
	fs.StringVar(&p.entrypoint, "entrypoint", "", "with --module of OPA's ABI (opa build -t wasm): the entrypoint that decides, when it has several")
}

func (p *policyEngines) engine(ctx context.Context, caseConfig string, log *slog.Logger) (*engine.Engine, error) {
	if p.rt == nil {
		p.rt = plugins.NewRuntime(plugins.Options{Log: log})
	}
	var cfg *engine.Config
	var err error
	switch {
	case caseConfig != "":
		cfg, err = loadConfig(caseConfig)
	case p.module != "" && p.config != "":
		return nil, errors.New("give --config or --module, not both")
	case p.module != "":
		var settings map[string]any
		if err := json.Unmarshal([]byte(p.settings), &settings); err != nil {
			return nil, fmt.Errorf("--settings: not a JSON object: %w", err)
		}
		cfg, err = engine.SingleModule(p.module, p.entrypoint, settings, tools.Names())
	default:
		cfg, err = loadConfig(p.config)
	}
	if err != nil {
		return nil, err
	}
	cfg.Sandbox.Timeout = cmp.Or(cfg.Sandbox.Timeout, "1s") // a test is not a test of time under load
	e, err := engine.New(ctx, cfg, engine.Options{Runtime: p.rt, Builtin: policies.Builtin})
	if err != nil {
		return nil, err
	}
	p.made = append(p.made, e)
	if err := e.Wait(ctx); err != nil {
		return nil, err
	}
	return e, nil
}

func (p *policyEngines) close() {
	for _, e := range p.made {
		e.Close(context.Background())
	}
	if p.rt != nil {
		p.rt.Close(context.Background())
	}
}

func policyTest(args []string, stdout, stderr io.Writer, log *slog.Logger) int {
	fs := newFlags("policy test")
	var p policyEngines
	p.flags(fs)
	verbose := fs.Bool("v", false, "print every case, not only failures")
	if ok, code := parseFlags(fs, args, stdout, stderr); !ok {
		return code
	}
	defer p.close()
	fail := func(err error) int {
		fmt.Fprintln(stderr, "debugpy-guard policy test:", err)
		return 1
	}
	if fs.NArg() == 0 {
		return fail(errors.New("give case files or directories of them"))
	}
	files, skipped, err := cases.Files(fs.Args())
	for _, f := range skipped {
		fmt.Fprintf(stdout, "skipped %s: a config (modules, rules), not a case file\n", f)
	}
	if err != nil {
		return fail(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	results, err := cases.RunFiles(ctx, files, func(cfg string) (*engine.Engine, error) { return p.engine(ctx, cfg, log) }, tools.PrepareCall)
	if err != nil {
		return fail(err)
	}
	failed := 0
	for _, r := range results {
		if len(r.Fails) == 0 {
			if *verbose {
				fmt.Fprintf(stdout, "ok   %s: %s (%s)\n", r.File, r.Case.Name, r.Decision.Verdict)
			}
			continue
		}
		failed++
		fmt.Fprintf(stdout, "FAIL %s: %s\n", r.File, r.Case.Name)
		for _, f := range r.Fails {
			fmt.Fprintf(stdout, "     %s\n", f)
		}
		writeTrace(stdout, "     ", r.Decision)
	}
	if failed > 0 {
		fmt.Fprintf(stdout, "FAIL: %d of %d cases failed (%d case file(s))\n", failed, len(results), len(files))
		return 2
	}
	fmt.Fprintf(stdout, "ok: %d cases passed (%d case file(s))\n", len(results), len(files))
	return 0
}

// writeTrace prints each module's part in a decision.
func writeTrace(w io.Writer, indent string, d engine.Decision) {
	tw := tabwriter.NewWriter(w, 2, 4, 2, ' ', 0)
	fmt.Fprintf(tw, "%strace:\tmodule\tmode\tverdict\ttime\treason\n", indent)
	for _, st := range d.Trace {
		reason := st.Reason
		if st.Rewrote {
			reason += " (rewrote the result)"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", indent, st.Module, st.Mode, st.Verdict, st.Duration.Round(time.Microsecond), reason)
	}
	if len(d.Trace) == 0 {
		fmt.Fprintf(tw, "%s\t(no module applies)\t\t\t\t\n", indent)
	}
	tw.Flush()
}

func policyEval(args []string, stdout, stderr io.Writer, log *slog.Logger) int {
	fs := newFlags("policy eval")
	var p policyEngines
	p.flags(fs)
	tool := fs.String("tool", "", "the tool called, e.g. debugpy_evaluate")
	argsJSON := fs.String("args", "", "its arguments as JSON (default: a typical call)")
	phase := fs.String("phase", engine.PhaseCall, "call or result")
	result := fs.String("result", "", "with --phase result: the tool's result as JSON (default: a typical variables listing)")
	session := fs.String("session", "eval", "the MCP session id the modules see")
	asJSON := fs.Bool("json", false, "print the decision as JSON")
	if ok, code := parseFlags(fs, args, stdout, stderr); !ok {
		return code
	}
	defer p.close()
	fail := func(err error) int {
		fmt.Fprintln(stderr, "debugpy-guard policy eval:", err)
		return 1
	}
	if _, ok := tools.Lookup(*tool); !ok {
		return fail(fmt.Errorf("--tool %q is not a tool: `debugpy-guard tools` lists them", *tool))
	}
	callArgs := tools.Example(*tool)
	if *argsJSON != "" {
		callArgs = json.RawMessage(*argsJSON)
	}
	call, err := tools.PrepareCall(context.Background(), *tool, callArgs)
	if err != nil {
		return fail(fmt.Errorf("--args: the gate would deny this call as malformed: %w", err))
	}
	call.Phase, call.MCPSession = *phase, *session
	switch *phase {
	case engine.PhaseCall:
	case engine.PhaseResult:
		call.Result = json.RawMessage(tools.ExampleResult)
		if *result != "" {
			if !json.Valid([]byte(*result)) {
				return fail(errors.New("--result is not valid JSON"))
			}
			call.Result = json.RawMessage(*result)
		}
	default:
		return fail(fmt.Errorf("--phase %q: call or result", *phase))
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	e, err := p.engine(ctx, "", log)
	if err != nil {
		return fail(err)
	}
	d := e.Decide(ctx, call)
	if *asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		enc.Encode(d)
		return 0
	}
	fmt.Fprintf(stdout, "%s %s %s (phase %s, config %s)\n", d.Verdict, call.Tool, call.Arguments, call.Phase, e.Config().File)
	for _, r := range d.Reasons {
		fmt.Fprintf(stdout, "  because %s\n", r)
	}
	if d.Default {
		fmt.Fprintln(stdout, "  (no module decided: the default applied)")
	}
	writeTrace(stdout, "  ", d)
	if d.Result != nil {
		fmt.Fprintf(stdout, "  rewritten result: %s\n", d.Result)
	}
	return 0
}

func policyBench(args []string, stdout, stderr io.Writer, log *slog.Logger) int {
	fs := newFlags("policy bench")
	var p policyEngines
	p.flags(fs)
	n := fs.Int("n", 2000, "calls per module and per chain")
	tool := fs.String("tool", "", "time every module and chain on this tool (default: each module on the first tool whose chain holds it)")
	argsJSON := fs.String("args", "", "with --tool: its arguments as JSON (default: a typical call)")
	if ok, code := parseFlags(fs, args, stdout, stderr); !ok {
		return code
	}
	defer p.close()
	fail := func(err error) int {
		fmt.Fprintln(stderr, "debugpy-guard policy bench:", err)
		return 1
	}
	if *n < 1 {
		return fail(errors.New("--n must be at least 1"))
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Minute)
	defer cancel()
	e, err := p.engine(ctx, "", log)
	if err != nil {
		return fail(err)
	}
	// A typical call of a tool whose chain holds the module, per module;
	// per distinct chain, a typical call of its first tool.
	if *argsJSON != "" && *tool == "" {
		return fail(errors.New("--args needs --tool"))
	}
	names := tools.Names()
	var callArgs json.RawMessage
	if *tool != "" {
		if _, ok := tools.Lookup(*tool); !ok {
			return fail(fmt.Errorf("no tool %s (debugpy-guard tools lists them)", *tool))
		}
		names = []string{*tool}
		if *argsJSON != "" {
			callArgs = json.RawMessage(*argsJSON)
			if _, err := tools.PrepareCall(ctx, *tool, callArgs); err != nil {
				return fail(fmt.Errorf("--args: the gate would refuse them: %w", err))
			}
		}
	}
	callOf := func(tool, phase string) engine.Call {
		a := callArgs
		if a == nil {
			a = tools.Example(tool)
		}
		c, _ := tools.PrepareCall(ctx, tool, a) // every example is read cleanly (TestExamples)
		c.Phase = phase
		if phase == engine.PhaseResult {
			c.Result = json.RawMessage(tools.ExampleResult)
		}
		return c
	}
	type target struct {
		label string
		call  engine.Call
		run   func(engine.Call) error
	}
	var targets []target
	seenModule, seenChain := map[string]bool{}, map[string]bool{}
	add := func(label string, c engine.Call, run func(engine.Call) error) {
		if c.Phase == engine.PhaseResult {
			// Results with secrets cost a redactor more than clean ones.
			clean := c
			clean.Result = json.RawMessage(tools.ExampleCleanResult)
			targets = append(targets, target{label + ", a clean result", clean, run})
			label += ", a result with 2 secrets"
		}
		targets = append(targets, target{label, c, run})
	}
	for _, phase := range []string{engine.PhaseCall, engine.PhaseResult} {
		for _, tool := range names {
			mods, _ := e.Chain(tool, phase)
			if len(mods) == 0 {
				continue
			}
			for _, m := range mods {
				if !seenModule[m] {
					seenModule[m] = true
					add("module "+m+" ("+tool+", "+phase+")", callOf(tool, phase),
						func(c engine.Call) error { _, err := e.EvaluateModule(ctx, m, c); return err })
				}
			}
			key := phase + ": " + strings.Join(mods, ", ")
			if !seenChain[key] {
				seenChain[key] = true
				add("chain "+key+" ("+tool+")", callOf(tool, phase),
					func(c engine.Call) error { e.Decide(ctx, c); return nil })
			}
		}
	}
	if len(targets) == 0 {
		if *tool != "" {
			return fail(fmt.Errorf("no module applies to %s: nothing to time", *tool))
		}
		return fail(errors.New("no module applies to any tool: nothing to time"))
	}
	sort.SliceStable(targets, func(i, j int) bool {
		return strings.HasPrefix(targets[i].label, "module") && !strings.HasPrefix(targets[j].label, "module")
	})
	fmt.Fprintf(stdout, "%s: %d calls each, one goroutine (a new MCP session id per call, so rate limits do not trip)\n", e.Config().File, *n)
	tw := tabwriter.NewWriter(stdout, 2, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "WHAT\tP50\tP99\tCALLS/S")
	for _, t := range targets {
		lat := make([]time.Duration, *n)
		start := time.Now()
		for i := range lat {
			c := t.call
			c.MCPSession = fmt.Sprint("bench-", i)
			t0 := time.Now()
			if err := t.run(c); err != nil {
				return fail(fmt.Errorf("%s: %w", t.label, err))
			}
			lat[i] = time.Since(t0)
		}
		total := time.Since(start)
		p50, p99 := benchstat.Percentiles(lat)
		fmt.Fprintf(tw, "%s\t%v\t%v\t%.0f\n", t.label, p50.Round(time.Microsecond), p99.Round(time.Microsecond), float64(*n)/total.Seconds())
	}
	tw.Flush()
	return 0
}
