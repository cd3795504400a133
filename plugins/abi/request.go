package abi

import (
	"bytes"
	"strconv"
	"unicode/utf8"
)

// Request is an ABI v1 request (plugins/ABI.md) as the host writes it: one
// for every module of a call's phase, each completed by that module's own
// "settings". The bytes are the ones encoding/json would write for these
// values (a test compares them), without its reflection.
type Request struct {
	Phase      string
	Tool       string
	Category   string
	Arguments  []byte // the arguments' JSON, valid; empty is {}
	Result     []byte // phase result: the structured result's JSON, valid; empty is null
	MCPSession string
	Client     Client
	// DebugSession is the debug session the call is for (nil: null).
	DebugSession *DebugSession
	Time         string   // RFC 3339, UTC
	Derived      *Derived // nil: no code, paths, addresses, holders or cut (empty lists)
}

// Client names the MCP client.
type Client struct {
	Name    string `json:"name"`
	Version string `json:"version"`
}

// DebugSession describes the debug session a call is for.
type DebugSession struct {
	Name  string `json:"name"`
	Host  string `json:"host,omitempty"`
	Port  int    `json:"port,omitempty"`
	PID   int    `json:"pid,omitempty"`
	State string `json:"state"`
}

// Derived is what the host adds to a call before any module judges it: the
// code debugpy will run, the paths the call will use and the address it will
// dial, each as it will be used. It is the request member "derived": a
// module judges all code of a call without knowing which tool or argument
// carries it, and judges a path or a host by what the handler will really
// open or dial, not by the agent's spelling of it.
type Derived struct {
	Code []Code `json:"code"`
	// Texts, in the calls that are told holders (below), are the names
	// (and paths) whose values the host saw cut short as text: a string or
	// bytes ('...', b'...') whose
	// middle debugpy did not show (one of more than 2**16 characters), or a
	// list or a tuple whose first item is one, past its first items. In
	// any session, with or without a secret seen: a slice or an index of
	// one past what was shown reads what no one read, and a part of a text
	// shows no shape a mask knows (a private key's lines below its BEGIN
	// line, a value apart from its name; every other character). Sorted.
	// (ABI v1.11; second, so that a module that reads it finds it at once.)
	Texts     []string  `json:"texts"`
	Paths     []Path    `json:"paths"`
	Addresses []Address `json:"addresses"`
	// Processes are the running processes a call attaches to by id, and
	// whose they are (ABI v1.8; their uid, v1.9).
	Processes []Process `json:"processes"`
	// Holders, in the result phase of a call with code, are the names of
	// the frame the call reads (its locals and globals) whose values, as
	// the host listed them for the call, hold a secret the MCP session has
	// seen (guard.secret): alias = password. The host masks such a value
	// where it shows whole; code that reads a holder in part (alias[1:],
	// alias < 'm') would show it in pieces no mask finds. Sorted. In the
	// call phase of a call that reads the program's values or sets a
	// breakpoint, the names of the stop's listing (not the paths, read
	// only once the call may run); empty for a call without code.
	Holders []string `json:"holders"`
	// Cut, in the same calls, are the names (and paths) of that frame that
	// hold no secret the host saw, but whose values the host saw cut short
	// (debugpy shows a list's first 15 elements, a string inside a
	// container by its ends: "..." in what it showed), in a session that
	// has seen a secret: what was not shown may hold one. Code that
	// compares such a value, or reads it other than whole but through a
	// path (big[15:], big[20]), would show what no listing did, a bit at a
	// time: big < [0, ..., 'Zq']. Sorted.
	Cut []string `json:"cut"`
	// Objects are the holders whose values the host saw as an object or a
	// container (a dict, a list, an instance: what debugpy shows opens
	// with {, [, (, < or a class's name and "("), not a string, bytes or a
	// number. A member of one read whole (user.username,
	// headers['Content-Type']: attributes and string keys) is not a part
	// of the secret it holds: it is the secret whole, shown masked, or
	// another value. Sorted. (ABI v1.5.)
	Objects []string `json:"objects"`
	// Sequences are the objects shown as a list or a tuple ([...], (...)):
	// a constant index or slice of one picks its elements whole (pair[1],
	// orders[0].total). Sorted. (ABI v1.5.)
	Sequences []string `json:"sequences"`
	// Before, in the result phase of debugpy_output, is for each category
	// of the result's entries the text of that category the program wrote
	// before the read's first entry: its last lines, at most MaxBefore
	// bytes, from a line's start. A read that starts inside what the
	// program wrote (a table's rows, its header above them; a YAML key's
	// block) is judged with what it continues, which the agent is not
	// shown again. (ABI v1.6.) In the result phase of debugpy_source, it
	// is one Before of category BeforeSource: the file's lines above the
	// first line shown, likewise (a window that starts inside a value
	// assigned over lines, a key block, a table). (ABI v1.10.)
	Before []Before `json:"before"`
}

