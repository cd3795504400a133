package plugins

import (
	"os/exec"
	"strings"
	"testing"
)

// A secret spelled down a pandas Series, as pandas writes its repr (the
// Debian Python that has pandas): its characters, its bytes' numbers,
// named, on a listing's row (its name before, its reference after), and a long one cut (its first and last five
// lines beside the ".."), is masked where its lines spell it; one whose
// cut hides the secret, a Series of other characters, and one of floats,
// are left as they are.
func TestSeriesSpansAgreeWithPandas(t *testing.T) {
	const secret = "Hunter2-S3cret-pass!"
	prog := `import pandas as pd, sys
s = sys.argv[1]
for x in [pd.Series(list(s)), pd.Series(list(s.encode()), name="key"), pd.Series(list(s + "z" * 60)),
          pd.Series(list("y" * 60 + s)), pd.Series(list(s * 4)), pd.Series(list("y" * 60 + s + "z" * 60)),
          pd.Series(list("Other-words-here-xyz")), pd.Series([1.5, 2.5, 3.5, 4.5])]:
    print("ser: Series = " + repr(x) + " [ref 8]\n====")
`
	out, err := exec.Command("/usr/bin/python3", "-c", prog, secret).CombinedOutput()
	if err != nil {
		t.Fatalf("/usr/bin/python3 with pandas (make deps installs it): %v\n%s", err, out)
	}
	m := maskerOf(t, secret)
	texts := strings.Split(strings.TrimSuffix(string(out), "====\n"), "====\n")
	if len(texts) != 8 {
		t.Fatalf("%d texts:\n%s", len(texts), out)
	}
	for i, text := range texts {
		got := m.Replace(text)
		changed := got != text
		if want := i < 5; changed != want || changed != m.InString(text) {
			t.Errorf("text %d masked %v (InString %v), want %v:\n%s\nto\n%s", i, changed, m.InString(text), want, text, got)
		}
		if i < 5 {
			if values := seriesValues(got); strings.Contains(values, "Hun") || strings.Contains(values, "ass!") || strings.Contains(values, "3cr") {
				t.Errorf("text %d: a piece shown, %q:\n%s", i, values, got)
			}
		}
	}
}

// seriesValues is the values of a Series' lines joined: the last field of
// each line, numbers as the characters they code.
func seriesValues(text string) string {
	var b strings.Builder
	for _, line := range strings.Split(text, "\n") {
		if e, ok := seriesValue(line, 0); ok {
			if r := runs([]seriesLine{e}, "int64"); len(r) == 1 {
				b.WriteRune(r[0][0].r)
				continue
			}
			b.WriteString(e.v)
		}
	}
	return b.String()
}

// FuzzSeriesSpans: any text, a Series' repr or not, is read without a
// fault; a span is inside the text, and a text seriesSpans finds a value
// in is changed by Replace.
func FuzzSeriesSpans(f *testing.F) {
	for _, s := range []string{"0     s\n1     3\n2     c\n3     r\n4     e\n5     t\ndtype: object", "0    115\n1     51\n2     99\nName: k, dtype: int64",
		"x = 0     s\n1  3\n     ..\n8  r\n9  e\nLength: 10, dtype: object [ref 8]", "dtype: ", "  \n  ..\ndtype: int", "0  \U0001F600\n1  x\ndtype: object"} {
		f.Add(s)
	}
	m := maskerOf(f, "s3cret")
	f.Fuzz(func(t *testing.T, text string) {
		found := false
		m.seriesSpans(text, func(from, to int) {
			if from < 0 || to > len(text) || from >= to {
				t.Fatalf("span %d:%d of %d bytes", from, to, len(text))
			}
			found = true
		})
		if found && m.Replace(text) == text {
			t.Fatalf("%q: found, not masked", text)
		}
	})
}
