package dap

import "sync"

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
}

// NewOutput makes a buffer of at most maxEntries entries and maxBytes bytes.
func NewOutput(maxEntries, maxBytes int) *Output {
	return &Output{maxN: maxEntries, maxBytes: maxBytes, next: 1}
}

// Add appends text.
func (o *Output) Add(category, text string) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if len(text) > o.maxBytes {
		text = text[len(text)-o.maxBytes:]
	}
	o.entries = append(o.entries, OutputEntry{Cursor: o.next, Category: category, Text: text})
	o.next++
	o.bytes += len(text)
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
	return entries, next, dropped
}
