package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/debugpy-guard/debugpy-guard/engine"
	"github.com/debugpy-guard/debugpy-guard/plugins"
	"github.com/debugpy-guard/debugpy-guard/tools"
)

// toolsCmd is `tools [--json]`.
func toolsCmd(args []string, stdout, stderr io.Writer) int {
	fs := newFlags("tools")
	asJSON := fs.Bool("json", false, "each tool's record as JSON: category, risk, input schema, and what the default policy does with it")
	if ok, code := parseFlags(fs, args, stdout, stderr); !ok {
		return code
	}
	if fs.NArg() > 0 {
		return usageError(stderr, "tools", fmt.Sprintf("unexpected argument %q", fs.Arg(0)))
	}
	if !*asJSON {
		listTools(stdout)
		return 0
	}
	recs, err := toolRecords()
	if err != nil {
		fmt.Fprintln(stderr, "debugpy-guard tools:", err)
		return 1
	}
	enc := json.NewEncoder(stdout)
	enc.SetIndent("", "  ")
	enc.Encode(recs)
	return 0
}

func listTools(w io.Writer) {
	tw := tabwriter.NewWriter(w, 2, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "TOOL\tCATEGORY\tDESCRIPTION")
	for _, s := range tools.Catalogue() {
		fmt.Fprintf(tw, "%s\t%s\t%s\n", s.Tool.Name, s.Category, s.Tool.Description)
	}
	tw.Flush()
}

// toolRecord is a tool's record, as security teams know them from tool
// registries: what it does, its category and risk, and what the embedded
// default policy does with it. Everything is derived: from the catalogue
// and from the default policy's decision on the tool's typical call.
type toolRecord struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	Category    string          `json:"category"` // read, write, execute
	Risk        string          `json:"risk"`     // low, medium, high: by category
	ReadOnly    bool            `json:"read_only"`
	Destructive bool            `json:"destructive"`
	InputSchema json.RawMessage `json:"input_schema"`
	Default     defaultPolicy   `json:"default_policy"`
}

// defaultPolicy is what the embedded default does with a tool.
type defaultPolicy struct {
	Call        []string       `json:"call"`   // the modules that judge a call
	Result      []string       `json:"result"` // and its result
	Example     any            `json:"example"`
	Decision    engine.Verdict `json:"decision"` // on the example
	Reasons     []string       `json:"reasons"`
	Recommended string         `json:"recommended"`
}

// risk is a category's risk: a read shows the program's state, a write
// changes it, an execute runs Python in it.
var risk = map[string]string{"read": "low", "write": "medium", "execute": "high"}

var recommended = map[engine.Verdict]string{
	engine.Allow:   "allow (the default policy rate-limits every call and masks secrets in results)",
	engine.Approve: "require a person's approval",
	engine.Deny:    "deny",
}

// toolRecords runs the default policy on each tool's typical call.
func toolRecords() ([]toolRecord, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	rt := plugins.NewRuntime(plugins.Options{})
	defer rt.Close(context.Background())
	e, err := loadEngine(ctx, "", rt)
	if err != nil {
		return nil, err
	}
	defer e.Close(context.Background())
	if err := e.Wait(ctx); err != nil {
		return nil, err
	}
	var out []toolRecord
	for _, s := range tools.Catalogue() {
		name := s.Tool.Name
		schema, _ := json.Marshal(s.Tool.InputSchema)
		if len(s.Tool.RawInputSchema) > 0 {
			schema = s.Tool.RawInputSchema
		}
		r := toolRecord{Name: name, Description: s.Tool.Description, Category: s.Category, Risk: risk[s.Category],
			ReadOnly: hint(s.Tool.Annotations.ReadOnlyHint), Destructive: hint(s.Tool.Annotations.DestructiveHint), InputSchema: schema}
		r.Default.Call, _ = e.Chain(name, engine.PhaseCall)
		r.Default.Result, _ = e.Chain(name, engine.PhaseResult)
		example := tools.Example(name)
		json.Unmarshal(example, &r.Default.Example)
		call, err := tools.PrepareCall(ctx, name, example)
		if err != nil {
			return nil, fmt.Errorf("%s: its example: %w", name, err)
		}
		call.Phase, call.MCPSession = engine.PhaseCall, "tools"
		d := e.Decide(ctx, call)
		r.Default.Decision, r.Default.Reasons = d.Verdict, d.Reasons
		r.Default.Recommended = recommended[d.Verdict]
		if len(d.Modules) > 0 && !slices.Contains(d.Modules, "category") {
			// Not decided by category alone: the verdict depends on the
			// call's arguments.
			r.Default.Recommended = fmt.Sprintf("judged per call by %s (on this example: %s)", strings.Join(d.Modules, ", "), d.Verdict)
		}
		out = append(out, r)
	}
	return out, nil
}

func hint(b *bool) bool { return b != nil && *b }
