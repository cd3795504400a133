package tools

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"net"
	"net/netip"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"

	"github.com/debugpy-guard/debugpy-guard/engine"
	"github.com/debugpy-guard/debugpy-guard/internal/pyrepr"
	"github.com/debugpy-guard/debugpy-guard/internal/tcpowner"
)

// Derived facts (docs/SECURITY.md): each argument type that carries code, a
// path or a host says so by a derive method, which the gate calls before any
// module judges the call. derive may rewrite the arguments it resolves (a
// path made absolute, a host made an address): the handler runs with exactly
// what the modules judged.
type deriver interface {
	derive(ctx context.Context, ts *Toolset) (*engine.Derived, error)
}

// Code kinds (engine.Code.Kind).
const (
	expression = "expression"
	statement  = "statement"
)

func (a *evaluateArgs) derive(context.Context, *Toolset) (*engine.Derived, error) {
	kind := expression
	if a.Context == "repl" {
		// pydevd evaluates a repl input, and when that fails to compile
		// it runs it as statements (exec): loops, del, assignments, import.
		kind = statement
	}
	return &engine.Derived{Code: []engine.Code{{Argument: "expression", Kind: kind, Text: pydevdDedent(pydevdLines(a.Expression))}}}, nil
}

func (a *setVariableArgs) derive(context.Context, *Toolset) (*engine.Derived, error) {
	value := pydevdLines(a.Value)
	return &engine.Derived{Code: []engine.Code{
		{Argument: "value", Kind: expression, Text: value},
		// pydevd assigns with exec("NAME=VALUE") when it cannot set the
		// frame's locals directly (a dotted name, say): the name is code too.
		{Argument: "name", Kind: statement, Text: a.Name + "=" + value},
	}}, nil
}

func (a *breakpointArgs) derive(ctx context.Context, ts *Toolset) (*engine.Derived, error) {
	code, err := breakpointCode(nil, "", a.Condition, a.HitCondition, a.LogMessage)
	if err != nil {
		return nil, err
	}
	d := &engine.Derived{Code: code}
	return d, breakpointFile(ctx, ts, a.Session, &a.File, d)
}

// breakpointCode adds to code the Python a breakpoint carries, as pydevd
// will compile it: its condition, hit condition and log message, under
// their argument names (after prefix).
func breakpointCode(code []engine.Code, prefix, condition, hitCondition, logMessage string) ([]engine.Code, error) {
	// pydevd replaces @HIT@ in a hit condition by the hit count at each
	// hit, in the text as the agent wrote it too: "s@HIT@[0] == 'a'" would
	// be judged as s1[0] at the first hit and run as s12[0] at the
	// twelfth, a name no module saw.
	if strings.Contains(hitCondition, "@HIT@") {
		return nil, malformed("%shit_condition %q holds @HIT@, which pydevd replaces by the hit count at each hit, so the code judged would not be the code run: give a count as N, >=N, >N, <N, ==N or %%N, and any other test as the condition", prefix, hitCondition)
	}
	if condition != "" {
		code = append(code, engine.Code{Argument: prefix + "condition", Kind: expression, Text: condition})
	}
	if hitCondition != "" {
		code = append(code, engine.Code{Argument: prefix + "hit_condition", Kind: expression, Text: hitConditionCode(hitCondition)})
	}
	if logMessage != "" {
		code = append(code, engine.Code{Argument: prefix + "log_message", Kind: expression, Text: logMessageCode(logMessage)})
	}
	return code, nil
}

func (a *removeArgs) derive(ctx context.Context, ts *Toolset) (*engine.Derived, error) {
	d := &engine.Derived{}
	return d, breakpointFile(ctx, ts, a.Session, &a.File, d)
}

