package kit

import (
	"encoding/json"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/debugpy-guard/debugpy-guard/plugins"
)

func TestNewRefusesBadNamesAndExistingDirs(t *testing.T) {
	dir := t.TempDir()
	for _, name := range []string{"Team", "1team", "te am", "team.v2"} {
		if err := New(filepath.Join(dir, name), ""); err == nil || !strings.Contains(err.Error(), "lower-case letters") {
			t.Errorf("%q: %v", name, err)
		}
	}
	if err := New(dir, ""); err == nil {
		t.Error("an existing directory was overwritten")
	}
}

// The project carries every SDK file and names itself throughout.
func TestNewWritesAProject(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "acme")
	if err := New(dir, "go"); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"go.mod", "policy.go", "policy_test.go", "guard.toml", "cases/acme.toml", "README.md",
		"third_party/debugpy-guard/go.mod", "third_party/debugpy-guard/plugins/sdk/sdk.go", "third_party/debugpy-guard/plugins/sdk/json.go"} {
		b, err := os.ReadFile(filepath.Join(dir, f))
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(string(b), "NAME") {
			t.Errorf("%s still says NAME", f)
		}
	}
}

func TestBuildNeedsAProject(t *testing.T) {
	if _, err := Build(t.Context(), t.TempDir()); err == nil || !strings.Contains(err.Error(), "policy new") || !strings.Contains(err.Error(), "no go.mod, policy.c, policy.rs, policy.ts or policy.rego") {
		t.Fatalf("build of an empty dir: %v", err)
	}
}

// A project in C, Rust, AssemblyScript or Rego: its files, then a build that loads under its ABI
// (v1 or OPA), the same bytes twice. (make deps installs clang and lld, rustc and
// its wasm32 standard library, asc and opa.)
func TestNewAndBuildOtherLanguages(t *testing.T) {
	if testing.Short() {
		t.Skip("builds modules with the toolchains: the full tier (make test) runs it")
	}
	for lang, files := range map[string][]string{"c": {"policy.c", "guard.h"}, "rust": {"policy.rs", "guard.rs"},
		"assemblyscript": {"policy.ts", "guard.ts"}, "rego": {"policy.rego", "policy_test.rego"}} {
		t.Run(lang, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "acme")
			if err := New(dir, lang); err != nil {
				t.Fatal(err)
			}
			for _, f := range append(files, "guard.toml", "cases/acme.toml", "README.md") {
				b, err := os.ReadFile(filepath.Join(dir, f))
				if err != nil {
					t.Fatal(err)
				}
				if strings.Contains(string(b), "NAME") {
					t.Errorf("%s still says NAME", f)
				}
			}
			b, err := Build(t.Context(), dir)
			if err != nil {
				t.Fatalf("%v (make deps installs the toolchains)", err)
			}
			again, err := Build(t.Context(), dir)
			if err != nil || again.SHA256 != b.SHA256 || b.Size == 0 {
				t.Fatalf("not reproducible: %s then %s (%v)", b.SHA256, again.SHA256, err)
			}
		})
	}
}

func TestNewRefusesAnUnknownLanguage(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "acme")
	if err := New(dir, "cobol"); err == nil || !strings.Contains(err.Error(), "go, c") {
		t.Fatalf("cobol: %v", err)
	}
	if _, err := os.Stat(dir); err == nil {
		t.Fatal("a refused language left a directory")
	}
}

// guard.h and guard.rs read the request as Go's encoder writes it (the
// host's canonical bytes): for random expressions (quotes, backslashes,
// control characters, HTML characters and U+2028 that Go escapes, any
// Unicode) and random words, the C and Rust templates deny exactly when the
// decoded expression, ASCII letters lower-cased, holds a word, and their
// reason names the word as Go decodes it. Escaped surrogate pairs, which
// Go's encoder never writes but JSON allows, are read as Go's decoder
// reads them too.
func TestTemplatesReadJSONAsGoDoes(t *testing.T) {
	if testing.Short() {
		t.Skip("builds modules with the toolchains: the full tier (make test) runs it")
	}
	for _, lang := range []string{"c", "rust", "assemblyscript"} {
		t.Run(lang, func(t *testing.T) { readsJSONAsGo(t, lang) })
	}
}

