package plugins

import (
	"encoding/json"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/debugpy-guard/debugpy-guard/internal/cpython"
)

// A secret spelled as a sequence of its characters, its bytes or its
// pieces is masked where the sequence spells it; other sequences are left
// as they are.
func TestSequenceSpans(t *testing.T) {
	m := maskerOf(t, "Hunter2-S3cret-pass!")
	for _, c := range []struct{ shown, want string }{
		{`['H', 'u', 'n', 't', 'e', 'r', '2', '-', 'S', '3', 'c', 'r', 'e', 't', '-', 'p', 'a', 's', 's', '!']`, `[[redacted]]`},
		// debugpy's display of a long list: its first items, then a cut
		{`['H', 'u', 'n', 't', 'e', 'r', '2', '-', 'S', '3', 'c', 'r', 'e', 't', ...]`, `[[redacted], ...]`},
		// chars[::-1], cut: the end of the secret, backwards
		{`['!', 's', 's', 'a', 'p', '-', 't', 'e', 'r', 'c', '3', 'S', '-', '2', ...]`, `[[redacted], ...]`},
		// list(secret.encode()), and in hex as debugpy's hex view shows it
		{`[72, 117, 110, 116, 101, 114, 50, 45, 83, 51, 99, 114, 101, 116, 45, 112, 97, 115, 115, 33]`, `[[redacted]]`},
		{`[0x48, 0x75, 0x6e, 0x74, 0x65, 0x72, 0x32, 0x2d, 0x53, 0x33, 0x63, 0x72, 0x65, 0x74, ...]`, `[[redacted], ...]`},
		// inside a longer sequence, and over lines as pprint writes it
		{`('x', 'y', 'H', 'u', 'n', 't', 'e', 'r', '2', '-', 'S', '3', 'c', 'r', 'e', 't', '-', 'p', 'a', 's', 's', '!', 'z')`, `('x', 'y', [redacted], 'z')`},
		{"[\"H\",\n \"u\",\n \"n\",\n \"t\",\n \"e\",\n \"r\",\n \"2\",\n \"-\",\n \"S\",\n \"3\",\n \"c\",\n \"r\",\n \"e\",\n \"t\",\n \"-\",\n \"p\",\n \"a\",\n \"s\",\n \"s\",\n \"!\"]", `[[redacted]]`},
		{`[b'H', b'u', b'n', b't', b'e', b'r', b'2', b'-', b'S', b'3', b'c', b'r', b'e', b't', ...]`, `[[redacted], ...]`},
		// not the secret: left as it is
		{`['H', 'u', 'n', 't', 'e', 'r', '2']`, `['H', 'u', 'n', 't', 'e', 'r', '2']`},
		{`[1, 2, 3, 4.5, 'a', 'b', 'c']`, `[1, 2, 3, 4.5, 'a', 'b', 'c']`},
		{`x = f(1, 2, 3)`, `x = f(1, 2, 3)`},
		// a number that codes no character (a surrogate) beside ones that do
		{`[72, 117, 110, 116, 101, 114, 50, 45, 83, 51, 99, 114, 101, 116, 45, 112, 97, 115, 115, 33, 55357]`, `[[redacted], 55357]`},
		{`[55357, 72, 117, 110, 116, 101, 114, 50, 45, 83, 51, 99, 114, 101, 116, ...]`, `[55357, [redacted], ...]`},
		// in pieces: chunks, split at a separator, cut short
		{`['Hu', 'nt', 'er', '2-', 'S3', 'cr', 'et', '-p', 'as', 's!']`, `[[redacted]]`},
		{`['Hunter2', 'S3cret', 'pass!']`, `[[redacted]]`},
		{`{'parts': ["Hunt", "er2-S3cr", "et-pass!"], 'n': 3}`, `{'parts': [[redacted]], 'n': 3}`},
		{`['Hunter2-', 'S3cret-p', 'ass!', 'other', 'words']`, `[[redacted], 'other', 'words']`},
		{`['Hunter2', 'S3cret', ...]`, `[[redacted], ...]`},
		// pieces of no secret, or of one but not all of it: as they are
		{`['Hunter2', 'Other', 'pass!']`, `['Hunter2', 'Other', 'pass!']`},
		{`['alpha', 'beta', 'gamma']`, `['alpha', 'beta', 'gamma']`},
	} {
		got := m.Replace(c.shown)
		if got != c.want {
			t.Errorf("%s\n masked to %s\n want      %s", c.shown, got, c.want)
		}
		if in := m.InString(c.shown); in != (got != c.shown) {
			t.Errorf("%s: InString %v", c.shown, in)
		}
	}
	// A list whose element is the secret whole picks it whole: the
	// element is masked as the secret's own form, and the list is no
	// sequence that spells it.
	for shown, want := range map[string]bool{`('ada', 'Hunter2-S3cret-pass!')`: false, `['Hunter2', 'S3cret', 'pass!']`: true,
		`['x', 'Hunter2-S3cret-pass!', 'y']`: false, `['Hunter2-S3cret-pass!'[:10], ...]`: false} {
		if got := m.InSequence(shown); got != want {
			t.Errorf("%s: InSequence %v, want %v", shown, got, want)
		}
	}
}

