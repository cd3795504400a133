package dap

import (
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/debugpy-guard/debugpy-guard/internal/owndir"
)

// The one-write fix (issue 6): pydevd writes each reply as two sends, the
// header then the body, and with Nagle's algorithm on its socket and delayed
// ACKs on the adapter's the body waits ~40 ms; and a stopped thread looks
// for the requests it must answer (variables, evaluate) every 10 ms. Where
// debugpy-guard starts the debuggee it loads pyshim/ into it:
// sitecustomize.py (launch, through PYTHONPATH) or
// debugpy_guard_attach_pid.py (attach by PID, through the code debugpy
// injects) install debugpy_guard_nodelay, which makes pydevd's
// NetCommand.send write once and wakes the stopped thread when a request is
// posted, and reports what it did to a status file.

//go:embed pyshim/*.py
var pyshim embed.FS

var (
	shimOnce sync.Once
	shimPath string
	shimErr  error
)

// ShimDir is the directory of the fix's Python files, written if needed.
// A program started with it first on PYTHONPATH runs the fix (README:
// debugging a program you start yourself).
func ShimDir() (string, error) { return shimDir() }

// shimDir writes pyshim/ to a directory named after its content (under the
// user's cache dir, else the temp dir) and returns it. Files are 0644 in a
// 0755 directory: the debuggee may run as another user (attach by PID as
// root).
func shimDir() (string, error) {
	shimOnce.Do(func() {
		h := sha256.New()
		files, _ := fs.Glob(pyshim, "pyshim/*.py")
		for _, f := range files {
			b, _ := pyshim.ReadFile(f)
			h.Write([]byte(f))
			h.Write(b)
		}
		name := "pyshim-" + hex.EncodeToString(h.Sum(nil))[:16]
		var bases []string
		if c, err := os.UserCacheDir(); err == nil {
			bases = append(bases, filepath.Join(c, "debugpy-guard"))
		}
		bases = append(bases, filepath.Join(os.TempDir(), fmt.Sprintf("debugpy-guard-%d", os.Getuid())))
		for _, base := range bases {
			dir := filepath.Join(base, name)
			if shimErr = writeShim(dir, files); shimErr == nil {
				shimPath = dir
				return
			}
		}
	})
	return shimPath, shimErr
}

func writeShim(dir string, files []string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	// The debuggee runs what is here: a directory others can change is
	// not used (internal/owndir), before and after writing.
	if err := owndir.Check(dir); err != nil {
		return err
	}
	for _, f := range files {
		b, _ := pyshim.ReadFile(f)
		dst := filepath.Join(dir, filepath.Base(f))
		if cur, err := os.ReadFile(dst); err == nil && string(cur) == string(b) {
			continue
		}
		tmp, err := os.CreateTemp(dir, ".tmp-*")
		if err != nil {
			return err
		}
		_, werr := tmp.Write(b)
		tmp.Chmod(0o644)
		if cerr := tmp.Close(); werr == nil {
			werr = cerr
		}
		if werr == nil {
			werr = os.Rename(tmp.Name(), dst)
		}
		if werr != nil {
			os.Remove(tmp.Name())
			return werr
		}
	}
	return owndir.Check(dir)
}

// nodelayStatus is the file the debuggee reports the fix to.
func nodelayStatus() (string, error) {
	f, err := os.CreateTemp("", "debugpy-guard-nodelay-*")
	if err != nil {
		return "", err
	}
	f.Close()
	return f.Name(), nil
}

// NoDelay states of a session, as session_status reports them.
const (
	NoDelayOn       = "on"
	NoDelayDisabled = "off: disabled (DEBUGPY_GUARD_NODELAY=off)"
	NoDelayPending  = "not reported: the debuggee has not loaded pydevd's messaging yet, or ran without site (-S)"
)

// attachNoDelay is the fix's state for a debugpy started elsewhere, which
// debugpy-guard can only judge by how long a reply took at attach.
func attachNoDelay(reply time.Duration) string {
	state := "unknown (attached to a debugpy started elsewhere): a reply took " + reply.Round(100*time.Microsecond).String()
	if reply > 30*time.Millisecond {
		state += ", the ~40 ms stall: start the program with the fix (README)"
	}
	return state
}

// readNoDelay reads what the debuggee reported: a line for the one-write
// fix ("on", "off: why") and one for the poll wake-up ("wake on", "wake
// off: why"), each ending in its pid; the first line of each counts (the
// others come from the program's subprocesses).
func readNoDelay(path string) string {
	b, err := os.ReadFile(path)
	if err != nil || len(b) == 0 {
		return NoDelayPending
	}
	var write, wake string
	for _, line := range strings.Split(string(b), "\n") {
		state, _, _ := strings.Cut(line, " pid=")
		switch {
		case state == "":
		case strings.HasPrefix(state, "wake "):
			if wake == "" {
				wake = strings.TrimPrefix(state, "wake ")
			}
		case write == "":
			write = state
		}
	}
	switch {
	case write == "":
		return NoDelayPending
	case write != NoDelayOn || wake == "" || wake == "on":
		return write
	}
	return NoDelayOn + "; the stopped thread still polls every 10 ms (" + wake + ")"
}
