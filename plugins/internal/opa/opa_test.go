package opa

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/debugpy-guard/debugpy-guard/plugins/internal/fuel"
	"github.com/tetratelabs/wazero"
)

func wat(t testing.TB, text string) []byte {
	t.Helper()
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "m.wat"), []byte(text), 0o644)
	if out, err := exec.Command("wat2wasm", filepath.Join(dir, "m.wat"), "-o", filepath.Join(dir, "m.wasm")).CombinedOutput(); err != nil {
		t.Fatalf("wat2wasm (make deps installs wabt): %v\n%s", err, out)
	}
	b, _ := os.ReadFile(filepath.Join(dir, "m.wasm"))
	return b
}

// TestDefineMemory: the rewritten module compiles, instantiates with no
// env.memory to import, and has the import's limits.
func TestDefineMemory(t *testing.T) {
	ctx := context.Background()
	rt := wazero.NewRuntime(ctx)
	defer rt.Close(ctx)
	for _, c := range []struct {
		text     string
		min, max uint32
	}{
		{`(module (import "env" "f" (func $f)) (import "env" "memory" (memory 3)) (table 1 funcref) (global i32 (i32.const 0)) (export "memory" (memory 0)) (func (export "g") (call $f)))`, 3, 0},
		{`(module (import "env" "memory" (memory 1 5)) (export "memory" (memory 0)))`, 1, 5},
		{`(module (import "env" "memory" (memory 2)) (data (i32.const 0) "hi"))`, 2, 0},
	} {
		out, err := DefineMemory(wat(t, c.text))
		if err != nil {
			t.Fatalf("%s: %v", c.text, err)
		}
		m, err := rt.CompileModule(ctx, out)
		if err != nil {
			t.Fatalf("%s: the rewrite does not compile: %v", c.text, err)
		}
		if len(m.ImportedMemories()) != 0 || len(m.ExportedMemories()) > 1 {
			t.Errorf("%s: still imports a memory", c.text)
		}
		for _, f := range m.ImportedFunctions() {
			if mod, name, _ := f.Import(); mod != "env" || name != "f" {
				t.Errorf("%s: lost or changed an import: %s.%s", c.text, mod, name)
			}
		}
		if mem, ok := m.ExportedMemories()["memory"]; ok {
			max, hasMax := mem.Max()
			if mem.Min() != c.min || hasMax != (c.max != 0) || (hasMax && max != c.max) {
				t.Errorf("%s: limits %d %d %v", c.text, mem.Min(), max, hasMax)
			}
		}
	}
	// A module with no memory import is left as it is.
	plain := wat(t, `(module (memory 1))`)
	if out, err := DefineMemory(plain); err != nil || !bytes.Equal(out, plain) {
		t.Errorf("no import: %v", err)
	}
	for _, c := range []struct{ text, want string }{
		{`(module (import "x" "memory" (memory 1)))`, "imports memory x.memory"},
	} {
		if _, err := DefineMemory(wat(t, c.text)); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", c.text, err, c.want)
		}
	}
	for _, bad := range [][]byte{nil, []byte("\x00asm"), []byte("\x00asm\x01\x00\x00\x00\x02\x05\x01"), []byte("\x00asm\x01\x00\x00\x00\x02\xff\xff\xff\xff\x7f")} {
		if _, err := DefineMemory(bad); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
}

// FuzzDefineMemory: any bytes give an error or a module; never a panic,
// and what wazero compiles before the rewrite it compiles after. Bytes go
// to wazero as the host sends them, through the fuel rewrite, whose shape
// checks keep wazero from sizing its tables by a count the bytes cannot
// hold (testdata/fuzz holds a module that made wazero ask for 170 GB, and
// one whose custom section's name made it set aside 2.9 GB: a run of such
// inputs ended a CI worker).
func FuzzDefineMemory(f *testing.F) {
	f.Add([]byte("\x00asm\x01\x00\x00\x00\x02\x0e\x01\x03env\x06memory\x02\x00\x01"))
	ctx := context.Background()
	rt := wazero.NewRuntime(ctx)
	defer rt.Close(ctx)
	compiles := func(b []byte) bool {
		fueled, err := fuel.Instrument(b, 1)
		if err != nil {
			return false
		}
		// Closed at once: a compiled module keeps its code mapped until
		// then, and a fuzzer's tens of thousands of them ran the process
		// out of mappings (vm.max_map_count, 65530): the worker hung at
		// ~67,000 inputs and was killed (a CI run of make test).
		cm, err := rt.CompileModule(ctx, fueled)
		if err != nil {
			return false
		}
		cm.Close(ctx)
		return true
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		out, err := DefineMemory(b)
		if err != nil || bytes.Equal(out, b) || !compiles(b) {
			return
		}
		if !compiles(out) {
			t.Fatal("compiled before the rewrite, not after")
		}
	})
}

type entry struct {
	name, body string
	typ        byte
}

