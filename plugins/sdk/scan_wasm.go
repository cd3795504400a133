//go:build wasm

package sdk

// The request's scans, in WebAssembly by hand (scan_wasm.s): the SDK spends
// most of a small call in them, and Go's WebAssembly runs a loop of Go code
// as a dispatch through a br_table at every jump (~10 ns a byte under
// wazero), where a loop written with WebAssembly's own blocks runs as
// native code. Each is the Go function of the same name with Go in its name
// (json.go), byte for byte: TestScanAgrees, run in WebAssembly by
// `make test` (docs/RATIONALE.md, "The scans in assembly").

// skipSpace is the offset of the first byte from b[i] on that is not JSON's
// whitespace, or len(b).
//
//go:noescape
func skipSpace(b []byte, i int) int

// end is the offset just past the value of a valid document that starts at
// b[i]: i itself when none starts there (a ',', a closing bracket or the
// end), len(b) when it is cut short.
//
//go:noescape
func end(b []byte, i int) int

// endString is the offset just past the string that starts at b[i] (a
// '"'), or len(b)+1 when it is not closed.
//
//go:noescape
func endString(b []byte, i int) int

// memberAt reads the key of the object member that starts at b[i] (after
// spaces): the key's bytes between its quotes, escapes unread, whether they
// hold a backslash (an escape), and the offset of its value. ok is false
// when no member starts there (the object's '}', or malformed input). (Not
// noescape: key is of b.)
func memberAt(b []byte, i int) (key []byte, value int, esc, ok bool)

// afterValue is where the next member or element begins after a value that
// ends at b[ve]: past the spaces and a ','.
//
//go:noescape
func afterValue(b []byte, ve int) int

// hasPrefix is bytes.HasPrefix(b, p).
//
//go:noescape
func hasPrefix(b, p []byte) bool
