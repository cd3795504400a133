package approval

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"syscall"
	"time"
)

// Dir is where the servers' approval sockets live: $XDG_RUNTIME_DIR/
// debugpy-guard, else /tmp/debugpy-guard-UID. It is made 0700; one that
// exists must belong to the user and be closed to others.
func Dir() (string, error) {
	base := os.Getenv("XDG_RUNTIME_DIR")
	dir := filepath.Join(base, "debugpy-guard")
	if base == "" {
		dir = filepath.Join(os.TempDir(), "debugpy-guard-"+strconv.Itoa(os.Getuid()))
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", fmt.Errorf("approval socket dir: %w", err)
	}
	fi, err := os.Lstat(dir)
	if err != nil {
		return "", fmt.Errorf("approval socket dir: %w", err)
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !fi.IsDir() || !ok || int(st.Uid) != os.Getuid() || fi.Mode().Perm()&0o077 != 0 {
		return "", fmt.Errorf("approval socket dir %s must be a directory of yours with mode 0700 (it is %v): remove it or fix it", dir, fi.Mode())
	}
	return dir, nil
}

type message struct {
	Op string `json:"op"` // list, approve, deny
	ID string `json:"id,omitempty"`
}

type reply struct {
	Requests []Request `json:"requests,omitempty"`
	Request  *Request  `json:"request,omitempty"`
	Error    string    `json:"error,omitempty"`
}

// Server answers `debugpy-guard approvals`, `approve` and `deny` for one
// serve process, on DIR/serve-PID.sock (0600; peers of another user are
// refused).
type Server struct {
	Path string
	ln   *net.UnixListener
	done chan struct{}
}

// Listen starts answering for store; ttl gives the time a person's answer
// stays usable (the config's approval timeout, which a reload may change).
func Listen(store *Store, ttl func() time.Duration, log *slog.Logger) (*Server, error) {
	dir, err := Dir()
	if err != nil {
		return nil, err
	}
	path := filepath.Join(dir, "serve-"+strconv.Itoa(os.Getpid())+".sock")
	os.Remove(path) // a stale socket of a dead process with our pid
	ln, err := net.ListenUnix("unix", &net.UnixAddr{Name: path, Net: "unix"})
	if err != nil {
		return nil, fmt.Errorf("approval socket: %w", err)
	}
	// The 0700 directory keeps others out; the mode and the peer check
	// below say the same twice.
	if err := os.Chmod(path, 0o600); err != nil {
		ln.Close()
		return nil, fmt.Errorf("approval socket: %w", err)
	}
	s := &Server{Path: path, ln: ln, done: make(chan struct{})}
	go func() {
		defer close(s.done)
		for {
			c, err := ln.AcceptUnix()
			if err != nil {
				return
			}
			go s.serve(c, store, ttl, log)
		}
	}()
	return s, nil
}

// Close stops answering and removes the socket.
func (s *Server) Close() error {
	err := s.ln.Close()
	<-s.done
	os.Remove(s.Path)
	return err
}

func (s *Server) serve(c *net.UnixConn, store *Store, ttl func() time.Duration, log *slog.Logger) {
	defer c.Close()
	c.SetDeadline(time.Now().Add(10 * time.Second))
	if uid, err := peerUID(c); err != nil || uid != os.Getuid() {
		log.Warn("approval socket: refused a peer of another user", "uid", uid, "err", err)
		return
	}
	var m message
	line, err := bufio.NewReaderSize(c, 4096).ReadBytes('\n')
	if err != nil && len(line) == 0 {
		return
	}
	var r reply
	if err := json.Unmarshal(line, &m); err != nil {
		r.Error = "bad request: " + err.Error()
	}
	switch {
	case r.Error != "":
	case m.Op == "list":
		r.Requests = store.Pending()
	case m.Op == "approve" || m.Op == "deny":
		req, err := store.Answer(m.ID, m.Op == "approve", ttl())
		if err != nil {
			r.Error = err.Error()
		} else {
			r.Request = &req
			log.Info("approval answered", "id", m.ID, "answer", req.State, "tool", req.Tool)
		}
	default:
		r.Error = fmt.Sprintf("unknown op %q", m.Op)
	}
	json.NewEncoder(c).Encode(r)
}

func peerUID(c *net.UnixConn) (int, error) {
	raw, err := c.SyscallConn()
	if err != nil {
		return -1, err
	}
	var cred *syscall.Ucred
	var cerr error
	err = raw.Control(func(fd uintptr) {
		cred, cerr = syscall.GetsockoptUcred(int(fd), syscall.SOL_SOCKET, syscall.SO_PEERCRED)
	})
	if err == nil {
		err = cerr
	}
	if err != nil {
		return -1, err
	}
	return int(cred.Uid), nil
}

// Listed is a pending request and the socket of the server that holds it.
type Listed struct {
	Request
	Server string `json:"server"`
}

// List asks every running server for its pending calls.
func List(ctx context.Context) ([]Listed, error) {
	socks, err := sockets()
	if err != nil {
		return nil, err
	}
	var out []Listed
	for _, sock := range socks {
		r, err := ask(ctx, sock, message{Op: "list"})
		if err != nil {
			continue // a server that exited; ask reports nothing useful
		}
		for _, req := range r.Requests {
			out = append(out, Listed{Request: req, Server: sock})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Created.Before(out[j].Created) })
	return out, nil
}

// Answer approves or denies the pending call id, in whichever running server
// holds it.
func Answer(ctx context.Context, id string, approve bool) (Request, error) {
	socks, err := sockets()
	if err != nil {
		return Request{}, err
	}
	op := "deny"
	if approve {
		op = "approve"
	}
	for _, sock := range socks {
		r, err := ask(ctx, sock, message{Op: "list"})
		if err != nil {
			continue
		}
		for _, req := range r.Requests {
			if req.ID != id {
				continue
			}
			r, err := ask(ctx, sock, message{Op: op, ID: id})
			if err != nil {
				return Request{}, err
			}
			if r.Error != "" {
				return Request{}, errors.New(r.Error)
			}
			return *r.Request, nil
		}
	}
	if len(socks) == 0 {
		return Request{}, errors.New("no debugpy-guard server is running for this user")
	}
	return Request{}, fmt.Errorf("no pending call %q: `debugpy-guard approvals` lists them (it may have expired; the agent then retries the call for a new id)", id)
}

func sockets() ([]string, error) {
	dir, err := Dir()
	if err != nil {
		return nil, err
	}
	return filepath.Glob(filepath.Join(dir, "serve-*.sock"))
}

func ask(ctx context.Context, sock string, m message) (reply, error) {
	var d net.Dialer
	c, err := d.DialContext(ctx, "unix", sock)
	if err != nil {
		if errors.Is(err, syscall.ECONNREFUSED) {
			os.Remove(sock) // left by a server that was killed
		}
		return reply{}, err
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(10 * time.Second))
	if err := json.NewEncoder(c).Encode(m); err != nil {
		return reply{}, err
	}
	var r reply
	if err := json.NewDecoder(c).Decode(&r); err != nil {
		return reply{}, fmt.Errorf("approval socket %s: %w", sock, err)
	}
	return r, nil
}
