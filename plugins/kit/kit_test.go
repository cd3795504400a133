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
		if err := New(filepath.Join(dir, name)); err == nil || !strings.Contains(err.Error(), "lower-case letters") {
			t.Errorf("%q: %v", name, err)
		}
	}
	if err := New(dir); err == nil {
		t.Error("an existing directory was overwritten")
	}
}

// The project carries every SDK file and names itself throughout.
func TestNewWritesAProject(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "acme")
	if err := New(dir); err != nil {
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
	if _, err := Build(t.Context(), t.TempDir()); err == nil || !strings.Contains(err.Error(), "policy new") {
		t.Fatalf("build of an empty dir: %v", err)
	}
}
