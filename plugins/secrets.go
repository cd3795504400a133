package plugins

import (
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"unicode/utf16"
	"unicode/utf8"
	"unsafe"

	"github.com/debugpy-guard/debugpy-guard/internal/percent"
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
	// where the forms occur in a text (match.go); and the values, in the
	// percent-decoded reading only, made the first time one is read
	formsAt    *index
	valuesOnce sync.Once
	valuesAt   *index
	// beside a cut (cutPieces): the forms without "..." (pieces) and the
	// forms with one, made the first time a text has a cut; and the
	// values, for the percent-decoded reading's cuts (viewCuts)
	cutOnce      sync.Once
	pieces       *ends
	cutForms     []string
	valueCutOnce sync.Once
	valuePieces  *ends
	// every minPiece bytes of every form: whether a cut's neighbours can
	// be a piece of one (cutPieces).
	triples triples
	forms   []string
	// the values themselves, for the percent-encoded view (percentSpans),
	// and whether one holds a space (which a form's encoding writes as +)
	values []string
	spaced bool
	// the separators some value holds, and every minPiece bytes of every
	// value (sequence.go), made on first use
	sequenceOnce sync.Once
	seps         []string
	valueTriples triples
}

// In reports whether any form of any secret occurs in b, whole or in a
// piece beside a cut (cutPieces).
func (m *Masker) In(b []byte) bool {
	return m.InString(unsafe.String(unsafe.SliceData(b), len(b))) // read here only, never kept
}

// InString is In for a string.
func (m *Masker) InString(s string) bool {
	found := false
	m.formsAt.find(s, func(int, string) bool { found = true; return false })
	if !found {
		m.cutPieces(s, func(int, int) { found = true })
	}
	if !found {
		m.percentSpans(s, func(int, int) { found = true })
	}
	if !found {
		m.unwrappedSpans(s, func(int, int) { found = true })
	}
	if !found {
		found = m.InSequence(s)
	}
	if !found {
		m.seriesSpans(s, func(int, int) { found = true })
	}
	return found
}

// Replace masks every form of every secret in s, and every piece of one
// beside a cut. Every place a form stands is masked, the spans of forms
// that hold or overlap one another joined: a strings.Replacer took the
// first form in its arguments' order that matched at a place, so of a
// secret and a piece of it (a number's ends learned from a cut, then the
// number), the piece could win and leave the rest of the number shown.
func (m *Masker) Replace(s string) string {
	var spans [][2]int
	m.formsAt.find(s, func(at int, f string) bool { spans = append(spans, [2]int{at, at + len(f)}); return true })
	m.cutPieces(s, func(from, to int) { spans = append(spans, [2]int{from, to}) })
	m.percentSpans(s, func(from, to int) { spans = append(spans, [2]int{from, to}) })
	m.unwrappedSpans(s, func(from, to int) { spans = append(spans, [2]int{from, to}) })
	m.sequenceSpans(s, func(from, to int) { spans = append(spans, [2]int{from, to}) })
	m.seriesSpans(s, func(from, to int) { spans = append(spans, [2]int{from, to}) })
	if spans == nil {
		return s
	}
	slices.SortFunc(spans, func(a, b [2]int) int { return a[0] - b[0] })
	var b strings.Builder
	at := 0
	for _, sp := range spans { // a span that overlaps the one before is joined to it
		if sp[1] <= at {
			continue
		}
		sp[0] = max(sp[0], at)
		b.WriteString(s[at:sp[0]])
		b.WriteString(Mask)
		at = sp[1]
	}
	b.WriteString(s[at:])
	return b.String()
}

// A value cut short. pydevd shows a long string as its first two thirds
// and its last third with "..." between them (past 30 characters inside
// a container, past 2**16 at the top: _pydevd_bundle/pydevd_safe_repr.py),
// and another object's repr inside a container the same way. A secret the
// cut falls in shows a beginning of it before the "..." and an end of it
// after, which no whole form matches: ['yyyyyyyyyyyyyyyyyyyy...7Lm-s3cret']
// is the list ['y'*30 + secret]. So each "..." is a cut: the longest end
// of the text before it that begins a form (minPiece bytes or more) is
// masked, and the longest start of the text after it that ends one.
// Fewer than minPiece bytes are left (a "..." in prose would lose its
// neighbours to every secret that begins with their letter).
const (
	cut      = "..."
	minPiece = 3
)

