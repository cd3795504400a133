// Package targets limits where a debug session may go: the hosts an attach may
// connect to (default: loopback only), the programs a launch may run (globs;
// any when unset) and whether attach by PID is allowed.
package targets

import (
	"path"
	"strings"

	"github.com/debugpy-guard/debugpy-guard/plugins/sdk"
)

var loopback = []string{"127.0.0.1", "localhost", "::1"}

// Decide is the policy.
func Decide(r *sdk.Request) sdk.Decision {
	if r.Phase() != "call" {
		return sdk.Abstain()
	}
	s := r.Settings()
	switch r.Tool() {
	case "debugpy_session_start":
		host := r.Arg("host").Str()
		if host == "" {
			host = "127.0.0.1"
		}
		allowed := loopback
		if h := s.Get("hosts"); h.Exists() {
			allowed = nil
			for _, e := range h.Elements() {
				allowed = append(allowed, e.Str())
			}
		}
		for _, a := range allowed {
			if strings.EqualFold(a, host) || (strings.HasPrefix(host, "127.") && a == "127.0.0.1") {
				return sdk.Allow("attach to " + host + " is allowed")
			}
		}
		return sdk.Deny("attach to " + host + " is not allowed: only " + strings.Join(allowed, ", ") + " (targets.hosts)")
	case "debugpy_launch":
		progs := s.Get("programs")
		if !progs.Exists() {
			return sdk.Abstain()
		}
		p := r.Arg("program").Str()
		if p == "" {
			p = "-m " + r.Arg("module").Str()
		}
		for _, g := range progs.Elements() {
			if ok, _ := path.Match(g.Str(), p); ok {
				return sdk.Allow("program " + p + " is allowed")
			}
		}
		return sdk.Deny("program " + p + " is not in targets.programs")
	case "debugpy_attach_pid":
		if s.Get("allow_pid").Bool() {
			return sdk.Allow("attach by pid is allowed")
		}
		return sdk.Deny("attach by pid is off (targets.allow_pid)")
	}
	return sdk.Abstain()
}
