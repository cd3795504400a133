package redact

import (
	"strings"
	"testing"

	"github.com/debugpy-guard/debugpy-guard/plugins/sdk"
	"github.com/debugpy-guard/debugpy-guard/policies/internal/policytest"
)

// TestNoKeyBlockShownAfterAnything: a PEM private key block shows none of
// its lines, whatever comes before it on its BEGIN line: each string
// literal of this package's tests (the secrets' names and values, the
// pairs, the assignments, the tables), alone, after a secret's name, and
// after a plain one, in the forms a program prints (a config line, a log
// line, a repr). A mask that took the BEGIN line with a value before it,
// a line at a time, left the block's key shown (found 2026-12-06:
// "password: x -----BEGIN EC PRIVATE KEY-----" then the key's lines).
func TestNoKeyBlockShownAfterAnything(t *testing.T) {
	const body = "MHcCAQEEIBkg4LVWM9nuwNSk3yByxZpYRTBnVJk5owkRmkoVkHbIoAoGCCqGSM49\n" +
		"AwEHoUQDQgAEcmC1oZMNnqANd8ad6u3x9f5OeHgV4CsYEEJRc1XJL+qGv3l0X3ce\n" +
		"k2V7r0yFh3AFpbbHsX1yqYs0ZqDnYPE1Fg=="
	keys := []string{"-----BEGIN EC PRIVATE KEY-----\n" + body + "\n-----END EC PRIVATE KEY-----\n",
		"-----BEGIN PGP PRIVATE KEY BLOCK-----\n\n" + body + "\n-----END PGP PRIVATE KEY BLOCK-----\n"}
	var before []string
	for _, l := range policytest.Literals(t) {
		if strings.Contains(l, "-----") || strings.Contains(body, l) {
			continue // a block of its own, a banner, or this test's key
		}
		l = strings.ReplaceAll(l, "\n", " ")
		before = append(before, l+" ", "password: "+l+" ", "secret = "+l+" ", "note: "+l+" ", "api_key="+l+" ")
	}
	for _, b := range before {
		key := keys[len(b)%2]
		for _, s := range []string{b + key, "INFO " + b + key + "done\n", "  " + b + key} {
			got, _ := maskText(s, map[string]bool{"pin": true})
			sdk.TakeSecrets()
			for _, line := range strings.Split(body, "\n") {
				if strings.Contains(got, line[:24]) {
					t.Fatalf("%q\nmasked: %q\nshows the key's line %q", s, got, line)
				}
			}
		}
	}
}
