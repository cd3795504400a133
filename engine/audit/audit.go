// Package audit is the audit log of debugpy-guard: append-only JSONL whose
// records are hash-chained, so that Verify finds any edit, gap or
// reordering.
//
// Every line is one JSON object: seq (1, 2, ...), time, prev (the hash of the
// record before, "" for the first), the entry's fields, and last hash: the
// SHA-256, in hex, of the line's bytes up to hash, with the object closed
// there. That is, for a line
//
//	{"seq":2,"time":"…","prev":"9f…",…,"hash":"c3…"}
//
// hash = sha256(`{"seq":2,"time":"…","prev":"9f…",…}`). prev is inside what is
// hashed, so each hash covers the whole chain before it.
//
// Several processes may append to one file: each append takes an exclusive
// flock, re-reads the last record when another process wrote since, and
// writes its lines with one write(2) on an O_APPEND file.
//
// A process killed in that write can leave its last line cut (Linux stops
// a write to a file between pages when the writer gets SIGKILL: a 60 KB
// burst was cut in 43 of 100 kills). Such a line is torn: a record's
// start, `{"seq":`, without the hash that ends a whole record. No call ran
// on it (a call that runs waits for its record to be on disk; a denied
// one runs nothing). The next writer ends the torn line with a newline,
// throwing nothing away, and chains its records to the last whole one;
// Verify counts torn lines and checks that the chain goes on across them.
package audit

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"sync"
	"syscall"
	"time"

	"github.com/debugpy-guard/debugpy-guard/internal/owndir"
)

// Entry is what a record says about a call. Kind is "decision" (written and
// fsynced before the tool runs) or "outcome" (after it).
type Entry struct {
	Kind            string          `json:"kind"`
	Call            string          `json:"call"`
	Session         string          `json:"session,omitempty"`
	Client          string          `json:"client,omitempty"`
	Tool            string          `json:"tool"`
	Category        string          `json:"category,omitempty"`
	ArgumentsSHA256 string          `json:"arguments_sha256,omitempty"`
	Arguments       json.RawMessage `json:"arguments,omitempty"`
	Decision        string          `json:"decision,omitempty"`
	Reasons         []string        `json:"reasons,omitempty"`
	Modules         []string        `json:"modules,omitempty"`
	Monitor         []Verdict       `json:"monitor,omitempty"` // what the modules in monitor mode said
	Approval        *Approval       `json:"approval,omitempty"`
	Outcome         string          `json:"outcome,omitempty"`
	Error           string          `json:"error,omitempty"`
	DurationMS      float64         `json:"duration_ms,omitempty"`
}

// Verdict is one module's answer.
type Verdict struct {
	Module  string `json:"module"`
	Verdict string `json:"verdict"`
	Reason  string `json:"reason,omitempty"`
}

// Approval is how a call that needed a person went.
type Approval struct {
	ID      string `json:"id,omitempty"`
	Channel string `json:"channel"` // elicitation | cli | none
	State   string `json:"state"`   // pending, approved, denied, declined, cancelled, timed out, failed
}

// record is a line without its hash.
type record struct {
	Seq  uint64 `json:"seq"`
	Time string `json:"time"`
	Prev string `json:"prev"`
	Entry
}

// Log is an open audit log. It is safe for concurrent use.
type Log struct {
	path string

	mu    sync.Mutex
	f     *os.File
	seq   uint64 // of the last record in the file
	prev  string // its hash
	size  int64  // the file's size after our last write
	dirty bool   // written but not fsynced
	kick  chan struct{}
	done  chan struct{}
	err   error // a failed background write or fsync, reported by the next Append and by Close

	// Records handed over with AppendLater and not yet written. pmu is
	// never held across a write, so that handing one over never waits for
	// a disk.
	pmu     sync.Mutex
	pending []timed
	spare   []timed // the last batch written, emptied: the next pending's room
	closed  bool

	buf []byte // write's, kept between writes
}

// timed is an entry and when it was made.
type timed struct {
	at time.Time
	e  Entry
}

// laterQueue bounds the records waiting for the syncer; past it,
// AppendLater writes them itself.
const laterQueue = 4096

// SyncWithin bounds how long a record written without durable waits for
// its fsync: the records of a burst share one.
const SyncWithin = 50 * time.Millisecond

// DefaultPath is $XDG_STATE_HOME/debugpy-guard/audit.jsonl, else
// ~/.local/state/debugpy-guard/audit.jsonl.
func DefaultPath() (string, error) {
	if d := os.Getenv("XDG_STATE_HOME"); d != "" {
		return filepath.Join(d, "debugpy-guard", "audit.jsonl"), nil
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return "", fmt.Errorf("audit: no home directory for the default log path (set [audit] path): %w", err)
	}
	return filepath.Join(home, ".local", "state", "debugpy-guard", "audit.jsonl"), nil
}