// CutShort reports whether shown, a value as debugpy showed it, may be cut
// short: what it does not show may hold a secret (derived.cut). debugpy
// cuts a value with "...", and shows a long iterable it has no display for
// (a bytearray of more than 15 bytes) by its type and length alone:
// <bytearray, len() = 20>.
// A display that holds one (a list of such bytearrays) is cut short too.
func CutShort(shown string) bool {
	return strings.Contains(shown, cut) || strings.Contains(shown, byLength)
}

// byLength is what debugpy writes between a long iterable's type and its
// length.
const byLength = ", len() = "

// ShownByLength reports whether shown is how debugpy shows a long iterable
// it has no display for, by its type and length alone, and the length it
// shows: <bytearray, len() = 20> (in hex, 0x14, when asked for hex).
func ShownByLength(shown string) (length int64, ok bool) {
	inner, ok := strings.CutPrefix(shown, "<")
	if !ok {
		return 0, false
	}
	if inner, ok = strings.CutSuffix(inner, ">"); !ok {
		return 0, false
	}
	typ, n, ok := strings.Cut(inner, byLength)
	if !ok || typ == "" {
		return 0, false
	}
	length, err := strconv.ParseInt(n, 0, 64)
	return length, err == nil && length >= 0
}

// cutPieces calls each with the span of every piece of a form beside a
// cut in s, in order.
func (m *Masker) cutPieces(s string, each func(from, to int)) {
	prev := -1 // where the last cut began
	for i := strings.Index(s, cut); i >= 0; {
		next := strings.Index(s[i+1:], cut)
		if next >= 0 {
			next += i + 1
		}
		if n := m.before(s, prev, i); n > 0 {
			each(i-n, i)
		} else if i > 0 && (s[i-1] == '\'' || s[i-1] == '"') {
			// a repr of a value's first characters, cut after its
			// closing quote: minidom's <DOM Text node "'QvU7domaa9'...">
			// (found 2026-12-08)
			if n := m.before(s, prev, i-1); n > 0 {
				each(i-1-n, i-1)
			}
		}
		end := len(s)
		if next >= 0 {
			end = next + len(cut) - 1
		}
		if n := m.after(s, i+len(cut), end); n > 0 {
			each(i+len(cut), i+len(cut)+n)
		} else if n := m.middle(s, i+len(cut)); n > 0 {
			each(i+len(cut), i+len(cut)+n)
		}
		prev, i = i, next
	}
}

// maxMiddle bounds the text middle reads after a cut: pydevd shows a
// repr inside a container as its first 20 characters and its last 10, so a
// middle is at most 10 characters (escaped, 40 bytes); and a read of every
// cut's next 256 bytes cost a listing of cut strings 10% (docs/PERFORMANCE.md).
const maxMiddle = 48

// middle is the length of the text at s[j:], just after a cut, up to a
// quote that a cut follows, when it is a part (minPiece bytes or more) of a
// form, or 0: pydevd's cut, inside a container, of a repr of a value's
// first characters that is cut after its quote (minidom's, [<DOM Text node
// "'QvU...maa9'...">], showed maa9).
func (m *Masker) middle(s string, j int) int {
	e := strings.Index(s[j:min(len(s), j+maxMiddle)], cut) - 1 // the quote before the next cut
	if e < minPiece || s[j+e] != '\'' && s[j+e] != '"' {
		return 0
	}
	for _, f := range m.forms {
		if strings.Contains(f, s[j:j+e]) {
			return e
		}
	}
	return 0
}

// before is the length of the longest end of s[:i] that begins a form
// and is not all of it, or 0 (none of minPiece bytes). A form without
// "..." in it cannot reach back past the cut before (prev). Only the forms
// whose first bytes are there are tried (match.go): trying each at each
// length took 31 s for a 64 KB listing of cut strings with 4,096 secrets.
func (m *Masker) before(s string, prev, i int) int {
	if i < minPiece || !m.triple(s[i-minPiece:i]) {
		return 0
	}
	m.cutIndexes()
	best := m.pieces.head(s[prev+1:i], true)
	for _, f := range m.cutForms {
		for n := min(len(f)-1, i); n > best && n >= minPiece; n-- {
			if s[i-n] == f[0] && s[i-n:i] == f[:n] {
				best = n
				break
			}
		}
	}
	return best
}

