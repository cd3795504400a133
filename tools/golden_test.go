package tools

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files (testdata/*.golden.json)")

// What agents see of the tools (names, titles, descriptions, schemas,
// annotations, categories) is kept in testdata/tools_list.golden.json, so
// that every change to it is a change someone reviews in the diff. After a
// change you mean: go test ./tools -run TestToolsListGolden -update.
func TestToolsListGolden(t *testing.T) {
	var list []any
	for _, s := range Catalogue() {
		list = append(list, s.Tool)
	}
	got, err := json.MarshalIndent(list, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	got = append(got, '\n')
	file := filepath.Join("testdata", "tools_list.golden.json")
	if *update {
		if err := os.WriteFile(file, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(file)
	if err != nil {
		t.Fatalf("%v (go test ./tools -run TestToolsListGolden -update writes it)", err)
	}
	if !bytes.Equal(got, want) {
		os.WriteFile(file+".new", got, 0o644)
		t.Fatalf("what agents see of the tools changed: diff %s %s.new; if you mean it, go test ./tools -run TestToolsListGolden -update", file, file)
	}
}