// maskerOf is the masker of a session that has seen secret.
func maskerOf(t testing.TB, secret string) *Masker {
	t.Helper()
	s := NewSecrets()
	if !kept(s.Add("a", secret)) {
		t.Fatal("not kept")
	}
	return s.Masker("a")
}

// A container's items, shown a row each, are read as its display: the
// items that spell a secret, whole or beside the cut of a listing shorter
// than the container, and no others.
func TestItems(t *testing.T) {
	const secret = "Hunter2-S3cret-pass!"
	m := maskerOf(t, secret)
	reprs := func(f func(r rune) string, rs string) []string {
		var out []string
		for _, r := range rs {
			out = append(out, f(r))
		}
		return out
	}
	char := func(r rune) string { return "'" + string(r) + "'" }
	code := func(r rune) string { return strconv.Itoa(int(r)) }
	byte1 := func(r rune) string { return "b'" + string(r) + "'" }
	all := func(n int) []bool { return slices.Repeat([]bool{true}, n) }
	for _, c := range []struct {
		name  string
		items []string
		more  bool
		want  []bool
	}{
		{"characters", reprs(char, secret), false, all(len(secret))},
		{"numbers", reprs(code, secret), false, all(len(secret))},
		{"bytes", reprs(byte1, secret), false, all(len(secret))},
		{"reversed", reprs(char, "!ssap-terc3S-2retnuH"), false, all(len(secret))},
		{"among others", append(append([]string{"'x'", "<object>"}, reprs(char, secret)...), "'y'"), false,
			append(append([]bool{false, false}, all(len(secret))...), false)},
		// a listing cut by max_items: the secret's beginning, beside the cut
		{"cut", reprs(char, "Hunt"), true, all(4)},
		{"cut, numbers", reprs(code, "Hunt"), true, all(4)},
		{"cut, pieces", []string{"'Hu'", "'nte'"}, true, all(2)},
		// the cut is max_items', the agent's: three items beside it are
		// fewer than a secret (MinSecret), as a guess of four waits for a
		// person
		{"cut short of a secret", reprs(char, "Hun"), true, nil},
		{"cut after another item", append([]string{"<object>"}, reprs(char, "Hun")...), true, nil},
		{"not cut", reprs(char, "Hunt"), false, nil},
		{"no secret", reprs(char, "Other-words-here"), false, nil},
		{"one", []string{"'H'"}, true, nil},
	} {
		got := m.Items(c.items, c.more)
		if !slices.Equal(got, c.want) && !(c.want == nil && !slices.Contains(got, true)) {
			t.Errorf("%s: %v: %v, want %v", c.name, c.items, got, c.want)
		}
	}
}