// breakpointFile resolves a breakpoint's file argument in place and adds
// it to d.
func breakpointFile(ctx context.Context, ts *Toolset, session string, file *string, d *engine.Derived) error {
	if *file == "" {
		return nil
	}
	p, err := resolvePath(ctx, ts, session, "file", "breakpoint", *file)
	if err != nil {
		return err
	}
	*file = p.Resolved
	d.Paths = append(d.Paths, p)
	return nil
}

func (a *sourceArgs) derive(ctx context.Context, ts *Toolset) (*engine.Derived, error) {
	file := a.File
	if file == "" {
		// The file of the current stop: what the handler would read.
		if s, err := ts.session(ctx, a.Session); err == nil {
			if _, last := s.Stops(); last != nil {
				file = last.File
			}
		}
	}
	if file == "" {
		return &engine.Derived{}, nil
	}
	p, err := resolvePath(ctx, ts, a.Session, "file", "source", file)
	if err != nil {
		return nil, err
	}
	a.File = p.Resolved
	return &engine.Derived{Paths: []engine.Path{p}}, nil
}

func (a *launchArgs) derive(ctx context.Context, ts *Toolset) (*engine.Derived, error) {
	for _, name := range slices.Sorted(maps.Keys(a.Env)) {
		if err := envName(name, a.Env[name]); err != nil {
			return nil, err
		}
	}
	d := &engine.Derived{}
	if a.Program != "" {
		p, err := resolvePath(ctx, ts, "", "program", "program", a.Program)
		if err != nil {
			return nil, err
		}
		a.Program = p.Resolved
		d.Paths = append(d.Paths, p)
	}
	if a.Cwd != "" {
		p, err := resolvePath(ctx, ts, "", "cwd", "directory", a.Cwd)
		if err != nil {
			return nil, err
		}
		a.Cwd = p.Resolved
		d.Paths = append(d.Paths, p)
	}
	if a.Python != "" {
		p, err := resolveExecutable("python", a.Python)
		if err != nil {
			return d, err
		}
		a.Python = p.Resolved
		d.Paths = append(d.Paths, p)
	}
	return d, nil
}

// envName refuses a launch's environment variable that the program would
// not get as written (a name with "=" or a NUL byte, a value with a NUL
// byte), and one that configures the debugger itself: debugpy and pydevd
// read PYDEVD_*, PYDEV_*, DEBUGPY_* and a few names without those prefixes
// from the program's environment. The server reads the program through the
// debugger (the stop's listing, from which redact learns the secrets to
// mask; a frame's file, which decides what belongs to the session), so its
// settings are the server's: PYDEVD_CONTAINER_RANDOM_ACCESS_MAX_ITEMS=1, in
// a launch a person approved, cut every dict's listing to one item, and an
// alias of a password held past it came back in clear (found 2026-12-06);
// PATHS_FROM_ECLIPSE_TO_PYTHON maps the program's files onto others, as an
// attach's path mappings would; DEBUGPY_LOG_DIR writes the debugger's
// log, the values it sent unmasked among it, to files there (seen in a
// probe, 2026-12-06). They are taken from the server's own environment
// only, which the program inherits. Case is ignored: a variable that
// differs only in case is refused too.
func envName(name, value string) error {
	switch {
	case name == "" || strings.ContainsAny(name, "=\x00"):
		return malformed("env %q is not a variable's name (it is empty, or holds \"=\" or a NUL byte)", name)
	case strings.ContainsRune(value, 0):
		return malformed("env %s has a NUL byte in its value, which no environment holds", name)
	case debuggerSetting(name):
		return malformed("env %s is a setting of the debugger itself (debugpy and pydevd read PYDEVD_*, PYDEV_*, DEBUGPY_*, %s): the server reads the program through the debugger, so it takes those from its own environment only; leave it out, or set it where debugpy-guard serve starts", name, strings.Join(debuggerNames, ", "))
	}
	return nil
}