// after is the length of the longest start of s[j:] that ends a form and
// is not all of it, or 0. A form without "..." cannot reach past end (the
// next cut's last byte).
func (m *Masker) after(s string, j, end int) int {
	if len(s)-j < minPiece || !m.triple(s[j:j+minPiece]) {
		return 0
	}
	m.cutIndexes()
	best := m.pieces.tail(s[j:end], true)
	for _, f := range m.cutForms {
		for n := min(len(f)-1, len(s)-j); n > best && n >= minPiece; n-- {
			if s[j+n-1] == f[len(f)-1] && s[j:j+n] == f[len(f)-n:] {
				best = n
				break
			}
		}
	}
	return best
}

// cutIndexes makes pieces and cutForms, once.
func (m *Masker) cutIndexes() {
	m.cutOnce.Do(func() {
		var plain []string
		for _, f := range m.forms {
			if strings.Contains(f, cut) {
				m.cutForms = append(m.cutForms, f)
			} else {
				plain = append(plain, f)
			}
		}
		m.pieces = newEnds(plain)
	})
}

// A value percent-encoded. A program that puts a secret in a URL or a
// form body encodes it (urllib.parse.quote, quote_plus, urlencode; JS's
// encodeURIComponent; Go's url.QueryEscape): each byte it does not leave
// as it is becomes %XX, in upper or lower case, and with quote_plus a space
// becomes +. Which bytes are left differs by encoder and by its safe
// characters, so no list of forms holds every spelling:
// wJalrXUtnFEMI%2FK7MDENG%2FbPxRfiCYEXAMPLEKEY is an AWS secret key as
// quote(key, safe="") writes it, and quote(key) leaves its slashes. So a
// text with a %XX in it is read again decoded (and again with each + a
// space, when a value holds a space), and every value found in that
// reading is masked where the text spells it, whole or in a piece beside a
// cut (viewCuts).
func (m *Masker) percentSpans(s string, each func(from, to int)) {
	if !percent.HasEscape(s) && !(m.spaced && strings.Contains(s, "+")) {
		return
	}
	for _, plus := range []bool{false, true} {
		if plus && !m.spaced {
			break
		}
		d := decoded{s: s, view: percent.Decode(s, plus)}
		m.valueIndex().find(d.view, func(i int, v string) bool {
			if from, to := d.at(i), d.at(i+len(v)); s[from:to] != v {
				each(from, to) // spelled other than as it is (the forms mask that)
			}
			return true
		})
		m.viewCuts(&d, each)
	}
}

// decoded is a text s read decoded (percent.Decode), and where each byte
// of the reading begins in s, worked out on first use: most texts read so
// hold no secret.
type decoded struct {
	s, view string
	starts  []int // starts[i]: where view[i] begins in s; starts[len(view)] is len(s)
}

func (d *decoded) at(i int) int {
	if d.starts == nil {
		d.starts = make([]int, 0, len(d.view)+1)
		for j := 0; j < len(d.s); {
			d.starts = append(d.starts, j)
			j += percent.EscapeLen(d.s, j)
		}
		d.starts = append(d.starts, len(d.s))
	}
	return d.starts[i]
}

// A value's encoding broken into lines. base64.encodebytes (and MIME, and
// PEM's 64 characters a line) writes a line end every 76 characters; a
// secret's run across one shows as two pieces, and no whole form. So a
// text with such a line end in it (wrapped: a newline, a carriage return,
// or the \n or \r a repr or JSON writes for one) is read again without
// its line ends, and a form found there across one is masked where the
// text spells it.
func (m *Masker) unwrappedSpans(s string, each func(from, to int)) {
	if !wrapped(s) {
		return
	}
	// s without its line ends, and where each of its bytes is in s (a
	// wrapped text is rare enough to work both out at once)
	view, starts := make([]byte, 0, len(s)), make([]int, 0, len(s))
	for i := 0; i < len(s); {
		if n := lineEnd(s, i); n > 0 {
			i += n
			continue
		}
		view, starts = append(view, s[i]), append(starts, i)
		i++
	}
	m.formsAt.find(string(view), func(i int, f string) bool {
		if from, to := starts[i], starts[i+len(f)-1]+1; s[from:to] != f {
			each(from, to) // across a line end (a form whole is masked as it is)
		}
		return true
	})
}