// TestSequencesAgreeWithPython: random secrets (any printable character
// of the basic plane, quotes, backslashes and separators among them),
// written as sequences of their characters, bytes and pieces by Python
// (repr of a list, a tuple, reversed, of the UTF-8 bytes, of ord();
// json.dumps, indented too; pprint; hex; one-byte bytes; inside a longer
// list; as debugpy cuts a long list, forwards and reversed; chunks of 2, 4
// and 5, and split at each separator it holds). After Replace, CPython's
// parser reads each text and no run of strings or numbers in any display,
// joined with any separator, spells 6 characters (or bytes) of the
// secret, either way round. The same
// shapes made of another random string of the same length are left as
// they are.
func TestSequencesAgreeWithPython(t *testing.T) {
	python := cpython.Path(t)
	out := cpython.Run(t, python, `
import json, pprint, random
rnd = random.Random(12)
alphabet = [chr(c) for c in range(0x20, 0x7f)] + list("éßøЖж中文€\u00a0")
def word(n):
    return "".join(rnd.choice(alphabet) for _ in range(n))
def shapes(s):
    b = list(s.encode())
    out = [repr(list(s)), repr(tuple(s)), repr(list(s)[::-1]), repr(b), repr(b[::-1]),
           repr([ord(c) for c in s]), json.dumps(list(s)), json.dumps(list(s), ensure_ascii=False),
           json.dumps(b), json.dumps(list(s), indent=2), pprint.pformat(list(s), width=30),
           pprint.pformat(b, width=30), "[" + ", ".join(hex(x) for x in b) + "]",
           repr([bytes([x]) for x in b]), repr(list("ab" + s + "cd")), repr({"k": list(s)}),
           "chars: " + repr(list(s)) + " end"]
    for k in (6, len(s) - 1):
        out.append(repr(list(s)[:k])[:-1] + ", ...]")
        out.append(repr(list(s)[::-1][:k])[:-1] + ", ...]")
        out.append(repr(b[:k])[:-1] + ", ...]")
    # in pieces: chunks, and split at each separator the value holds
    for size in (2, 4, 5):
        chunks = [s[i:i + size] for i in range(0, len(s), size)]
        out += [repr(chunks), json.dumps(chunks), pprint.pformat(chunks, width=20)]
        if len(chunks) > 2:
            out.append(repr(chunks[:-1])[:-1] + ", ...]")
    for sep in ".:-_/ ,|@;=+":
        parts = s.split(sep)
        if len(parts) > 1 and all(parts):
            out += [repr(parts), json.dumps(parts), repr(tuple(parts))]
    return out
seps = ".:-_/ |@;=+"
def secret(n):
    w = list(word(n))
    for _ in range(rnd.randint(0, 3)):
        w[rnd.randrange(1, n - 1)] = rnd.choice(seps)
    return "".join(w)
for _ in range(300):
    n = rnd.randint(8, 24)
    s, other = secret(n), secret(n)
    print(json.dumps({"secret": s, "texts": shapes(s), "controls": shapes(other)}))
`, nil)
	type check struct {
		Secret string `json:"secret"`
		Text   string `json:"text"`
	}
	var checks []check
	records, controls, changed := 0, 0, 0
	for line := range strings.Lines(string(out)) {
		var rec struct {
			Secret   string   `json:"secret"`
			Texts    []string `json:"texts"`
			Controls []string `json:"controls"`
		}
		if err := json.Unmarshal([]byte(line), &rec); err != nil {
			t.Fatal(err)
		}
		records++
		s := NewSecrets()
		if !kept(s.Add("a", rec.Secret)) {
			t.Fatalf("%q not kept", rec.Secret)
		}
		m := s.Masker("a")
		for _, text := range rec.Texts {
			checks = append(checks, check{rec.Secret, m.Replace(text)})
		}
		for _, text := range rec.Controls {
			controls++
			if got := m.Replace(text); got != text {
				if changed++; changed <= 5 {
					t.Errorf("a sequence of no secret (%q) was masked: %s\n -> %s", rec.Secret, text, got)
				}
			}
		}
	}
	res := cpython.Run(t, python, `
import ast, json, sys
bad = 0
for line in sys.stdin:
    c = json.loads(line)
    s, text = c["secret"], c["text"]
    b = s.encode()
    pieces = set()
    for w in (s, s[::-1]):
        pieces |= {w[i:i+6] for i in range(len(w) - 5)}
    for w in (b, b[::-1]):
        pieces |= {w[i:i+6].decode("latin-1") for i in range(len(w) - 5)}
    src = text[len("chars: "):-len(" end")] if text.startswith("chars: ") else text
    runs = []
    for node in ast.walk(ast.parse(src, mode="eval")):
        if not isinstance(node, (ast.List, ast.Tuple)):
            continue
        run = []
        for e in node.elts:
            v = e.value if isinstance(e, ast.Constant) else None
            if isinstance(v, str):
                run.append(v)
            elif isinstance(v, bytes) and len(v) == 1:
                run.append(chr(v[0]))
            elif isinstance(v, int) and not isinstance(v, bool) and 0 <= v <= 0x10ffff:
                run.append(chr(v))
            else:
                runs += [sep.join(run) for sep in ("", ".", ":", "-", "_", "/", " ", ",", "|", "@", ";", "=", "+")]
                run = []
        runs += [sep.join(run) for sep in ("", ".", ":", "-", "_", "/", " ", ",", "|", "@", ";", "=", "+")]
    left = [p for p in pieces for r in runs if p in r]
    if left:
        bad += 1
        if bad <= 5:
            print("left %r of %r in %s" % (left[0], s, text))
print("bad", bad)
`, cpython.JSONLines(checks))
	if !strings.HasSuffix(string(res), "bad 0\n") {
		t.Errorf("pieces of secrets left in sequences, of %d texts:\n%s", len(checks), res)
	}
	t.Logf("%d secrets, %d texts, %d controls (%d masked)", records, len(checks), controls, changed)
}

// FuzzSequenceSpans: any text, with a secret spelled in it or not, is read
// without a fault; a span is inside the text, and a text InString finds a
// sequence in is changed by Replace.
func FuzzSequenceSpans(f *testing.F) {
	for _, s := range []string{`[115, 51, 99, 114, 55357, 101, 116]`, `[55357, 115, 51, 99, 114, 101, 116, ...]`, `['s', '3', 'c', 'r', ...]`, `[115, 51, 99, 114, 101, 116]`, `(0x73, 0x33, 0x63,`, `[b'\x73', b"3", '\'', "\u0063", ...]`, `'a', 'b'`, `,,,`, `[', ', ', ']`} {
		f.Add(s)
	}
	s := NewSecrets()
	s.Add("a", "s3cret")
	s.Add("a", "Ünïcødé-kéy")
	m := s.Masker("a")
	f.Fuzz(func(t *testing.T, text string) {
		m.sequenceSpans(text, func(from, to int) {
			if from < 0 || to > len(text) || from >= to {
				t.Fatalf("span %d:%d of %d bytes", from, to, len(text))
			}
		})
		if m.InSequence(text) && m.Replace(text) == text {
			t.Fatalf("%q: found, not masked", text)
		}
	})
}
