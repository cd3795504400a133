package tcpowner

import (
	"bufio"
	"fmt"
	"net"
	"net/netip"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
)

// The rows as the kernel writes them (from a real /proc/net/tcp and tcp6).
func TestParse(t *testing.T) {
	if !littleEndian {
		t.Skip("the rows below are a little-endian machine's")
	}
	for _, c := range []struct {
		row, local, remote string
		listening          bool
		uid                int
	}{
		{"   0: 0100007F:162E 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 1234 1 0000000000000000 100 0 0 10 0",
			"127.0.0.1:5678", "0.0.0.0:0", true, 0},
		{"   1: 0100007F:C350 0100007F:162E 01 00000000:00000000 00:00000000 00000000  1000        0 1235 1 0000000000000000 20 4 30 10 -1",
			"127.0.0.1:50000", "127.0.0.1:5678", false, 1000},
		{"   0: 00000000000000000000000001000000:162E 00000000000000000000000000000000:0000 0A 00000000:00000000 00:00000000 00000000 65534        0 99 1 0000000000000000 100 0 0 10 0",
			"[::1]:5678", "[::]:0", true, 65534},
		{"   2: 0000000000000000FFFF00000100007F:162E 0000000000000000FFFF00000100007F:C350 01 00000000:00000000 00:00000000 00000000     7        0 9 1 0000000000000000 20 4 30 10 -1",
			"[::ffff:127.0.0.1]:5678", "[::ffff:127.0.0.1]:50000", false, 7},
	} {
		s, ok := parse(c.row)
		if !ok || s.local.String() != c.local || s.remote.String() != c.remote || s.listening != c.listening || s.uid != c.uid {
			t.Errorf("parse(%q) = %+v, %v", c.row, s, ok)
		}
	}
	for _, bad := range []string{"", "sl local", "   0: 0100007F 00000000:0000 0A x x x 0", "   0: 0100007G:162E 00000000:0000 0A 0 0 0 0", "   0: 0100007F:162E 00000000:0000 0A 0 0 0 -1"} {
		if s, ok := parse(bad); ok {
			t.Errorf("parse(%q) = %+v, want no socket", bad, s)
		}
	}
}

// This process's sockets: its listeners and both ends of a connection to
// them, over IPv4, IPv6 and a dual-stack wildcard, are its user's.
func TestOwnSockets(t *testing.T) {
	me := os.Getuid()
	for _, c := range []struct{ listen, dial string }{
		{"127.0.0.1:0", "127.0.0.1"},
		{"[::1]:0", "::1"},
		{"[::]:0", "127.0.0.1"}, // a v4 connection to a v6 wildcard: the accepted socket is ::ffff:127.0.0.1
		{"0.0.0.0:0", "127.0.0.1"},
	} {
		l, err := net.Listen("tcp", c.listen)
		if err != nil {
			t.Logf("%s: %v (no IPv6 here?)", c.listen, err)
			continue
		}
		port := uint16(l.Addr().(*net.TCPAddr).Port)
		if uid, ok := Listener(netip.MustParseAddr(c.dial), port); !ok || uid != me {
			t.Errorf("Listener(%s, %d) = %d, %v, want %d", c.dial, port, uid, ok, me)
		}
		conn, err := net.Dial("tcp", net.JoinHostPort(c.dial, fmt.Sprint(port)))
		if err != nil {
			t.Fatal(err)
		}
		local, remote := conn.LocalAddr().(*net.TCPAddr).AddrPort(), conn.RemoteAddr().(*net.TCPAddr).AddrPort()
		if uid, ok := Peer(local, remote); !ok || uid != me {
			t.Errorf("Peer(%s, %s) = %d, %v, want %d", local, remote, uid, ok, me)
		}
		conn.Close()
		l.Close()
	}
	// No one listens on a port just closed; nothing answers a pair that is
	// no connection.
	l, _ := net.Listen("tcp", "127.0.0.1:0")
	port := uint16(l.Addr().(*net.TCPAddr).Port)
	l.Close()
	if uid, ok := Listener(netip.MustParseAddr("127.0.0.1"), port); ok {
		t.Errorf("Listener on a closed port = %d", uid)
	}
	if uid, ok := Peer(netip.MustParseAddrPort("127.0.0.1:1"), netip.MustParseAddrPort("127.0.0.1:2")); ok {
		t.Errorf("Peer of no connection = %d", uid)
	}
}

// A listener another user made, and the connection to it, are that user's.
func TestAnotherUsersSocket(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("running a listener as another user needs root (CI runs as root)")
	}
	const python = "/usr/bin/python3" // one another user may run (not a shim under root's home)
	if _, err := os.Stat(python); err != nil {
		t.Skip("no " + python)
	}
	cmd := exec.Command(python, "-c", "import socket, sys\ns = socket.socket()\ns.bind(('127.0.0.1', 0))\ns.listen()\nprint(s.getsockname()[1], flush=True)\nc, _ = s.accept()\nsys.stdin.read()\n")
	cmd.Dir, cmd.Stderr = "/", os.Stderr
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
	stdin, _ := cmd.StdinPipe()
	out, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { stdin.Close(); cmd.Wait() }()
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		t.Fatal(err)
	}
	var port uint16
	fmt.Sscan(strings.TrimSpace(line), &port)
	if uid, ok := Listener(netip.MustParseAddr("127.0.0.1"), port); !ok || uid != 65534 {
		t.Errorf("Listener = %d, %v, want 65534", uid, ok)
	}
	conn, err := net.Dial("tcp", fmt.Sprintf("127.0.0.1:%d", port))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	local, remote := conn.LocalAddr().(*net.TCPAddr).AddrPort(), conn.RemoteAddr().(*net.TCPAddr).AddrPort()
	if uid, ok := Peer(local, remote); !ok || uid != 65534 {
		t.Errorf("Peer = %d, %v, want 65534", uid, ok)
	}
}

// What an attach's judgment and its check of the connection add: a read
// of the two tables each.
func BenchmarkListener(b *testing.B) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	defer l.Close()
	port := uint16(l.Addr().(*net.TCPAddr).Port)
	for b.Loop() {
		if _, ok := Listener(netip.MustParseAddr("127.0.0.1"), port); !ok {
			b.Fatal("not found")
		}
	}
}
