// Package cases runs policy test cases (`debugpy-guard policy test`): TOML
// files of calls and the decisions they must get, against a config's
// engine. It is engine's client, as the server is: the engine decides, this
// package reads the files and compares.
package cases

import (
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"sort"
	"strings"

	"github.com/BurntSushi/toml"

	"github.com/debugpy-guard/debugpy-guard/engine"
)

// File is a file of policy test cases: TOML with an optional config (a
// path, relative to the case file unless absolute; the caller's config when
// absent) and [[case]] tables.
type File struct {
	Config string `toml:"config"`
	Cases  []Case `toml:"case"`
}

// Case is one request and the decision it must get.
type Case struct {
	Name      string         `toml:"name"`
	Tool      string         `toml:"tool"`
	Session   string         `toml:"session"`
	Phase     string         `toml:"phase"` // call (default) or result
	Arguments map[string]any `toml:"arguments"`
	Result    map[string]any `toml:"result"`
	// Holders are the names the host would tell the modules hold a secret
	// (derived.holders), in a call with code: a call that reads values
	// (evaluate, set_variable), or its result.
	Holders []string `toml:"holders"`
	// Cut are the names the host would tell the modules were shown cut
	// short in a session that has seen a secret (derived.cut), likewise.
	Cut []string `toml:"cut"`
	// Objects are the holders the host would tell the modules were shown
	// as an object or a container (derived.objects), likewise.
	Objects []string `toml:"objects"`
	// Sequences are the objects the host would tell the modules were shown
	// as a list or a tuple (derived.sequences), likewise.
	Sequences []string `toml:"sequences"`
	// Texts are the names (and paths) the host would tell the modules were
	// shown cut short as text (derived.texts).
	Texts []string `toml:"texts"`
	// Before is, per category, the output the host would tell the modules
	// a debugpy_output result's entries continue (derived.before), in the
	// result phase: {stdout = "user,password\n"}; for debugpy_source, the
	// file's lines above the window: {source = "DB_PASSWORD = (\n"}.
	Before map[string]string `toml:"before"`
	// Want is allow, deny, approve, or abstain: no module decided (the
	// config's default then applies, and is not what is tested).
	Want        engine.Verdict `toml:"want"`
	Reason      string         `toml:"reason"`       // a substring of the combined reasons
	WantResult  map[string]any `toml:"want_result"`  // the rewritten result, exactly (phase result)
	ResultHas   []string       `toml:"result_has"`   // substrings the (rewritten) result must have
	ResultLacks []string       `toml:"result_lacks"` // and must not have
	// Malformed says the arguments are meant to be refused by the gate's
	// one reading, before any module sees them (then want is deny). Without
	// it, arguments the gate would refuse fail the case: a misspelled key
	// must not pass as a deny.
	Malformed bool `toml:"malformed"`
}

// Load reads a case file strictly.
func Load(file string) (*File, error) {
	data, err := os.ReadFile(file)
	if err != nil {
		return nil, err
	}
	var cf File
	md, err := toml.Decode(string(data), &cf)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	for _, k := range md.Undecoded() {
		if len(k) >= 2 && k[0] == "case" && (k[1] == "result" || k[1] == "arguments" || k[1] == "want_result") {
			continue // free-form JSON values
		}
		return nil, engine.KeyError(file, data, k.String(), "unknown key in a case file (name, tool, session, phase, arguments, result, holders, cut, objects, sequences, before, want, reason, want_result, result_has, result_lacks, malformed)")
	}
	for i, c := range cf.Cases {
		if c.Name == "" || c.Tool == "" || !slices.Contains([]engine.Verdict{engine.Allow, engine.Deny, engine.Approve, engine.Abstain}, c.Want) {
			return nil, fmt.Errorf("%s: case %d: name, tool and want (allow, deny, approve or abstain) are required", file, i+1)
		}
		if !slices.Contains([]string{"", engine.PhaseCall, engine.PhaseResult}, c.Phase) {
			return nil, fmt.Errorf("%s: case %q: phase %q is not call or result", file, c.Name, c.Phase)
		}
	}
	return &cf, nil
}

// Prepare reads a tool call's arguments as the gate does (strictly, then
// canonically, with what the host derives from them) and returns the call
// the modules would judge; an error is what the gate denies as malformed.
type Prepare func(ctx context.Context, tool string, args json.RawMessage) (engine.Call, error)

