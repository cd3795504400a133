package tools

import (
	"net"
	"net/netip"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"

	"github.com/debugpy-guard/debugpy-guard/engine"
)

// peerJudged: the connection an attach made must end at the listener that
// was judged: the user judged, or the server's own user when no one
// listened then; a loopback peer missing from the socket tables is refused,
// another machine's is let through (its address was judged).
func TestPeerJudged(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	conn, err := net.Dial("tcp", l.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	local, remote := conn.LocalAddr().(*net.TCPAddr).AddrPort(), conn.RemoteAddr().(*net.TCPAddr).AddrPort()
	me := os.Geteuid()
	for _, c := range []struct {
		judged        int
		local, remote netip.AddrPort
		want          string // "" for no error
	}{
		{me, local, remote, ""},
		{-1, local, remote, ""}, // no one listened when judged: ours may
		{me + 1, local, remote, "not as the call was judged (user"}, // another listener than the one judged
		{-1, netip.MustParseAddrPort("127.0.0.1:1"), netip.MustParseAddrPort("127.0.0.1:2"), "not in this machine's socket tables"},
		{-1, netip.MustParseAddrPort("10.99.0.1:1"), netip.MustParseAddrPort("10.99.0.2:2"), ""}, // another machine's
	} {
		err := peerJudged(c.judged)(c.local, c.remote)
		if c.want == "" && err != nil || c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)) {
			t.Errorf("judged %d, %s -> %s: %v, want %q", c.judged, c.local, c.remote, err, c.want)
		}
	}
}

// processOwner: this process is the server's user's; a missing one is
// unknown; one run as another user is other (root only, as CI runs).
func TestProcessOwner(t *testing.T) {
	if got := processOwner(os.Getpid()); got != engine.OwnerSelf {
		t.Errorf("this process: %q", got)
	}
	for _, pid := range []int{0, -1, 999999999} {
		if got := processOwner(pid); got != engine.OwnerUnknown {
			t.Errorf("pid %d: %q", pid, got)
		}
	}
	if os.Geteuid() != 0 {
		t.Skip("running a process as another user needs root (CI runs as root)")
	}
	cmd := exec.Command("sleep", "60")
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { cmd.Process.Kill(); cmd.Wait() }()
	if got := processOwner(cmd.Process.Pid); got != engine.OwnerOther {
		t.Errorf("a process of uid 65534: %q", got)
	}
	// The handler enters only the process judged: arguments never derived
	// (no owner judged), or judged as another's, are refused before gdb.
	ts := &Toolset{}
	for _, owner := range []string{"", engine.OwnerSelf} {
		_, _, err := attachPID(t.Context(), ts, attachPIDArgs{PID: cmd.Process.Pid, owner: owner})
		if err == nil || !strings.Contains(err.Error(), "not the process judged") {
			t.Errorf("judged %q: %v", owner, err)
		}
	}
}

// What an attach by PID's judgment and its second read add: a read of
// /proc/PID/status each.
func BenchmarkProcessOwner(b *testing.B) {
	pid := os.Getpid()
	for b.Loop() {
		if processOwner(pid) != engine.OwnerSelf {
			b.Fatal("not ours")
		}
	}
}
