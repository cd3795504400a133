package engine

import (
	"errors"
	"fmt"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/BurntSushi/toml"
	"github.com/debugpy-guard/debugpy-guard/internal/owndir"
	"github.com/debugpy-guard/debugpy-guard/plugins"
	"github.com/debugpy-guard/debugpy-guard/plugins/abi"
)

// Verdict is a module's answer and a combined decision (plugins/abi).
type Verdict = abi.Verdict

// Verdicts and combined decisions: ABI v1's words (plugins/abi).
const (
	Allow   = abi.Allow
	Deny    = abi.Deny
	Approve = abi.Approve
	Abstain = abi.Abstain
)

// Config is a policy configuration (docs/POLICY_GUIDE.md).
type Config struct {
	Default  Verdict                 `toml:"default"`
	Hide     []string                `toml:"hide"`
	Audit    AuditConfig             `toml:"audit"`
	Approval ApprovalConfig          `toml:"approval"`
	Sandbox  SandboxConfig           `toml:"sandbox"`
	Modules  map[string]ModuleConfig `toml:"modules"`
	Rules    []Rule                  `toml:"rules"`

	// File is where the config came from ("" for the embedded default); a
	// module's relative source is relative to its directory.
	File string `toml:"-"`
}

// Hides reports whether the config hides tool (hide).
func (c *Config) Hides(tool string) bool { return slices.Contains(c.Hide, tool) }

// AuditConfig is [audit].
type AuditConfig struct {
	Path      string `toml:"path"`
	Arguments string `toml:"arguments"` // hash | full | none
}

// ApprovalConfig is [approval].
type ApprovalConfig struct {
	Channels []string `toml:"channels"`
	Timeout  string   `toml:"timeout"`
}

// Wait is how long a call waits for a person, and how long an answer stays
// usable: timeout, 2m when unset.
func (a ApprovalConfig) Wait() time.Duration {
	d, err := duration(a.Timeout, 2*time.Minute)
	if err != nil {
		return 2 * time.Minute
	}
	return d
}

// SandboxConfig is [sandbox]: defaults for every module.
type SandboxConfig struct {
	Timeout string `toml:"timeout"`
	Memory  string `toml:"memory"`
	Fuel    int64  `toml:"fuel"` // units a call (plugins.DefaultFuel when 0)
}

// ModuleConfig is one [modules.NAME].
type ModuleConfig struct {
	Source     string         `toml:"source"` // builtin:NAME, a .wasm path, or (abi = "opa") an OPA bundle's
	SHA256     string         `toml:"sha256"`
	ABI        string         `toml:"abi"`        // v1 (default) or opa (plugins.ABIV1, plugins.ABIOPA)
	Entrypoint string         `toml:"entrypoint"` // abi = "opa": the entrypoint that decides
	Mode       string         `toml:"mode"`       // enforce (default) | monitor
	Settings   map[string]any `toml:"settings"`
	Timeout    string         `toml:"timeout"`
	Memory     string         `toml:"memory"`
	Fuel       int64          `toml:"fuel"`

	settingsLine int // where its settings are in the file, 0 when unknown
}

// Rule is one [[rules]]: the modules that apply to the tools it matches.
type Rule struct {
	Tools   []string `toml:"tools"` // globs (path.Match)
	Call    []string `toml:"call"`
	Result  []string `toml:"result"`
	Default Verdict  `toml:"default"`
	// Reason is what the agent reads when this rule's default decides a
	// call (no module decided): "attach by PID is off here: ...".
	Reason string `toml:"reason"`
}

// ConfigError names the file, line (0 when unknown) and key of a problem.
type ConfigError struct {
	File string
	Line int
	Key  string
	Msg  string
}

func (e *ConfigError) Error() string {
	var b strings.Builder
	b.WriteString(e.File)
	if e.Line > 0 {
		fmt.Fprintf(&b, ":%d", e.Line)
	}
	if e.Key != "" {
		fmt.Fprintf(&b, ": %s", e.Key)
	}
	fmt.Fprintf(&b, ": %s", e.Msg)
	return b.String()
}

