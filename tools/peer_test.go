package tools

import (
	"net"
	"net/netip"
	"os"
	"strings"
	"testing"
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
