package engine

import (
	"os"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// docs/CONFIG.md names every key the config decoder accepts, and no key it
// does not: the keys are read off Config's toml tags, so a key added to the
// code without a line in the reference fails here.
func TestConfigDocNamesEveryKey(t *testing.T) {
	doc, err := os.ReadFile("../docs/CONFIG.md")
	if err != nil {
		t.Fatal(err)
	}
	var keys []string
	var walk func(typ reflect.Type, prefix string)
	walk = func(typ reflect.Type, prefix string) {
		for f := range typ.Fields() {
			tag := strings.Split(f.Tag.Get("toml"), ",")[0]
			if tag == "" || tag == "-" {
				continue
			}
			key := prefix + tag
			ft := f.Type
			switch {
			case ft.Kind() == reflect.Struct:
				walk(ft, key+".")
				continue
			case ft.Kind() == reflect.Map && ft.Elem().Kind() == reflect.Struct:
				walk(ft.Elem(), key+".NAME.")
				continue
			case ft.Kind() == reflect.Slice && ft.Elem().Kind() == reflect.Struct:
				walk(ft.Elem(), key+"[].")
				continue
			}
			keys = append(keys, key)
		}
	}
	walk(reflect.TypeOf(Config{}), "")
	if len(keys) < 20 {
		t.Fatalf("found only %d keys: %v", len(keys), keys)
	}
	for _, k := range keys {
		if !strings.Contains(string(doc), "| `"+k+"` |") {
			t.Errorf("docs/CONFIG.md has no row for %s", k)
		}
	}
	// And every row of the engine's tables is a key (the built-ins' own
	// tables are checked in package policies).
	engineDoc, _, _ := strings.Cut(string(doc), "## The built-in modules' settings")
	for _, m := range regexp.MustCompile("(?m)^\\| `([^`]+)` \\|").FindAllStringSubmatch(engineDoc, -1) {
		if !slices.Contains(keys, m[1]) {
			t.Errorf("docs/CONFIG.md has a row for %s, which the config does not take", m[1])
		}
	}
}
