package kit

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
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
	if _, err := Build(t.Context(), t.TempDir()); err == nil || !strings.Contains(err.Error(), "policy new") || !strings.Contains(err.Error(), "no go.mod or policy.c") {
		t.Fatalf("build of an empty dir: %v", err)
	}
}

// A project in C: its files, then a build with clang that loads under ABI
// v1, the same bytes twice. (make deps installs clang and lld.)
func TestNewAndBuildC(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "acme")
	if err := New(dir, "c"); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"policy.c", "guard.h", "guard.toml", "cases/acme.toml", "README.md"} {
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
		t.Fatalf("%v (make deps installs clang and lld)", err)
	}
	again, err := Build(t.Context(), dir)
	if err != nil || again.SHA256 != b.SHA256 || b.Size == 0 {
		t.Fatalf("not reproducible: %s then %s (%v)", b.SHA256, again.SHA256, err)
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
