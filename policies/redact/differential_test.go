package redact

import (
	"bufio"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/debugpy-guard/debugpy-guard/policies/internal/policytest"
)

// againstPython is the harness of the tests that hold a masker to the
// parser a program's files and output are read with: gen, a Python script
// run with the arguments "1" (its seed) and n, writes n texts as that
// library writes them, one JSON array a line ([text, and what check needs
// besides]); each text is masked; check, a second script, reads each
// [text, masked, the rest...] a line and prints a JSON string a line: ""
// when a reader of the masked text learns nothing it should not (every
// value it must hide reads as the mask, every other as it was), or why.
// It fails the test for each text check finds fault with (the first
// eight shown, as written and as masked).
func againstPython(t *testing.T, gen, check string, n int, mask func(string) string) {
	t.Helper()
	python := policytest.Python3(t)
	dir := t.TempDir()
	genFile, checkFile := filepath.Join(dir, "gen.py"), filepath.Join(dir, "check.py")
	os.WriteFile(genFile, []byte(gen), 0o644)
	os.WriteFile(checkFile, []byte(check), 0o644)
	out, err := exec.Command(python, genFile, "1", strconv.Itoa(n)).Output()
	if err != nil {
		t.Fatalf("python3 (make deps installs what it imports): %v%s", err, stderrOf(err))
	}
	var texts []string
	var in strings.Builder
	sc := bufio.NewScanner(strings.NewReader(string(out)))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var doc []string
		if err := json.Unmarshal(sc.Bytes(), &doc); err != nil || len(doc) == 0 {
			t.Fatalf("%v: %s", err, sc.Bytes())
		}
		texts = append(texts, doc[0])
		b, _ := json.Marshal(append([]string{doc[0], mask(doc[0])}, doc[1:]...))
		in.Write(b)
		in.WriteByte('\n')
	}
	if len(texts) != n {
		t.Fatalf("%d texts, want %d", len(texts), n)
	}
	cmd := exec.Command(python, checkFile)
	cmd.Stdin = strings.NewReader(in.String())
	verdicts, err := cmd.Output()
	if err != nil {
		t.Fatalf("python3, the check: %v%s", err, stderrOf(err))
	}
	bad := 0
	for i, line := range strings.Split(strings.TrimSpace(string(verdicts)), "\n") {
		var why string
		if err := json.Unmarshal([]byte(line), &why); err != nil {
			t.Fatalf("check: %v: %s", err, line)
		}
		if why != "" {
			if bad++; bad <= 8 {
				t.Errorf("%s\n--- written:\n%q\n--- masked:\n%q", why, texts[i], mask(texts[i]))
			}
		}
	}
	if bad > 0 {
		t.Fatalf("%d of %d texts", bad, len(texts))
	}
}

// stderrOf is what a command that failed wrote on its standard error, on
// a line of its own.
func stderrOf(err error) string {
	var ee *exec.ExitError
	if errors.As(err, &ee) && len(ee.Stderr) > 0 {
		return "\n" + string(ee.Stderr)
	}
	return ""
}

// fuzzKeepsLines fuzzes mask from the seeds: any text is masked without a
// panic and keeps its line ends, "\n" and "\r" alike (a listing's rows, a
// source's lines and output's pieces are matched to their masked forms by
// line). mask may check more of a text with t.
func fuzzKeepsLines(f *testing.F, mask func(t *testing.T, s string) string, seeds ...string) {
	for _, s := range seeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		out := mask(t, s)
		if strings.Count(out, "\n") != strings.Count(s, "\n") || strings.Count(out, "\r") != strings.Count(s, "\r") {
			t.Fatalf("lines changed: %q -> %q", s, out)
		}
	})
}
