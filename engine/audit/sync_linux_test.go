package audit

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"
)

// BenchmarkSyncAppend compares the two ways to make an appended record
// durable, on the disk the benchmark runs on: fsync (data, size and times)
// and fdatasync (data and size). The machine is shared and its disk noisy,
// so the two alternate, one append each, in one run; the metrics are the
// medians of each. They came out equal on ext4 (docs/PERFORMANCE.md): an
// append changes the size, so fdatasync commits the journal as fsync does;
// the log keeps the portable fsync (RATIONALE.md, "Audit").
func BenchmarkSyncAppend(b *testing.B) {
	line := []byte(`{"seq":1,"kind":"decision","reasons":["` + strings.Repeat("x", 300) + `"]}` + "\n")
	f, err := os.OpenFile(filepath.Join(b.TempDir(), "a.jsonl"), os.O_RDWR|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	fdatasync := func(f *os.File) error {
		for {
			if err := syscall.Fdatasync(int(f.Fd())); err != syscall.EINTR {
				return err
			}
		}
	}
	syncs := []func(*os.File) error{(*os.File).Sync, fdatasync}
	took := [2][]time.Duration{}
	i := 0
	for b.Loop() {
		t0 := time.Now()
		if _, err := f.Write(line); err != nil {
			b.Fatal(err)
		}
		if err := syncs[i%2](f); err != nil {
			b.Fatal(err)
		}
		took[i%2] = append(took[i%2], time.Since(t0))
		i++
	}
	for k, name := range []string{"fsync-p50-µs", "fdatasync-p50-µs"} {
		if len(took[k]) > 0 {
			slices.Sort(took[k])
			b.ReportMetric(float64(took[k][len(took[k])/2].Microseconds()), name)
		}
	}
}