// Run decides c with e and returns the decision and what is wrong with it
// (nothing when the case passes). prepare reads its arguments as the gate
// would.
func Run(ctx context.Context, e *engine.Engine, c Case, prepare Prepare) (engine.Decision, []string) {
	phase := c.Phase
	if phase == "" {
		phase = engine.PhaseCall
	}
	args, _ := json.Marshal(c.Arguments)
	if c.Arguments == nil {
		args = []byte("{}")
	}
	call, err := prepare(ctx, c.Tool, args)
	call.Phase, call.MCPSession = phase, c.Session
	if c.Result != nil {
		call.Result, _ = json.Marshal(c.Result)
	}
	if len(c.Holders) > 0 || len(c.Cut) > 0 || len(c.Texts) > 0 || len(c.Before) > 0 {
		d := engine.Derived{}
		if call.Derived != nil {
			d = *call.Derived
		}
		d.Holders, d.Cut = slices.Sorted(slices.Values(c.Holders)), slices.Sorted(slices.Values(c.Cut))
		d.Objects, d.Sequences = slices.Sorted(slices.Values(c.Objects)), slices.Sorted(slices.Values(c.Sequences))
		d.Texts = slices.Sorted(slices.Values(c.Texts))
		for _, cat := range slices.Sorted(maps.Keys(c.Before)) {
			d.Before = append(d.Before, engine.Before{Category: cat, Text: c.Before[cat]})
		}
		call.Derived = &d
	}
	var d engine.Decision
	var fails []string
	switch {
	case err != nil && !c.Malformed:
		d = engine.Decision{Verdict: engine.Deny, Reasons: []string{"malformed arguments: " + err.Error()}, Trace: []engine.Step{}}
		return d, []string{fmt.Sprintf("the gate refuses these arguments before any module sees them (%v): fix the case, or add malformed = true to test that refusal", err)}
	case err != nil:
		d = engine.Decision{Verdict: engine.Deny, Reasons: []string{"malformed arguments: " + err.Error()}, Trace: []engine.Step{}}
	case c.Malformed:
		return e.Decide(ctx, call), []string{"the arguments are well formed, but the case says malformed = true"}
	default:
		d = e.Decide(ctx, call)
	}
	switch {
	case c.Want == engine.Abstain && !d.Default:
		fails = append(fails, fmt.Sprintf("decision %s by %s, want abstain (no module deciding)", d.Verdict, strings.Join(d.Modules, ", ")))
	case c.Want != engine.Abstain && d.Verdict != c.Want:
		fails = append(fails, fmt.Sprintf("decision %s, want %s", d.Verdict, c.Want))
	}
	reasons := strings.Join(d.Reasons, "; ")
	if c.Reason != "" && !strings.Contains(reasons, c.Reason) {
		fails = append(fails, fmt.Sprintf("reason %q lacks %q", reasons, c.Reason))
	}
	res := string(call.Result)
	if d.Result != nil {
		res = string(d.Result)
	}
	if c.WantResult != nil {
		var got any
		want, _ := json.Marshal(c.WantResult)
		var w any
		json.Unmarshal(want, &w)
		if json.Unmarshal([]byte(res), &got) != nil || !reflect.DeepEqual(got, w) {
			fails = append(fails, fmt.Sprintf("result %s, want %s", res, want))
		}
	}
	for _, s := range c.ResultHas {
		if !strings.Contains(res, s) {
			fails = append(fails, fmt.Sprintf("result %s lacks %q", res, s))
		}
	}
	for _, s := range c.ResultLacks {
		if strings.Contains(res, s) {
			fails = append(fails, fmt.Sprintf("result %s still has %q", res, s))
		}
	}
	return d, fails
}

// Result is one case run.
type Result struct {
	File     string
	Case     Case
	Decision engine.Decision
	Fails    []string
}

// Files expands paths: a file is itself, a directory gives the *.toml
// files in it and below (not in hidden directories, third_party or
// node_modules) but the *.config.toml ones and the other configs (a file
// with modules, rules or a default, and no case), which it lists in
// skipped: `policy test .` in a policy project finds cases/ and skips the
// project's guard.toml.
func Files(paths []string) (files, skipped []string, err error) {
	for _, p := range paths {
		fi, err := os.Stat(p)
		if err != nil {
			return nil, nil, err
		}
		if !fi.IsDir() {
			files = append(files, p)
			continue
		}
		var found []string
		err = filepath.WalkDir(p, func(path string, d fs.DirEntry, err error) error {
			switch {
			case err != nil:
				return err
			case d.IsDir() && path != p && (strings.HasPrefix(d.Name(), ".") || d.Name() == "third_party" || d.Name() == "node_modules"):
				return filepath.SkipDir
			case !d.IsDir() && strings.HasSuffix(path, ".toml"):
				found = append(found, path)
			}
			return nil
		})
		if err != nil {
			return nil, nil, err
		}
		sort.Strings(found)
		for _, f := range found {
			switch {
			case strings.HasSuffix(f, ".config.toml"):
			case isConfig(f):
				skipped = append(skipped, f)
			default:
				files = append(files, f)
			}
		}
	}
	if len(files) == 0 {
		return nil, skipped, fmt.Errorf("no case files in %s", strings.Join(paths, ", "))
	}
	return files, skipped, nil
}

// isConfig reports whether a TOML file is a config rather than a case file:
// it has no case, and has a config's own keys. A file that does not parse
// is left to Load, which says why.
func isConfig(file string) bool {
	var top map[string]any
	if _, err := toml.DecodeFile(file, &top); err != nil {
		return false
	}
	if _, ok := top["case"]; ok {
		return false
	}
	for _, k := range []string{"modules", "rules", "default", "hide", "sandbox"} {
		if _, ok := top[k]; ok {
			return true
		}
	}
	return false
}

// RunFiles runs every case of files. engineFor gives the engine of a
// config file ("" when the case file names none); it is asked once per
// config, and its caller closes what it made. An error (a case file or a
// config that does not load) stops the run.
func RunFiles(ctx context.Context, files []string, engineFor func(config string) (*engine.Engine, error), prepare Prepare) ([]Result, error) {
	engines := map[string]*engine.Engine{}
	var out []Result
	for _, f := range files {
		cf, err := Load(f)
		if err != nil {
			return out, err
		}
		cfg := ""
		switch {
		case filepath.IsAbs(cf.Config):
			cfg = cf.Config
		case cf.Config != "":
			cfg = filepath.Join(filepath.Dir(f), cf.Config)
		}
		e, ok := engines[cfg]
		if !ok {
			if e, err = engineFor(cfg); err != nil {
				return out, fmt.Errorf("%s: %w", f, err)
			}
			if err := e.Wait(ctx); err != nil {
				return out, fmt.Errorf("%s: %w", f, err)
			}
			engines[cfg] = e
		}
		for _, c := range cf.Cases {
			d, fails := Run(ctx, e, c, prepare)
			out = append(out, Result{File: f, Case: c, Decision: d, Fails: fails})
		}
	}
	return out, nil
}
