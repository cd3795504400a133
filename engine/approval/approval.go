// Package approval holds the calls that wait for a person (the design,
// Approval) and serves them to `debugpy-guard approvals`, `approve ID` and
// `deny ID` over an owner-only unix socket.
//
// An approval binds to (MCP session, tool, sha256 of the arguments), to
// what the call reaches as the host found it (the paths as resolved, and
// whose socket or process an attach enters), and to where the program was
// when the person was asked (its debug session, and its stop or that it
// ran), and is used once: the same call retried there
// after a person approved it runs once (elsewhere, a person is asked again);
// retried before an answer, it gets the same pending id. Nothing in a tool's
// arguments is read here, so no argument can approve a call.
package approval

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"sync"
	"time"
)

// Binding is what an approval is for.
type Binding struct {
	Session string
	Tool    string
	// Stop is where the program the call acts on is, as a person reads
	// it: its debug session, and the stop, numbered so that two stops at
	// one line differ, or that it is not stopped; "" when the call acts on
	// no debug session.
	Stop       string
	ArgsSHA256 string
	// Reaches is what the call reaches, as the host derived it when the
	// person was asked: each path as resolved, each address and the user
	// whose socket listens there, each process and its user. The same
	// arguments retried reach something else when a symlink was turned or
	// another user's debugpy took the port: a person is asked again.
	Reaches string
}

// Bind makes the binding of a call.
func Bind(session, tool, stop string, args []byte, reaches string) Binding {
	sum := sha256.Sum256(args)
	return Binding{Session: session, Tool: tool, Stop: stop, ArgsSHA256: hex.EncodeToString(sum[:]), Reaches: reaches}
}

// States of a request.
const (
	Pending  = "pending"
	Approved = "approved"
	Denied   = "denied"
)

// Request is a call held for a person.
type Request struct {
	ID        string    `json:"id"`
	Channel   string    `json:"channel"` // cli or elicitation
	Session   string    `json:"session"`
	Tool      string    `json:"tool"`
	Arguments string    `json:"arguments"`      // every argument, as Show renders it for a person
	Stop      string    `json:"stop,omitempty"` // where the program is (Binding.Stop)
	Reasons   []string  `json:"reasons"`
	State     string    `json:"state"`
	Created   time.Time `json:"created"`
	Expires   time.Time `json:"expires"` // of the question while pending, of the answer once answered
	binding   Binding
}

// Store is the calls held for a person. It is safe for concurrent use.
type Store struct {
	mu   sync.Mutex
	byID map[string]*Request
	now  func() time.Time
}

// NewStore makes an empty store.
func NewStore() *Store { return &Store{byID: map[string]*Request{}, now: time.Now} }

// Hold is the approval of a call on channel: a new pending request, the
// pending one for the same binding (retried before an answer), or the
// answer, which it uses up (retried after one). ttl bounds the wait for an
// answer and then the time to retry after it.
// It fails with ErrFull, holding nothing new, when maxHeld requests are
// held.
func (s *Store) Hold(channel string, b Binding, args json.RawMessage, reasons []string, ttl time.Duration) (Request, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.expireLocked()
	for id, r := range s.byID {
		if r.binding != b || r.Channel != channel {
			continue
		}
		if r.State != Pending {
			delete(s.byID, id) // an answer is used once
		}
		return *r, nil
	}
	if len(s.byID) >= maxHeld {
		return Request{}, ErrFull
	}
	now := s.now()
	shown, err := Show(args)
	if err != nil {
		shown = "(cannot be shown: " + err.Error() + ")" // the gate refuses such a call before it is held
	}
	id := newID()
	for s.byID[id] != nil { // an id names one request: a person approves what they read
		id = newID()
	}
	r := &Request{ID: id, Channel: channel, Session: b.Session, Tool: b.Tool, Arguments: shown, Stop: b.Stop,
		Reasons: reasons, State: Pending, Created: now, Expires: now.Add(ttl), binding: b}
	s.byID[r.ID] = r
	return *r, nil
}

// maxHeld bounds the requests held at once. A person answers a few; an
// agent whose calls are not rate-limited could hold requests faster than
// they expire, each with its arguments shown (up to 8 KiB), without
// bound.
const maxHeld = 1000

// ErrFull is Hold's error when maxHeld requests are held.
var ErrFull = fmt.Errorf("%d calls already wait for a person: answer them (`debugpy-guard approvals`) or let them expire, then call again", maxHeld)

// Take uses up the request id for binding b, pending or answered: for an
// elicitation, whose answer comes with the retried call. It fails when the
// id is unknown, expired, or was issued for another call.
func (s *Store) Take(id string, b Binding) (Request, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	r, ok := s.byID[id]
	if !ok {
		s.expireLocked()
		return Request{}, fmt.Errorf("no approval request %q (expired, used, or never made)", id)
	}
	delete(s.byID, id)
	if r.binding != b {
		return Request{}, fmt.Errorf("approval request %s was made for another call", id)
	}
	if s.now().After(r.Expires) {
		return *r, ErrExpired
	}
	return *r, nil
}

// ErrExpired is returned by Take for a request past its time.
var ErrExpired = errors.New("the approval request timed out")

// Answer approves or denies a pending request of the cli channel.
func (s *Store) Answer(id string, approve bool, ttl time.Duration) (Request, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.expireLocked()
	r, ok := s.byID[id]
	switch {
	case !ok:
		return Request{}, fmt.Errorf("no pending call %q here (answered, expired, or never made): `debugpy-guard approvals` lists them", id)
	case r.Channel != "cli":
		return Request{}, fmt.Errorf("call %s waits for the MCP client's own prompt (elicitation), not for this command", id)
	case r.State != Pending:
		return Request{}, fmt.Errorf("call %s was already %s", id, r.State)
	}
	r.State = Denied
	if approve {
		r.State = Approved
	}
	r.Expires = s.now().Add(ttl)
	return *r, nil
}

// Pending lists the requests waiting for an answer, oldest first.
func (s *Store) Pending() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.expireLocked()
	var out []Request
	for _, r := range s.byID {
		if r.State == Pending {
			out = append(out, *r)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Created.Before(out[j].Created) })
	return out
}

// expireLocked forgets cli requests past their time. Elicitation requests
// stay until Take, which reports them as timed out, but for when the store
// is full: then those past their time go too (never-retried elicitations).
func (s *Store) expireLocked() {
	now := s.now()
	for id, r := range s.byID {
		if r.Channel == "cli" && now.After(r.Expires) {
			delete(s.byID, id)
		}
	}
	if len(s.byID) >= maxHeld {
		for id, r := range s.byID {
			if now.After(r.Expires) {
				delete(s.byID, id)
			}
		}
	}
}

func newID() string {
	var b [4]byte
	rand.Read(b[:])
	return hex.EncodeToString(b[:])
}
