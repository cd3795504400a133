// Package kit is the policy author's kit: New writes a policy project, in Go
// on the guest SDK, in C, Rust or AssemblyScript on a small ABI helper, or
// in Rego for OPA's compiler, that builds with no network; Build compiles a
// project to a module, reproducibly, and proves it loads as debugpy-guard
// loads it.
package kit

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"github.com/debugpy-guard/debugpy-guard/plugins"
	"github.com/debugpy-guard/debugpy-guard/plugins/internal/opa"
)

var validName = regexp.MustCompile(`^[a-z][a-z0-9_-]{0,62}$`)

// sdkModule is where the project finds the SDK: a copy of its sources, with
// a go.mod of its own, that go.mod's replace points at.
const sdkModule = "third_party/debugpy-guard"

// Langs are the languages New writes a project in.
var Langs = []string{"go", "c", "rust", "assemblyscript", "rego"}

// New writes a policy project named after dir's last element, in lang ("go"
// when empty; see Langs): a sample rule, case files, a config to test it
// with, and a README (in Go, the rule's Go test and a copy of the SDK; in
// C, Rust or AssemblyScript, the ABI helper guard.h, guard.rs or
// guard.ts; in Rego, the rule's opa tests). dir must not exist yet.
func New(dir, lang string) error {
	name := filepath.Base(filepath.Clean(dir))
	if !validName.MatchString(name) {
		return fmt.Errorf("policy name %q: use lower-case letters, digits, - and _, starting with a letter (it names the module in configs)", name)
	}
	if _, err := os.Stat(dir); err == nil {
		return fmt.Errorf("%s exists: pick a new directory", dir)
	}
	switch lang {
	case "", "go":
	case "c":
		return writeAll(dir, name, map[string]string{
			"policy.c":        cPolicy,
			"guard.h":         cGuardH,
			"guard.toml":      guardToml,
			"cases/NAME.toml": casesToml,
			"README.md":       cReadme,
			".gitignore":      "*.wasm\n",
		})
	case "rust":
		return writeAll(dir, name, map[string]string{
			"policy.rs":       rustPolicy,
			"guard.rs":        rustGuard,
			"guard.toml":      guardToml,
			"cases/NAME.toml": casesToml,
			"README.md":       rustReadme,
			".gitignore":      "*.wasm\n",
		})
	case "assemblyscript":
		return writeAll(dir, name, map[string]string{
			"policy.ts":       asPolicy,
			"guard.ts":        asGuard,
			"guard.toml":      guardToml,
			"cases/NAME.toml": casesToml,
			"README.md":       asReadme,
			".gitignore":      "*.wasm\n",
		})
	case "rego":
		return writeAll(dir, name, map[string]string{
			"policy.rego":      regoPolicy,
			"policy_test.rego": regoTest,
			"guard.toml":       regoToml,
			"cases/NAME.toml":  casesToml,
			"README.md":        regoReadme,
			".gitignore":       "*.wasm\n",
		})
	default:
		return fmt.Errorf("no policy template in %q: the languages are %s", lang, strings.Join(Langs, ", "))
	}
	files := map[string]string{
		"go.mod":                 goMod,
		"policy.go":              policyGo,
		"policy_test.go":         policyTestGo,
		"guard.toml":             guardToml,
		"cases/NAME.toml":        casesToml,
		"README.md":              readme,
		".gitignore":             "*.wasm\n",
		sdkModule + "/go.mod":    "module github.com/debugpy-guard/debugpy-guard\n\ngo 1.24\n",
		sdkModule + "/README.md": sdkReadme,
	}
	if err := writeAll(dir, name, files); err != nil {
		return err
	}
	err := fs.WalkDir(plugins.SDKSource(), ".", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := fs.ReadFile(plugins.SDKSource(), path)
		if err != nil {
			return err
		}
		return write(filepath.Join(dir, sdkModule, "plugins", path), string(b))
	})
	if err != nil {
		os.RemoveAll(dir)
		return fmt.Errorf("write the SDK: %w", err)
	}
	return nil
}

// writeAll writes files (paths and texts with NAME for the name) under dir,
// and removes dir when one fails.
func writeAll(dir, name string, files map[string]string) error {
	for path, text := range files {
		path = strings.ReplaceAll(path, "NAME", name)
		if err := write(filepath.Join(dir, path), strings.ReplaceAll(text, "NAME", name)); err != nil {
			os.RemoveAll(dir)
			return err
		}
	}
	return nil
}

