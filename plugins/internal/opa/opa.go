// Package opa readies what `opa build -t wasm` writes for wazero: it
// takes the module out of a bundle (with the bundle's data), and gives the
// module a memory of its own in place of the one it imports.
//
// An OPA-compiled module imports its linear memory (env.memory) and
// exports it again. wazero's host modules cannot export a memory, and one
// host module named "env" would be shared by every instance, so the host
// cannot hand each instance a memory of its own. DefineMemory rewrites the
// import into a memory the module defines, with the same limits: a memory
// import moves no function index, so nothing else changes.
package opa

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path"
	"sort"
	"strings"
)

// Section ids and import kinds of the binary format.
const (
	secCustom   = 0
	secImport   = 2
	secMemory   = 5
	secExport   = 7
	kindFunc    = 0
	kindTable   = 1
	kindMemory  = 2
	kindGlobal  = 3
	kindTag     = 4
	maxSections = 64
)

// order is where each section id must appear (custom sections anywhere).
var order = map[byte]int{1: 1, 2: 2, 3: 3, 4: 4, 5: 5, 13: 6, 6: 7, 7: 8, 8: 9, 9: 10, 12: 11, 10: 12, 11: 13}

// DefineMemory returns wasm with its import of env.memory made a memory the
// module defines, with the import's limits. A module that imports no
// memory is returned as it is; one that imports another memory, or
// imports one and defines one, is refused.
func DefineMemory(wasm []byte) ([]byte, error) {
	if len(wasm) < 8 || string(wasm[:8]) != "\x00asm\x01\x00\x00\x00" {
		return nil, errors.New("not a WebAssembly module (no \\0asm version 1 header)")
	}
	type section struct {
		id      byte
		payload []byte
	}
	var secs []section
	r := &reader{b: wasm, i: 8}
	for r.i < len(r.b) && r.err == nil {
		id := r.byte()
		payload := r.bytes(int(r.u32()))
		secs = append(secs, section{id, payload})
		if len(secs) > maxSections {
			return nil, errors.New("too many sections")
		}
	}
	if r.err != nil {
		return nil, fmt.Errorf("section %d: %w", len(secs), r.err)
	}
	var imports, limits []byte
	memory := -1
	for i, s := range secs {
		switch s.id {
		case secImport:
			var err error
			if imports, limits, err = dropMemoryImport(s.payload); err != nil {
				return nil, fmt.Errorf("import section: %w", err)
			}
			memory = i
		case secMemory:
			if limits != nil {
				return nil, errors.New("it imports a memory and defines one")
			}
		}
	}
	if limits == nil {
		return wasm, nil
	}
	out := append(make([]byte, 0, len(wasm)+8), wasm[:8]...)
	placed := false
	for i, s := range secs {
		if !placed && i > memory && s.id != secCustom && order[s.id] > order[secMemory] {
			out, placed = appendSection(out, secMemory, append([]byte{1}, limits...)), true
		}
		p := s.payload
		if i == memory {
			p = imports
		}
		out = appendSection(out, s.id, p)
	}
	if !placed {
		out = appendSection(out, secMemory, append([]byte{1}, limits...))
	}
	return out, nil
}

// dropMemoryImport returns the import section without its memory import,
// and that import's limits as written (nil when there is none).
func dropMemoryImport(p []byte) (rest, limits []byte, err error) {
	r := &reader{b: p}
	n := r.u32()
	rest = []byte{}
	var kept uint32
	for k := uint32(0); k < n && r.err == nil; k++ {
		start := r.i
		mod := string(r.bytes(int(r.u32())))
		name := string(r.bytes(int(r.u32())))
		kind := r.byte()
		descStart := r.i
		switch kind {
		case kindFunc:
			r.u32()
		case kindTable:
			r.byte()
			r.limits()
		case kindMemory:
			r.limits()
		case kindGlobal:
			r.byte()
			r.byte()
		case kindTag:
			r.byte()
			r.u32()
		default:
			return nil, nil, fmt.Errorf("import kind %d", kind)
		}
		if r.err != nil {
			break
		}
		if kind != kindMemory {
			rest = append(rest, p[start:r.i]...)
			kept++
			continue
		}
		if mod != "env" || name != "memory" {
			return nil, nil, fmt.Errorf("imports memory %s.%s: an OPA-compiled module imports env.memory", mod, name)
		}
		if limits != nil {
			return nil, nil, errors.New("imports two memories")
		}
		limits = p[descStart:r.i:r.i]
	}
	if r.err != nil {
		return nil, nil, r.err
	}
	if r.i != len(p) {
		return nil, nil, errors.New("trailing bytes after the imports")
	}
	return append(appendU32(nil, kept), rest...), limits, nil
}

