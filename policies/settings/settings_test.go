package settings

import (
	"strconv"
	"testing"

	"github.com/debugpy-guard/debugpy-guard/plugins/sdk"
)

func TestCacheReadsEachSettingsOnce(t *testing.T) {
	var c Cache[string]
	reads := 0
	read := func(s sdk.Value) string { reads++; return s.Get("k").Str() }
	get := func(js string) string {
		v, err := sdk.Parse([]byte(js))
		if err != nil {
			t.Fatal(err)
		}
		return c.Get(v, read)
	}
	for i := 0; i < 3; i++ {
		if got := get(`{"k":"a"}`); got != "a" {
			t.Fatalf("got %q", got)
		}
		if got := get(`{"k":"b"}`); got != "b" {
			t.Fatalf("got %q", got)
		}
	}
	if reads != 2 {
		t.Fatalf("%d reads for two settings", reads)
	}
	// Past its bound a new entry replaces the oldest, and it still answers
	// right; the last cacheSize settings are read no more.
	for i := 0; i < 3*cacheSize; i++ {
		if got := get(`{"k":"` + strconv.Itoa(i) + `"}`); got != strconv.Itoa(i) {
			t.Fatalf("got %q", got)
		}
	}
	if c.n > cacheSize {
		t.Fatalf("%d entries, bound %d", c.n, cacheSize)
	}
	reads = 0
	for i := 2 * cacheSize; i < 3*cacheSize; i++ {
		get(`{"k":"` + strconv.Itoa(i) + `"}`)
	}
	if reads != 0 {
		t.Fatalf("%d reads of the last %d settings", reads, cacheSize)
	}
	if got := get(`{"k":"a"}`); got != "a" || reads != 1 {
		t.Fatalf("got %q after %d reads", got, reads)
	}
}
