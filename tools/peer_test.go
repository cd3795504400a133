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

// processIDs and ownerOf: this process is the server's user's; a missing
// one is unknown; one run as another user is other, with its uid (root
// only, as CI runs).
func TestProcessOwner(t *testing.T) {
	owner := func(pid int) (string, int) { return ownerOf(processIDs(pid)) }
	if got, uid := owner(os.Getpid()); got != engine.OwnerSelf || uid != os.Getuid() {
		t.Errorf("this process: %q %d", got, uid)
	}
	for _, pid := range []int{0, -1, 999999999} {
		if got, uid := owner(pid); got != engine.OwnerUnknown || uid != -1 {
			t.Errorf("pid %d: %q %d", pid, got, uid)
		}
	}
	if os.Geteuid() != 0 {
		t.Skip("running a process as another user needs root (CI runs as root)")
	}
	run := func(uid uint32) *exec.Cmd {
		cmd := exec.Command("sleep", "60")
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: uid, Gid: 65534}}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
		return cmd
	}
	nobody, other := run(65534), run(65533)
	if got, uid := owner(nobody.Process.Pid); got != engine.OwnerOther || uid != 65534 {
		t.Errorf("a process of uid 65534: %q %d", got, uid)
	}
	// The handler enters only the process judged: arguments never derived,
	// or judged as another's (the server's own, or another user's, as if
	// the id had been taken in between), are refused before gdb.
	ts := &Toolset{}
	for _, a := range []attachPIDArgs{
		{PID: nobody.Process.Pid},
		{PID: nobody.Process.Pid, judged: true, ids: processIDs(os.Getpid())},
		{PID: nobody.Process.Pid, judged: true, ids: processIDs(other.Process.Pid)},
		{PID: nobody.Process.Pid, judged: true},
	} {
		_, _, err := attachPID(t.Context(), ts, a)
		if err == nil || !strings.Contains(err.Error(), "not the process judged") {
			t.Errorf("judged %v %v: %v", a.judged, a.ids, err)
		}
	}
}

// What an attach by PID's judgment and its second read add: a read of
// /proc/PID/status each.
func BenchmarkProcessOwner(b *testing.B) {
	pid := os.Getpid()
	for b.Loop() {
		if owner, _ := ownerOf(processIDs(pid)); owner != engine.OwnerSelf {
			b.Fatal("not ours")
		}
	}
}
