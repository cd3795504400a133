package audit

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

func write(t testing.TB, path string, n int) {
	t.Helper()
	l, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < n; i++ {
		if err := l.Append(Entry{Kind: "decision", Call: fmt.Sprint("c", i), Tool: "debugpy_threads", Decision: "allow"}, i%2 == 0); err != nil {
			t.Fatal(err)
		}
	}
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
}

func verifyFile(t *testing.T, path string) (Summary, error) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	return Verify(f)
}

func lines(t *testing.T, path string) [][]byte {
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return bytes.SplitAfter(b, []byte("\n"))[:bytes.Count(b, []byte("\n"))]
}

func TestChainAcrossReopens(t *testing.T) {
	path := filepath.Join(t.TempDir(), "sub", "audit.jsonl")
	write(t, path, 3)
	write(t, path, 2) // a restart continues the chain
	s, err := verifyFile(t, path)
	if err != nil || s.Records != 5 || s.LastSeq != 5 {
		t.Fatalf("verify: %+v %v", s, err)
	}
	if fi, _ := os.Stat(path); fi.Mode().Perm() != 0o600 {
		t.Errorf("mode %v, want 0600", fi.Mode().Perm())
	}
	if fi, _ := os.Stat(filepath.Dir(path)); fi.Mode().Perm() != 0o700 {
		t.Errorf("dir mode %v, want 0700", fi.Mode().Perm())
	}
}

// Every kind of tampering is found, at the line where it shows.
func TestVerifyFindsTampering(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "good.jsonl")
	write(t, good, 5)
	ls := lines(t, good)
	cases := []struct {
		name  string
		edit  func() [][]byte
		line  int
		words string
	}{
		{"edited field", func() [][]byte {
			c := clone(ls)
			c[2] = bytes.Replace(c[2], []byte(`"allow"`), []byte(`"deny"`), 1)
			return c
		}, 3, "the record was changed"},
		{"edited and rehashed", func() [][]byte {
			// A forger who recomputes the record's own hash still breaks
			// the next record's prev.
			c := clone(ls)
			c[1] = rehash(bytes.Replace(c[1], []byte(`"allow"`), []byte(`"deny"`), 1))
			return c
		}, 3, "prev is"},
		{"removed", func() [][]byte { c := clone(ls); return append(c[:2], c[3:]...) }, 3, "records 3 to 3 are missing"},
		{"swapped", func() [][]byte { c := clone(ls); c[1], c[2] = c[2], c[1]; return c }, 2, "missing"},
		{"repeated", func() [][]byte { c := clone(ls); return append(c[:3], c[2:]...) }, 4, "out of order or repeated"},
		{"cut at the start", func() [][]byte { return clone(ls)[1:] }, 1, "records 1 to 1 are missing"},
		// A torn line (a writer killed in its write) is passed; the chain
		// must go on across it from the record before it.
		{"torn, then a record that does not go on from the one before", func() [][]byte { c := clone(ls); c[2] = append(c[2][:20], '\n'); return c }, 4, "records 3 to 3 are missing"},
		{"a whole record, edited, at the end without its newline", func() [][]byte {
			c := clone(ls)
			c[4] = bytes.TrimSuffix(bytes.Replace(c[4], []byte(`"allow"`), []byte(`"deny"`), 1), []byte("\n"))
			return c
		}, 5, "the record was changed"},
		{"garbage", func() [][]byte { c := clone(ls); c[0] = []byte("hello\n"); return c }, 1, "not an audit record"},
	}
	for _, c := range cases {
		f := filepath.Join(dir, strings.ReplaceAll(c.name, " ", "_"))
		os.WriteFile(f, bytes.Join(c.edit(), nil), 0o600)
		_, err := verifyFile(t, f)
		var ve *VerifyError
		if !errors.As(err, &ve) || ve.Line != c.line || !strings.Contains(ve.Msg, c.words) {
			t.Errorf("%s: want line %d %q, got %v", c.name, c.line, c.words, err)
		}
	}
}

