package targets

import (
	"strconv"
	"testing"

	"github.com/debugpy-guard/debugpy-guard/policies/internal/policytest"
)

func addr(host, address string) string {
	return `{"code":[],"paths":[],"addresses":[{"argument":"host","host":"` + host + `","address":"` + address + `","port":5678}]}`
}

// process and owned are derived facts as the host writes them: an
// owner's uid, -1 when unknown.
func process(pid int, owner string) string {
	return `{"code":[],"paths":[],"addresses":[],"processes":[{"argument":"pid","pid":` + strconv.Itoa(pid) + `,"owner":"` + owner + `","uid":` + uid(owner) + `}]}`
}

func owned(address, owner string) string {
	return `{"code":[],"paths":[],"addresses":[{"argument":"host","host":"h","address":"` + address + `","port":5678,"owner":"` + owner + `","uid":` + uid(owner) + `}]}`
}

func uid(owner string) string {
	switch owner {
	case "other":
		return "1001"
	case "self":
		return "0"
	}
	return "-1"
}

func file(kind, resolved string, session bool) string {
	s := "false"
	if session {
		s = "true"
	}
	return `{"code":[],"paths":[{"argument":"path","kind":"` + kind + `","given":"x","resolved":"` + resolved + `","session":` + s + `}],"addresses":[]}`
}

// reported is a session's source file that debugpy reported (a frame's).
func reported(resolved string) string {
	return `{"code":[],"paths":[{"argument":"file","kind":"source","given":"x","resolved":"` + resolved + `","session":true,"reported":true}],"addresses":[]}`
}