// Bundle is what DefineMemory's caller needs of a bundle `opa build` wrote.
type Bundle struct {
	Wasm []byte
	// Data is the bundle's data: data.json files merged at their
	// directories' paths, {} when it has none.
	Data map[string]any
}

// Limits on a bundle, so that a hostile archive (a gzip bomb, a million
// entries) is refused before it costs much.
var maxBundle = 64 << 20 // bytes, all files unpacked (a variable: tests lower it)

const maxBundleEntries = 10_000

// IsBundle says whether b looks like a gzip file (a bundle), not a module.
func IsBundle(b []byte) bool { return len(b) >= 2 && b[0] == 0x1f && b[1] == 0x8b }

// ReadBundle unpacks a bundle: one WebAssembly module (the one its
// .manifest names, or its only .wasm file) and its data.json files. Other
// files (the Rego sources, .signatures.json) are skipped; links, data in
// YAML and files over the limits are refused.
func ReadBundle(b []byte) (Bundle, error) {
	zr, err := gzip.NewReader(bytes.NewReader(b))
	if err != nil {
		return Bundle{}, fmt.Errorf("not a gzip file: %w", err)
	}
	tr := tar.NewReader(&capped{r: zr, left: int64(maxBundle) + 1<<20}) // files and their headers
	files := map[string][]byte{}
	var wasms []string
	total := 0
	for n := 0; ; n++ {
		h, err := tr.Next()
		if err == io.EOF {
			break
		}
		if errors.Is(err, errTooBig) {
			return Bundle{}, fmt.Errorf("it is larger than %d MiB unpacked", maxBundle>>20)
		}
		if err != nil {
			return Bundle{}, fmt.Errorf("not a tar archive: %w", err)
		}
		if n >= maxBundleEntries {
			return Bundle{}, fmt.Errorf("more than %d entries", maxBundleEntries)
		}
		name := path.Clean("/" + h.Name)
		switch h.Typeflag {
		case tar.TypeReg:
		case tar.TypeDir:
			continue
		default:
			return Bundle{}, fmt.Errorf("%s is not a regular file (type %q): a bundle holds files only", name, h.Typeflag)
		}
		base := path.Base(name)
		keep := strings.HasSuffix(base, ".wasm") || base == "data.json" || base == ".manifest"
		if base == "data.yaml" || base == "data.yml" {
			return Bundle{}, fmt.Errorf("%s: data in YAML is not read here; give it as data.json", name)
		}
		if !keep {
			continue
		}
		if _, dup := files[name]; dup {
			return Bundle{}, fmt.Errorf("%s is in the bundle twice", name)
		}
		body, err := io.ReadAll(io.LimitReader(tr, int64(maxBundle+1-total)))
		if total += len(body); total > maxBundle || errors.Is(err, errTooBig) {
			return Bundle{}, fmt.Errorf("it is larger than %d MiB unpacked", maxBundle>>20)
		}
		if err != nil {
			return Bundle{}, fmt.Errorf("%s: %w", name, err)
		}
		files[name] = body
		if strings.HasSuffix(base, ".wasm") {
			wasms = append(wasms, name)
		}
	}
	module, err := pickModule(files["/.manifest"], wasms)
	if err != nil {
		return Bundle{}, err
	}
	data := map[string]any{}
	// The data files in a fixed order, shallowest first, so that a
	// conflict is reported the same way every time.
	var names []string
	for name := range files {
		if path.Base(name) == "data.json" {
			names = append(names, name)
		}
	}
	sort.Slice(names, func(i, j int) bool {
		di, dj := strings.Count(names[i], "/"), strings.Count(names[j], "/")
		return di < dj || di == dj && names[i] < names[j]
	})
	for _, name := range names {
		body := files[name]
		var v any
		d := json.NewDecoder(bytes.NewReader(body))
		d.UseNumber()
		if err := d.Decode(&v); err != nil || d.More() {
			return Bundle{}, fmt.Errorf("%s is not one JSON value: %v", name, err)
		}
		if err := place(data, path.Dir(name), v); err != nil {
			return Bundle{}, fmt.Errorf("%s: %w", name, err)
		}
	}
	return Bundle{Wasm: files[module], Data: data}, nil
}