func readsJSONAsGo(t *testing.T, lang string) {
	dir := filepath.Join(t.TempDir(), "diff")
	if err := New(dir, lang); err != nil {
		t.Fatal(err)
	}
	b, err := Build(t.Context(), dir)
	if err != nil {
		t.Fatalf("%v (make deps installs clang and lld)", err)
	}
	wasm, _ := os.ReadFile(b.Path)
	ctx := t.Context()
	rt := plugins.NewRuntime(plugins.Options{})
	defer rt.Close(ctx)
	m, err := rt.Load(ctx, plugins.Spec{Name: "diff", Wasm: wasm, Settings: json.RawMessage(`{}`)})
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close(ctx)
	r := rand.New(rand.NewPCG(1, 2))
	alphabet := []string{"a", "B", "k", "e", "n", "t", "o", "\"", "\\", "/", "\n", "\t", "\x01", "<", ">", "&", "\u2028", "é", "K", "ſ", "😀", " ", ".", "[", "]", "'"}
	pick := func(n int) string {
		var s strings.Builder
		for range n {
			s.WriteString(alphabet[r.IntN(len(alphabet))])
		}
		return s.String()
	}
	lower := func(s string) string { // ASCII letters only, as the template says
		b := []byte(s)
		for i, c := range b {
			if c >= 'A' && c <= 'Z' {
				b[i] = c + 32
			}
		}
		return string(b)
	}
	for i := range 3000 {
		expr := pick(r.IntN(24))
		words := []string{pick(1 + r.IntN(3)), lower(pick(1 + r.IntN(2)))}
		args, _ := json.Marshal(map[string]string{"expression": expr})
		settings, _ := json.Marshal(map[string][]string{"words": words})
		if i%3 == 0 { // JSON's own escapes for what Go writes raw
			args = []byte(strings.ReplaceAll(string(args), "😀", `\ud83d\ude00`))
			args = []byte(strings.ReplaceAll(string(args), "é", `\u00E9`))
		}
		req := `{"abi":1,"phase":"call","tool":"debugpy_evaluate","category":"execute","arguments":` + string(args) + `,"settings":` + string(settings) + `}`
		var decoded struct{ Expression string }
		if err := json.Unmarshal(args, &decoded); err != nil {
			t.Fatal(err)
		}
		want, reason := "abstain", ""
		for _, w := range words {
			if w != "" && strings.Contains(lower(decoded.Expression), lower(w)) {
				want, reason = "deny", "the expression mentions "+w
				break
			}
		}
		got, err := m.Evaluate(ctx, "s", []byte(req))
		if err != nil {
			t.Fatalf("%s: %v", req, err)
		}
		if string(got.Verdict) != want || (want == "deny" && got.Reason != reason) {
			t.Fatalf("%s\ngot %s %q, want %s %q", req, got.Verdict, got.Reason, want, reason)
		}
	}
}

// The Rego template's module decides as OPA's own evaluator (opa eval)
// decides on the template's source, for random expressions and words
// whose case folding differs between ASCII and Unicode (K, ſ, İ):
// the module lower-cases as Rego does.
func TestRegoTemplateAgreesWithOPA(t *testing.T) {
	if testing.Short() {
		t.Skip("builds modules with the toolchains: the full tier (make test) runs it")
	}
	opaBin, err := exec.LookPath("opa")
	if err != nil {
		t.Skip("no opa on PATH: make deps installs it")
	}
	dir := filepath.Join(t.TempDir(), "diff")
	if err := New(dir, "rego"); err != nil {
		t.Fatal(err)
	}
	b, err := Build(t.Context(), dir)
	if err != nil {
		t.Fatal(err)
	}
	wasm, _ := os.ReadFile(b.Path)
	ctx := t.Context()
	rt := plugins.NewRuntime(plugins.Options{})
	defer rt.Close(ctx)
	r := rand.New(rand.NewPCG(1, 2)) // the same inputs each run: a failure in CI is one a run here repeats
	alphabet := []string{"a", "B", "k", "e", "n", "t", "o", "\"", "\\", "\n", "\x00", "<", "\u2028", "é", "É", "K", "ſ", "İ", "ı", "😀", " ", "PASSWORD", "Token", "ß", "ẞ", "Σ", "ς"}
	pick := func(n int) string {
		var s strings.Builder
		for range n {
			s.WriteString(alphabet[r.IntN(len(alphabet))])
		}
		return s.String()
	}
	for round := range 4 { // each round, its own words (the module's data)
		words := []string{pick(1 + r.IntN(2)), pick(1), "password"}
		settings, _ := json.Marshal(map[string][]string{"words": words})
		m, err := rt.Load(ctx, plugins.Spec{Name: "diff", Wasm: wasm, ABI: plugins.ABIOPA, Settings: settings})
		if err != nil {
			t.Fatal(err)
		}
		defer m.Close(ctx)
		reqs := make([]string, 150)
		for i := range reqs {
			args, _ := json.Marshal(map[string]string{"expression": pick(r.IntN(12))})
			reqs[i] = `{"abi":1,"phase":"call","tool":"debugpy_evaluate","category":"execute","arguments":` + string(args) + `,"settings":` + string(settings) + `}`
		}
		os.WriteFile(filepath.Join(dir, "inputs.json"), []byte("["+strings.Join(reqs, ",")+"]"), 0o644)
		os.WriteFile(filepath.Join(dir, "data.json"), settings, 0o644)
		cmd := exec.Command(opaBin, "eval", "-f", "json", "-d", filepath.Join(dir, "policy.rego"), "-d", filepath.Join(dir, "data.json"),
			"-i", filepath.Join(dir, "inputs.json"), `out := [d | some x in input; d := data.guard.decision with input as x]`)
		raw, err := cmd.Output()
		if err != nil {
			t.Fatalf("opa eval: %v", err)
		}
		var res struct {
			Result []struct {
				Bindings struct{ Out []json.RawMessage } `json:"bindings"`
			} `json:"result"`
		}
		if err := json.Unmarshal(raw, &res); err != nil || len(res.Result) != 1 || len(res.Result[0].Bindings.Out) != len(reqs) {
			t.Fatalf("opa eval's output: %v: %.300s", err, raw)
		}
		for i, req := range reqs {
			got, err := m.Evaluate(ctx, "s", []byte(req))
			if err != nil {
				t.Fatal(err)
			}
			var want struct{ Decision, Reason string }
			if w := res.Result[0].Bindings.Out[i]; w[0] == '"' {
				json.Unmarshal(w, &want.Decision)
			} else {
				json.Unmarshal(w, &want)
			}
			if string(got.Verdict) != want.Decision || got.Reason != want.Reason {
				t.Fatalf("round %d, words %q: %s\nthis host: %s %q, opa eval: %s %q", round, words, req, got.Verdict, got.Reason, want.Decision, want.Reason)
			}
		}
	}
}