func TestDecide(t *testing.T) {
	attach := "debugpy_attach"
	cases := []policytest.Case{
		{Name: "nothing to judge", Tool: "debugpy_stack_trace", Want: "abstain"},
		{Name: "loopback", Tool: attach, Derived: addr("localhost", "127.0.0.1"), Want: "allow", Reason: "attach to localhost (127.0.0.1) is allowed"},
		{Name: "loopback v6", Tool: attach, Derived: addr("::1", "::1"), Want: "allow"},
		{Name: "loopback mapped in v6", Tool: attach, Derived: addr("::ffff:127.0.0.1", "::ffff:127.0.0.1"), Want: "allow"},
		{Name: "127/8", Tool: attach, Derived: addr("127.9.9.9", "127.9.9.9"), Want: "allow"},
		// Whose debugpy listens there (derived.addresses[].owner).
		{Name: "loopback, ours", Tool: attach, Derived: owned("127.0.0.1", "self"), Want: "allow"},
		{Name: "loopback, another user's", Tool: attach, Derived: owned("127.0.0.1", "other"), Want: "approve", Reason: "runs as another user of this machine (uid 1001)"},
		{Name: "a listed host, another user's", Tool: attach, Derived: owned("10.0.0.5", "other"), Settings: `{"hosts":["10.0.0.5"]}`, Want: "approve"},
		{Name: "another user's, not listed", Tool: attach, Derived: owned("10.0.0.5", "other"), Want: "deny"},
		{Name: "loopback, nobody's yet", Tool: attach, Derived: owned("127.0.0.1", "unknown"), Want: "allow"},
		{Name: "another host", Tool: attach, Derived: addr("db", "10.0.0.5"), Want: "deny", Reason: "attach to db (10.0.0.5) is not allowed"},
		{Name: "a zone", Tool: attach, Derived: addr("fe80::1%eth0", "fe80::1%eth0"), Settings: `{"hosts":["fe80::/10"]}`, Want: "deny"},
		{Name: "not an address", Tool: attach, Derived: addr("x", "x"), Want: "deny"},
		{Name: "a listed prefix", Tool: attach, Derived: addr("db", "10.0.0.5"), Settings: `{"hosts":["10.0.0.0/8"]}`, Want: "allow"},
		{Name: "a listed address, mapped", Tool: attach, Derived: addr("db", "::ffff:10.0.0.5"), Settings: `{"hosts":["10.0.0.5"]}`, Want: "allow"},
		{Name: "hosts replace loopback", Tool: attach, Derived: addr("localhost", "127.0.0.1"), Settings: `{"hosts":["10.0.0.5"]}`, Want: "deny"},
		{Name: "hosts keep loopback", Tool: attach, Derived: addr("localhost", "127.0.0.1"), Settings: `{"hosts":["10.0.0.5","loopback"]}`, Want: "allow"},
		{Name: "/proc never", Tool: "debugpy_source", Derived: file("source", "/proc/self/environ", true), Want: "deny", Reason: "is never allowed"},
		{Name: "/dev never", Tool: "debugpy_source", Derived: file("source", "/dev/mem", false), Settings: `{"files":"allow"}`, Want: "deny"},
		{Name: "/procfs is not /proc", Tool: "debugpy_source", Derived: file("source", "/procfs/a.py", true), Want: "allow"},
		{Name: "a session's file", Tool: "debugpy_source", Derived: file("source", "/srv/app.py", true), Want: "allow", Reason: "belongs to the debug session"},
		{Name: "another file", Tool: "debugpy_source", Derived: file("source", "/etc/passwd", false), Want: "approve", Reason: "could hold secrets"},
		// A session's directory holds data and configuration too: a file
		// there that is not Python source, unless debugpy reported it,
		// waits for a person (data_files).
		{Name: "a session's CSV", Tool: "debugpy_source", Derived: file("source", "/srv/users.csv", true), Want: "approve", Reason: "not Python source"},
		{Name: "a session's database", Tool: "debugpy_source", Derived: file("source", "/srv/app.db", true), Want: "approve"},
		{Name: "a session's .env", Tool: "debugpy_source", Derived: file("source", "/srv/.env", true), Want: "approve"},
		{Name: "a session's data, data_files allow", Tool: "debugpy_source", Derived: file("source", "/srv/users.csv", true), Settings: `{"data_files":"allow"}`, Want: "allow"},
		{Name: "a session's data, data_files deny", Tool: "debugpy_source", Derived: file("source", "/srv/users.csv", true), Settings: `{"data_files":"deny"}`, Want: "deny"},
		{Name: "a stub", Tool: "debugpy_source", Derived: file("source", "/srv/app.pyi", true), Want: "allow"},
		{Name: "a script debugpy reported", Tool: "debugpy_source", Derived: reported("/srv/bin/manage"), Want: "allow", Reason: "belongs to the debug session"},
		{Name: "another file, files deny", Tool: "debugpy_source", Derived: file("source", "/etc/passwd", false), Settings: `{"files":"deny"}`, Want: "deny"},
		{Name: "a program, no programs set", Tool: "debugpy_launch", Derived: file("program", "/tmp/x.py", false), Want: "abstain"},
		{Name: "a listed program", Tool: "debugpy_launch", Derived: file("program", "/srv/app.py", false), Settings: `{"programs":["/srv/*.py"]}`, Want: "allow"},
		{Name: "an unlisted program", Tool: "debugpy_launch", Derived: file("program", "/tmp/x.py", false), Settings: `{"programs":["/srv/*.py"]}`,
			Want: "deny", Reason: "program /tmp/x.py is not in targets.programs"},
		{Name: "a python, programs set", Tool: "debugpy_launch", Derived: file("executable", "/usr/bin/python3", false), Settings: `{"programs":["/srv/*.py"]}`,
			Want: "deny", Reason: "list it in targets.interpreters"},
		{Name: "a listed python", Tool: "debugpy_launch", Derived: file("executable", "/usr/bin/python3", false), Settings: `{"interpreters":["/usr/bin/python3*"]}`, Want: "allow"},
		{Name: "a module", Tool: "debugpy_launch", Args: `{"module":"http.server"}`, Settings: `{"programs":["-m http.*"]}`, Want: "allow"},
		{Name: "an unlisted module", Tool: "debugpy_launch", Args: `{"module":"os"}`, Settings: `{"programs":["-m http.*"]}`, Want: "deny"},
		{Name: "pid off", Tool: "debugpy_attach_pid", Args: `{"pid":1}`, Want: "deny", Reason: "targets.allow_pid"},
		{Name: "pid on", Tool: "debugpy_attach_pid", Args: `{"pid":1}`, Settings: `{"allow_pid":true}`, Want: "allow"},
		// Whose process it is (derived.processes[].owner).
		{Name: "pid on, ours", Tool: "debugpy_attach_pid", Args: `{"pid":7}`, Derived: process(7, "self"), Settings: `{"allow_pid":true}`, Want: "allow"},
		{Name: "pid on, another user's", Tool: "debugpy_attach_pid", Args: `{"pid":7}`, Derived: process(7, "other"), Settings: `{"allow_pid":true}`,
			Want: "approve", Reason: "process 7 runs as another user of this machine (uid 1001)"},
		{Name: "pid on, nobody knows whose", Tool: "debugpy_attach_pid", Args: `{"pid":7}`, Derived: process(7, "unknown"), Settings: `{"allow_pid":true}`, Want: "approve", Reason: "process 7's owner cannot be read"},
		{Name: "pid off, another user's", Tool: "debugpy_attach_pid", Args: `{"pid":7}`, Derived: process(7, "other"), Want: "deny"},
		{Name: "deny beats allow", Tool: attach,
			Derived: `{"code":[],"paths":[],"addresses":[{"argument":"host","host":"a","address":"127.0.0.1","port":1},{"argument":"host","host":"b","address":"10.1.1.1","port":1}]}`,
			Want:    "deny", Reason: "b (10.1.1.1)"},
		{Name: "phase result", Phase: "result", Tool: attach, Result: `{}`, Derived: addr("db", "10.0.0.5"), Want: "abstain"},
	}
	policytest.Run(t, Decide, cases)
	// As the built-in module runs it: its settings read once, for every call.
	policytest.Prepared(t, Prepare, Decide, cases)
}

func TestValidate(t *testing.T) {
	policytest.Validate(t, Validate, []policytest.Setting{
		{JSON: `{"hosts":["loopback","10.0.0.0/8","::1","192.168.1.7"],"programs":["/srv/*.py","-m http.*"],"interpreters":["/usr/bin/python3*"],"allow_pid":true,"files":"deny"}`},
		{JSON: `{"hosts":["db.internal"]}`, Err: `hosts entry "db.internal" is not "loopback", an IP address or a CIDR prefix`},
		{JSON: `{"hosts":["fe80::1%eth0"]}`, Err: "is not"},
		{JSON: `{"programs":["[a-"]}`, Err: "programs entry [a- is not a glob"},
		{JSON: `{"files":"ask"}`, Err: "files must be allow, deny or approve"},
		{JSON: `{"data_files":"maybe"}`, Err: "data_files must be allow, deny or approve"},
		{JSON: `{"allow_pid":"yes"}`, Err: `setting "allow_pid" must be a boolean`},
	})
}
