package policies_test

import (
	"maps"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/debugpy-guard/debugpy-guard/policies"
	"github.com/debugpy-guard/debugpy-guard/policies/category"
	"github.com/debugpy-guard/debugpy-guard/policies/expressions"
	"github.com/debugpy-guard/debugpy-guard/policies/ratelimit"
	"github.com/debugpy-guard/debugpy-guard/policies/redact"
	"github.com/debugpy-guard/debugpy-guard/policies/settings"
	"github.com/debugpy-guard/debugpy-guard/policies/targets"
)

// docs/CONFIG.md has a section for each built-in with a row for each
// setting it takes, and no other.
func TestConfigDocNamesEverySetting(t *testing.T) {
	doc, err := os.ReadFile("../docs/CONFIG.md")
	if err != nil {
		t.Fatal(err)
	}
	known := map[string]map[string]settings.Kind{"category": category.Settings, "expressions": expressions.Settings,
		"ratelimit": ratelimit.Settings, "redact": redact.Settings, "targets": targets.Settings}
	if got := slices.Sorted(maps.Keys(known)); !slices.Equal(got, policies.Names()) {
		t.Fatalf("the test knows %v, the built-ins are %v", got, policies.Names())
	}
	row := regexp.MustCompile("(?m)^\\| `([^`]+)` \\|")
	for name, keys := range known {
		_, section, ok := strings.Cut(string(doc), "### builtin:"+name+"\n")
		if !ok {
			t.Errorf("docs/CONFIG.md has no section ### builtin:%s", name)
			continue
		}
		if i := strings.Index(section, "\n#"); i >= 0 {
			section = section[:i]
		}
		var rows []string
		for _, m := range row.FindAllStringSubmatch(section, -1) {
			rows = append(rows, m[1])
		}
		if want := slices.Sorted(maps.Keys(keys)); !slices.Equal(slices.Sorted(slices.Values(rows)), want) {
			t.Errorf("builtin:%s: docs/CONFIG.md lists %v, the policy takes %v", name, rows, want)
		}
	}
}

// The copy of the embedded default in docs/CONFIG.md is the file, but for
// its comments.
func TestConfigDocShowsTheDefault(t *testing.T) {
	doc, err := os.ReadFile("../docs/CONFIG.md")
	if err != nil {
		t.Fatal(err)
	}
	_, block, ok := strings.Cut(string(doc), "## The embedded default")
	if ok {
		_, block, ok = strings.Cut(block, "```toml\n")
	}
	if !ok {
		t.Fatal("docs/CONFIG.md shows no embedded default")
	}
	block, _, _ = strings.Cut(block, "```")
	var want []string
	for _, l := range strings.Split(string(policies.DefaultConfig()), "\n") {
		if !strings.HasPrefix(l, "#") {
			want = append(want, l)
		}
	}
	if got := strings.TrimSpace(block); got != strings.TrimSpace(strings.Join(want, "\n")) {
		t.Errorf("docs/CONFIG.md's copy of default.toml differs:\n%s\nwant:\n%s", got, strings.Join(want, "\n"))
	}
}
