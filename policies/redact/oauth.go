package redact

import (
	"strings"

	"github.com/debugpy-guard/debugpy-guard/internal/percent"
)

// OAuth 2.0's authorization code is a credential under a name that says
// nothing (RFC 6749, 4.1.2): whoever holds it, with the client's
// credentials or a PKCE verifier, gets the user's tokens. It shows where a
// web app is debugged: the redirect's URL in an access log or a request
// object (GET /callback?code=...&state=...), and the token request's body
// (grant_type=authorization_code&code=...) or its dict. "code" is too
// common a name to be a secret's everywhere (an error's code, a country's,
// a cell of code), so it is one only there: a query's or a fragment's
// parameter (maskQueryCodes), and any name "code" in a text that names the
// grant or that has a state beside it (codeGrant). The PKCE verifier and
// the device flow's device code are secrets' words (policies/secrets).

// codeGrant: s holds a token request of the authorization code grant, or
// a redirect's parameters read apart from a URL (a code and a state:
// urlsplit's query='code=...&state=...', parse_qs's dict, Flask's
// request.args, Django's request.GET), so that its "code" is the
// credential.
func codeGrant(s string) bool {
	if strings.Contains(s, "authorization_code") {
		return true
	}
	return (strings.Contains(s, "code=") || strings.Contains(s, "'code'") || strings.Contains(s, `"code"`)) &&
		(strings.Contains(s, "state=") || strings.Contains(s, "'state'") || strings.Contains(s, `"state"`))
}

// withNames is extra with names among the secrets' names (a copy: extra
// is the settings', shared by every reading).
func withNames(extra map[string]bool, names ...string) map[string]bool {
	m := make(map[string]bool, len(extra)+len(names))
	for k, v := range extra {
		m[k] = v
	}
	for _, n := range names {
		m[n] = true
	}
	return m
}

// maskQueryCodes masks the value of every code parameter of a URL's query
// or fragment (after a '?', a '&' or a '#'), to the next '&', '#', blank,
// quote, '<', '>' or ')': ?code=4/0AX4XfWh8sR2kq&state=abc.
func maskQueryCodes(s string, found func(string)) (string, bool) {
	var spans [][2]int
	for from := 0; ; {
		i := strings.Index(s[from:], "code=")
		if i < 0 {
			break
		}
		at := from + i
		from = at + len("code=")
		if at == 0 || strings.IndexByte("?&#", s[at-1]) < 0 {
			continue
		}
		ve := from
		for ve < len(s) && strings.IndexByte("&#'\" \t\r\n<>)", s[ve]) < 0 {
			ve++
		}
		if ve == from || strings.ReplaceAll(s[from:ve], mask, "") == "" {
			continue // masked already: by this mask, or as two masks side by side (a .pgpass line's value beside it, widened to: wholeShapes)
		}
		spans = append(spans, [2]int{from, ve})
		if found != nil {
			found(percent.Decode(s[from:ve], true)) // as the program holds it: 4/0AX4, not 4%2F0AX4
		}
		from = ve
	}
	if len(spans) == 0 {
		return s, false
	}
	return writeSpans(s, spans, found), true
}
