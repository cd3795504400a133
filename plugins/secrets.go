package plugins

import (
	"slices"
	"strings"
	"sync"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/debugpy-guard/debugpy-guard/internal/pyrepr"
)

// Secrets are the values each MCP session has seen under a secret's name,
// handed to the host by modules (guard.secret, plugins/ABI.md). The host
// masks every one of them, in every form, in every result of every tool of
// that session, after every module: a value a module recognised once is
// never shown again, whatever name or route it comes back by.
type Secrets struct {
	mu       sync.Mutex
	sessions map[string]*secretSet
}

type secretSet struct {
	values map[string]bool
	masker *Masker // nil until built, and after a change
}

// Masker masks one session's secrets. It is immutable: safe for concurrent
// use, and cheap to ask first whether there is anything to mask.
type Masker struct {
	replacer *strings.Replacer
	// first two bytes of every form: a bit each, so that a scan skips most
	// positions of a text with one test.
	pairs [1 << 16 / 64]uint64
	forms []string
}

// In reports whether any form of any secret occurs in b.
func (m *Masker) In(b []byte) bool { return in(m, b) }

// InString is In for a string.
func (m *Masker) InString(s string) bool { return in(m, s) }

func in[T string | []byte](m *Masker, b T) bool {
	for i := 0; i+1 < len(b); i++ {
		p := uint16(b[i])<<8 | uint16(b[i+1])
		if m.pairs[p>>6]&(1<<(p&63)) == 0 {
			continue
		}
		for _, f := range m.forms {
			if len(b)-i >= len(f) && string(b[i:i+len(f)]) == f {
				return true
			}
		}
	}
	return false
}

// Replace masks every form of every secret in s.
func (m *Masker) Replace(s string) string { return m.replacer.Replace(s) }

// Bounds: a secret shorter than MinSecret would mask common words; a set
// holds at most maxSecrets values of at most maxSecretLen bytes.
const (
	MinSecret    = 4
	maxSecretLen = 4 << 10
	maxSecrets   = 4096
)

// Mask is what a secret is replaced with.
const Mask = "[redacted]"

// NewSecrets makes an empty store.
func NewSecrets() *Secrets { return &Secrets{sessions: map[string]*secretSet{}} }

// Add adds a value the session has seen under a secret's name. It reports
// whether the value is kept (not too short, too long, or one too many).
func (s *Secrets) Add(session, value string) bool {
	if utf8.RuneCountInString(value) < MinSecret || len(value) > maxSecretLen || strings.TrimSpace(value) == "" || strings.Contains(Mask, value) {
		return false
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	set := s.sessions[session]
	if set == nil {
		set = &secretSet{values: map[string]bool{}}
		s.sessions[session] = set
	}
	if set.values[value] {
		return true
	}
	if len(set.values) >= maxSecrets {
		return false
	}
	set.values[value] = true
	set.masker = nil
	return true
}

// Masker returns the session's masker, or nil when it has no secrets.
func (s *Secrets) Masker(session string) *Masker {
	s.mu.Lock()
	defer s.mu.Unlock()
	set := s.sessions[session]
	if set == nil || len(set.values) == 0 {
		return nil
	}
	if set.masker == nil {
		m := &Masker{}
		var pairs []string
		for v := range set.values {
			for _, f := range forms(v) {
				pairs = append(pairs, f, Mask)
				m.forms = append(m.forms, f)
				p := uint16(f[0])<<8 | uint16(f[1])
				m.pairs[p>>6] |= 1 << (p & 63)
			}
		}
		m.replacer = strings.NewReplacer(pairs...)
		set.masker = m
	}
	return set.masker
}

// forms are the spellings of a value a result may carry it in: as it is;
// inside the quotes of Python's repr, single- or double-quoted (a listing
// or an evaluate shows a str so; a backslash, a tab, a no-break space are
// escaped there); inside the quotes of a JSON string as Go's encoding/json
// and Python's json.dumps write it (a program's JSON output); and each of
// those reversed. pyrepr's tests hold repr's spelling to CPython's,
// TestFormsAgreeWithCPython the JSON ones to json.dumps and encoding/json.
func forms(v string) []string {
	out := []string{v}
	add := func(f string) {
		if utf8.RuneCountInString(f) >= MinSecret && !slices.Contains(out, f) {
			out = append(out, f)
		}
	}
	add(pyrepr.Body(v, '\''))
	add(pyrepr.Body(v, '"'))
	add(jsonInner(v, false))
	add(jsonInner(v, true))
	for _, f := range slices.Clone(out) {
		add(reverse(f))
	}
	return out
}

func reverse(s string) string {
	r := []rune(s)
	slices.Reverse(r)
	return string(r)
}

// jsonInner is a JSON string's encoding of s without its quotes: as Go's
// encoding/json writes it, or (ascii) as Python's json.dumps does by
// default, every character past ASCII as \uhhhh (a pair of them past the
// first plane).
func jsonInner(s string, ascii bool) string {
	var b strings.Builder
	for _, r := range s {
		switch {
		case r == '"' || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r == '\t':
			b.WriteString(`\t`)
		case r == '\b':
			b.WriteString(`\b`)
		case r == '\f':
			b.WriteString(`\f`)
		case r < 0x20, ascii && r >= 0x7f && r < 0x10000,
			!ascii && (r == '<' || r == '>' || r == '&' || r == 0x2028 || r == 0x2029):
			b.WriteString(`\u`)
			pyrepr.Hex(&b, uint32(r), 4)
		case ascii && r >= 0x10000:
			hi, lo := utf16.EncodeRune(r)
			b.WriteString(`\u`)
			pyrepr.Hex(&b, uint32(hi), 4)
			b.WriteString(`\u`)
			pyrepr.Hex(&b, uint32(lo), 4)
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}