// Open opens path for appending, creating it (0600, in a 0700 directory)
// when needed. A torn last line is ended with a newline and kept (package
// doc); a file whose last line is neither a record nor a torn one is
// refused, not repaired: nothing in an audit log is thrown away. So is a
// log that someone else could change (owndir.File): a symbolic link, a
// file of another user's or open to others, or one in a directory others
// can write to that is not sticky.
func Open(path string) (*Log, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, fmt.Errorf("audit log %s: %w", path, err)
	}
	f, err := os.OpenFile(path, os.O_RDWR|os.O_APPEND|os.O_CREATE|syscall.O_NOFOLLOW, 0o600)
	if errors.Is(err, syscall.ELOOP) {
		err = errors.New("it is a symbolic link: name the file itself")
	}
	if err == nil {
		if err = owndir.File(f); err != nil {
			f.Close()
		}
	}
	if err != nil {
		return nil, fmt.Errorf("audit log %s: %w (the log must be a file that no one else can change: choose another [audit] path)", path, err)
	}
	l := &Log{path: path, f: f, kick: make(chan struct{}, 1), done: make(chan struct{})}
	if err := l.lock(); err != nil {
		f.Close()
		return nil, err
	}
	err = l.readTail()
	l.unlock()
	if err != nil {
		f.Close()
		return nil, err
	}
	go l.syncer()
	return l, nil
}

// Path is the log's file.
func (l *Log) Path() string { return l.path }

func (l *Log) lock() error {
	if err := syscall.Flock(int(l.f.Fd()), syscall.LOCK_EX); err != nil {
		return fmt.Errorf("audit log %s: lock: %w", l.path, err)
	}
	return nil
}

func (l *Log) unlock() { syscall.Flock(int(l.f.Fd()), syscall.LOCK_UN) }

// readTail sets seq, prev and size from the file's last whole record,
// past torn lines (it ends a torn last line). The flock is held.
func (l *Log) readTail() error {
	fi, err := l.f.Stat()
	if err != nil {
		return fmt.Errorf("audit log %s: %w", l.path, err)
	}
	l.size = fi.Size()
	if l.size == 0 {
		l.seq, l.prev = 0, ""
		return nil
	}
	var one [1]byte
	if _, err := l.f.ReadAt(one[:], l.size-1); err != nil {
		return fmt.Errorf("audit log %s: %w", l.path, err)
	}
	if one[0] != '\n' { // a torn line, its writer killed: ended, and left
		if _, err := l.f.Write([]byte{'\n'}); err != nil {
			return fmt.Errorf("audit log %s: end a torn line: %w", l.path, err)
		}
		l.size++
	}
	for end := l.size - 1; ; {
		line, start, err := lineBefore(l.f, end)
		if err != nil {
			return fmt.Errorf("audit log %s: %w", l.path, err)
		}
		if !torn(line) {
			var r struct {
				Seq  uint64 `json:"seq"`
				Hash string `json:"hash"`
			}
			if err := json.Unmarshal(line, &r); err != nil || r.Seq == 0 || !hexHash.MatchString(r.Hash) {
				return fmt.Errorf("audit log %s: the last line is not an audit record: check it with `debugpy-guard audit verify %s`, then move the file aside to start a new log", l.path, l.path)
			}
			l.seq, l.prev = r.Seq, r.Hash
			return nil
		}
		if start == 0 { // torn lines only
			l.seq, l.prev = 0, ""
			return nil
		}
		end = start - 1
	}
}

// torn reports whether line is a record cut while it was written: its
// start, without the hash that ends a whole one (package doc).
func torn(line []byte) bool {
	return bytes.HasPrefix(line, []byte(`{"seq":`)) && hashTail.Find(line) == nil
}

// lineBefore returns the line of f that ends at end (its newline's
// offset), and where it starts.
func lineBefore(f *os.File, end int64) ([]byte, int64, error) {
	for chunk := int64(4096); ; chunk *= 2 {
		start := max(end-chunk, 0)
		buf := make([]byte, end-start)
		if _, err := f.ReadAt(buf, start); err != nil && err != io.EOF {
			return nil, 0, err
		}
		if i := bytes.LastIndexByte(buf, '\n'); i >= 0 {
			return buf[i+1:], start + int64(i) + 1, nil
		}
		if start == 0 {
			return buf, 0, nil
		}
	}
}

var hexHash = regexp.MustCompile(`^[0-9a-f]{64}$`)

