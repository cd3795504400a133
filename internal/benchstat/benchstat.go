// Package benchstat reports latency percentiles from inside a Go benchmark,
// for the figures of docs/PERFORMANCE.md (go test -bench gives only means).
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

// Report adds p50-µs and p99-µs metrics for lat.
func Report(b *testing.B, lat []time.Duration) {
	if len(lat) == 0 {
		return
	}
	sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
	at := func(q float64) float64 { return float64(lat[int(q*float64(len(lat)-1))].Nanoseconds()) / 1e3 }
	b.ReportMetric(at(0.50), "p50-µs")
	b.ReportMetric(at(0.99), "p99-µs")
}