func clone(ls [][]byte) [][]byte {
	c := make([][]byte, len(ls))
	for i, l := range ls {
		c[i] = append([]byte{}, l...)
	}
	return c
}

// rehash recomputes a line's own hash, as a forger would.
func rehash(line []byte) []byte {
	line = bytes.TrimSuffix(line, []byte("\n"))
	m := hashTail.FindSubmatchIndex(line)
	body := append(append([]byte{}, line[:m[0]]...), '}')
	sum := sha256hex(body)
	return append(append(append(line[:m[0]:m[0]], `,"hash":"`...), sum...), "\"}\n"...)
}

// Two logs on one file, as two servers would have, interleave into one chain.
func TestTwoWritersOneChain(t *testing.T) {
	path := filepath.Join(t.TempDir(), "audit.jsonl")
	a, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	b, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for _, l := range []*Log{a, b, a, b} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 50; i++ {
				if err := l.Append(Entry{Kind: "outcome", Call: "x", Tool: "t", Outcome: "ok"}, i%5 == 0); err != nil {
					t.Error(err)
				}
			}
		}()
	}
	wg.Wait()
	a.Close()
	b.Close()
	s, err := verifyFile(t, path)
	if err != nil || s.Records != 200 {
		t.Fatalf("verify: %+v %v", s, err)
	}
}

// A writer killed in its write leaves a torn line (package doc): Verify
// passes it, and the next Open ends it with a newline, keeps it, and goes
// on from the last whole record; twice in a row too.
func TestTornLines(t *testing.T) {
	path := filepath.Join(t.TempDir(), "audit.jsonl")
	write(t, path, 2)
	tear := func(b string) {
		f, _ := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
		f.WriteString(b)
		f.Close()
	}
	tear(`{"seq":3,"ti`)
	if s, err := verifyFile(t, path); err != nil || s.Records != 2 || s.Torn != 1 {
		t.Fatalf("a torn last line: %+v %v", s, err)
	}
	before, _ := os.ReadFile(path)
	for round := 1; round <= 2; round++ {
		l, err := Open(path)
		if err != nil {
			t.Fatalf("open after a torn line: %v", err)
		}
		if err := l.Append(Entry{Kind: "outcome", Call: "x", Tool: "t", Outcome: "ok"}, true); err != nil {
			t.Fatal(err)
		}
		l.Close()
		tear(`{"seq":99,"time":"2026-12-05T10:00:00Z","prev":"`) // and torn again
	}
	after, _ := os.ReadFile(path)
	if !bytes.HasPrefix(after, append(before, '\n')) {
		t.Fatal("Open threw away or changed what the torn line held")
	}
	if s, err := verifyFile(t, path); err != nil || s.Records != 4 || s.Torn != 3 || s.LastSeq != 4 {
		t.Fatalf("verify: %+v %v", s, err)
	}
}

// A last line that is neither a record nor a torn one is refused, and
// left as it is.
func TestOpenRefusesALastLineThatIsNoRecord(t *testing.T) {
	path := filepath.Join(t.TempDir(), "audit.jsonl")
	write(t, path, 2)
	f, _ := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString("hello\n")
	f.Close()
	before, _ := os.ReadFile(path)
	_, err := Open(path)
	if err == nil || !strings.Contains(err.Error(), "not an audit record") || !strings.Contains(err.Error(), "audit verify") {
		t.Fatalf("want a refusal that says what to do, got %v", err)
	}
	if after, _ := os.ReadFile(path); !bytes.Equal(before, after) {
		t.Fatal("Open changed a damaged log")
	}
}