// Append writes e as the next record, after every record handed to
// AppendLater before it. With durable, it returns once the records are on
// disk; without, they are written at once and made durable within
// SyncWithin, or by the next durable Append, or by Close.
func (l *Log) Append(e Entry, durable bool) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.f == nil {
		return fmt.Errorf("audit log %s: closed", l.path)
	}
	if l.err != nil {
		err := l.err
		l.err = nil
		return err
	}
	p := append(l.takePending(), timed{time.Now(), e})
	err := l.write(p)
	l.recycle(p)
	if err != nil {
		return err
	}
	if durable {
		if err := l.f.Sync(); err != nil {
			return fmt.Errorf("audit log %s: fsync: %w", l.path, err)
		}
		l.dirty = false
		return nil
	}
	l.markDirty()
	return nil
}

// AppendLater hands e over and returns at once, without a write or a
// wait for a disk: the syncer writes the records handed over within
// SyncWithin, in the order handed over, as whole lines, and fsyncs them
// (group commit: a burst costs one write and one fsync); an Append writes
// them before its own record; Close writes them before it closes. It is
// for the records of a call that runs nothing (denied, hidden, held for
// approval): the call is answered first (RATIONALE.md, "Audit"). A SIGKILL
// can lose the records of the last SyncWithin, never break the chain. A
// failure to write is reported by the next Append and by Close; only a
// closed log is reported here.
func (l *Log) AppendLater(e Entry) error {
	l.pmu.Lock()
	if l.closed {
		l.pmu.Unlock()
		return fmt.Errorf("audit log %s: closed", l.path)
	}
	l.pending = append(l.pending, timed{time.Now(), e})
	n := len(l.pending)
	l.pmu.Unlock()
	switch {
	case n == 1: // the first since the last write: the syncer's turn
		select {
		case l.kick <- struct{}{}:
		default:
		}
	case n >= laterQueue: // the syncer is behind: this call writes
		l.flush()
	}
	return nil
}

func (l *Log) takePending() []timed {
	l.pmu.Lock()
	defer l.pmu.Unlock()
	p := l.pending
	l.pending, l.spare = l.spare, nil
	return p
}

// recycle keeps p, a batch written, as the room of a later one: a burst's
// slice is not grown again from nothing at each SyncWithin (two entries of
// ~0.5 KB a denied call; docs/PERFORMANCE.md).
func (l *Log) recycle(p []timed) {
	clear(p) // its entries' strings and slices are garbage now
	l.pmu.Lock()
	defer l.pmu.Unlock()
	if l.spare == nil && cap(p) <= laterQueue {
		l.spare = p[:0]
	}
}

// flush writes the records handed over so far.
func (l *Log) flush() {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.writePending() {
		l.markDirty()
	}
}

// writePending writes the records handed over so far, and reports whether
// it wrote any. l.mu is held.
func (l *Log) writePending() bool {
	p := l.takePending()
	if len(p) == 0 || l.f == nil {
		return false
	}
	err := l.write(p)
	l.recycle(p)
	if err != nil {
		if l.err == nil {
			l.err = err
		}
		return false
	}
	return true
}

// markDirty marks what was written as waiting for the syncer's fsync.
func (l *Log) markDirty() {
	l.dirty = true
	select {
	case l.kick <- struct{}{}:
	default:
	}
}

// write appends es as the next records, in one write of whole lines, under
// the file lock. l.mu is held.
func (l *Log) write(es []timed) error {
	if err := l.lock(); err != nil {
		return err
	}
	defer l.unlock()
	if fi, err := l.f.Stat(); err != nil {
		return fmt.Errorf("audit log %s: %w", l.path, err)
	} else if fi.Size() != l.size {
		// Another process appended since our last write.
		if err := l.readTail(); err != nil {
			return err
		}
	}
	seq, prev := l.seq, l.prev
	lines := l.buf[:0]
	for i := range es {
		rec := record{Seq: seq + 1, Time: es[i].at.UTC().Format(time.RFC3339Nano), Prev: prev, Entry: es[i].e}
		start := len(lines)
		var err error
		if lines, err = appendRecord(lines, &rec); err != nil {
			return fmt.Errorf("audit log %s: encode: %w", l.path, err)
		}
		sum := sha256.Sum256(lines[start:])
		hash := hex.EncodeToString(sum[:])
		lines = append(lines[:len(lines)-1], `,"hash":"`...) // the record's '}' goes after its hash
		lines = append(lines, hash...)
		lines = append(lines, "\"}\n"...)
		seq, prev = rec.Seq, hash
	}
	if _, err := l.f.Write(lines); err != nil {
		return fmt.Errorf("audit log %s: write: %w", l.path, err)
	}
	l.seq, l.prev, l.size = seq, prev, l.size+int64(len(lines))
	if cap(lines) <= 1<<20 {
		l.buf = lines // kept, unless a burst made it large
	}
	return nil
}

