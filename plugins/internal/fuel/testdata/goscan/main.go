// goscan is a Go guest for BenchmarkGoGuest: scan walks a JSON request
// byte by byte as a policy's reading does, so that the time is Go's
// compiled loops and jumps (thread.go).
package main

var request = []byte(`{"abi":1,"phase":"call","tool":"debugpy_stack_trace","category":"read","arguments":{"thread_id": 1, "levels": 20},"result":null,"session":{"client": {"name": "", "version": ""}, "id": "bench"}}`)

//go:noinline
func endString(b []byte, i int) int {
	for i++; i < len(b); i++ {
		switch b[i] {
		case '"':
			return i + 1
		case '\\':
			i++
		}
	}
	return len(b) + 1
}

// scan counts the request's strings n times.
//
//go:wasmexport scan
func scan(n int32) int32 {
	strings := 0
	for range n {
		for i := 0; i < len(request); i++ {
			if request[i] == '"' {
				i = endString(request, i) - 1
				strings++
			}
		}
	}
	return int32(strings)
}

func main() {}
