// Package benchstat reports latency percentiles from inside a Go benchmark,
// for the figures of docs/PERFORMANCE.md (go test -bench gives only means),
// and for `debugpy-guard policy bench`.
package benchstat

import (
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

// Turns calls each turn's function once at each of b.N iterations, in turn,
// timing each call, and reports each one's p50 and p99 in µs as
// NAME-p50-µs and NAME-p99-µs: two builds compared side by side in one
// run, each seeing the machine as the other does (the machines are shared
// and noisy: two benchmarks one after the other can differ by a third).
func Turns(b *testing.B, turns ...Turn) {
	b.Helper()
	lat := make([][]time.Duration, len(turns))
	for i := range lat {
		lat[i] = make([]time.Duration, b.N)
	}
	b.ResetTimer()
	for n := 0; n < b.N; n++ {
		for i, t := range turns {
			t0 := time.Now()
			t.Fn()
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