// A log someone else could change is refused, and left as it was: a
// symbolic link (to a file of the user's, which the log would be appended
// to), a file open to others, one in a directory others can write to
// that is not sticky, and one of another user's. One of the user's under
// a sticky directory open to all, as /tmp, is taken.
func TestOpenRefusesALogOthersCanChange(t *testing.T) {
	mk := func(t *testing.T) (dir, path string) {
		dir = filepath.Join(t.TempDir(), "logs")
		os.Mkdir(dir, 0o700)
		path = filepath.Join(dir, "audit.jsonl")
		write(t, path, 1)
		return dir, path
	}
	_, path := mk(t)
	os.Chmod(filepath.Dir(filepath.Dir(path)), 0o777|os.ModeSticky)
	if l, err := Open(path); err != nil {
		t.Fatalf("a log of one's own under a sticky directory: %v", err)
	} else {
		l.Close()
	}
	for _, c := range []struct {
		name, want string
		spoil      func(t *testing.T, dir, path string) string
	}{
		{"a link", "symbolic link", func(t *testing.T, dir, path string) string {
			link := filepath.Join(dir, "link.jsonl")
			os.Symlink(path, link)
			return link
		}},
		{"open to others", "can be written by others", func(t *testing.T, dir, path string) string {
			os.Chmod(path, 0o666)
			return path
		}},
		{"its directory open", "can be written by others", func(t *testing.T, dir, path string) string {
			os.Chmod(dir, 0o777)
			return path
		}},
		{"another user's", "belongs to user 65534", func(t *testing.T, dir, path string) string {
			if os.Geteuid() != 0 {
				t.Skip("giving a file to another user needs root (CI runs as root)")
			}
			os.Chown(path, 65534, 65534)
			return path
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir, path := mk(t)
			before, _ := os.ReadFile(path)
			open := c.spoil(t, dir, path)
			_, err := Open(open)
			if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "choose another [audit] path") {
				t.Fatalf("got %v, want %q", err, c.want)
			}
			if after, _ := os.ReadFile(path); !bytes.Equal(before, after) {
				t.Fatal("Open changed the file")
			}
		})
	}
}

func BenchmarkAppendDurable(b *testing.B) {
	l, err := Open(filepath.Join(b.TempDir(), "audit.jsonl"))
	if err != nil {
		b.Fatal(err)
	}
	defer l.Close()
	e := Entry{Kind: "decision", Call: "c", Tool: "debugpy_stack_trace", Category: "read", Decision: "allow",
		ArgumentsSHA256: strings.Repeat("ab", 32), Reasons: []string{"category: category read is allow"}, Modules: []string{"category"}}
	for i := 0; i < b.N; i++ {
		if err := l.Append(e, true); err != nil {
			b.Fatal(err)
		}
	}
}

func sha256hex(b []byte) string {
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// Records handed to AppendLater are written in the order handed over, among
// the durable ones, and Close writes every one before it returns.
func TestAppendLaterKeepsOrder(t *testing.T) {
	path := filepath.Join(t.TempDir(), "audit.jsonl")
	l, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for g := 0; g < 4; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 2*laterQueue/4+10; i++ { // more than the queue holds: some are written inline
				if i%50 == 0 {
					if err := l.Append(Entry{Kind: "decision", Call: fmt.Sprint(g, "-", i), Tool: "t", Decision: "allow"}, true); err != nil {
						t.Error(err)
					}
					continue
				}
				if err := l.AppendLater(Entry{Kind: "decision", Call: fmt.Sprint(g, "-", i), Tool: "t", Decision: "deny"}); err != nil {
					t.Error(err)
				}
			}
		}()
	}
	wg.Wait()
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	want := 4 * (2*laterQueue/4 + 10)
	s, err := verifyFile(t, path)
	if err != nil || s.Records != want {
		t.Fatalf("verify: %+v %v, want %d records", s, err, want)
	}
	// Each writer's records are in its order.
	next := map[string]int{}
	for _, line := range lines(t, path) {
		var g, i int
		var e Entry
		if err := json.Unmarshal(line, &e); err != nil {
			t.Fatal(err)
		}
		fmt.Sscanf(e.Call, "%d-%d", &g, &i)
		if k := fmt.Sprint(g); i != next[k] {
			t.Fatalf("writer %d: record %d after %d", g, i, next[k]-1)
		}
		next[fmt.Sprint(g)] = i + 1
	}
}