// KeyError is the error of key in the TOML file's data, at the line that
// sets it (for the other TOML files the project reads, such as case files).
func KeyError(file string, data []byte, key, msg string) *ConfigError {
	return &ConfigError{File: file, Line: lineOf(data, key), Key: key, Msg: msg}
}

// LoadConfig reads and checks a TOML config file against the known tools.
// The file, as every module's file it names, is read only when no one but
// this user and root can change it or point its path elsewhere
// (readPolicy).
func LoadConfig(file string, tools []string) (*Config, error) {
	data, err := readPolicy(file)
	if err != nil {
		return nil, fmt.Errorf("config: %w", err)
	}
	return ParseConfig(file, data, tools)
}

// readPolicy reads a file the gate takes its policy from, a config or a
// module. Whoever can change it decides every call, and serve reloads a
// config when it changes; so it is refused, saying what to do, unless it
// and every entry on the way to it belong to this user or root and no one
// else can write to them (a sticky directory such as /tmp excepted), as
// the audit log and the compiled modules' cache are (internal/owndir).
func readPolicy(path string) ([]byte, error) {
	b, err := owndir.ReadFile(path)
	if errors.Is(err, owndir.ErrOthers) {
		err = fmt.Errorf("%w (a policy is read only from a file that no one but you or root can change: chmod go-w it and the directories above it, or move it)", err)
	}
	return b, err
}

// SingleModule is a config that runs one module (a .wasm path) with
// settings on every tool, in both phases, deny when it abstains: for
// testing a module on its own.
// The module's ABI is what its bytes say (plugins.SourceABI); entrypoint
// picks an OPA module's decision when it has several.
func SingleModule(wasm, entrypoint string, settings map[string]any, tools []string) (*Config, error) {
	name := strings.TrimSuffix(filepath.Base(wasm), ".tar.gz")
	name = strings.TrimSuffix(name, filepath.Ext(name))
	if name == "" || strings.ContainsAny(name, ". \t\"") {
		name = "module"
	}
	abs, err := filepath.Abs(wasm)
	if err != nil {
		return nil, err
	}
	src, err := readPolicy(abs)
	if err != nil {
		return nil, fmt.Errorf("module: %w", err)
	}
	mc := ModuleConfig{Source: abs, Settings: settings, ABI: plugins.SourceABI(src), Entrypoint: entrypoint}
	if mc.ABI == plugins.ABIV1 {
		mc.ABI = "" // the default, and an entrypoint on it is refused below, naming the key
	}
	c := struct {
		Default Verdict                 `toml:"default"`
		Modules map[string]ModuleConfig `toml:"modules"`
		Rules   []Rule                  `toml:"rules"`
	}{Deny, map[string]ModuleConfig{name: mc},
		[]Rule{{Tools: []string{"debugpy_*"}, Call: []string{name}, Result: []string{name}}}}
	var b strings.Builder
	if err := toml.NewEncoder(&b).Encode(c); err != nil {
		return nil, fmt.Errorf("settings: %w", err)
	}
	return ParseConfig(abs+" (alone)", []byte(b.String()), tools)
}

var typeErrRe = regexp.MustCompile(`^toml: line (\d+) \(last key "([^"]*)"\): (.*)$`)