// debuggerNames are the variables debugpy 1.6 and its pydevd read that
// have none of debuggerPrefixes (a grep of their os.environ and getenv).
var (
	debuggerPrefixes = []string{"PYDEVD_", "PYDEV_", "DEBUGPY_"}
	debuggerNames    = []string{"PATHS_FROM_ECLIPSE_TO_PYTHON", "DEBUG_PYDEVD_PATHS_TRANSLATION", "PYCHARM_DEBUG", "IDE_PROJECT_ROOTS", "LIBRARY_ROOTS"}
)

func debuggerSetting(name string) bool {
	n := strings.ToUpper(name)
	return slices.ContainsFunc(debuggerPrefixes, func(p string) bool { return strings.HasPrefix(n, p) }) || slices.Contains(debuggerNames, n)
}

func (a *attachPIDArgs) derive(ctx context.Context, ts *Toolset) (*engine.Derived, error) {
	// Whose process it is: a server run as root can attach to any.
	a.ids, a.judged = processIDs(a.PID), true
	owner, uid := ownerOf(a.ids)
	d := &engine.Derived{Processes: []engine.Process{{Argument: "pid", PID: a.PID, Owner: owner, UID: uid}}}
	if a.Python != "" {
		p, err := resolveExecutable("python", a.Python)
		if err != nil {
			return d, err
		}
		a.Python = p.Resolved
		d.Paths = append(d.Paths, p)
	}
	return d, nil
}

// processIDs are the user ids of process pid (real, effective, saved, file
// system), from /proc/PID/status; nil when they cannot be read (no such
// process).
func processIDs(pid int) []int {
	if pid < 1 {
		return nil
	}
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return nil
	}
	for line := range strings.Lines(string(b)) {
		f, ok := strings.CutPrefix(line, "Uid:")
		if !ok {
			continue
		}
		var ids []int
		for _, s := range strings.Fields(f) {
			id, err := strconv.Atoi(s)
			if err != nil {
				return nil
			}
			ids = append(ids, id)
		}
		return ids
	}
	return nil
}

// ownerOf says whose a process of user ids ids is: self when each is the
// server's effective one, other when one is not, unknown when there are
// none; and its real user id (-1 when unknown).
func ownerOf(ids []int) (owner string, uid int) {
	if len(ids) == 0 {
		return engine.OwnerUnknown, -1
	}
	me := os.Geteuid()
	for _, id := range ids {
		if id != me {
			return engine.OwnerOther, ids[0]
		}
	}
	return engine.OwnerSelf, ids[0]
}

// hostsFile resolves names from the hosts file only. A DNS query for a name
// the agent chose would leave the machine before any module judged the call
// (and could carry what the agent read, in its labels): debugpy-guard asks
// no DNS server (docs/RATIONALE.md).
var hostsFile = &net.Resolver{PreferGo: true, Dial: func(context.Context, string, string) (net.Conn, error) {
	return nil, errors.New("no DNS: host names come from the hosts file only")
}}

// resolveTimeout bounds the one lookup of a host name.
const resolveTimeout = 3 * time.Second