// Before is the text a read continues (Derived.Before): of one category of
// a program's output written before it, or of the file above the lines
// debugpy_source shows.
type Before struct {
	Category string `json:"category"` // stdout, stderr, console or important; BeforeSource
	Text     string `json:"text"`
}

// MaxBefore bounds the text of each Before.
const MaxBefore = 32 << 10

// BeforeSource is the category of debugpy_source's Before: the lines of
// the file above those shown, each ended by a newline.
const BeforeSource = "source"

// Code is one piece of Python that debugpy will compile and run.
type Code struct {
	Argument string `json:"argument"` // the argument that carries it, e.g. "condition"
	// Kind is "expression" (compiled with eval) or "statement" (compiled
	// with exec: an assignment, a loop, del, import ...).
	Kind string `json:"kind"`
	// Text is what debugpy compiles, after the transformations its pydevd
	// applies (a hit condition's "%2" becomes "1 %2 == 0", a log message
	// becomes a %-format expression of its {parts}, "@LINE@" a newline).
	Text string `json:"text"`
}

// Path is a file or directory argument as the handler will use it.
type Path struct {
	Argument string `json:"argument"`
	// Kind: "source" (a file the call reads and returns), "program" (a
	// script a launch runs), "executable" (an interpreter a launch or an
	// attach runs), "directory" (a launch's cwd), "breakpoint" (a file a
	// breakpoint names; it is not read) or "mapping" (the local root of an
	// attach's path mapping: the files debugpy names under it will be the
	// session's; ABI v1.7).
	Kind     string `json:"kind"`
	Given    string `json:"given"`    // as the agent sent it
	Resolved string `json:"resolved"` // absolute, symlinks resolved: what is used
	// Session: the path belongs to the debug session (a file of its stack,
	// a source debugpy reported, or under a launch's program directory or
	// cwd, which a person approved).
	Session bool `json:"session"`
	// Reported: debugpy reported the file (a frame's, or a loaded
	// source's), which a file under a launch's directory need not be.
	// (ABI v1.5.)
	Reported bool `json:"reported"`
}

// Address is a host argument as the handler will dial it.
type Address struct {
	Argument string `json:"argument"`
	Host     string `json:"host"`    // as the agent sent it
	Address  string `json:"address"` // the IP address that will be dialled, no other
	Port     int    `json:"port"`
	Owner    string `json:"owner"` // whose socket listens there: OwnerSelf, OwnerOther or OwnerUnknown
	// UID is the user id of the socket that listens there, -1 when the
	// owner is unknown (ABI v1.9). Two other users are both "other": a
	// person who approved an attach to one has approved no other.
	UID int `json:"uid"`
}

// Process is a running process a call names by its id.
type Process struct {
	Argument string `json:"argument"`
	PID      int    `json:"pid"`
	Owner    string `json:"owner"` // whose process it is: OwnerSelf, OwnerOther or OwnerUnknown
	// UID is the process's real user id (who started it), -1 when the
	// owner is unknown (ABI v1.9).
	UID int `json:"uid"`
}