// syncer fsyncs records written without durable, a little after them, so
// that a burst costs one fsync.
func (l *Log) syncer() {
	defer close(l.done)
	for range l.kick {
		time.Sleep(SyncWithin)
		l.mu.Lock()
		if l.writePending() { // the records handed to AppendLater
			l.dirty = true
		}
		if l.dirty && l.f != nil {
			if err := l.f.Sync(); err != nil && l.err == nil {
				l.err = fmt.Errorf("audit log %s: fsync: %w", l.path, err)
			}
			l.dirty = false
		}
		l.mu.Unlock()
	}
}

// Close writes the records handed to AppendLater, fsyncs and closes the
// log. It reports a write or fsync that failed in the background.
func (l *Log) Close() error {
	l.pmu.Lock()
	l.closed = true
	l.pmu.Unlock()
	l.mu.Lock()
	if l.f == nil {
		l.mu.Unlock()
		return nil
	}
	err := l.err
	if p := l.takePending(); len(p) > 0 {
		if werr := l.write(p); err == nil {
			err = werr
		}
	}
	if serr := l.f.Sync(); err == nil && serr != nil {
		err = fmt.Errorf("audit log %s: fsync: %w", l.path, serr)
	}
	if cerr := l.f.Close(); err == nil {
		err = cerr
	}
	l.f = nil
	close(l.kick)
	l.mu.Unlock()
	<-l.done
	return err
}

// VerifyError is the first bad record Verify found.
type VerifyError struct {
	Line int // 1-based
	Msg  string
}

func (e *VerifyError) Error() string { return fmt.Sprintf("line %d: %s", e.Line, e.Msg) }

// Summary is what Verify read.
type Summary struct {
	Records  int
	LastSeq  uint64
	LastHash string // anchor it elsewhere to detect a cut at the end
	Torn     int    // lines cut while they were written, their writer killed (package doc)
}

// Verify checks every record of r: that it is whole JSON, that seq counts up
// from 1 without a gap, that prev is the hash of the record before, and that
// hash is the SHA-256 of the record. A torn line (package doc) is counted
// and passed: the record after it must go on from the record before it. It
// stops at the first bad record.
func Verify(r io.Reader) (Summary, error) {
	var s Summary
	br := bufio.NewReaderSize(r, 64<<10)
	for n := 1; ; n++ {
		line, err := br.ReadBytes('\n')
		if len(line) == 0 && err == io.EOF {
			return s, nil
		}
		if err != nil && err != io.EOF {
			return s, err
		}
		line = bytes.TrimSuffix(line, []byte{'\n'})
		if torn(line) {
			s.Torn++
			continue
		}
		if err := check(line, &s); err != nil {
			return s, &VerifyError{n, err.Error()}
		}
	}
}

var hashTail = regexp.MustCompile(`,"hash":"([0-9a-f]{64})"\}$`)

func check(line []byte, s *Summary) error {
	m := hashTail.FindSubmatchIndex(line)
	if m == nil {
		return errors.New(`not an audit record: no "hash" member at the end`)
	}
	body := append(append([]byte{}, line[:m[0]]...), '}')
	var rec struct {
		Seq  *uint64 `json:"seq"`
		Prev *string `json:"prev"`
		Time string  `json:"time"`
	}
	if err := json.Unmarshal(line, &rec); err != nil {
		return fmt.Errorf("not valid JSON: %v", err)
	}
	if rec.Seq == nil || rec.Prev == nil {
		return errors.New("not an audit record: seq or prev missing")
	}
	want := s.LastSeq + 1
	switch {
	case *rec.Seq != want && *rec.Seq > want:
		return fmt.Errorf("seq %d follows %d: records %d to %d are missing", *rec.Seq, s.LastSeq, want, *rec.Seq-1)
	case *rec.Seq != want:
		return fmt.Errorf("seq %d follows %d: the records are out of order or repeated", *rec.Seq, s.LastSeq)
	case *rec.Prev != s.LastHash:
		return fmt.Errorf("seq %d: prev is %q, but the record before has hash %q: a record before it was changed, removed or moved", *rec.Seq, *rec.Prev, s.LastHash)
	}
	if _, err := time.Parse(time.RFC3339Nano, rec.Time); err != nil {
		return fmt.Errorf("seq %d: bad time %q", *rec.Seq, rec.Time)
	}
	sum := sha256.Sum256(body)
	hash := string(line[m[2]:m[3]])
	if hex.EncodeToString(sum[:]) != hash {
		return fmt.Errorf("seq %d: the hash does not match the record: the record was changed", *rec.Seq)
	}
	s.Records++
	s.LastSeq, s.LastHash = *rec.Seq, hash
	return nil
}