func write(path, text string) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return os.WriteFile(path, []byte(text), 0o644)
}

// Built is a module Build made.
type Built struct {
	Name   string
	Path   string // DIR/NAME.wasm
	SHA256 string
	Size   int
	ABI    string // plugins.ABIV1, or plugins.ABIOPA for a policy in Rego
	// Note says what loading it found beyond the ABI itself, such as
	// settings it rejects when given none.
	Note string
}

// Build compiles the project in dir, writes DIR/NAME.wasm, and loads it
// as debugpy-guard does to prove it: exports, imports, instantiation,
// _initialize (for Rego: OPA's ABI version, builtins and entrypoint). A
// project with a go.mod builds for wasip1 with the go command on PATH
// (-buildmode=c-shared -trimpath -buildvcs=false), one with a policy.c
// with clang (wasm32, no libc, no debug information), one with a policy.rs
// with rustc (wasm32-unknown-unknown, no_std, symbols stripped, paths
// remapped), one with a policy.ts with the AssemblyScript compiler, one
// with a policy.rego with opa build -t wasm (the module taken out of the
// bundle it writes): the same source and toolchain give the same bytes.
func Build(ctx context.Context, dir string) (Built, error) {
	dir, err := filepath.Abs(dir)
	if err != nil {
		return Built{}, err
	}
	b := Built{Name: filepath.Base(dir), Path: filepath.Join(dir, filepath.Base(dir)+".wasm"), ABI: plugins.ABIV1}
	var cmd *exec.Cmd
	var after func() error // what the build leaves to do
	switch {
	case exists(filepath.Join(dir, "go.mod")):
		goBin, err := exec.LookPath("go")
		if err != nil {
			return Built{}, errors.New("no go command on PATH: policy build needs a Go toolchain (1.24 or later)")
		}
		cmd = exec.CommandContext(ctx, goBin, "build", "-buildmode=c-shared", "-trimpath", "-buildvcs=false", "-o", b.Path, ".")
		cmd.Env = append(os.Environ(), "GOOS=wasip1", "GOARCH=wasm", "CGO_ENABLED=0")
	case exists(filepath.Join(dir, "policy.c")):
		clang, err := exec.LookPath("clang")
		if err != nil {
			return Built{}, errors.New("no clang on PATH: a policy in C builds with clang and wasm-ld (Debian: apt-get install clang lld; README.md says how without a network)")
		}
		if _, err := exec.LookPath("wasm-ld"); err != nil {
			return Built{}, errors.New("no wasm-ld on PATH: clang links WebAssembly with it (Debian: apt-get install lld)")
		}
		cmd = exec.CommandContext(ctx, clang, "--target=wasm32", "-O2", "-nostdlib", "-g0", "-Wl,--no-entry", "-o", b.Path, "policy.c")
	case exists(filepath.Join(dir, "policy.rs")):
		rustc, err := wasmRustc(ctx)
		if err != nil {
			return Built{}, err
		}
		cmd = exec.CommandContext(ctx, rustc, "--edition", "2021", "--crate-type", "cdylib", "--target", "wasm32-unknown-unknown",
			"-C", "opt-level=2", "-C", "panic=abort", "-C", "strip=symbols", "--remap-path-prefix", dir+"=.", "-o", b.Path, "policy.rs")
	case exists(filepath.Join(dir, "policy.ts")):
		asc, err := exec.LookPath("asc")
		if err != nil {
			return Built{}, errors.New("no asc on PATH: a policy in AssemblyScript builds with its compiler (npm install -g assemblyscript@0.28.20; README.md says how without a network)")
		}
		cmd = exec.CommandContext(ctx, asc, "policy.ts", "-o", b.Path, "-O3", "--noAssert", "--use", "abort=guard/abort")
	case exists(filepath.Join(dir, "policy.rego")):
		opaBin, err := exec.LookPath("opa")
		if err != nil {
			return Built{}, fmt.Errorf("no opa on PATH: a policy in Rego builds with OPA's opa command (go install github.com/open-policy-agent/opa@%s; README.md says how without a network)", OPAVersion)
		}
		tmp, err := os.MkdirTemp("", "policy-build-")
		if err != nil {
			return Built{}, err
		}
		defer os.RemoveAll(tmp)
		bundle := filepath.Join(tmp, "bundle.tar.gz")
		cmd = exec.CommandContext(ctx, opaBin, "build", "-t", "wasm", "-e", regoEntrypoint, "-o", bundle, "policy.rego")
		b.ABI = plugins.ABIOPA
		after = func() error { return moduleOfBundle(bundle, b.Path) }
	default:
		return Built{}, fmt.Errorf("%s has no go.mod, policy.c, policy.rs, policy.ts or policy.rego: give the directory of a policy project (`debugpy-guard policy new NAME` makes one)", dir)
	}
	cmd.Dir = dir
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		return Built{}, fmt.Errorf("%s: %v\n%s", filepath.Base(cmd.Path), err, strings.TrimSpace(out.String()))
	}
	if after != nil {
		if err := after(); err != nil {
			return Built{}, err
		}
	}
	wasm, err := os.ReadFile(b.Path)
	if err != nil {
		return Built{}, err
	}
	sum := sha256.Sum256(wasm)
	b.SHA256, b.Size = hex.EncodeToString(sum[:]), len(wasm)
	rt := plugins.NewRuntime(plugins.Options{})
	defer rt.Close(ctx)
	m, err := rt.Load(ctx, plugins.Spec{Name: b.Name, Wasm: wasm, ABI: b.ABI, Limits: plugins.Limits{Timeout: 10 * time.Second}})
	switch {
	case err == nil:
		m.Close(ctx)
	case strings.Contains(err.Error(), "settings rejected"):
		b.Note = "with no settings, " + err.Error() + " (give it settings in the config)"
	default:
		return Built{}, fmt.Errorf("built %s, but it does not load under ABI %s: %w", b.Path, b.ABI, err)
	}
	return b, nil
}