// wrapped reports whether s has a line end right after minWrapped
// characters of base64 (or hex): a wrapped encoding's line (MIME writes 76
// a line, PEM 64). Other texts are not read again.
func wrapped(s string) bool {
	for _, c := range []byte{'\n', '\r', '\\'} { // each found by IndexByte's fast scan
		for i := 0; ; i++ {
			j := strings.IndexByte(s[i:], c)
			if j < 0 {
				break
			}
			if i += j; i < minWrapped || lineEnd(s, i) == 0 {
				continue
			}
			n := 0
			for n < minWrapped && isBase64(s[i-1-n]) {
				n++
			}
			if n == minWrapped {
				return true
			}
		}
	}
	return false
}

const minWrapped = 16

func isBase64(c byte) bool {
	return 'a' <= c|0x20 && c|0x20 <= 'z' || '0' <= c && c <= '9' || c == '+' || c == '/' || c == '-' || c == '_' || c == '='
}

// lineEnd is the length of the line end at s[i:] (a newline, a carriage
// return, or backslashes then n or r, as a repr or JSON escapes one), or 0.
func lineEnd(s string, i int) int {
	switch s[i] {
	case '\n', '\r':
		return 1
	case '\\':
		j := i
		for j < len(s) && s[j] == '\\' {
			j++
		}
		if j < len(s) && (s[j] == 'n' || s[j] == 'r') {
			return j + 1 - i
		}
	}
	return 0
}

// viewCuts is cutPieces in a decoded reading of a text (percentSpans): a
// value's beginning before a cut and its end after one, each of minPiece
// bytes or more decoded. A cut may fall inside an escape (%C3%B...): a
// piece may end before a "%" or "%X" left before the cut, and begin after
// one or two hex digits left after it; the span masked holds them.
func (m *Masker) viewCuts(d *decoded, each func(from, to int)) {
	view, at := d.view, d.at
	prev := -1
	for i := strings.Index(view, cut); i >= 0; {
		next := strings.Index(view[i+1:], cut)
		if next >= 0 {
			next += i + 1
		}
		before := view[prev+1 : i]
		if n := len(before); n >= 1 && before[n-1] == '%' {
			before = before[:n-1]
		} else if n >= 2 && before[n-2] == '%' && percent.IsHex(before[n-1]) {
			before = before[:n-2]
		}
		if n := m.valueStart(before); n > 0 {
			each(at(prev+1+len(before)-n), at(i))
		}
		end := len(view)
		if next >= 0 {
			end = next + len(cut) - 1
		}
		after, best := view[i+len(cut):end], 0
		for k := 0; k <= 2 && k < len(after); k++ {
			if k > 0 && !percent.IsHex(after[k-1]) {
				break
			}
			if n := m.valueEnd(after[k:]); n > 0 && k+n > best {
				best = k + n
			}
		}
		if best > 0 {
			each(at(i+len(cut)), at(i+len(cut)+best))
		}
		prev, i = i, next
	}
}

// valueIndex is where the values occur in a text read another way
// (decoded, joined), made the first time one is read so.
func (m *Masker) valueIndex() *index {
	m.valuesOnce.Do(func() { m.valuesAt = newIndex(m.values) })
	return m.valuesAt
}

// valueStart is the length of the longest end of t that begins a value,
// or 0 (none of minPiece bytes).
func (m *Masker) valueStart(t string) int { return m.valueEnds().head(t, false) }

// valueEnd is the length of the longest start of t that ends a value, or 0.
func (m *Masker) valueEnd(t string) int { return m.valueEnds().tail(t, false) }

// valueEnds is valuePieces, made once.
func (m *Masker) valueEnds() *ends {
	m.valueCutOnce.Do(func() { m.valuePieces = newEnds(m.values) })
	return m.valuePieces
}