func (a *startArgs) derive(ctx context.Context, ts *Toolset) (*engine.Derived, error) {
	if a.Host == "" {
		a.Host = "127.0.0.1"
	}
	if a.Port == 0 {
		a.Port = 5678
	}
	if a.Port < 1 || a.Port > 65535 {
		return nil, malformed("port %d is not a TCP port (1-65535)", a.Port)
	}
	addr, err := resolveHost(ctx, a.Host)
	if err != nil {
		return nil, err
	}
	host := a.Host
	a.Host = addr.String()
	// Whose debugpy listens there: any user of the machine can listen on
	// loopback. The dial is checked against what is judged (peerJudged).
	owner, listener := engine.OwnerUnknown, -1
	a.listener = 0
	if uid, ok := tcpowner.Listener(addr, uint16(a.Port)); ok {
		a.listener, listener, owner = uid+1, uid, engine.OwnerOther
		if uid == os.Geteuid() {
			owner = engine.OwnerSelf
		}
	}
	d := &engine.Derived{Addresses: []engine.Address{{Argument: "host", Host: host, Address: a.Host, Port: a.Port, Owner: owner, UID: listener}}}
	// A path mapping decides which local files the debuggee's frames and
	// loaded sources name, and those are the session's, read unasked: a
	// mapping of the program's file to ~/.pgpass made debugpy_source read
	// it. So each local root is a path the modules judge (kind "mapping"),
	// and one that is a file is refused: debugpy maps by prefix, so a file
	// root would name that very file.
	for i, m := range a.PathMappings {
		arg := fmt.Sprintf("path_mappings[%d].local_root", i)
		if m.LocalRoot == "" || m.RemoteRoot == "" {
			return nil, malformed("each path mapping needs local_root and remote_root")
		}
		// Resolved as breakpoint files are, so that they still map.
		p, err := resolvePath(ctx, ts, "", arg, "mapping", m.LocalRoot)
		if err != nil {
			return nil, err
		}
		if fi, err := os.Stat(p.Resolved); err == nil && !fi.IsDir() {
			return nil, malformed("%s %q is a file: a path mapping maps a directory of this machine to the debuggee's", arg, m.LocalRoot)
		}
		a.PathMappings[i].LocalRoot = p.Resolved
		d.Paths = append(d.Paths, p)
	}
	// Breakpoints set at the attach: their files and their code, as
	// debugpy_set_breakpoint's.
	for i := range a.Breakpoints {
		b := &a.Breakpoints[i]
		arg := fmt.Sprintf("breakpoints[%d].", i)
		var err error
		if d.Code, err = breakpointCode(d.Code, arg, b.Condition, b.HitCondition, b.LogMessage); err != nil {
			return nil, err
		}
		if b.File == "" {
			return nil, malformed("%sfile is required", arg)
		}
		p, err := resolvePath(ctx, ts, "", arg+"file", "breakpoint", b.File)
		if err != nil {
			return nil, err
		}
		b.File = p.Resolved
		d.Paths = append(d.Paths, p)
	}
	return d, nil
}

// resolveHost reads host as an IP address or a DNS name (no port, no
// spaces, no zone) and resolves it once: the address returned is the one
// that will be dialled, and the one the modules judge.
func resolveHost(ctx context.Context, host string) (netip.Addr, error) {
	if a, err := netip.ParseAddr(host); err == nil {
		if a.Zone() != "" {
			return netip.Addr{}, malformed("host %q: an address with a zone is not taken; give the address alone", host)
		}
		return a, nil
	}
	if !isHostName(host) {
		return netip.Addr{}, malformed("host %q is neither an IP address nor a host name: give one alone, without a port or spaces (the port goes in port)", host)
	}
	rctx, cancel := context.WithTimeout(ctx, resolveTimeout)
	defer cancel()
	addrs, err := hostsFile.LookupNetIP(rctx, "ip", host)
	if err != nil || len(addrs) == 0 {
		return netip.Addr{}, malformed("host %q is not in the hosts file (/etc/hosts), and debugpy-guard asks no DNS server: give its IP address", host)
	}
	return addrs[0].Unmap(), nil
}

// isHostName: letters, digits and hyphens in dot-separated labels of 1 to
// 63 bytes, at most 253 in all (RFC 1123).
func isHostName(h string) bool {
	if len(h) == 0 || len(h) > 253 {
		return false
	}
	for _, label := range strings.Split(h, ".") {
		if len(label) == 0 || len(label) > 63 || label[0] == '-' || label[len(label)-1] == '-' {
			return false
		}
		for i := 0; i < len(label); i++ {
			c := label[i]
			if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-') {
				return false
			}
		}
	}
	return true
}

