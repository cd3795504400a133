// Package targets limits where a debug session may go and what it may read,
// judged on what the host derived (plugins/ABI.md), never on the agent's
// spelling:
//
//   - hosts: the addresses an attach may dial: "loopback" (127.0.0.0/8 and
//     ::1, IPv4-mapped forms included), IP addresses and CIDR prefixes.
//     Default: loopback only. A host name is judged by the address it
//     resolved to, the one that is dialled.
//   - programs, interpreters: globs the resolved program (or "-m MODULE")
//     and python of a launch must match; when programs is set and
//     interpreters is not, a launch may not name its python.
//   - allow_pid: attach by PID (default false); a process of another
//     user, or whose owner cannot be read, then needs a person.
//   - files: the verdict for reading a file that does not belong to the
//     debug session (default approve), and for an attach's path mapping,
//     which makes the files debugpy names under its local root the
//     session's. /proc, /sys and /dev are never read nor mapped.
//   - data_files: the verdict for reading a file of the debug session's
//     directories that is not Python source and that debugpy did not
//     report (a CSV, a database, a config file; default approve): its
//     values are in no shape the masks read (a CSV's password column).
package targets

import (
	"net/netip"
	"path"
	"strconv"
	"strings"

	"github.com/debugpy-guard/debugpy-guard/plugins/abi"
	"github.com/debugpy-guard/debugpy-guard/plugins/sdk"
	"github.com/debugpy-guard/debugpy-guard/policies/settings"
)

// Settings are the settings it takes, and their kinds (docs/CONFIG.md
// lists them; a test keeps the two the same).
var Settings = map[string]settings.Kind{"hosts": settings.Strings,
	"programs": settings.Strings, "interpreters": settings.Strings, "allow_pid": settings.Bool, "files": settings.String,
	"data_files": settings.String}

// Validate checks the settings.
func Validate(s sdk.Value) error {
	if err := settings.Check("targets", s, Settings); err != nil {
		return err
	}
	for _, h := range s.Get("hosts").Elements() {
		if _, ok := parseHost(h.Str()); !ok {
			return bad(`targets: hosts entry "` + h.Str() + `" is not "loopback", an IP address or a CIDR prefix (the gate judges the address a host resolves to, not its name)`)
		}
	}
	for _, k := range []string{"programs", "interpreters"} {
		for _, g := range s.Get(k).Elements() {
			if _, err := path.Match(g.Str(), ""); err != nil {
				return bad("targets: " + k + " entry " + g.Str() + " is not a glob: " + err.Error())
			}
		}
	}
	for _, k := range []string{"files", "data_files"} {
		switch abi.Verdict(s.Get(k).Str()) {
		case "", abi.Allow, abi.Deny, abi.Approve:
		default:
			return bad("targets: " + k + " must be allow, deny or approve")
		}
	}
	return nil
}

// parseHost reads a hosts entry as a prefix ("loopback" is two: see allowed).
func parseHost(h string) (netip.Prefix, bool) {
	if h == "loopback" {
		return netip.Prefix{}, true
	}
	if p, err := netip.ParsePrefix(h); err == nil {
		return p.Masked(), true
	}
	if a, err := netip.ParseAddr(h); err == nil && a.Zone() == "" {
		a = a.Unmap()
		return netip.PrefixFrom(a, a.BitLen()), true
	}
	return netip.Prefix{}, false
}

// config is what Decide reads of a module's settings.
type config struct {
	hosts     []host // nil: loopback only
	programs  []string
	progsSet  bool
	interps   []string
	interpSet bool
	allowPID  bool
	files     abi.Verdict
	dataFiles abi.Verdict
}

// host is a hosts entry: loopback, or a prefix (ok false: not one).
type host struct {
	loopback bool
	prefix   netip.Prefix
	ok       bool
}

func readConfig(s sdk.Value) config {
	c := config{allowPID: s.Get("allow_pid").Bool(), files: abi.Verdict(s.Get("files").Str()), dataFiles: abi.Verdict(s.Get("data_files").Str())}
	if c.files == "" {
		c.files = abi.Approve
	}
	if c.dataFiles == "" {
		c.dataFiles = abi.Approve
	}
	if hs := s.Get("hosts"); hs.Exists() {
		c.hosts = []host{}
		for _, e := range hs.Elements() {
			p, ok := parseHost(e.Str())
			c.hosts = append(c.hosts, host{loopback: e.Str() == "loopback", prefix: p, ok: ok})
		}
	} else {
		c.hosts = []host{{loopback: true}}
	}
	globs := func(k string) ([]string, bool) {
		v := s.Get(k)
		var gs []string
		for _, g := range v.Elements() {
			gs = append(gs, g.Str())
		}
		return gs, v.Exists()
	}
	c.programs, c.progsSet = globs("programs")
	c.interps, c.interpSet = globs("interpreters")
	return c
}

func allowed(addr string, hosts []host) bool {
	a, err := netip.ParseAddr(addr)
	if err != nil || a.Zone() != "" {
		return false
	}
	a = a.Unmap()
	for _, h := range hosts {
		if h.loopback {
			if a.IsLoopback() {
				return true
			}
			continue
		}
		if h.ok && h.prefix.Contains(a) {
			return true
		}
	}
	return false
}

// verdict keeps the strongest of the verdicts met (deny > approve > allow).
type verdict struct{ d sdk.Decision }

func (v *verdict) add(d sdk.Decision) {
	if rank(d.Verdict) > rank(v.d.Verdict) {
		v.d = d
	}
}

