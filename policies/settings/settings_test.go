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
	// Past its bound it starts again, and still answers right.
	for i := 0; i < 3*cacheSize; i++ {
		if got := get(`{"k":"` + strconv.Itoa(i) + `"}`); got != strconv.Itoa(i) {
			t.Fatalf("got %q", got)
		}
	}
	if len(c.m) > cacheSize {
		t.Fatalf("%d entries, bound %d", len(c.m), cacheSize)
	}
	if got := get(`{"k":"a"}`); got != "a" {
		t.Fatalf("got %q", got)
	}
}