// resolvePath makes p absolute (against the server's directory) and
// resolves its symlinks (as far as the path exists), and says whether it
// belongs to the debug session named session.
func resolvePath(ctx context.Context, ts *Toolset, session, argument, kind, p string) (engine.Path, error) {
	if err := checkPath(argument, p); err != nil {
		return engine.Path{}, err
	}
	if (kind == "breakpoint" || kind == "source") && !filepath.IsAbs(p) {
		wd, _ := os.Getwd()
		return engine.Path{}, malformed("%s %q is relative: give its absolute path (a relative one would be taken from the server's directory, %s, not the program's; debugpy_stack_trace shows each frame's file)", argument, p, wd)
	}
	out := engine.Path{Argument: argument, Kind: kind, Given: p, Resolved: realPath(p)}
	if s, err := ts.session(ctx, session); err == nil && kind == "source" {
		out.Session, out.Reported = s.Owns(out.Resolved), s.Reported(out.Resolved)
	}
	return out, nil
}

// realPath is p absolute and clean, with the symlinks of its longest
// existing prefix resolved (a breakpoint may name a file not yet written).
func realPath(p string) string {
	abs, err := filepath.Abs(p)
	if err != nil {
		abs = filepath.Clean(p)
	}
	rest := ""
	for dir := abs; ; {
		if r, err := filepath.EvalSymlinks(dir); err == nil {
			return filepath.Join(r, rest)
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return abs
		}
		rest = filepath.Join(filepath.Base(dir), rest)
		dir = parent
	}
}

// checkPath refuses a path argument no file can have: longer than
// maxPath, or with a NUL byte (judged, "/proc\x00/x" is not under /proc;
// the system would refuse to open it).
func checkPath(argument, p string) error {
	if len(p) > maxPath {
		return malformed("%s is %d bytes long, over the %d a path may have", argument, len(p), maxPath)
	}
	if strings.IndexByte(p, 0) >= 0 {
		return malformed("%s %q has a NUL byte, which no file name holds", argument, p)
	}
	return nil
}

// maxPath bounds a path argument (Linux's PATH_MAX): resolving one costs a
// system call per component.
const maxPath = 4096

// resolveExecutable finds an interpreter as exec would (a bare name on
// PATH) and resolves it: the resolved path is what runs.
func resolveExecutable(argument, p string) (engine.Path, error) {
	if err := checkPath(argument, p); err != nil {
		return engine.Path{}, err
	}
	found := p
	if !strings.ContainsRune(p, '/') {
		lp, err := execLookPath(p)
		if err != nil {
			return engine.Path{}, malformed("%s %q is not on PATH: give its absolute path", argument, p)
		}
		found = lp
	}
	return engine.Path{Argument: argument, Kind: "executable", Given: p, Resolved: realPath(found)}, nil
}

var execLookPath = func(name string) (string, error) {
	for _, dir := range filepath.SplitList(os.Getenv("PATH")) {
		if dir == "" {
			continue
		}
		f := filepath.Join(dir, name)
		if st, err := os.Stat(f); err == nil && st.Mode().IsRegular() && st.Mode()&0o111 != 0 {
			return f, nil
		}
	}
	return "", errors.New("not found")
}

// --- what pydevd compiles (debugpy 1.6's _vendored/pydevd) ---

// pydevdLines is pydevd's "@LINE@" to newline, which it applies to every
// evaluate and set_variable input before it compiles it.
func pydevdLines(s string) string { return strings.ReplaceAll(s, "@LINE@", "\n") }

// pydevdDedent is pydevd_vars._expression_to_evaluate, which evaluate
// applies before it compiles: the first non-blank line's leading
// whitespace is cut from every line, when every line starts with that much
// whitespace (Python's str.splitlines and str.isspace).
func pydevdDedent(expr string) string {
	lines := pySplitLines(expr)
	n := 0
	for _, line := range lines {
		if strings.TrimFunc(line, pyIsSpace) != "" {
			for _, r := range line {
				if !pyIsSpace(r) {
					break
				}
				n++
			}
			break
		}
	}
	if n == 0 {
		return expr
	}
	var b strings.Builder
	for _, line := range lines {
		rs := []rune(line)
		k := min(n, len(rs))
		for _, r := range rs[:k] {
			if !pyIsSpace(r) {
				return expr
			}
		}
		b.WriteString(string(rs[k:]))
	}
	return b.String()
}

