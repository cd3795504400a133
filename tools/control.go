package tools

// The execution control tools: continue, pause, the steps, and waiting for a stop.

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/debugpy-guard/debugpy-guard/dap"
)

type resumeArgs struct {
	Target
	ThreadID int      `json:"thread_id,omitempty" jsonschema:"thread (default: the one that stopped last)"`
	WaitS    *float64 `json:"wait_s,omitempty" jsonschema:"seconds to wait for the next stop (default 10; 0 returns at once)"`
}

type runResult struct {
	Session  string    `json:"session"`
	State    string    `json:"state" jsonschema:"stopped, running, exited or disconnected"`
	Stop     *dap.Stop `json:"stop,omitempty"`
	ExitCode *int      `json:"exit_code,omitempty"`
}

func resumeTool(kind string) func(context.Context, *Toolset, *dap.Session, resumeArgs) (runResult, string, error) {
	return func(ctx context.Context, ts *Toolset, s *dap.Session, a resumeArgs) (runResult, string, error) {
		thread := a.ThreadID
		_, last := s.Stops()
		if kind == "pause" {
			if last != nil && thread == 0 {
				return runState(s, last, nil), "already " + stopText(last), nil
			}
			if thread == 0 {
				cctx, cancel := ts.rctx(ctx)
				th, err := s.Threads(cctx)
				cancel()
				if err != nil {
					return runResult{}, "", err
				}
				if len(th) == 0 {
					return runResult{}, "", errors.New("the program has no threads to pause")
				}
				thread = th[0].Id
			}
		} else if thread == 0 {
			if last == nil {
				return runResult{}, "", notStopped(s)
			}
			thread = last.ThreadID
		}
		gen := s.Gen()
		cctx, cancel := ts.rctx(ctx)
		var err error
		switch kind {
		case "continue":
			err = s.Continue(cctx, thread)
		case "pause":
			err = s.Pause(cctx, thread)
		default:
			err = s.Step(cctx, kind, thread)
		}
		cancel()
		var re *dap.ResponseError
		if errors.As(err, &re) {
			return runResult{}, "", fmt.Errorf("%w: is thread %d stopped? call debugpy_threads", err, thread)
		}
		if err != nil {
			return runResult{}, "", err
		}
		wait := 10.0
		if a.WaitS != nil {
			wait = *a.WaitS
		}
		return awaitStop(ctx, s, gen, wait)
	}
}

func notStopped(s *dap.Session) error {
	in := s.Info()
	if in.State == dap.StateRunning {
		return errors.New("the program is running: call debugpy_pause or debugpy_wait_for_stop first")
	}
	return fmt.Errorf("the program is %s, not stopped: call debugpy_session_status", in.State)
}

func runState(s *dap.Session, st *dap.Stop, err error) runResult {
	in := s.Info()
	r := runResult{Session: s.Name(), State: in.State, Stop: st, ExitCode: in.ExitCode}
	if st != nil {
		r.State = dap.StateStopped
	}
	return r
}

// awaitStop waits up to wait seconds for a stop newer than gen.
func awaitStop(ctx context.Context, s *dap.Session, gen uint64, wait float64) (runResult, string, error) {
	if wait < 0 || wait > 3600 {
		return runResult{}, "", fmt.Errorf("wait %gs is out of range (0 to 3600)", wait)
	}
	wctx, cancel := context.WithTimeout(ctx, time.Duration(wait*float64(time.Second)))
	defer cancel()
	st, err := s.WaitStop(wctx, gen)
	switch {
	case err == nil:
		return runState(s, st, nil), stopText(st), nil
	case errors.Is(err, dap.ErrExited):
		r := runState(s, nil, err)
		code := "unknown"
		if r.ExitCode != nil {
			code = fmt.Sprint(*r.ExitCode)
		}
		return r, "the program has exited with code " + code + "; debugpy_output has what it printed", nil
	case errors.Is(err, context.DeadlineExceeded) && ctx.Err() == nil:
		r := runState(s, nil, nil)
		return r, fmt.Sprintf("the program is running (no stop within %gs): call debugpy_wait_for_stop or debugpy_pause", wait), nil
	case errors.Is(err, dap.ErrDisconnected):
		return runResult{}, "", fmt.Errorf("%v: the session is over; call debugpy_session_stop, then start a new one", err)
	}
	return runResult{}, "", err
}

type waitArgs struct {
	Target
	TimeoutS *float64 `json:"timeout_s,omitempty" jsonschema:"seconds to wait (default 30)"`
}

func waitForStop(ctx context.Context, ts *Toolset, s *dap.Session, a waitArgs) (runResult, string, error) {
	if _, last := s.Stops(); last != nil {
		return runState(s, last, nil), stopText(last), nil
	}
	timeout := 30.0
	if a.TimeoutS != nil {
		timeout = *a.TimeoutS
	}
	gen := s.Known() // a stop under way counts: its details may be coming
	pctx, stop := context.WithCancel(ctx)
	defer stop()
	go func() {
		t0 := time.Now()
		tick := time.NewTicker(time.Second)
		defer tick.Stop()
		for {
			select {
			case <-pctx.Done():
				return
			case <-tick.C:
				el := time.Since(t0).Seconds()
				progress(ctx, el, timeout, fmt.Sprintf("waiting for %s to stop (%.0fs of %gs)", s.Name(), el, timeout))
			}
		}
	}()
	return awaitStop(ctx, s, gen, timeout)
}