// triple reports whether t (minPiece bytes) may occur in a form.
func (m *Masker) triple(t string) bool { return m.triples.has(t[0], t[1], t[2]) }

// triples holds every minPiece bytes of some strings, each hashed to a
// bit: a window of a text none of them holds is no piece of one.
type triples [1 << 16 / 64]uint64

// add adds every minPiece bytes of s.
func (t *triples) add(s string) {
	for i := 0; i+minPiece <= len(s); i++ {
		h := tripleHash(s[i], s[i+1], s[i+2])
		t[h>>6] |= 1 << (h & 63)
	}
}

// has reports whether the bytes a, b, c may be among those added.
func (t *triples) has(a, b, c byte) bool {
	h := tripleHash(a, b, c)
	return t[h>>6]&(1<<(h&63)) != 0
}

func tripleHash(a, b, c byte) uint16 {
	return uint16((uint32(a)<<16 | uint32(b)<<8 | uint32(c)) * 2654435761 >> 16)
}

// Bounds: a secret shorter than MinSecret would mask common words; a set
// holds at most maxSecrets values of at most maxSecretLen bytes.
const (
	MinSecret    = 4
	maxSecretLen = 4 << 10
	maxSecrets   = 4096
)

// flagWords are values that say on or off and hold no secret, whatever
// the name they are under (TOKENIZERS_PARALLELISM=false, in the
// environment the listing reads): masked, they would hide every true and
// false a result shows.
var flagWords = map[string]bool{"true": true, "false": true, "none": true, "null": true, "enabled": true, "disabled": true}

// labelWords name a kind of credential: under a name a module reads as a
// secret's (login_auth = "password", a scheme's "Bearer"), such a value is
// a label, and masked it hid the word in every result (the field
// password_reset_required of every repr).
var labelWords = map[string]bool{"password": true, "passwd": true, "passphrase": true, "secret": true, "token": true,
	"bearer": true, "basic": true, "digest": true, "apikey": true, "api_key": true, "oauth": true, "oauth2": true,
	"cookie": true, "credentials": true}

// isPlace reports whether v is an absolute path that exists on this
// machine: it names a place, and what is secret is in the file, not its
// name. The environment has such values under secret-like names: PWD (the
// shell's directory, which reads as ODBC's password), SSH_AUTH_SOCK,
// GOOGLE_APPLICATION_CREDENTIALS. Masked, PWD hid every path of the
// program's directory in every result.
func isPlace(v string) bool {
	if !strings.HasPrefix(v, "/") || strings.ContainsAny(v, "\x00\n\r") {
		return false
	}
	_, err := os.Lstat(v)
	return err == nil
}

// shortNumber reports whether v is a number of fewer than 6 digits: under
// a secret-like name it is a setting (JWT_EXPIRY=3600, AUTH_TIMEOUT=3000,
// token_count = 4096), and masked it hid that number in every result (a
// port, a line, a count) and made every value holding it a holder, whose
// arithmetic was refused.
func shortNumber(v string) bool {
	if len(v) >= 6 {
		return false
	}
	for i := 0; i < len(v); i++ {
		if v[i] < '0' || v[i] > '9' {
			return false
		}
	}
	return true
}

// oneRune reports whether v is one character repeated: a mask that stands
// for a secret, not one (pydantic's SecretStr('**********') under a
// secret's name taught its stars, which then masked every rule of stars a
// program printed).
func oneRune(v string) bool {
	r, n := utf8.DecodeRuneInString(v)
	return n > 0 && strings.Trim(v, string(r)) == ""
}

// Mask is what a secret is replaced with.
const Mask = "[redacted]"

// NewSecrets makes an empty store.
func NewSecrets() *Secrets { return &Secrets{sessions: map[string]*secretSet{}} }

// Add adds a value the session has seen under a secret's name. It reports
// whether the value is kept (not too short, too long, a flag's word, a
// credential's label, a place, a short number, or one character
// repeated), and fails with
// ErrFull, keeping nothing, when the session holds maxSecrets values and
// this is not one of them.
//
// Why fail rather than drop it: the agent chooses some of what the
// session learns ({'pw': ['fl000001', ...]} is nine values a call, as
// debugpy shows it), and a set filled with its values learned the
// program's later secrets no more, silently: an alias of one was shown in
// clear (docs/SECURITY.md). The module that hands over a value when the
// set is full fails, so that its result is withheld.
func (s *Secrets) Add(session, value string) (bool, error) {
	kept, err := s.add(session, value)
	if kept && err == nil {
		for _, p := range append(jwtParts(value), keyLines(value)...) {
			if _, err := s.add(session, p); err != nil {
				return kept, err
			}
		}
	}
	return kept, err
}