// pySplitLines is Python's str.splitlines(keepends=True).
func pySplitLines(s string) []string {
	var out []string
	start := 0
	rs := []rune(s)
	for i := 0; i < len(rs); i++ {
		switch rs[i] {
		case '\r':
			if i+1 < len(rs) && rs[i+1] == '\n' {
				i++
			}
		case '\n', '\v', '\f', 0x1c, 0x1d, 0x1e, 0x85, 0x2028, 0x2029:
		default:
			continue
		}
		out = append(out, string(rs[start:i+1]))
		start = i + 1
	}
	if start < len(rs) {
		out = append(out, string(rs[start:]))
	}
	return out
}

// hitConditionCode is what pydevd evaluates for a hit condition
// (pydevd_process_net_command_json._get_hit_condition_expression, then
// "@HIT@" replaced by the hit count, here 1): a plain integer N is
// "1 == N"; "%N" is "1 %N == 0"; "==N", ">N", "<N" are "1 ==N" ...; anything
// else is evaluated as it is.
func hitConditionCode(h string) string {
	e := pyStrip(h)
	var out string
	switch {
	case isPyInt(e):
		out = "@HIT@ == " + e
	case strings.HasPrefix(e, "%"):
		out = "@HIT@ " + e + " == 0"
	case strings.HasPrefix(e, "==") || strings.HasPrefix(e, ">") || strings.HasPrefix(e, "<"):
		out = "@HIT@ " + e
	default:
		out = h
	}
	return strings.ReplaceAll(out, "@HIT@", "1")
}

// isPyInt is whether Python's int() accepts e (already stripped): an
// optional sign, then decimal digits of any script (Unicode Nd), single
// underscores between them.
func isPyInt(e string) bool {
	rs := []rune(strings.TrimLeft(e, "+-"))
	if len(e)-len(string(rs)) > 1 || len(rs) == 0 {
		return false
	}
	for i, r := range rs {
		switch {
		case unicode.IsDigit(r):
		case r == '_' && i > 0 && i < len(rs)-1 && unicode.IsDigit(rs[i-1]) && unicode.IsDigit(rs[i+1]):
		default:
			return false
		}
	}
	return true
}

// logMessageCode is pydevd_utils.convert_dap_log_message_to_expression: the
// text with each {part} replaced by %s, repr'd, then "% (part1, part2,)".
func logMessageCode(msg string) string {
	var text []rune
	var parts []string
	rs := []rune(msg)
	for i := 0; i < len(rs); i++ {
		if rs[i] != '{' {
			text = append(text, rs[i])
			continue
		}
		level, j := 0, i+1
		for ; j < len(rs); j++ {
			if rs[j] == '{' {
				level++
			}
			if rs[j] == '}' {
				level--
			}
			if level == -1 {
				break
			}
		}
		if j >= len(rs) {
			return pyrepr.Repr("Unbalanced braces in: " + msg)
		}
		if part := pyStrip(string(rs[i+1 : j])); part != "" {
			text = append(text, '%', 's')
			parts = append(parts, part)
		}
		i = j
	}
	if len(parts) == 0 {
		return pyrepr.Repr(string(text))
	}
	return pyrepr.Repr(string(text)) + " % (" + strings.Join(parts, ", ") + ",)"
}

// pyIsSpace is Python's str.isspace for one character: Unicode White_Space
// and the separators \x1c-\x1f.
func pyIsSpace(r rune) bool { return unicode.IsSpace(r) || r >= 0x1c && r <= 0x1f }

func pyStrip(s string) string { return strings.TrimFunc(s, pyIsSpace) }
