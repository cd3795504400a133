package sdk

import (
	"encoding/json"
	"math/rand/v2"
	"runtime"
	"strings"
	"testing"
)

// TestScanAgrees: skipSpace, end, endString, memberAt and afterValue,
// which are assembly in
// WebAssembly (scan_wasm.s), give what their Go versions give (json.go) at
// every offset of valid documents, of every cut of them and of bytes
// changed at random (what a malformed request could hold): `make test`
// runs this package's tests in WebAssembly too (GOOS=js GOARCH=wasm, the
// only build where the two differ). On valid documents, end also agrees
// with encoding/json on where each value ends.
func TestScanAgrees(t *testing.T) {
	t.Logf("GOARCH=%s", runtime.GOARCH)
	rnd := rand.New(rand.NewPCG(7, 11))
	docs := []string{sample, `{"a":"\\\"}","b":[1,{"c":"]"}],"d\u0022":null}`, `[1,-2.5e3,true,false,null,"x\\\\"]`,
		" {\t\"k\" :\n[ ] ,\r\"l\" : { } } ", `"\\`, `"\"`, `"a\\\\\"b"`, `[{"[":"{"},["]"]]`, "[1 ,2\t,3\n]", `nul`, `-`, `""`}
	for len(docs) < 3000 {
		if d := randomJSON(rnd, 0); len(d) <= 600 { // every offset of each: quadratic
			docs = append(docs, string(d))
		}
	}
	var n int
	for _, doc := range docs {
		b := []byte(doc)
		if json.Valid(b) && strings.TrimSpace(doc) == doc {
			d := json.NewDecoder(strings.NewReader(doc + ` ,"tail"`))
			var v any
			if err := d.Decode(&v); err != nil {
				t.Fatal(err)
			}
			if got, want := end(b, 0), int(d.InputOffset()); got != want {
				t.Fatalf("end(%q, 0) = %d, encoding/json ends it at %d", doc, got, want)
			}
		}
		variants := [][]byte{b, b[:len(b)/2], b[:max(len(b)-1, 0)]}
		for range 3 { // bytes changed to what the scans look for
			m := []byte(doc)
			if len(m) > 0 {
				m[rnd.IntN(len(m))] = `"\{}[],: 0a`[rnd.IntN(11)]
			}
			variants = append(variants, m)
		}
		for _, v := range variants {
			for i := 0; i <= len(v)+1; i++ {
				n++
				if got, want := skipSpace(v, i), skipSpaceGo(v, i); got != want {
					t.Fatalf("skipSpace(%q, %d) = %d, Go says %d", v, i, got, want)
				}
				if got, want := end(v, i), endGo(v, i); got != want {
					t.Fatalf("end(%q, %d) = %d, Go says %d", v, i, got, want)
				}
				if got, want := afterValue(v, i), afterValueGo(v, i); got != want {
					t.Fatalf("afterValue(%q, %d) = %d, Go says %d", v, i, got, want)
				}
				k, val, esc, ok := memberAt(v, i)
				wk, wval, wesc, wok := memberAtGo(v, i)
				if string(k) != string(wk) || val != wval || esc != wesc || ok != wok || (k == nil) != (wk == nil) || cap(k) != cap(wk) ||
					(len(k) > 0 && &k[0] != &wk[0]) {
					t.Fatalf("memberAt(%q, %d) = %q %d %v, Go says %q %d %v", v, i, k, val, ok, wk, wval, wok)
				}
				if i < len(v) && v[i] == '"' {
					if got, want := endString(v, i), endStringGo(v, i); got != want {
						t.Fatalf("endString(%q, %d) = %d, Go says %d", v, i, got, want)
					}
				}
			}
		}
	}
	t.Logf("%d offsets compared", n)
}

// randomJSON is a valid JSON value with what the scans must get right:
// escapes and runs of backslashes before quotes, brackets and quotes
// inside strings, spaces of every kind between tokens, nesting.
func randomJSON(rnd *rand.Rand, depth int) []byte {
	sp := func() string { return []string{"", "", " ", "\t", "\n", "\r", "  "}[rnd.IntN(7)] }
	str := func() string {
		var sb strings.Builder
		sb.WriteByte('"')
		for range rnd.IntN(12) { // runs of plain bytes too, longer than a word read at once
			sb.WriteString([]string{"a", `\"`, `\\`, `\\\"`, `\\\\`, "]", "}", "{", "[", ",", ":", "é", `\u0022`, `\n`, " ", "\u2028",
				"bcdefgh", "ijklmnopq", "rstuvwxyzABCDEFGH"}[rnd.IntN(19)])
		}
		sb.WriteByte('"')
		return sb.String()
	}
	k := rnd.IntN(8)
	if depth > 3 {
		k %= 2 // a string or a literal
	}
	switch k {
	case 0:
		return []byte(str())
	case 1:
		return []byte([]string{"0", "-1.5e3", "12", "true", "false", "null"}[rnd.IntN(6)])
	case 2, 3, 4:
		var sb strings.Builder
		sb.WriteByte('[')
		for i := range rnd.IntN(5) {
			if i > 0 {
				sb.WriteString(sp() + "," + sp())
			}
			sb.Write(randomJSON(rnd, depth+1))
		}
		sb.WriteString(sp() + "]")
		return []byte(sb.String())
	default:
		var sb strings.Builder
		sb.WriteString("{" + sp())
		for i := range rnd.IntN(5) {
			if i > 0 {
				sb.WriteString(sp() + "," + sp())
			}
			sb.WriteString(str() + sp() + ":" + sp())
			sb.Write(randomJSON(rnd, depth+1))
		}
		sb.WriteString(sp() + "}")
		return []byte(sb.String())
	}
}