// wasmRustc is the first rustc with the wasm32-unknown-unknown standard
// library: $RUSTC, the one on PATH, then Debian's (a rustup toolchain on
// PATH often lacks the target, and rustup cannot add it with no network).
func wasmRustc(ctx context.Context) (string, error) {
	var tried []string
	for _, c := range []string{os.Getenv("RUSTC"), "rustc", "/usr/bin/rustc"} {
		if c == "" {
			continue
		}
		path, err := exec.LookPath(c)
		if err != nil {
			continue
		}
		tried = append(tried, path)
		out, err := exec.CommandContext(ctx, path, "--print", "target-libdir", "--target", "wasm32-unknown-unknown").Output()
		if err != nil {
			continue
		}
		if libs, _ := filepath.Glob(filepath.Join(strings.TrimSpace(string(out)), "libcore-*.rlib")); len(libs) > 0 {
			return path, nil
		}
	}
	if len(tried) == 0 {
		return "", errors.New("no rustc on PATH: a policy in Rust builds with rustc and its wasm32 standard library (Debian: apt-get install rustc libstd-rust-dev-wasm32; README.md says how without a network)")
	}
	return "", fmt.Errorf("no rustc with the wasm32-unknown-unknown target (tried %s): Debian: apt-get install libstd-rust-dev-wasm32; rustup: rustup target add wasm32-unknown-unknown; or set RUSTC", strings.Join(tried, ", "))
}

// moduleOfBundle writes the module of the bundle opa build wrote to path.
func moduleOfBundle(bundle, path string) error {
	src, err := os.ReadFile(bundle)
	if err != nil {
		return err
	}
	bn, err := opa.ReadBundle(src)
	if err != nil {
		return fmt.Errorf("the bundle opa build wrote: %w", err)
	}
	return os.WriteFile(path, bn.Wasm, 0o644)
}

func exists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

// Stanza is the config table that names b, pinned, in monitor mode.
func (b Built) Stanza() string {
	abi := ""
	if b.ABI == plugins.ABIOPA {
		abi = fmt.Sprintf("abi = %q\nentrypoint = %q\n", plugins.ABIOPA, regoEntrypoint)
	}
	return fmt.Sprintf(`[modules.%s]
source = %q
sha256 = "%s"
%smode = "monitor"   # audited but not enforced; remove this line to enforce
# settings = { ... }

# and add it to a rule, e.g.
# [[rules]]
# tools = ["debugpy_*"]
# call = ["%s"]
`, b.Name, b.Path, b.SHA256, abi, b.Name)
}