// ParseConfig decodes data strictly: an unknown key, module or tool, a bad
// duration, size, mode or decision is an error naming file, line and key.
func ParseConfig(file string, data []byte, tools []string) (*Config, error) {
	var c Config
	md, err := toml.Decode(string(data), &c)
	if err != nil {
		var pe toml.ParseError
		if errors.As(err, &pe) {
			return nil, &ConfigError{File: file, Line: pe.Position.Line, Msg: pe.Message}
		}
		// A value of the wrong type comes as plain text from the decoder.
		if m := typeErrRe.FindStringSubmatch(err.Error()); m != nil {
			line, _ := strconv.Atoi(m[1])
			return nil, &ConfigError{File: file, Line: line, Key: m[2], Msg: m[3]}
		}
		return nil, &ConfigError{File: file, Msg: err.Error()}
	}
	c.File = file
	fail := func(key, format string, args ...any) error {
		return &ConfigError{File: file, Line: lineOf(data, key), Key: key, Msg: fmt.Sprintf(format, args...)}
	}
	for _, k := range md.Undecoded() {
		ks := k.String()
		if len(k) >= 3 && k[0] == "modules" && k[2] == "settings" {
			continue // settings are the module's to check (guard_validate)
		}
		return nil, fail(ks, "unknown key (docs/CONFIG.md lists every key; the top-level ones are default, hide, audit, approval, sandbox, modules, rules)")
	}
	known := map[string]bool{}
	for _, t := range tools {
		known[t] = true
	}
	if c.Default == "" {
		c.Default = Deny
	} else if !slices.Contains([]Verdict{Allow, Deny, Approve}, c.Default) {
		return nil, fail("default", "%q is not allow, deny or approve", c.Default)
	}
	for i, h := range c.Hide {
		if !known[h] {
			return nil, fail("hide", "unknown tool %q (entry %d)", h, i+1)
		}
	}
	switch c.Audit.Arguments {
	case "":
		c.Audit.Arguments = "hash"
	case "hash", "full", "none":
	default:
		return nil, fail("audit.arguments", "%q is not hash, full or none", c.Audit.Arguments)
	}
	for _, ch := range c.Approval.Channels {
		if !oneOf(ch, "elicitation", "cli") {
			return nil, fail("approval.channels", "unknown channel %q (elicitation, cli)", ch)
		}
	}
	if c.Approval.Channels == nil {
		c.Approval.Channels = []string{"elicitation", "cli"}
	}
	if _, err := duration(c.Approval.Timeout, 2*time.Minute); err != nil {
		return nil, fail("approval.timeout", "%v", err)
	}
	if _, err := duration(c.Sandbox.Timeout, 0); err != nil {
		return nil, fail("sandbox.timeout", "%v", err)
	}
	if _, err := ParseSize(c.Sandbox.Memory); err != nil {
		return nil, fail("sandbox.memory", "%v", err)
	}
	if c.Sandbox.Fuel < 0 {
		return nil, fail("sandbox.fuel", "%d is negative: give the fuel units a module call may spend (default %d)", c.Sandbox.Fuel, plugins.DefaultFuel)
	}
	for name, m := range c.Modules {
		key := "modules." + name
		if m.Source == "" {
			return nil, fail(key+".source", "missing: give builtin:NAME or the path of a .wasm file")
		}
		if _, ok := m.Settings["policy"]; ok && strings.HasPrefix(m.Source, "builtin:") {
			return nil, fail(key+".settings.policy", "reserved: the engine sets it to the built-in's name")
		}
		switch {
		case !oneOf(m.ABI, "", plugins.ABIV1, plugins.ABIOPA):
			return nil, fail(key+".abi", "%q is not %s (plugins/ABI.md) or %s (a module opa build -t wasm wrote, or its bundle)", m.ABI, plugins.ABIV1, plugins.ABIOPA)
		case m.ABI == plugins.ABIOPA && strings.HasPrefix(m.Source, "builtin:"):
			return nil, fail(key+".abi", "the built-ins are ABI %s modules: remove abi, or give the path of an OPA module", plugins.ABIV1)
		case m.Entrypoint != "" && m.ABI != plugins.ABIOPA:
			return nil, fail(key+".entrypoint", "an entrypoint is for an OPA module: add abi = \"opa\", or remove it")
		}
		if !oneOf(m.Mode, "", "enforce", "monitor") {
			return nil, fail(key+".mode", "%q is not enforce or monitor", m.Mode)
		}
		if m.SHA256 != "" && !regexp.MustCompile(`^[0-9a-fA-F]{64}$`).MatchString(m.SHA256) {
			return nil, fail(key+".sha256", "not 64 hex digits")
		}
		if _, err := duration(m.Timeout, 0); err != nil {
			return nil, fail(key+".timeout", "%v", err)
		}
		if _, err := ParseSize(m.Memory); err != nil {
			return nil, fail(key+".memory", "%v", err)
		}
		if m.Fuel < 0 {
			return nil, fail(key+".fuel", "%d is negative: give the fuel units a call may spend (default: [sandbox] fuel, or %d)", m.Fuel, plugins.DefaultFuel)
		}
		m.settingsLine = lineOf(data, key+".settings")
		c.Modules[name] = m
	}
	for i, r := range c.Rules {
		key := fmt.Sprintf("rules[%d]", i+1)
		if r.Reason != "" && r.Default == "" {
			return nil, fail(key+".reason", "a rule's reason is what the agent reads when the rule's default decides: give the rule a default too")
		}
		if len(r.Tools) == 0 {
			return nil, fail(key+".tools", "missing: give tool names or globs such as debugpy_*")
		}
		for _, g := range r.Tools {
			if _, err := path.Match(g, ""); err != nil {
				return nil, fail(key+".tools", "bad glob %q: %v", g, err)
			}
			if !matchesSome(g, tools) {
				return nil, fail(key+".tools", "%q matches no tool", g)
			}
		}
		for phase, list := range map[string][]string{"call": r.Call, "result": r.Result} {
			for _, m := range list {
				if _, ok := c.Modules[m]; !ok {
					return nil, fail(key+"."+phase, "unknown module %q: define it under [modules.%s]", m, m)
				}
			}
		}
		if r.Default != "" && !slices.Contains([]Verdict{Allow, Deny, Approve}, r.Default) {
			return nil, fail(key+".default", "%q is not allow, deny or approve", r.Default)
		}
	}
	return &c, nil
}

