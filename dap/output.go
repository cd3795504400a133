package dap

import (
	"strings"
	"sync"
)

const (
	defaultOutputEntries = 4096
	defaultOutputBytes   = 1 << 20
)

// OutputEntry is one chunk of program output.
type OutputEntry struct {
	Cursor   uint64 `json:"cursor"`
	Category string `json:"category"` // stdout, stderr, console, important
	Text     string `json:"text"`
}

// Output is a bounded buffer of program output, read with a cursor: each
// entry has a cursor one larger than the one before, and the oldest entries
// are dropped when the buffer is over its entry or byte limit.
type Output struct {
	mu       sync.Mutex
	entries  []OutputEntry
	bytes    int
	next     uint64
	maxN     int
	maxBytes int
	read     uint64 // the last cursor a Read has gone past: that entry is sealed
}

// maxJoined bounds an entry that pieces of one line were joined into.
const maxJoined = 64 << 10

// NewOutput makes a buffer of at most maxEntries entries and maxBytes bytes.
func NewOutput(maxEntries, maxBytes int) *Output {
	return &Output{maxN: maxEntries, maxBytes: maxBytes, next: 1}
}

// Add appends text. debugpy sends one print as several output events,
// cut anywhere: a piece of the same category is joined to the entry before
// it while that entry's line is open (no newline yet) and no Read has gone
// past it, so that lines read whole, and a secret that the host masks is
// not cut in two.
func (o *Output) Add(category, text string) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if len(text) > o.maxBytes {
		text = text[len(text)-o.maxBytes:]
	}
	if n := len(o.entries); n > 0 {
		last := &o.entries[n-1]
		if last.Category == category && !strings.HasSuffix(last.Text, "\n") && last.Cursor > o.read && len(last.Text)+len(text) <= maxJoined {
			last.Text += text
			o.bytes += len(text)
			o.trim()
			return
		}
	}
	o.entries = append(o.entries, OutputEntry{Cursor: o.next, Category: category, Text: text})
	o.next++
	o.bytes += len(text)
	o.trim()
}

func (o *Output) trim() {
	for len(o.entries) > o.maxN || o.bytes > o.maxBytes {
		o.bytes -= len(o.entries[0].Text)
		o.entries[0] = OutputEntry{}
		o.entries = o.entries[1:]
	}
}

// Next is the cursor the next entry will get: read from it to see only
// what comes after now.
func (o *Output) Next() uint64 {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.next
}

// Read returns up to max entries (0 = all) with a cursor of at least since,
// of category when it is not empty. next is the cursor to pass on the next
// read; dropped counts entries at or after since that the buffer already
// discarded.
func (o *Output) Read(since uint64, category string, max int) (entries []OutputEntry, next uint64, dropped uint64) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if since == 0 {
		since = 1
	}
	next = since
	if len(o.entries) > 0 && o.entries[0].Cursor > since {
		dropped = o.entries[0].Cursor - since
	}
	full := false
	for _, e := range o.entries {
		if e.Cursor < since {
			continue
		}
		if max > 0 && len(entries) >= max {
			full = true
			break
		}
		next = e.Cursor + 1
		if category == "" || e.Category == category {
			entries = append(entries, e)
		}
	}
	if !full && o.next > next {
		next = o.next
	}
	if next-1 > o.read {
		o.read = next - 1
	}
	return entries, next, dropped
}

// Before returns, for each category of cats, the text of that category
// written before cursor since: the last max bytes of it, from a line's
// start (the text of one line longer than max is cut at its start), in the
// order of cats; a category with nothing before since is left out. The
// policies that mask results read a read's entries with what they
// continue: a table's header above its rows, a YAML key above its block.
//
// Called after the Read it goes with, it sees what that Read's entries
// continue: a Read seals every entry before its next (none is joined to
// again), and the bound only drops the oldest.
func (o *Output) Before(since uint64, cats []string, max int) []OutputEntry {
	o.mu.Lock()
	defer o.mu.Unlock()
	var out []OutputEntry
	for _, c := range cats {
		var parts []string // the category's entries before since, last first
		n := 0
		for i := len(o.entries) - 1; i >= 0 && n < max; i-- {
			if e := o.entries[i]; e.Cursor < since && e.Category == c {
				parts = append(parts, e.Text)
				n += len(e.Text)
			}
		}
		if n == 0 {
			continue
		}
		var b strings.Builder
		b.Grow(n)
		for i := len(parts) - 1; i >= 0; i-- {
			b.WriteString(parts[i])
		}
		text := b.String()
		if len(text) > max {
			text = text[len(text)-max:]
			if nl := strings.IndexByte(text, '\n'); nl >= 0 && nl < len(text)-1 {
				text = text[nl+1:]
			}
		}
		out = append(out, OutputEntry{Cursor: since, Category: c, Text: text})
	}
	return out
}