// jwtParts are the parts of v when it is a JWT (a JWS in its compact
// form: three parts of base64url joined by dots, the first a JSON
// object's, eyJ...), each of minJWTPart bytes or more; none otherwise. A
// program that verifies a token splits it (header, payload, sig =
// token.split(".")): the token was masked, and each of its parts, read
// alone, was shown in clear (found 2026-12-07).
func jwtParts(v string) []string {
	if !strings.HasPrefix(v, "eyJ") || strings.Count(v, ".") != 2 {
		return nil
	}
	parts := strings.Split(v, ".")
	for _, p := range parts {
		for i := 0; i < len(p); i++ {
			if c := p[i]; !(c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-' || c == '_') {
				return nil
			}
		}
	}
	return slices.DeleteFunc(parts, func(p string) bool { return len(p) < minJWTPart })
}

// keyLines are the base64 lines of 16 bytes or more of v when it is a
// private key's block (PEM's, OpenSSH's, PGP's) or base64 over lines; none
// otherwise. A program that parses a key splits it into lines (first,
// second = lines[1], lines[2]): the key was masked, and each line read
// alone was shown in clear (found 2026-12-07).
func keyLines(v string) []string {
	if strings.Count(v, "\n") < 1 {
		return nil
	}
	armored := strings.Contains(v, "PRIVATE KEY") // PEM's, OpenSSH's, PGP's PRIVATE KEY BLOCK
	var out []string
	for _, l := range strings.Split(v, "\n") {
		l = strings.TrimSuffix(l, "\r")
		b64 := l != ""
		for i := 0; i < len(l) && b64; i++ {
			c := l[i]
			b64 = c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '+' || c == '/' || c == '='
		}
		switch {
		case b64 && len(l) >= minJWTPart:
			out = append(out, l)
		case !b64 && !armored && l != "":
			return nil // not base64 over lines
		}
	}
	return out
}

// minJWTPart is the shortest part of a JWT, or line of a key, learned
// alone: a signature of HS256 is 43 bytes, a header 20 or more, a key's
// line 64 but its last.
const minJWTPart = 16

// add is Add for one value.
func (s *Secrets) add(session, value string) (bool, error) {
	if utf8.RuneCountInString(value) < MinSecret || len(value) > maxSecretLen || strings.TrimSpace(value) == "" || strings.Contains(Mask, value) ||
		flagWords[strings.ToLower(value)] || labelWords[strings.ToLower(value)] || isPlace(value) || shortNumber(value) || oneRune(value) {
		return false, nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	set := s.sessions[session]
	if set == nil {
		set = &secretSet{values: map[string]bool{}}
		s.sessions[session] = set
	}
	if set.values[value] {
		return true, nil
	}
	if len(set.values) >= maxSecrets {
		return false, ErrFull
	}
	set.values[value] = true
	set.masker = nil
	return true, nil
}

// Full reports whether the session holds maxSecrets values.
func (s *Secrets) Full(session string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	set := s.sessions[session]
	return set != nil && len(set.values) >= maxSecrets
}

// ErrFull is Add's error when the session holds maxSecrets values.
var ErrFull = fmt.Errorf("the MCP session holds %d secrets, as many as it masks: a result that shows another is withheld: a new server starts with none", maxSecrets)

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
		var whole []string
		for v := range set.values {
			m.values = append(m.values, v)
			m.spaced = m.spaced || strings.Contains(v, " ")
			for _, f := range forms(v) {
				m.forms = append(m.forms, f)
				m.triples.add(f)
			}
			whole = append(whole, copies(v)...)
		}
		m.formsAt = newIndex(append(slices.Clip(m.forms), whole...))
		set.masker = m
	}
	return set.masker
}

