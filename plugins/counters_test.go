package plugins

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"
)

// Counters count within each key's window, and hold a bounded number of
// keys and events: when full, what is outside its window is dropped, and a
// count that still finds no room fails, counting nothing.
func TestCountersBounded(t *testing.T) {
	c := NewCounters()
	now := time.Unix(1_000_000, 0)
	add := func(key string, window time.Duration, at time.Time) int {
		t.Helper()
		n, err := c.Add(key, window, at)
		if err != nil {
			t.Fatalf("%s: %v", key, err)
		}
		return n
	}
	if add("a", time.Minute, now) != 1 || add("a", time.Minute, now.Add(30*time.Second)) != 2 || add("a", time.Minute, now.Add(80*time.Second)) != 2 {
		t.Fatal("a minute's window")
	}

	// Keys: full of live keys, a new key fails and an old one still counts;
	// once their window has passed, they are dropped and a new key counts.
	for i := len(c.m); i < maxCounterKeys; i++ {
		add(fmt.Sprint("k", i), time.Hour, now)
	}
	if _, err := c.Add("new", time.Hour, now); err == nil || !strings.Contains(err.Error(), "a module counts too many keys or events") {
		t.Fatalf("a key past the most: %v", err)
	}
	if add("k7", time.Hour, now) != 2 {
		t.Fatal("an old key no longer counts")
	}
	if add("new", time.Hour, now.Add(2*time.Hour)) != 1 || len(c.m) != 1 || c.events != 1 {
		t.Fatalf("after the windows: %d keys, %d events", len(c.m), c.events)
	}

	// Events: every key holds at most maxKeyEvents; all of them together
	// at most maxCounterEvents.
	later := now.Add(2 * time.Hour) // "new" is still in its window
	for k := 0; c.events < maxCounterEvents; k++ {
		for i := 0; i < maxKeyEvents && c.events < maxCounterEvents; i++ {
			add(fmt.Sprint("e", k), time.Hour, later)
		}
	}
	if n := add("e0", time.Hour, later); n != maxKeyEvents {
		t.Fatalf("a runaway key counts %d", n)
	}
	if _, err := c.Add("e99", time.Hour, later); err == nil {
		t.Fatal("an event past the most was counted")
	}
	if add("e99", time.Hour, later.Add(2*time.Hour)) != 1 || c.events != 1 {
		t.Fatalf("after the windows: %d events", c.events)
	}
}

// A module whose count finds the host's counters full is denied, naming
// itself (fail closed: a rate limit that cannot count does not allow).
func TestCounterFullDenies(t *testing.T) {
	ctx := context.Background()
	r, m := ownProbe(t, "counter")
	if res, err := m.Evaluate(ctx, "s1", request("count")); err != nil || res.Reason != "count=1" {
		t.Fatalf("the first count: %+v %v", res, err)
	}
	for i := len(r.counters.m); i < maxCounterKeys; i++ {
		r.counters.Add(fmt.Sprint("k", i), time.Hour, time.Now())
	}
	_, err := m.Evaluate(ctx, "s2", request("count"))
	if err == nil || !strings.Contains(err.Error(), "module counter: ") || !strings.Contains(err.Error(), "guard.counter_add: the host holds") {
		t.Fatalf("a count with the counters full: %v", err)
	}
}
