package tools

import (
	"slices"
	"testing"
)

// TestParts: a listing is learned in runs of at most max variables,
// children included, in order, none lost; one larger than max alone.
func TestParts(t *testing.T) {
	v := func(name string, children int) variableView {
		out := variableView{Name: name}
		for range children {
			out.Children = append(out.Children, variableView{Name: "c", Children: []variableView{{Name: "g"}}})
		}
		return out
	}
	vs := []variableView{v("a", 0), v("b", 2), v("c", 10), v("d", 0), v("e", 1), v("f", 0)} // sizes 1, 5, 21, 1, 3, 1
	got := parts(vs, 6)
	var names [][]string
	var all []variableView
	for _, p := range got {
		var ns []string
		for _, x := range p {
			ns = append(ns, x.Name)
		}
		names = append(names, ns)
		all = append(all, p...)
	}
	want := [][]string{{"a", "b"}, {"c"}, {"d", "e", "f"}}
	if len(names) != len(want) || !slices.EqualFunc(names, want, slices.Equal) {
		t.Fatalf("parts = %v, want %v", names, want)
	}
	if len(all) != len(vs) {
		t.Fatalf("%d variables, not %d", len(all), len(vs))
	}
	if got := parts(nil, 6); len(got) != 1 || len(got[0]) != 0 {
		t.Fatalf("parts of nothing = %v", got)
	}
}