// forms are the spellings of a value a result may carry it in: as it is;
// inside the quotes of Python's repr, single- or double-quoted (a listing
// or an evaluate shows a str so; a backslash, a tab, a no-break space are
// escaped there), and of the repr of its UTF-8 bytes, and those inside a
// JSON string; inside the quotes of a JSON string as Go's encoding/json
// and Python's json.dumps write it (a program's JSON output); and each of
// those reversed; and, for a value of minEncoded bytes or more, its base64
// and its hex (either case). pyrepr's tests hold repr's spelling to CPython's,
// TestFormsAgreeWithCPython the JSON ones to json.dumps and encoding/json.
func forms(v string) []string {
	out := []string{v}
	add := func(f string) {
		if utf8.RuneCountInString(f) >= MinSecret && !slices.Contains(out, f) {
			out = append(out, f)
		}
	}
	spellings(v, add)
	for _, f := range slices.Clone(out) {
		add(reverse(f))
	}
	// The value as a program encodes it to send it: base64 (HTTP's Basic
	// credentials, base64 of user:password; a URL-safe token) and hex. A
	// base64 run starts at one of three places in a group of three bytes,
	// by what was encoded before it: each place gives the run of
	// characters that hold the value's bits only (the characters on its
	// edges mix in the bytes around it).
	if len(v) >= minEncoded {
		for k := range 3 {
			b := append(make([]byte, k, k+len(v)), v...)
			for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.URLEncoding} {
				add(enc.EncodeToString(b)[(8*k+5)/6 : 8*len(b)/6])
			}
		}
		h := hex.EncodeToString([]byte(v))
		add(h)
		add(strings.ToUpper(h)) // binascii.hexlify(...).upper(), '%02X' a byte, Java's and .NET's
	}
	return out
}

// spellings hands add v's spellings as a result shows it (forms): inside
// a repr's quotes, as a str and as its UTF-8 bytes, and inside a JSON
// string, each of those too.
func spellings(v string, add func(string)) {
	for _, q := range []byte{'\'', '"'} {
		body := pyrepr.Body(v, q)
		add(body)
		// A repr inside a result's JSON: the structured result as the
		// host scans it before decoding it (a backslash doubled twice).
		add(jsonInner(body, false))
		// The value encoded, as a bytes repr writes it: past ASCII,
		// escaped byte by byte (pw.encode() shows b'p\xc3\xa4ss').
		if bytesBody := pyrepr.BytesBody(v, q); bytesBody != body {
			add(bytesBody)
			add(jsonInner(bytesBody, false))
		}
	}
	add(jsonInner(v, false))
	add(jsonInner(v, true))
}

// copies are the spellings of a copy a program makes of a value of
// minEncoded bytes or more, to compare it or to hand it to Windows: its
// case folded (key.lower(), a hex key's upper()), and its UTF-16's bytes
// (NTLM's, a wide string's), as a bytes repr writes them: Q\x00v\x00. Each
// showed in clear under another name (found 2026-12-08). They are masked
// whole only, not as pieces beside a cut: three bytes of a value in lower
// case begin much of any text.
func copies(v string) []string {
	if len(v) < minEncoded {
		return nil
	}
	var out []string
	add := func(f string) {
		if utf8.RuneCountInString(f) >= MinSecret && !slices.Contains(out, f) {
			out = append(out, f)
		}
	}
	for _, c := range []string{strings.ToLower(v), strings.ToUpper(v)} {
		if c != v {
			add(c)
			spellings(c, add)
		}
	}
	if u := utf16le(v); u != "" {
		for _, q := range []byte{'\'', '"'} {
			body := pyrepr.BytesBody(u, q)
			add(body)
			add(jsonInner(body, false))
		}
	}
	return out
}

// utf16le is v's UTF-16 (little-endian) bytes, or "" when v is not ASCII
// (its other characters' forms are left to their UTF-8 reprs).
func utf16le(v string) string {
	b := make([]byte, 0, 2*len(v))
	for i := 0; i < len(v); i++ {
		if v[i] >= 0x80 {
			return ""
		}
		b = append(b, v[i], 0)
	}
	return string(b)
}

// minEncoded is the shortest value whose encodings are forms: shorter
// ones make runs of a few characters that other base64 holds by chance.
const minEncoded = 6

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