func oneOf(s string, options ...string) bool {
	for _, o := range options {
		if s == o {
			return true
		}
	}
	return false
}

// matches reports whether name matches one of globs (path.Match syntax).
func matches(globs []string, name string) bool {
	for _, g := range globs {
		if ok, _ := path.Match(g, name); ok {
			return true
		}
	}
	return false
}

// matchesSome reports whether glob matches one of names.
func matchesSome(glob string, names []string) bool {
	for _, n := range names {
		if matches([]string{glob}, n) {
			return true
		}
	}
	return false
}

func duration(s string, def time.Duration) (time.Duration, error) {
	if s == "" {
		return def, nil
	}
	d, err := time.ParseDuration(s)
	if err != nil || d <= 0 {
		return 0, fmt.Errorf("%q is not a positive duration such as 100ms or 2m", s)
	}
	return d, nil
}

// ParseSize reads a size such as 32MiB, 512KiB, 1GiB or a byte count (0 for "").
func ParseSize(s string) (uint64, error) {
	if s == "" {
		return 0, nil
	}
	units := []struct {
		suffix string
		mult   uint64
	}{{"GiB", 1 << 30}, {"MiB", 1 << 20}, {"KiB", 1 << 10}, {"GB", 1e9}, {"MB", 1e6}, {"KB", 1e3}, {"B", 1}}
	num, mult := strings.TrimSpace(s), uint64(1)
	for _, u := range units {
		if strings.HasSuffix(num, u.suffix) {
			num, mult = strings.TrimSpace(strings.TrimSuffix(num, u.suffix)), u.mult
			break
		}
	}
	n, err := strconv.ParseUint(num, 10, 64)
	if err != nil || n == 0 {
		return 0, fmt.Errorf("%q is not a size such as 32MiB", s)
	}
	return n * mult, nil
}

// lineOf finds the line that sets key (best effort: the TOML library does not
// expose key positions). It looks for the last part of the key at the start
// of a line, after the header of its table when there is one.
func lineOf(data []byte, key string) int {
	parts := strings.Split(key, ".")
	last := parts[len(parts)-1]
	if i := strings.IndexByte(last, '['); i >= 0 {
		last = last[:i]
	}
	lines := strings.Split(string(data), "\n")
	from := 0
	if len(parts) > 1 {
		table := strings.Join(parts[:len(parts)-1], ".")
		if i := strings.IndexByte(table, '['); i >= 0 {
			table = table[:i]
		}
		for n, l := range lines {
			t := strings.TrimSpace(l)
			if t == "["+table+"]" || t == "[["+table+"]]" {
				from = n
				break
			}
		}
	}
	re := regexp.MustCompile(`^\s*(\[+\s*)?` + regexp.QuoteMeta(last) + `\s*(=|\]|\.)`)
	for n := from; n < len(lines); n++ {
		if re.MatchString(lines[n]) {
			return n + 1
		}
	}
	for n, l := range lines {
		if re.MatchString(l) {
			return n + 1
		}
	}
	return 0
}
