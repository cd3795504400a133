package redact

import (
	"strings"
	"testing"
)

func TestMaskPipedSecrets(t *testing.T) {
	for _, c := range []struct{ in, want, found string }{
		{"echo S3cr3t-x | sudo -S apt update", "echo [redacted] | sudo -S apt update", "S3cr3t-x"},
		{"echo -n 'S3 cr3t' | sudo -kS -u root true", "echo -n '[redacted]' | sudo -kS -u root true", "S3 cr3t"},
		{`printf '%s\n' "S3cr3t-x" | docker login -u ada --password-stdin ghcr.io`, `printf '%s\n' "[redacted]" | docker login -u ada --password-stdin ghcr.io`, "S3cr3t-x"},
		{`printf 'S3cr3t-x\n' | sudo --stdin true`, `printf '[redacted]' | sudo --stdin true`, "S3cr3t-x"},
		{"echo 'ada:S3cr3t-x' | chpasswd", "echo '[redacted]' | chpasswd", "ada:S3cr3t-x,S3cr3t-x"},
		{"sudo passwd --stdin ada <<< S3cr3t-x; ls", "sudo passwd --stdin ada <<< [redacted]; ls", "S3cr3t-x"},
		{`run("echo S3cr3t-x | sudo -S true", shell=True)`, `run("echo [redacted] | sudo -S true", shell=True)`, "S3cr3t-x"},
		{"echo S3cr3t-x |& sudo -S true", "echo [redacted] |& sudo -S true", "S3cr3t-x"},
		// what no program reads as a password: left
		{`echo "$PASSWORD" | docker login --password-stdin r`, `echo "$PASSWORD" | docker login --password-stdin r`, ""},
		{"echo hello-world | tr a-z A-Z", "echo hello-world | tr a-z A-Z", ""},
		{"echo hello-world | sudo tee /etc/motd", "echo hello-world | sudo tee /etc/motd", ""},
		{"echo a || sudo -S true", "echo a || sudo -S true", ""},
		{"grep 'echo x' log | sudo -S kill", "grep 'echo x' log | sudo -S kill", ""},
		{"echo $(cat pw.txt) | sudo -S true", "echo $(cat pw.txt) | sudo -S true", ""},
	} {
		var found []string
		got, _ := maskCommands(c.in, func(v string) { found = append(found, v) })
		if got != c.want || strings.Join(found, ",") != c.found {
			t.Errorf("%q:\n got %q %q\nwant %q %q", c.in, got, found, c.want, c.found)
		}
	}
}

// TestPipedSecretsAgreeWithBash: 300 command lines that hand a password to a
// program on its input (echo or printf into sudo -S, docker login
// --password-stdin, passwd --stdin, chpasswd; a here-string), the
// password quoted as shlex.quote and bash's printf %q quote it, or in
// double quotes, printed and in a repr; and, as the control, pipes into
// programs that read no password. Masked, each line is run by bash with
// the readers defined as functions that print what they read and their
// arguments: the password's line reads as the mask, the arguments as they
// were, and no 6 bytes of a password are left; a control is as it was.
func TestPipedSecretsAgreeWithBash(t *testing.T) {
	againstPython(t, pipedDocs, pipedCheck, 300, func(s string) string { out, _ := maskText(s, nil); return out })
}

const pipedDocs = `
import json, random, shlex, string, subprocess, sys
rng = random.Random(int(sys.argv[1]))
def secret():
    s = "".join(rng.choice(string.ascii_letters + string.digits) for _ in range(6))
    for _ in range(rng.randint(4, 12)):
        s += rng.choice(string.ascii_letters + string.digits + " '\"$;|&()*?!-_=:%") if rng.random() < 0.3 else rng.choice(string.ascii_letters)
    return s
docs = []
n = int(sys.argv[2])
pws = [secret() for _ in range(n)]
quoted = subprocess.run(["bash", "-c", 'for a in "$@"; do printf "%q\\n" "$a"; done', "x"] + pws, capture_output=True, text=True, check=True).stdout.splitlines()
for i in range(n):
    pw = pws[i]
    q = rng.choice([shlex.quote(pw), quoted[i], '"' + pw.replace("\\", "\\\\").replace('"', '\\"').replace("$", "\\$") + '"'])
    kind = rng.randint(0, 7)
    if kind == 0:
        line, got = "echo %s | sudo -S %s apt-get update" % (q, rng.choice(["", "-k", "-u root"])), pw
    elif kind == 1:
        line, got = "echo -n %s | sudo -kS true" % q, pw
    elif kind == 2:
        line, got = "printf '%%s\\n' %s | docker login -u ada --password-stdin ghcr.io" % q, pw
    elif kind == 3:
        line, got = "echo %s | passwd --stdin ada" % q, pw
    elif kind == 4:
        line, got = "echo %s | chpasswd" % shlex.quote("ada:" + pw), "ada:" + pw
    elif kind == 5:
        line, got = "sudo passwd --stdin ada <<< %s" % q, pw
    elif kind == 6:  # the control: a pipe into a program that reads no password
        line, got = "echo %s | %s" % (q, rng.choice(["tr a-z A-Z", "sudo tee /tmp/x", "base64"])), None
    else:
        line, got = "echo %s || sudo -S true" % q, None
    text = rng.choice(["%s", "+ %s", "subprocess.run(%r, shell=True)"])
    text = text % line if "%r" not in text else text % (line,)
    print(json.dumps([text, line, json.dumps(got), json.dumps(pw)]))
`

const pipedCheck = `
import ast, json, os, subprocess, sys, tempfile
M = "[redacted]"
PRELUDE = '''
readpw() { local x; IFS= read -r x; printf 'IN=%s ARGS=%s\\n' "$x" "$*"; }
sudo() { readpw "$@"; }
docker() { readpw "$@"; }
passwd() { readpw "$@"; }
chpasswd() { readpw "$@"; }
'''
def line_of(text):
    if text.startswith("subprocess.run("):
        return ast.literal_eval(text[len("subprocess.run("):-len(", shell=True)")])
    return text[2:] if text.startswith("+ ") else text
def run(line):
    with tempfile.TemporaryDirectory() as d:
        r = subprocess.run(["bash", "-c", PRELUDE + line], capture_output=True, text=True, cwd=d, timeout=10)
        return r.stdout
for l in sys.stdin:
    text, masked, line, got, pw = json.loads(l)
    got = json.loads(got)
    if got is None:
        print(json.dumps("" if masked == text else "a control masked: %r" % masked))
        continue
    if any(pw[i:i + 6] in masked for i in range(len(pw) - 5)):
        print(json.dumps("left in %r" % masked))
        continue
    want = run(line).replace("IN=" + got, "IN=" + M)
    have = run(line_of(masked))
    print(json.dumps("" if have == want and "IN=" + M in have else "ran %r: %r, want %r" % (line_of(masked), have, want)))
`

// FuzzPipedSecrets: any text is masked without a panic and keeps its line
// ends.
func FuzzPipedSecrets(f *testing.F) {
	fuzzKeepsLines(f, func(t *testing.T, s string) string { out, _ := maskCommands(s, nil); return out },
		"echo S3cr3t | sudo -S true", "printf '%s\\n' x | docker login --password-stdin", "sudo -S x <<< y", "echo |", "<<<", "echo 'a | sudo -S")
}