// An address's or a process's owner: the user of the socket that listens
// on the address, on this machine (internal/tcpowner), or the user the
// process runs as (any of its user ids).
const (
	OwnerSelf    = "self"    // the server's user
	OwnerOther   = "other"   // another user: attached, the agent reads that user's program and runs code as them
	OwnerUnknown = "unknown" // not known: nothing of this machine listens there yet, the address is another machine's, the process is gone or hidden
)

// AppendPrefix appends the request up to and with `"settings":`, so that
// each module's settings (and a '}') complete it.
func (r *Request) AppendPrefix(b []byte) []byte {
	b = append(b, `{"abi":1,"phase":`...)
	b = AppendString(b, r.Phase)
	b = append(b, `,"tool":`...)
	b = AppendString(b, r.Tool)
	b = append(b, `,"category":`...)
	b = AppendString(b, r.Category)
	b = append(b, `,"arguments":`...)
	b = appendRaw(b, r.Arguments, "{}")
	b = append(b, `,"result":`...)
	b = appendRaw(b, r.Result, "null")
	b = append(b, `,"session":{"client":{"name":`...)
	b = AppendString(b, r.Client.Name)
	b = append(b, `,"version":`...)
	b = AppendString(b, r.Client.Version)
	b = append(b, `},"id":`...)
	b = AppendString(b, r.MCPSession)
	b = append(b, `},"debug_session":`...)
	if s := r.DebugSession; s == nil {
		b = append(b, "null"...)
	} else {
		b = append(b, `{"name":`...)
		b = AppendString(b, s.Name)
		if s.Host != "" {
			b = append(b, `,"host":`...)
			b = AppendString(b, s.Host)
		}
		if s.Port != 0 {
			b = strconv.AppendInt(append(b, `,"port":`...), int64(s.Port), 10)
		}
		if s.PID != 0 {
			b = strconv.AppendInt(append(b, `,"pid":`...), int64(s.PID), 10)
		}
		b = append(b, `,"state":`...)
		b = AppendString(b, s.State)
		b = append(b, '}')
	}
	b = append(b, `,"time":`...)
	b = AppendString(b, r.Time)
	d := r.Derived
	if d == nil {
		d = &Derived{}
	}
	b = append(b, `,"derived":{"code":[`...)
	for i, c := range d.Code {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, `{"argument":`...)
		b = AppendString(b, c.Argument)
		b = append(b, `,"kind":`...)
		b = AppendString(b, c.Kind)
		b = append(b, `,"text":`...)
		b = AppendString(b, c.Text)
		b = append(b, '}')
	}
	b = appendStrings(append(b, `],"texts":[`...), d.Texts)
	b = append(b, `],"paths":[`...)
	for i, p := range d.Paths {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, `{"argument":`...)
		b = AppendString(b, p.Argument)
		b = append(b, `,"kind":`...)
		b = AppendString(b, p.Kind)
		b = append(b, `,"given":`...)
		b = AppendString(b, p.Given)
		b = append(b, `,"resolved":`...)
		b = AppendString(b, p.Resolved)
		b = strconv.AppendBool(append(b, `,"session":`...), p.Session)
		b = strconv.AppendBool(append(b, `,"reported":`...), p.Reported)
		b = append(b, '}')
	}
	b = append(b, `],"addresses":[`...)
	for i, a := range d.Addresses {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, `{"argument":`...)
		b = AppendString(b, a.Argument)
		b = append(b, `,"host":`...)
		b = AppendString(b, a.Host)
		b = append(b, `,"address":`...)
		b = AppendString(b, a.Address)
		b = strconv.AppendInt(append(b, `,"port":`...), int64(a.Port), 10)
		b = append(b, `,"owner":`...)
		b = AppendString(b, a.Owner)
		b = strconv.AppendInt(append(b, `,"uid":`...), int64(a.UID), 10)
		b = append(b, '}')
	}
	b = append(b, `],"processes":[`...)
	for i, p := range d.Processes {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, `{"argument":`...)
		b = AppendString(b, p.Argument)
		b = strconv.AppendInt(append(b, `,"pid":`...), int64(p.PID), 10)
		b = append(b, `,"owner":`...)
		b = AppendString(b, p.Owner)
		b = strconv.AppendInt(append(b, `,"uid":`...), int64(p.UID), 10)
		b = append(b, '}')
	}
	b = appendStrings(append(b, `],"holders":[`...), d.Holders)
	b = appendStrings(append(b, `],"cut":[`...), d.Cut)
	b = appendStrings(append(b, `],"objects":[`...), d.Objects)
	b = appendStrings(append(b, `],"sequences":[`...), d.Sequences)
	b = append(b, `],"before":[`...)
	for i, x := range d.Before {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, `{"category":`...)
		b = AppendString(b, x.Category)
		b = append(b, `,"text":`...)
		b = AppendString(b, x.Text)
		b = append(b, '}')
	}
	return append(b, `]},"settings":`...)
}

