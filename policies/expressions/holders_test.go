package expressions

import "testing"

// TestReadsPart: a holder read whole is shown masked; any other read of it
// (a slice, an index, a comparison, a call, an f-string, unpacking, a
// statement) is reported, whatever its spelling.
func TestReadsPart(t *testing.T) {
	holders := map[string]bool{"alias": true, "pair": true}
	for _, c := range []struct {
		code, kind, want string
	}{
		{"alias", "expression", ""},
		{"(alias)", "expression", ""},
		{"(alias, 1, [pair, {'k': alias, alias: 2, **pair}], {alias})", "expression", ""},
		{"other[1:]", "expression", ""},
		{"cfg.alias[1:]", "expression", ""}, // an attribute named alias is not the name
		{"alias[1:]", "expression", "alias"},
		{"alias[::2]", "expression", "alias"},
		{"(1, alias[0])", "expression", "alias"},
		{"alias < 'm'", "expression", "alias"},
		{"alias == alias", "expression", "alias"},
		{"[*alias]", "expression", "alias"},
		{"len(alias)", "expression", "alias"},
		{"alias.upper", "expression", "alias"},
		{"f'{alias:.5}'", "expression", "alias"},
		{"0 if alias else 1", "expression", "alias"},
		{"alias if 1 else 0", "expression", "alias"},
		{"pair[1]", "expression", "pair"},
		{"{}[alias[0]]", "expression", "alias"},
		{"ａｌｉａｓ[1:]", "expression", "alias"}, // NFKC, as Python reads it
		{"\\\nalias [\f1:]", "expression", "alias"},
		{"x = alias", "statement", "alias"},
		{"print(f'{pair!r}')", "statement", "pair"},
		{"x = 1; y = 2", "statement", ""},
		{"alias[1:", "expression", "alias"},  // not an expression: read as tokens
		{"'unclosed", "expression", "alias"}, // no tokens: every holder, the first named
	} {
		if got := ReadsPart(c.code, c.kind, holders); got != c.want {
			t.Errorf("ReadsPart(%q, %s) = %q, want %q", c.code, c.kind, got, c.want)
		}
	}
	if got := ReadsPart("alias[1:]", "expression", nil); got != "" {
		t.Errorf("with no holders: %q", got)
	}
}
