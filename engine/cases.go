package engine

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"

	"github.com/BurntSushi/toml"
)

// CaseFile is a file of policy test cases: TOML with an optional config (a
// path relative to the case file; the caller's config when absent) and
// [[case]] tables.
type CaseFile struct {
	Config string `toml:"config"`
	Cases  []Case `toml:"case"`
}

// Case is one request and the decision it must get.
type Case struct {
	Name        string         `toml:"name"`
	Tool        string         `toml:"tool"`
	Session     string         `toml:"session"`
	Phase       string         `toml:"phase"` // call (default) or result
	Arguments   map[string]any `toml:"arguments"`
	Result      map[string]any `toml:"result"`
	Want        string         `toml:"want"`
	Reason      string         `toml:"reason"`       // a substring of the combined reasons
	ResultHas   []string       `toml:"result_has"`   // substrings the (rewritten) result must have
	ResultLacks []string       `toml:"result_lacks"` // and must not have
}

// LoadCases reads a case file strictly.
func LoadCases(file string) (*CaseFile, error) {
	data, err := os.ReadFile(file)
	if err != nil {
		return nil, err
	}
	var cf CaseFile
	md, err := toml.Decode(string(data), &cf)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	for _, k := range md.Undecoded() {
		if len(k) >= 2 && k[0] == "case" && (k[1] == "result" || k[1] == "arguments") {
			continue // free-form JSON values
		}
		return nil, &ConfigError{File: file, Line: lineOf(data, k.String()), Key: k.String(), Msg: "unknown key in a case file"}
	}
	for i, c := range cf.Cases {
		if c.Name == "" || c.Tool == "" || !oneOf(c.Want, Allow, Deny, Approve) {
			return nil, fmt.Errorf("%s: case %d: name, tool and want (allow, deny or approve) are required", file, i+1)
		}
		if !oneOf(c.Phase, "", PhaseCall, PhaseResult) {
			return nil, fmt.Errorf("%s: case %q: phase %q is not call or result", file, c.Name, c.Phase)
		}
	}
	return &cf, nil
}

// Run decides c and returns the decision and what is wrong with it (nothing
// when the case passes). category gives a tool's category.
func (e *Engine) Run(ctx context.Context, c Case, category func(tool string) string) (Decision, []string) {
	phase := c.Phase
	if phase == "" {
		phase = PhaseCall
	}
	args, _ := json.Marshal(nonNilMap(c.Arguments))
	call := Call{Phase: phase, Tool: c.Tool, Category: category(c.Tool), Arguments: args, SessionID: c.Session}
	if c.Result != nil {
		call.Result, _ = json.Marshal(c.Result)
	}
	d := e.Decide(ctx, call)
	var fails []string
	if d.Decision != c.Want {
		fails = append(fails, fmt.Sprintf("decision %s, want %s", d.Decision, c.Want))
	}
	reasons := strings.Join(d.Reasons, "; ")
	if c.Reason != "" && !strings.Contains(reasons, c.Reason) {
		fails = append(fails, fmt.Sprintf("reason %q lacks %q", reasons, c.Reason))
	}
	res := string(call.Result)
	if d.Result != nil {
		res = string(d.Result)
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