// appendStrings appends ss as a JSON array's elements.
func appendStrings(b []byte, ss []string) []byte {
	for i, s := range ss {
		if i > 0 {
			b = append(b, ',')
		}
		b = AppendString(b, s)
	}
	return b
}

// appendRaw appends the valid JSON raw as encoding/json writes a
// json.RawMessage: without the whitespace between tokens, and with <, >, &,
// U+2028 and U+2029 escaped; empty is def. raw must be valid JSON (the host
// checks it): this does not validate.
func appendRaw(b, raw []byte, def string) []byte {
	if len(bytes.TrimSpace(raw)) == 0 {
		return append(b, def...)
	}
	inString, escaped := false, false
	from := 0
	for i := 0; i < len(raw); i++ {
		c := raw[i]
		switch {
		case inString && escaped:
			escaped = false
		case inString && c == '\\':
			escaped = true
		case c == '"':
			inString = !inString
		case !inString && isSpace(c):
			b = append(b, raw[from:i]...)
			from = i + 1
			continue
		}
		switch {
		case c == '<' || c == '>' || c == '&':
			b = append(b, raw[from:i]...)
			b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xF])
			from = i + 1
		case c == 0xE2 && i+2 < len(raw) && raw[i+1] == 0x80 && raw[i+2]&^1 == 0xA8:
			b = append(b, raw[from:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hexDigits[raw[i+2]&0xF])
			i += 2
			from = i + 1
		}
	}
	return append(b, raw[from:]...)
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

const hexDigits = "0123456789abcdef"

// AppendVerdict appends v as a JSON string, as AppendString does; the four
// verdicts need no escape and are copied, not scanned (a Go wasm guest
// scans a byte at a time, and the SDK writes one for every decision).
func AppendVerdict(b []byte, v Verdict) []byte {
	switch v {
	case Allow, Deny, Approve, Abstain:
		b = append(b, '"')
		b = append(b, v...)
		return append(b, '"')
	}
	return AppendString(b, string(v))
}

// AppendString appends s as a JSON string, byte for byte as encoding/json
// writes it: <, > and & escaped, \b \f \n \r \t short, other control
// characters as \u00XX, invalid UTF-8 as \ufffd, U+2028 and U+2029
// escaped. The host's requests and the Go SDK's responses use it.
func AppendString(b []byte, s string) []byte {
	b = append(b, '"')
	from := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if plain[c] {
				i++
				continue
			}
			b = append(b, s[from:i]...)
			switch c {
			case '\\', '"':
				b = append(b, '\\', c)
			case '\b':
				b = append(b, '\\', 'b')
			case '\f':
				b = append(b, '\\', 'f')
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default: // other control characters, <, >, &
				b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xF])
			}
			i++
			from = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			b = append(b, s[from:i]...)
			b = append(b, `\ufffd`...)
		case r == '\u2028' || r == '\u2029':
			b = append(b, s[from:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hexDigits[r&0xF])
		default:
			i += size
			continue
		}
		i += size
		from = i
	}
	return append(append(b, s[from:]...), '"')
}

// plain marks the ASCII bytes AppendString copies as they are: all but the
// control characters, '"', '\\' and the HTML three.
var plain = func() (t [utf8.RuneSelf]bool) {
	for c := 0x20; c < utf8.RuneSelf; c++ {
		t[c] = c != '"' && c != '\\' && c != '<' && c != '>' && c != '&'
	}
	return t
}()