func rank(verdict abi.Verdict) int {
	switch verdict {
	case abi.Allow:
		return 1
	case abi.Approve:
		return 2
	case abi.Deny:
		return 3
	}
	return 0
}

// Decide is the policy.
//
// Prepare is the same policy with its settings read once (the built-in
// module keeps it while the settings stay the same).
var Prepare, Decide = settings.Prepared(readConfig, decide)

func decide(r *sdk.Request, c config) sdk.Decision {
	if r.Phase() != "call" {
		return sdk.Abstain()
	}
	var v verdict
	for _, a := range r.Derived().Get("addresses").Elements() {
		host, addr := a.Get("host").Str(), a.Get("address").Str()
		name := host
		if host != addr {
			name = host + " (" + addr + ")"
		}
		switch {
		case !allowed(addr, c.hosts):
			v.add(sdk.Deny("attach to " + name + " is not allowed: only loopback addresses, unless targets.hosts lists more"))
		case a.Get("owner").Str() == abi.OwnerOther:
			// Any user of the machine can listen on loopback: a root's
			// debugpy, another developer's.
			v.add(sdk.Approve("attach to " + name + ": the debugpy listening there runs as another user of this machine" + uidOf(a) + "; attached, the agent reads that user's program, and the code it is let run there runs as that user: a person decides"))
		default:
			v.add(sdk.Allow("attach to " + name + " is allowed"))
		}
	}
	for _, p := range r.Derived().Get("paths").Elements() {
		file := p.Get("resolved").Str()
		switch p.Get("kind").Str() {
		case "source":
			if under(file, "/proc", "/sys", "/dev") {
				v.add(sdk.Deny("reading " + file + " is never allowed: /proc, /sys and /dev hold the processes' environments and devices, not source"))
				continue
			}
			if p.Get("session").Bool() {
				if p.Get("reported").Bool() || pythonSource(file) {
					v.add(sdk.Allow(file + " belongs to the debug session"))
				} else {
					v.add(sdk.Decision{Verdict: c.dataFiles, Reason: "reading " + file + ", a file of the debug session's directories that is not Python source " +
						"(data or configuration: a CSV's columns, a database's rows, a config's values are in no shape the masks read)"})
				}
				continue
			}
			v.add(sdk.Decision{Verdict: c.files, Reason: "reading " + file + ", which is not a file of the debug session's program (its stack, its loaded sources, a launch's directory): it could hold secrets"})
		case "mapping":
			// The files debugpy names under it become the session's.
			if under(file, "/proc", "/sys", "/dev") {
				v.add(sdk.Deny("mapping the debuggee's files to " + file + " is never allowed: /proc, /sys and /dev hold the processes' environments and devices, not source"))
				continue
			}
			v.add(sdk.Decision{Verdict: c.files, Reason: "the path mapping puts the debuggee's files under " + file +
				": every file its frames and loaded sources name there would belong to the debug session, read with nobody asked"})
		case "program":
			if c.progsSet {
				v.add(match(c.programs, file, "program "+file, "targets.programs"))
			}
		case "executable":
			switch {
			case c.interpSet:
				v.add(match(c.interps, file, "python "+file, "targets.interpreters"))
			case c.progsSet:
				v.add(sdk.Deny("python " + file + " is an executable no rule allows: list it in targets.interpreters"))
			}
		}
	}
	switch r.Tool() {
	case "debugpy_launch":
		if m := r.Arg("module").Str(); m != "" && c.progsSet {
			v.add(match(c.programs, "-m "+m, "module "+m, "targets.programs"))
		}
	case "debugpy_attach_pid":
		if c.allowPID {
			v.add(sdk.Allow("attach by pid is allowed"))
			for _, p := range r.Derived().Get("processes").Elements() {
				// A server run as root enters any process; one whose owner
				// /proc does not show may be another user's.
				whose := ""
				switch p.Get("owner").Str() {
				case abi.OwnerSelf:
					continue
				case abi.OwnerOther:
					whose = " runs as another user of this machine" + uidOf(p)
				default:
					whose = "'s owner cannot be read (it may be another user's)"
				}
				v.add(sdk.Approve("process " + strconv.FormatInt(p.Get("pid").Int(), 10) + whose + ": attached, the agent reads that user's program, and the code it is let run there runs as that user: a person decides"))
			}
		} else {
			v.add(sdk.Deny("attach by pid is off (targets.allow_pid)"))
		}
	}
	if v.d.Verdict == "" {
		return sdk.Abstain()
	}
	return v.d
}

func match(globs []string, p, what, key string) sdk.Decision {
	for _, g := range globs {
		if ok, _ := path.Match(g, p); ok {
			return sdk.Allow(what + " is allowed")
		}
	}
	return sdk.Deny(what + " is not in " + key)
}

// pythonSource reports whether file is named as Python source is: a
// module, a stub, an extension's Cython source.
func pythonSource(file string) bool {
	switch path.Ext(file) {
	case ".py", ".pyw", ".pyi", ".pyx", ".pxd", ".pxi":
		return true
	}
	return false
}

// uidOf names the user whose address or process d is, for the person
// asked: two other users are alike to the rule, not to them.
func uidOf(d sdk.Value) string {
	if uid := d.Get("uid"); uid.Kind() == sdk.Number && uid.Int() >= 0 {
		return " (uid " + strconv.FormatInt(uid.Int(), 10) + ")"
	}
	return ""
}

func under(p string, dirs ...string) bool {
	for _, d := range dirs {
		if p == d || strings.HasPrefix(p, d+"/") {
			return true
		}
	}
	return false
}

type bad string

func (b bad) Error() string { return string(b) }
