package main

import (
	"path/filepath"
	"testing"
)

// maxRSS is the design's budget for serve's resident memory with the
// default policy and one debug session (docs/PERFORMANCE.md).
const maxRSS = 80

// A start with an empty compilation cache (the first after an install or
// an upgrade; every start where the cache cannot be written) compiles the
// built-ins, and wazero's compiler leaves tens of MB of garbage: serve
// returns it to the system once the modules are ready, and stays in the
// budget (it read 112-119 MB before it did).
func TestRSSAfterAColdStart(t *testing.T) {
	skipInShort(t, "starts the server")
	dir := t.TempDir()
	env := append(testEnv(dir), "XDG_CACHE_HOME="+filepath.Join(dir, "cache")) // the last value of a key wins
	rss, hwm := rssAfterASession(t, dir, env)
	t.Logf("VmRSS %.1f MB, VmHWM %.1f MB", rss, hwm)
	if rss > maxRSS {
		t.Fatalf("serve holds %.1f MB after a cold start and a debug session's first calls: over the %d MB budget", rss, maxRSS)
	}
}
