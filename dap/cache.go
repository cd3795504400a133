package dap

import (
	"context"
	"encoding/json"
	"sync"

	godap "github.com/google/go-dap"
)

// snapshot holds the answers to requests that only read the stopped
// program (threads, stackTrace, scopes, variables), so that a second ask
// costs nothing: the design notes measured ~45 ms a reply, and with the one-write
// fix a variables reply still waits for pydevd's 10 ms poll of the stopped
// thread. Every answer belongs to an epoch; anything that may change the
// program (an event about it, a run, a step, an evaluate, a setVariable)
// starts a new epoch and empties the snapshot, and an answer that arrives
// after a new epoch began is not kept.
type snapshot struct {
	mu    sync.Mutex
	epoch uint64
	m     map[string]json.RawMessage
}

// maxSnapshot bounds the answers kept in one epoch.
const maxSnapshot = 4096

// invalidate starts a new epoch.
func (c *snapshot) invalidate() {
	c.mu.Lock()
	c.epoch++
	c.m = nil
	c.mu.Unlock()
}

// read answers r from the snapshot or, once, from debugpy, decoding the
// response into resp.
func (s *Session) read(ctx context.Context, r godap.RequestMessage, resp any) error {
	args, err := json.Marshal(r)
	if err != nil {
		return err
	}
	// The request's own seq is 0 until it is sent: the key is its command
	// and arguments.
	key := string(args)
	c := &s.snap
	c.mu.Lock()
	raw, ok := c.m[key]
	epoch := c.epoch
	c.mu.Unlock()
	if ok {
		return json.Unmarshal(raw, resp)
	}
	if err := s.do(ctx, r, &raw); err != nil {
		return err
	}
	c.mu.Lock()
	if c.epoch == epoch && len(c.m) < maxSnapshot {
		if c.m == nil {
			c.m = map[string]json.RawMessage{}
		}
		c.m[key] = raw
	}
	c.mu.Unlock()
	return json.Unmarshal(raw, resp)
}

// change runs a request that may change the program, with the snapshot
// emptied before it is sent and again once it is answered.
func (s *Session) change(ctx context.Context, r godap.RequestMessage, resp any) error {
	s.snap.invalidate()
	defer s.snap.invalidate()
	return s.do(ctx, r, resp)
}
