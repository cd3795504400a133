package dap

import (
	"context"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

func TestReadNoDelay(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct{ file, want string }{
		{"", NoDelayPending},
		{"on pid=7\nwake on pid=7\non pid=9\n", NoDelayOn},
		{"wake on pid=7\non pid=7\n", NoDelayOn},
		{"off: pydevd has no NetCommand.send to patch pid=7\nwake on pid=7\n", "off: pydevd has no NetCommand.send to patch"},
		{"on pid=7\nwake off: no PyDB pid=7\n", "on; the stopped thread still polls every 10 ms (off: no PyDB)"},
		{"wake on pid=7\n", NoDelayPending},
	} {
		f := filepath.Join(dir, "status")
		os.WriteFile(f, []byte(c.file), 0o600)
		if got := readNoDelay(f); got != c.want {
			t.Errorf("%q: got %q, want %q", c.file, got, c.want)
		}
	}
	if got := readNoDelay(filepath.Join(dir, "missing")); got != NoDelayPending {
		t.Errorf("missing file: %q", got)
	}
}

// The shim against stand-ins for pydevd's modules: where they are as it
// expects, one write a message and an early wake-up; where they are not, the
// program runs on unchanged and the status says why.
func TestShimWithStandIns(t *testing.T) {
	py, err := FindPython(context.Background(), "")
	if err != nil {
		t.Fatal(err)
	}
	shim, err := ShimDir()
	if err != nil {
		t.Fatal(err)
	}
	run := func(t *testing.T, files map[string]string, program string) (out, status, fake string) {
		t.Helper()
		fake = t.TempDir()
		for name, text := range files {
			os.MkdirAll(filepath.Dir(filepath.Join(fake, name)), 0o755)
			os.WriteFile(filepath.Join(fake, name), []byte(text), 0o644)
		}
		file := filepath.Join(t.TempDir(), "status")
		cmd := exec.Command(py, "-c", program)
		cmd.Env = append(os.Environ(), "PYTHONPATH="+shim+":"+fake, "DEBUGPY_GUARD_NODELAY_STATUS="+file,
			"DEBUGPY_GUARD_PYTHONPATH="+fake)
		b, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("%v\n%s", err, b)
		}
		st, _ := os.ReadFile(file)
		return strings.TrimSpace(string(b)), string(st), fake
	}
	t.Run("as expected", func(t *testing.T) {
		out, status, fake := run(t, map[string]string{
			"_pydevd_bundle/__init__.py": "",
			"_pydevd_bundle/pydevd_net_command.py": `
class NetCommand(object):
    def send(self, sock):
        sock.sendall(b"Content-Length: 2\r\n\r\n")
        sock.sendall(b"{}")
`,
			"pydevd.py": `
import time
class PyDB(object):
    def post_internal_command(self, cmd, thread_id):
        pass
class PyDevdAPI(object):
    resumed = []
    def request_resume_thread(self, thread_id):
        PyDevdAPI.resumed.append(thread_id)
`,
		}, `
import os, socket
import _pydevd_bundle.pydevd_net_command as nc, pydevd
class Sock(object):
    def __init__(self): self.writes = []
    def sendall(self, b): self.writes.append(b)
s = Sock()
nc.NetCommand().send(s)
pydevd.PyDB().post_internal_command(None, "1")
print(len(s.writes), s.writes[0], pydevd.time._posted.is_set(), os.environ["PYTHONPATH"])
# A post wakes two polls (the one that runs the request, and the next), then none.
pydevd.time.sleep(0.01); first = pydevd.time._posted.is_set()
pydevd.time.sleep(0.01); print(first, pydevd.time._posted.is_set())
# pydevd's own TCP socket gets TCP_NODELAY; the program's others do not.
srv = socket.socket(); srv.bind(("127.0.0.1", 0)); srv.listen(2)
pydevds, other = socket.create_connection(srv.getsockname()), socket.create_connection(srv.getsockname())
nc.NetCommand().send(pydevds)
nc.NetCommand().send(pydevds)
nodelay = lambda k: k.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY) != 0
print(nodelay(pydevds), nodelay(other))
# A continue wakes the stopped threads' poll, after it resumed them.
pydevd.time._posted.clear()
pydevd.PyDevdAPI().request_resume_thread("*")
print(pydevd.PyDevdAPI.resumed, pydevd.time._posted.is_set())
`)
		if want := `1 b'Content-Length: 2\r\n\r\n{}' True ` + fake + "\nTrue False\nTrue False\n['*'] True"; out != want {
			t.Errorf("one write, a wake-up, the program's own PYTHONPATH, two polls woken by a post, TCP_NODELAY on pydevd's socket only, a wake-up at a resume: got %s, want %s", out, want)
		}
		if !strings.Contains(status, "on pid=") || !strings.Contains(status, "wake on pid=") {
			t.Errorf("status: %q", status)
		}
	})
	t.Run("not as expected", func(t *testing.T) {
		out, status, _ := run(t, map[string]string{
			"_pydevd_bundle/__init__.py":           "",
			"_pydevd_bundle/pydevd_net_command.py": "class Other(object):\n    pass\n",
			"pydevd.py":                            "x = 1\n",
		}, `
import _pydevd_bundle.pydevd_net_command, pydevd
print("ran", pydevd.x)
`)
		if out != "ran 1" {
			t.Errorf("the program: %s", out)
		}
		if !strings.Contains(status, "off: pydevd has no NetCommand.send to patch") || !strings.Contains(status, "wake off: ") {
			t.Errorf("status: %q", status)
		}
	})
}

// The shim is not written to, nor taken from, a directory that others can
// change: the debuggee runs it (internal/owndir).
func TestShimNotInAnOpenDir(t *testing.T) {
	files, _ := fs.Glob(pyshim, "pyshim/*.py")
	base := t.TempDir()
	if err := writeShim(filepath.Join(base, "own"), files); err != nil {
		t.Fatalf("a directory of one's own: %v", err)
	}
	os.Chmod(base, 0o777)
	if err := writeShim(filepath.Join(base, "own"), files); err == nil {
		t.Fatal("a directory whose parent is open to others was used")
	}
	os.Chmod(base, 0o700)
	os.Chmod(filepath.Join(base, "own", "sitecustomize.py"), 0o666)
	if err := writeShim(filepath.Join(base, "own"), files); err == nil {
		t.Fatal("a shim file open to others was used")
	}
}