// pickModule is the module the manifest names, or the bundle's only one.
func pickModule(manifest []byte, wasms []string) (string, error) {
	if manifest != nil {
		var m struct {
			Wasm []struct {
				Module string `json:"module"`
			} `json:"wasm"`
		}
		if err := json.Unmarshal(manifest, &m); err != nil {
			return "", fmt.Errorf("/.manifest is not JSON: %w", err)
		}
		mods := map[string]bool{}
		for _, w := range m.Wasm {
			mods[path.Clean("/"+w.Module)] = true
		}
		if len(mods) > 1 {
			return "", fmt.Errorf("its manifest names %d modules: build one (opa build -t wasm with the entrypoints of one policy)", len(mods))
		}
		for name := range mods {
			for _, w := range wasms {
				if w == name {
					return name, nil
				}
			}
			return "", fmt.Errorf("its manifest names %s, which is not in it", name)
		}
	}
	switch len(wasms) {
	case 0:
		return "", errors.New("no .wasm module in it: build it with opa build -t wasm")
	case 1:
		return wasms[0], nil
	}
	return "", fmt.Errorf("%d .wasm modules in it (%s) and no manifest says which", len(wasms), strings.Join(wasms, ", "))
}

// place sets v at dir's path in data ("/" is data itself, which v must
// then be an object to merge into).
func place(data map[string]any, dir string, v any) error {
	parts := strings.Split(strings.Trim(dir, "/"), "/")
	if dir == "/" {
		parts = nil
	}
	at := data
	for _, p := range parts {
		next, ok := at[p].(map[string]any)
		if !ok {
			if _, taken := at[p]; taken {
				return fmt.Errorf("data.%s is set twice", strings.Join(parts, "."))
			}
			next = map[string]any{}
			at[p] = next
		}
		at = next
	}
	obj, ok := v.(map[string]any)
	if !ok {
		if len(parts) == 0 {
			return errors.New("the bundle's root data is not a JSON object")
		}
		return fmt.Errorf("data.%s is not a JSON object", strings.Join(parts, "."))
	}
	for k, e := range obj {
		if _, taken := at[k]; taken {
			return fmt.Errorf("data key %q is set twice", k)
		}
		at[k] = e
	}
	return nil
}

// capped reads from r until left bytes are read, then fails with
// errTooBig: a gzip bomb costs at most that much work.
type capped struct {
	r    io.Reader
	left int64
}

var errTooBig = errors.New("too big")

func (c *capped) Read(p []byte) (int, error) {
	if c.left <= 0 {
		return 0, errTooBig
	}
	if int64(len(p)) > c.left {
		p = p[:c.left]
	}
	n, err := c.r.Read(p)
	c.left -= int64(n)
	return n, err
}

type reader struct {
	b   []byte
	i   int
	err error
}

var errShort = errors.New("unexpected end")

func (r *reader) byte() byte {
	if r.i >= len(r.b) {
		r.err = errShort
		return 0
	}
	c := r.b[r.i]
	r.i++
	return c
}

func (r *reader) bytes(n int) []byte {
	if r.err != nil || n < 0 || n > len(r.b)-r.i {
		if r.err == nil {
			r.err = errShort
		}
		r.i = len(r.b)
		return nil
	}
	b := r.b[r.i : r.i+n]
	r.i += n
	return b
}

func (r *reader) leb(max int) uint64 {
	var v uint64
	for k, shift := 0, uint(0); k < max; k, shift = k+1, shift+7 {
		c := r.byte()
		if r.err != nil {
			return 0
		}
		v |= uint64(c&0x7F) << shift
		if c&0x80 == 0 {
			return v
		}
	}
	r.err = errors.New("LEB128 number too long")
	return 0
}

func (r *reader) u32() uint32 {
	v := r.leb(5)
	if v > 0xFFFFFFFF {
		r.err = errors.New("u32 out of range")
		return 0
	}
	return uint32(v)
}

// limits reads a table's or memory's limits: flags, min, and max when flag
// bit 0 is set (bit 2, memory64, makes them u64).
func (r *reader) limits() {
	flags := r.byte()
	r.leb(10)
	if flags&1 != 0 {
		r.leb(10)
	}
}

func appendU32(b []byte, v uint32) []byte {
	for v >= 0x80 {
		b = append(b, byte(v)|0x80)
		v >>= 7
	}
	return append(b, byte(v))
}

func appendSection(out []byte, id byte, payload []byte) []byte {
	out = append(out, id)
	out = appendU32(out, uint32(len(payload)))
	return append(out, payload...)
}

// IsModule says whether wasm is a module of OPA's ABI: it exports opa_eval.
func IsModule(wasm []byte) bool {
	if len(wasm) < 8 || string(wasm[:8]) != "\x00asm\x01\x00\x00\x00" {
		return false
	}
	r := &reader{b: wasm, i: 8}
	for r.i < len(r.b) && r.err == nil {
		id := r.byte()
		payload := r.bytes(int(r.u32()))
		if id != secExport {
			continue
		}
		e := &reader{b: payload}
		for n := e.u32(); n > 0 && e.err == nil; n-- {
			name := string(e.bytes(int(e.u32())))
			e.byte()
			e.u32()
			if name == "opa_eval" && e.err == nil {
				return true
			}
		}
		return false
	}
	return false
}
