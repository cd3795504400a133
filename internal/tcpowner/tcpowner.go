// Package tcpowner tells which user a TCP socket of this machine belongs
// to, as Linux lists its sockets in /proc/net/tcp and /proc/net/tcp6 (the
// network namespace of the process that reads them).
//
// Why: an attach dials a debugpy by its address, and any user of the
// machine can listen on loopback. Attached, the agent reads that user's
// program, and runs code in it. Which user listens is a fact about the
// address, judged as such (policies/targets), and checked again on the
// connection made, so that a listener swapped in between is not taken for
// the one judged.
package tcpowner

import (
	"bufio"
	"encoding/binary"
	"encoding/hex"
	"net/netip"
	"os"
	"strconv"
	"strings"
)

// files are the socket tables, IPv4's then IPv6's. A variable for tests.
var files = []string{"/proc/net/tcp", "/proc/net/tcp6"}

// socket is one row of a table.
type socket struct {
	local, remote netip.AddrPort
	listening     bool
	uid           int
}

// Listener returns the user id of the socket that listens on addr:port,
// bound to addr or to a wildcard address (0.0.0.0, ::); ok is false when
// none does, or the tables cannot be read.
func Listener(addr netip.Addr, port uint16) (uid int, ok bool) {
	addr = addr.Unmap()
	uid = -1
	each(func(s socket) bool {
		if !s.listening || s.local.Port() != port {
			return true
		}
		if a := s.local.Addr().Unmap(); a == addr || a.IsUnspecified() && (a.Is4() == addr.Is4() || a.Is6()) {
			uid = s.uid
			return false
		}
		return true
	})
	return uid, uid >= 0
}

// Peer returns the user id of the socket at the far end of this machine's
// TCP connection from local to remote: the one whose own address is remote
// and whose peer is local (an accepted socket belongs to its listener's
// user). ok is false when it is not found: the peer is on another machine,
// or the connection is gone.
func Peer(local, remote netip.AddrPort) (uid int, ok bool) {
	local, remote = unmap(local), unmap(remote)
	uid = -1
	each(func(s socket) bool {
		if !s.listening && unmap(s.local) == remote && unmap(s.remote) == local {
			uid = s.uid
			return false
		}
		return true
	})
	return uid, uid >= 0
}

func unmap(a netip.AddrPort) netip.AddrPort { return netip.AddrPortFrom(a.Addr().Unmap(), a.Port()) }

// each calls f with each socket of the tables until f returns false.
func each(f func(socket) bool) {
	for _, name := range files {
		file, err := os.Open(name)
		if err != nil {
			continue
		}
		sc := bufio.NewScanner(file)
		sc.Scan() // the header
		for sc.Scan() {
			if s, ok := parse(sc.Text()); ok && !f(s) {
				file.Close()
				return
			}
		}
		file.Close()
	}
}

// parse reads a row: "sl local_address rem_address st tx_queue:rx_queue
// tr:tm->when retrnsmt uid ...", the addresses in hex as the kernel holds
// them (parseAddrPort).
func parse(line string) (socket, bool) {
	f := strings.Fields(line)
	if len(f) < 8 {
		return socket{}, false
	}
	local, ok1 := parseAddrPort(f[1])
	remote, ok2 := parseAddrPort(f[2])
	uid, err := strconv.Atoi(f[7])
	if !ok1 || !ok2 || err != nil || uid < 0 {
		return socket{}, false
	}
	return socket{local: local, remote: remote, listening: f[3] == "0A", uid: uid}, true // 0A: TCP_LISTEN
}

// parseAddrPort reads "0100007F:1F90" (127.0.0.1:8080) or its IPv6 form.
func parseAddrPort(s string) (netip.AddrPort, bool) {
	h, p, ok := strings.Cut(s, ":")
	if !ok {
		return netip.AddrPort{}, false
	}
	port, err := strconv.ParseUint(p, 16, 16)
	if err != nil {
		return netip.AddrPort{}, false
	}
	b, err := hex.DecodeString(h)
	if err != nil || len(b) != 4 && len(b) != 16 {
		return netip.AddrPort{}, false
	}
	// Each 32-bit word as the kernel printed it (%08X of the word): the
	// bytes of a little-endian machine reversed.
	for i := 0; i < len(b); i += 4 {
		if littleEndian {
			b[i], b[i+1], b[i+2], b[i+3] = b[i+3], b[i+2], b[i+1], b[i]
		}
	}
	a, _ := netip.AddrFromSlice(b)
	return netip.AddrPortFrom(a, uint16(port)), true
}

// littleEndian: whether this machine stores a word's lowest byte first.
var littleEndian = binary.NativeEndian.Uint16([]byte{1, 0}) == 1
