// Package ratelimit allows at most "max" calls per "window" (a duration) in one MCP
// session, counted by the host's sliding window (guard.counter_add).
package ratelimit

import (
	"strconv"
	"time"

	"github.com/debugpy-guard/debugpy-guard/plugins/sdk"
	"github.com/debugpy-guard/debugpy-guard/policies/settings"
)

func limits(s sdk.Value) (int64, time.Duration, error) {
	max := s.Get("max").Int()
	if !s.Get("max").Exists() {
		max = 120
	}
	window := time.Minute
	if w := s.Get("window").Str(); w != "" {
		d, err := time.ParseDuration(w)
		if err != nil || d <= 0 {
			return 0, 0, msg("ratelimit: window " + strconv.Quote(w) + " is not a duration such as 1m")
		}
		window = d
	}
	if max <= 0 {
		return 0, 0, msg("ratelimit: max must be a positive number of calls")
	}
	return max, window, nil
}

// Settings are the settings it takes, and their kinds (docs/CONFIG.md
// lists them; a test keeps the two the same).
var Settings = map[string]settings.Kind{"max": settings.Integer, "window": settings.String}

// Validate checks the settings.
func Validate(s sdk.Value) error {
	if err := settings.Check("ratelimit", s, Settings); err != nil {
		return err
	}
	_, _, err := limits(s)
	return err
}

// limit is what limits made of a module's settings.
type limit struct {
	max    int64
	window time.Duration
	err    error
	// what every reason says of the limit: the words made once
	atMost, in string
}

func readLimit(s sdk.Value) limit {
	max, window, err := limits(s)
	return limit{max, window, err, strconv.FormatInt(max, 10), window.String()}
}

// Decide is the policy.
//
// Prepare is the same policy with its settings read once (the built-in
// module keeps it while the settings stay the same).
var Prepare, Decide = settings.Prepared(readLimit, decide)

func decide(r *sdk.Request, l limit) sdk.Decision {
	if r.Phase() != "call" {
		return sdk.Abstain()
	}
	max, window := l.max, l.window
	if l.err != nil {
		return sdk.Deny(l.err.Error())
	}
	n := sdk.CounterAdd("calls", window)
	if n > max {
		return sdk.RateLimit("rate limit: " + strconv.FormatInt(n, 10) + " calls in " + l.in + ", at most " + l.atMost + "; wait and retry")
	}
	return sdk.Abstain()
}

type msg string

func (m msg) Error() string { return string(m) }