func bundle(t testing.TB, entries ...entry) []byte {
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	tw := tar.NewWriter(zw)
	for _, e := range entries {
		typ := e.typ
		if typ == 0 {
			typ = tar.TypeReg
		}
		h := &tar.Header{Name: e.name, Typeflag: typ, Size: int64(len(e.body)), Mode: 0o600, Linkname: "x"}
		if typ != tar.TypeReg {
			h.Size = 0
		}
		if err := tw.WriteHeader(h); err != nil {
			t.Fatal(err)
		}
		tw.Write([]byte(e.body))
	}
	tw.Close()
	zw.Close()
	return buf.Bytes()
}

const module = "\x00asm\x01\x00\x00\x00"

func TestReadBundle(t *testing.T) {
	b, err := ReadBundle(bundle(t,
		entry{name: "/.manifest", body: `{"wasm":[{"entrypoint":"guard/decision","module":"/policy.wasm"}]}`},
		entry{name: "/policy.rego", body: "package guard"},
		entry{name: "/policy.wasm", body: module},
		entry{name: "/other.wasm", body: "not this one"},
		entry{name: "/data.json", body: `{"words":["a"],"n":1.50}`},
		entry{name: "/team/limits/data.json", body: `{"max":3}`},
		entry{name: "/dir/", typ: tar.TypeDir},
	))
	if err != nil {
		t.Fatal(err)
	}
	if string(b.Wasm) != module {
		t.Errorf("module: %q", b.Wasm)
	}
	got := map[string]any{}
	for k, v := range b.Data {
		got[k] = v
	}
	if s := strings.ReplaceAll(strings.TrimSpace(string(mustJSON(t, b.Data))), " ", ""); s != `{"n":1.50,"team":{"limits":{"max":3}},"words":["a"]}` {
		t.Errorf("data: %s", s)
	}
	if b, err := ReadBundle(bundle(t, entry{name: "policy.wasm", body: module})); err != nil || string(b.Wasm) != module || !reflect.DeepEqual(b.Data, map[string]any{}) {
		t.Errorf("one module, no manifest, no data: %+v %v", b, err)
	}
	defer func(m int) { maxBundle = m }(maxBundle)
	maxBundle = 1 << 20
	huge := strings.Repeat("\x00", maxBundle+1)
	for _, c := range []struct {
		name string
		b    []byte
		want string
	}{
		{"not gzip", []byte("\x00asm"), "not a gzip file"},
		{"link", bundle(t, entry{name: "/policy.wasm", typ: tar.TypeSymlink}), "/policy.wasm is not a regular file"},
		{"no module", bundle(t, entry{name: "/data.json", body: "{}"}), "no .wasm module in it"},
		{"two modules", bundle(t, entry{name: "/a.wasm", body: module}, entry{name: "/b.wasm", body: module}), "2 .wasm modules in it (/a.wasm, /b.wasm)"},
		{"twice", bundle(t, entry{name: "/policy.wasm", body: module}, entry{name: "policy.wasm", body: module}), "/policy.wasm is in the bundle twice"},
		{"yaml", bundle(t, entry{name: "/policy.wasm", body: module}, entry{name: "/data.yaml", body: "a: 1"}), "data in YAML is not read here"},
		{"bad data", bundle(t, entry{name: "/policy.wasm", body: module}, entry{name: "/data.json", body: "{} {}"}), "/data.json is not one JSON value"},
		{"data not object", bundle(t, entry{name: "/policy.wasm", body: module}, entry{name: "/data.json", body: "[1]"}), "the bundle's root data is not a JSON object"},
		{"data twice", bundle(t, entry{name: "/policy.wasm", body: module}, entry{name: "/data.json", body: `{"a":{"b":1}}`}, entry{name: "/a/data.json", body: `{"b":2}`}), `data key "b" is set twice`},
		{"manifest names absent", bundle(t, entry{name: "/.manifest", body: `{"wasm":[{"module":"/x.wasm"}]}`}, entry{name: "/policy.wasm", body: module}), "its manifest names /x.wasm, which is not in it"},
		{"manifest names two", bundle(t, entry{name: "/.manifest", body: `{"wasm":[{"module":"/x.wasm"},{"module":"/y.wasm"}]}`}), "its manifest names 2 modules"},
		{"bomb", bundle(t, entry{name: "/policy.wasm", body: huge}), "larger than 1 MiB unpacked"},
		{"bomb not kept", bundle(t, entry{name: "/policy.wasm", body: module}, entry{name: "/big.rego", body: huge + strings.Repeat("\x00", 2<<20)}), "larger than 1 MiB unpacked"},
		{"dot dot", bundle(t, entry{name: "../../policy.wasm", body: module}, entry{name: "/policy.wasm", body: module}), "/policy.wasm is in the bundle twice"},
	} {
		_, err := ReadBundle(c.b)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", c.name, err, c.want)
		}
	}
}

func mustJSON(t *testing.T, v any) []byte {
	var buf bytes.Buffer
	if err := jsonEncode(&buf, v); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func jsonEncode(w *bytes.Buffer, v any) error { return json.NewEncoder(w).Encode(v) }
