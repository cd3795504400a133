//go:build !wasm

package sdk

// Outside WebAssembly the scans are the Go ones (json.go); in it they are
// scan_wasm.s.

func skipSpace(b []byte, i int) int { return skipSpaceGo(b, i) }

func end(b []byte, i int) int { return endGo(b, i) }

func endString(b []byte, i int) int { return endStringGo(b, i) }

func memberAt(b []byte, i int) (key []byte, value int, esc, ok bool) { return memberAtGo(b, i) }

func afterValue(b []byte, ve int) int { return afterValueGo(b, ve) }

func hasPrefix(b, p []byte) bool { return hasPrefixGo(b, p) }