// A record handed over after Close is refused, not lost without a word.
func TestAppendLaterAfterClose(t *testing.T) {
	path := filepath.Join(t.TempDir(), "audit.jsonl")
	l, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := l.AppendLater(Entry{Kind: "decision", Call: "a", Tool: "t", Decision: "deny"}); err != nil {
		t.Fatal(err)
	}
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	if err := l.AppendLater(Entry{Kind: "decision", Call: "b", Tool: "t", Decision: "deny"}); err == nil || !strings.Contains(err.Error(), "closed") {
		t.Fatalf("AppendLater on a closed log: %v", err)
	}
	if err := l.Append(Entry{Kind: "decision", Call: "c", Tool: "t", Decision: "allow"}, true); err == nil {
		t.Fatal("Append on a closed log succeeded")
	}
	if s, err := verifyFile(t, path); err != nil || s.Records != 1 {
		t.Fatalf("verify: %+v %v", s, err)
	}
}

// FuzzVerify: any bytes are verified or refused, never a panic, and a log
// that verifies verifies the same again (TestVerifyFindsTampering has the
// edits it must catch).
func FuzzVerify(f *testing.F) {
	path := filepath.Join(f.TempDir(), "seed.jsonl")
	l, err := Open(path)
	if err != nil {
		f.Fatal(err)
	}
	for i := 0; i < 3; i++ {
		l.Append(Entry{Kind: "decision", Call: fmt.Sprint("c", i), Tool: "debugpy_threads", Decision: "allow"}, true)
	}
	l.Close()
	seed, err := os.ReadFile(path)
	if err != nil {
		f.Fatal(err)
	}
	f.Add(seed)
	f.Add([]byte(""))
	f.Add([]byte("{}\n"))
	f.Add([]byte("not json\n"))
	f.Add(append(append([]byte{}, seed...), `{"seq":4,"time":"2026`...))
	f.Fuzz(func(t *testing.T, b []byte) {
		s, err := Verify(bytes.NewReader(b))
		if err != nil {
			return
		}
		if again, err := Verify(bytes.NewReader(b)); err != nil || again != s {
			t.Fatalf("verified once, then %v %+v", err, again)
		}
	})
}

// FuzzWriterGoesOn: a log that verifies is one a writer goes on from (its
// torn last line ended, kept): one more record, still verified. (Apart
// from FuzzVerify: each input opens, writes and fsyncs a file; on tmpfs
// when there is one.)
func FuzzWriterGoesOn(f *testing.F) {
	path := filepath.Join(f.TempDir(), "seed.jsonl")
	write(f, path, 3)
	seed, err := os.ReadFile(path)
	if err != nil {
		f.Fatal(err)
	}
	f.Add(seed)
	f.Add([]byte(""))
	f.Add(append(append([]byte{}, seed...), `{"seq":4,"time":"2026`...))
	f.Add([]byte(`{"seq":1,"ti` + "\n" + `{"seq":1`))
	dir := f.TempDir()
	if d, err := os.MkdirTemp("/dev/shm", "audit-fuzz-"); err == nil {
		dir = d
		f.Cleanup(func() { os.RemoveAll(d) })
	}
	n := 0
	f.Fuzz(func(t *testing.T, b []byte) {
		s, err := Verify(bytes.NewReader(b))
		if err != nil {
			return
		}
		n++
		path := filepath.Join(dir, fmt.Sprint(n, ".jsonl"))
		defer os.Remove(path)
		os.WriteFile(path, b, 0o600)
		l, err := Open(path)
		if err != nil {
			t.Fatalf("verified, then Open: %v", err)
		}
		if err := l.Append(Entry{Kind: "outcome", Call: "x", Tool: "t", Outcome: "ok"}, true); err != nil {
			t.Fatal(err)
		}
		l.Close()
		after, _ := os.ReadFile(path)
		if next, err := Verify(bytes.NewReader(after)); err != nil || next.Records != s.Records+1 || next.Torn != s.Torn {
			t.Fatalf("verified %+v, then after one more record %+v %v", s, next, err)
		}
	})
}
