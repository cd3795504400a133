// Package redact masks secrets in results (phase result): the value of a variable
// whose name looks like a secret (password, token, api_key ...) and, in any
// string, JWTs, PEM blocks and AWS access keys. settings.names adds names.
package redact

import (
	"regexp"
	"strconv"
	"strings"
	"sync"

	"github.com/debugpy-guard/debugpy-guard/plugins/sdk"
)

const mask = "[redacted]"

// The patterns are compiled on first use, not at instantiation: the built-in
// policies share one module, and an instance that never redacts should not
// pay ~40 ms of regexp compilation in wasm.
var patterns = sync.OnceValue(func() (p struct {
	secretName, reprPair *regexp.Regexp
	shapes               []*regexp.Regexp
}) {
	p.secretName = regexp.MustCompile(`(?i)(passw(or)?d|passwd|secret|token|api_?key|private_?key|access_?key|credential|auth)`)
	p.shapes = []*regexp.Regexp{
		regexp.MustCompile(`eyJ[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]{5,}`),                     // JWT
		regexp.MustCompile(`-----BEGIN [A-Z ]*PRIVATE KEY-----[\s\S]*?(-----END [A-Z ]*PRIVATE KEY-----|$)`), // PEM
		regexp.MustCompile(`\b(AKIA|ASIA)[0-9A-Z]{16}\b`),                                                    // AWS access key id
	}
	// key: 'value' pairs inside a repr, such as a dict's value string.
	p.reprPair = regexp.MustCompile(`(?i)(['"][\w-]*(passw(or)?d|passwd|secret|token|api_?key|private_?key|access_?key)[\w-]*['"]\s*:\s*)('[^']*'|"[^"]*")`)
	return p
})

// Decide is the policy.
func Decide(r *sdk.Request) sdk.Decision {
	if r.Phase() != "result" {
		return sdk.Abstain()
	}
	if !r.Result().Exists() || r.Result().Kind() == sdk.Null {
		return sdk.Allow("no result")
	}
	extra := map[string]bool{}
	for _, n := range r.Settings().Get("names").Elements() {
		extra[strings.ToLower(n.Str())] = true
	}
	res := r.Result()
	n := 0
	out, _ := walk(res, extra, &n)
	// An evaluate result carries no name: judge it by the expression.
	if r.Tool() == "debugpy_evaluate" && isSecretName(lastName(r.Arg("expression").Str()), extra) && out.Get("result").Exists() {
		out.Set("result", sdk.StringValue(mask))
		n++
	}
	if n == 0 {
		// Allow, not abstain: when every module of a phase abstains the
		// config's default (deny) applies, and a clean result must pass.
		return sdk.Allow("nothing to redact")
	}
	return sdk.Rewrite("redacted "+strconv.Itoa(n)+" secret value(s)", out)
}

// nameWords and valueWords are what a secret name, or a value holding a
// secret, must contain (lower-cased) before a regexp looks at it: regexps in
// wasm cost tens of µs a string, and almost no string holds one of these.
var (
	nameWords  = []string{"passw", "secret", "token", "key", "credential", "auth"}
	valueWords = []string{"passw", "secret", "token", "key", "eyj", "-----begin", "akia", "asia"}
)

func mentions(s string, words []string) bool {
	l := strings.ToLower(s)
	for _, w := range words {
		if strings.Contains(l, w) {
			return true
		}
	}
	return false
}

func isSecretName(name string, extra map[string]bool) bool {
	if extra[strings.ToLower(name)] {
		return true
	}
	return mentions(name, nameWords) && patterns().secretName.MatchString(name)
}

// walk returns v with secrets masked, counting the masks in n, and whether
// it changed anything (if not, v itself comes back: nothing is rebuilt). An
// object with a "name" that looks like a secret has its "value" and
// "result" masked, and its "children" dropped.
func walk(v sdk.Value, extra map[string]bool, n *int) (sdk.Value, bool) {
	switch v.Kind() {
	case sdk.String:
		s := v.Str()
		if !mentions(s, valueWords) {
			return v, false
		}
		changed := false
		p := patterns()
		if p.reprPair.MatchString(s) {
			s = p.reprPair.ReplaceAllString(s, "${1}'"+mask+"'")
			changed = true
		}
		for _, re := range p.shapes {
			if re.MatchString(s) {
				s = re.ReplaceAllString(s, mask)
				changed = true
			}
		}
		if !changed {
			return v, false
		}
		*n++
		return sdk.StringValue(s), true
	case sdk.Array:
		els := v.Elements()
		any := false
		for i, e := range els {
			var c bool
			if els[i], c = walk(e, extra, n); c {
				any = true
			}
		}
		if !any {
			return v, false
		}
		return sdk.ArrayValue(els...), true
	case sdk.Object:
		secret := isSecretName(v.Get("name").Str(), extra)
		ms := v.Members()
		out := make([]sdk.Member, 0, len(ms))
		any := false
		for _, m := range ms {
			switch {
			case secret && (m.Key == "value" || m.Key == "result"):
				*n++
				any = true
				out = append(out, sdk.Member{Key: m.Key, Value: sdk.StringValue(mask)})
			case secret && m.Key == "children":
				any = true // dropped: the parts of a secret are secret too
			case m.Value.Kind() == sdk.String && isSecretName(m.Key, extra):
				*n++
				any = true
				out = append(out, sdk.Member{Key: m.Key, Value: sdk.StringValue(mask)})
			default:
				w, c := walk(m.Value, extra, n)
				any = any || c
				out = append(out, sdk.Member{Key: m.Key, Value: w})
			}
		}
		if !any {
			return v, false
		}
		return sdk.ObjectValue(out...), true
	}
	return v, false
}

// lastName is the last identifier of an expression such as user.password.
func lastName(e string) string {
	e = strings.TrimRight(strings.TrimSpace(e), "'\"])")
	i := strings.LastIndexAny(e, ".['\" ")
	return e[i+1:]
}
