// Package benchstat reports latency percentiles from inside a Go benchmark,
// for the figures of docs/PERFORMANCE.md (go test -bench gives only means),
// and for `debugpy-guard policy bench`.
package benchstat

import (
	"math/rand/v2"
	"sort"
	"testing"
	"time"
)

// Run calls fn b.N times, timing each call, and reports p50 and p99 in µs.
func Run(b *testing.B, fn func()) {
	b.Helper()
	lat := make([]time.Duration, b.N)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		t0 := time.Now()
		fn()
		lat[i] = time.Since(t0)
	}
	b.StopTimer()
	Report(b, lat)
}

// Turn is one of the functions Turns times: its name prefixes its metrics.
type Turn struct {
	Name string
	Fn   func()
}

// Turns calls each turn's function once at each of b.N iterations, in an
// order shuffled at each (Rounds), timing each call, and reports each one's
// p50 and p99 in µs as NAME-p50-µs and NAME-p99-µs: two builds compared
// side by side in one run, each seeing the machine as the other does (the
// machines are shared and noisy: two benchmarks one after the other can
// differ by a third).
func Turns(b *testing.B, turns ...Turn) {
	b.Helper()
	lat := make([][]time.Duration, len(turns))
	for i := range lat {
		lat[i] = make([]time.Duration, b.N)
	}
	b.ResetTimer()
	for n, order := range Rounds(b.N, len(turns)) {
		for _, i := range order {
			t0 := time.Now()
			turns[i].Fn()
			lat[i][n] = time.Since(t0)
		}
	}
	b.StopTimer()
	for i, t := range turns {
		p50, p99 := Percentiles(lat[i])
		b.ReportMetric(float64(p50.Nanoseconds())/1e3, t.Name+"-p50-µs")
		b.ReportMetric(float64(p99.Nanoseconds())/1e3, t.Name+"-p99-µs")
	}
}

// Rounds yields rounds times an order of the indexes 0..n-1, shuffled at
// each round (the same rounds at each run). Each call of a turn leaves the
// caches to the next: in a fixed order, a turn that always follows a heavy
// one pays for it at every round (the stdio round trips of
// docs/PERFORMANCE.md moved ~10 µs with their place in the order).
func Rounds(rounds, n int) func(yield func(int, []int) bool) {
	return func(yield func(int, []int) bool) {
		rng := rand.New(rand.NewPCG(1, 2))
		order := make([]int, n)
		for i := range order {
			order[i] = i
		}
		for r := range rounds {
			rng.Shuffle(n, func(i, j int) { order[i], order[j] = order[j], order[i] })
			if !yield(r, order) {
				return
			}
		}
	}
}

// Report adds p50-µs and p99-µs metrics for lat.
func Report(b *testing.B, lat []time.Duration) {
	if len(lat) == 0 {
		return
	}
	p50, p99 := Percentiles(lat)
	b.ReportMetric(float64(p50.Nanoseconds())/1e3, "p50-µs")
	b.ReportMetric(float64(p99.Nanoseconds())/1e3, "p99-µs")
}

// Percentiles sorts lat and returns its p50 and p99.
func Percentiles(lat []time.Duration) (p50, p99 time.Duration) {
	if len(lat) == 0 {
		return 0, 0
	}
	sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
	at := func(q float64) time.Duration { return lat[int(q*float64(len(lat)-1))] }
	return at(0.50), at(0.99)
}
