package redact

import (
	"strings"
	"testing"
)

// TestAssertionsAgreeWithPytest: what pytest reports of failed asserts
// that compare secrets (an attribute, a dict's key, the environment, a
// local variable's method, len, is None, in a tuple, a list, a dict), in
// its long, short and native tracebacks, quiet and verbose, and what
// unittest's runner reports of its assertions (assertEqual, assertIn,
// assertIsNone, assertDictEqual, with a message): run by pytest and
// unittest themselves, masked, and no 8 bytes of a secret left, as written
// or as repr writes it; the explanations of asserts that compare no secret
// are shown. The summary is masked read alone too (a read that starts
// after the blocks it sums up), its test names shown.
func TestAssertionsAgreeWithPytest(t *testing.T) {
	againstPython(t, pytestDocs, pytestCheck, 18, func(s string) string {
		out, _ := maskText(s, nil)
		if i := strings.Index(s, "short test summary info"); i >= 0 {
			alone, _ := maskText(s[i:], nil)
			if plain, _ := withoutEscapes(alone); !strings.Contains(plain, "FAILED test_gen.py::test_") {
				t.Errorf("the summary's test names masked: %q", alone)
			}
			out += "\n" + alone
		}
		return out
	})
}

const pytestDocs = `
import json, os, random, string, subprocess, sys, tempfile
rng = random.Random(int(sys.argv[1]))
CHARS = string.ascii_letters + string.digits + "-_.!@#%&*+=:/ "
def secret():
    s = "S" + "".join(rng.choice(CHARS + ("'\\\\" if rng.random() < 0.2 else "")) for _ in range(rng.randint(10, 16)))
    return s.rstrip()
KINDS = [
    "assert c{i}.password == {other!r}",
    "assert s{i}['api_key'] == {other!r}",
    "assert {other!r} in c{i}.token",
    "assert os.environ['DB_PASSWORD_{i}'] == {other!r}",
    "assert os.getenv('DB_PASSWORD_{i}') == {other!r}",
    "db_password = {sec!r}\n    assert db_password.startswith({other!r})",
    "assert c{i}.password.upper() == {other!r}",
    "assert len(c{i}.password) == 3",
    "assert c{i}.password is None",
    "assert c{i}.api_key != c{i}.api_key[::-1] + 'x' and False",
]
UNIT = [
    "self.assertEqual(c{i}.password, {other!r})",
    "self.assertEqual({other!r}, s{i}['api_key'])",
    "self.assertIn({other!r}, c{i}.token)",
    "self.assertIsNone(c{i}.password)",
    "self.assertEqual(os.getenv('DB_PASSWORD_{i}'), {other!r}, 'the environment')",
    "self.assertEqual([c{i}.token], [{other!r}])",
    "self.assertDictEqual({{'k': c{i}.api_key}}, {{'k': {other!r}}})",
    "self.assertEqual(c{i}.password, {other!r}, msg='login')",
]
KINDS += [
    "assert (c{i}.password, 1) == ({other!r}, 1)",
    "assert [c{i}.token] == [{other!r}]",
    "assert {{'k': c{i}.api_key}} == {{'k': {other!r}}}",
]
for n in range(int(sys.argv[2])):
    d = tempfile.mkdtemp()
    unit = n % 3 == 2  # unittest's own runner
    src = ["import os", "class Cfg:", "    def __init__(self, **kw): self.__dict__.update(kw)", "    def __repr__(self): return '<Cfg>'", ""]
    tests, secrets, controls = [], [], []
    for i in range(12):
        if rng.random() < 0.25:
            ctrl = "ctrl%dx%d" % (n, i)
            src.append("u%d = Cfg(name='ada%d')" % (i, i))
            check = "self.assertEqual(u%d.name, %r)" if unit else "assert u%d.name == %r"
            tests.append(("def test_c%d(%s):\n    " + check + "\n") % (i, "self" if unit else "", i, ctrl))
            controls.append(ctrl)
            continue
        sec = secret()
        secrets.append(sec)
        src.append("c%d = Cfg(password=%r, token=%r, api_key=%r)" % (i, sec, sec, sec))
        src.append("s%d = {'api_key': %r}" % (i, sec))
        src.append("os.environ['DB_PASSWORD_%d'] = %r" % (i, sec))
        body = rng.choice(UNIT if unit else KINDS).format(i=i, other="zz-%d" % i, sec=sec)
        tests.append("def test_%d(%s):\n    %s\n" % (i, "self" if unit else "", body))
    if unit:
        src.append("import unittest\nclass T(unittest.TestCase):")
        tests = ["\n".join("    " + l for l in t.split("\n")) for t in tests]
    path = os.path.join(d, "test_gen.py")
    with open(path, "w") as f:
        f.write("\n".join(src) + "\n" + "\n".join(tests))
    if unit:
        args = [sys.executable, "-m", "unittest", rng.choice(["-q", "-v"]), "test_gen"]
        run = subprocess.run(args, capture_output=True, text=True, cwd=d)
        out = run.stderr
    else:
        tb = rng.choice(["long", "long", "short", "native", "auto", "line"])
        if tb == "line":
            controls = []  # no source to place a value by: every message is masked
        args = [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", rng.choice(["-q", "-v", "-vv", "-rA"]), "--tb=" + tb, path]
        if rng.random() < 0.3:
            args.append("--color=yes")  # a terminal's escapes around the lines
        env = {k: v for k, v in os.environ.items() if k not in ("CI", "BUILD_NUMBER")}
        if rng.random() < 0.5:
            env["CI"] = "true"  # pytest does not cut the summary's lines: the whole message, over lines
        env["COLUMNS"] = rng.choice(["80", "120", "200"])  # where pytest cuts them otherwise
        out = subprocess.run(args, capture_output=True, text=True, cwd=d, env=env).stdout
    print(json.dumps([out, json.dumps(secrets), json.dumps(controls)]))
`

const pytestCheck = `
import json, sys
def windows(s):
    return {s[i:i + 8] for i in range(len(s) - 7)}
for line in sys.stdin:
    text, masked, secrets, controls = json.loads(line)
    bad = []
    for s in json.loads(secrets):
        for w in windows(s) | windows(repr(s)[1:-1]):
            if w in masked:
                bad.append((s, w))
                break
    lost = [c for c in json.loads(controls) if c not in masked]
    if "passed" not in masked and "failed" not in masked and "FAILED (failures=" not in masked:
        lost.append("the summary")
    print(json.dumps("left %r" % bad if bad else "controls masked %r" % lost if lost else ""))
`

func TestMaskAssertions(t *testing.T) {
	for _, c := range []struct{ in, want, found string }{
		{">       assert cfg.password == \"guess\"\nE       AssertionError: assert 'S3cr3t-v' == 'guess'\nE         - guess\nE         + S3cr3t-v\n",
			">       assert cfg.password == \"guess\"\nE       AssertionError: assert '[redacted]' == 'guess'\nE         - guess\nE         + [redacted]\n", "S3cr3t-v"},
		{"E        +  where 'k3y-x9' = <Cfg>.api_key\n", "E        +  where '[redacted]' = <Cfg>.api_key\n", "k3y-x9"},
		{"E        +  where 'ada' = <User>.name\n", "E        +  where 'ada' = <User>.name\n", ""},
		{">       assert user.name == 'bob'\nE       AssertionError: assert 'ada' == 'bob'\n", ">       assert user.name == 'bob'\nE       AssertionError: assert 'ada' == 'bob'\n", ""},
		// not Python (cut short): every string of the explanation
		{">       assert cfg.token == 'x'\nE       AssertionError: assert 'abcdefgh...\n", ">       assert cfg.token == 'x'\nE       AssertionError: assert [redacted]\n", ""},
		{"___ test_a ___\n>   assert cfg.token == 'x'\nE   assert 'T0ken-abc' == 'x'\n=== short test summary info ===\nFAILED t.py::test_a - assert 'T0ke...\n",
			"___ test_a ___\n>   assert cfg.token == 'x'\nE   assert '[redacted]' == 'x'\n=== short test summary info ===\nFAILED t.py::test_a - [redacted]\n", "T0ken-abc"},
		// CI set: pytest does not cut a summary's message; it goes on over lines
		{"___ test_a ___\n>   assert [cfg.token] == ['x']\nE   AssertionError: assert ['T0ken-abc'] == ['x']\nE     At index 0 diff: 'T0ken-abc' != 'x'\n___ test_b ___\n=== short test summary info ===\nFAILED t.py::test_a - AssertionError: assert ['T0ken-abc'] == ['x']\n  At index 0 diff: 'T0ken-abc' != 'x'\n\n  + ['T0ken-abc']\nFAILED t.py::test_b - assert 1 == 2\n  + 1\n2 failed in 0.01s\n",
			"___ test_a ___\n>   assert [cfg.token] == ['x']\nE   AssertionError: assert [redacted]\nE     [redacted]\n___ test_b ___\n=== short test summary info ===\nFAILED t.py::test_a - [redacted]\n  [redacted]\n\n  [redacted]\nFAILED t.py::test_b - assert 1 == 2\n  + 1\n2 failed in 0.01s\n", ""},
		// a summary read without the blocks it sums up: what they showed is not known
		{"=== short test summary info ===\nFAILED t.py::test_a - AssertionError: Secret-t0k3n-v\nFAILED t.py::test_b - assert 'S3c-8' == 'x'\n  - x\n2 failed in 0.01s\n",
			"=== short test summary info ===\nFAILED t.py::test_a - [redacted]\nFAILED t.py::test_b - [redacted]\n  [redacted]\n2 failed in 0.01s\n", ""},
		// --tb=native: no E; the explanation goes on over indented lines
		{"  File \"t.py\", line 3, in test_a\n    assert (cfg.password, 1) == ('x', 1)\nAssertionError: assert ('S3cr3t-n', 1) == ('x', 1)\n  At index 0 diff: 'S3cr3t-n' != 'x'\n\n",
			"  File \"t.py\", line 3, in test_a\n    assert (cfg.password, 1) == ('x', 1)\nAssertionError: assert [redacted]\n  [redacted]\n\n", ""},
		// not pytest's: no test named
		{"FAILED login for ada - retrying\nnext line\n", "FAILED login for ada - retrying\nnext line\n", ""},
		// --tb=line: no source to place the values by
		{"/t/test_a.py:4: AssertionError: assert 'S3cr3t-l' == 'x'\n/t/test_a.py:9: KeyError: 'k'\n",
			"/t/test_a.py:4: [redacted]\n/t/test_a.py:9: KeyError: 'k'\n", ""},
		{"E   assert 1 == 2\n\nt.py:4: AssertionError\n", "E   assert 1 == 2\n\nt.py:4: AssertionError\n", ""}, // a block's last line
		{"C:\\t\\test_a.py:6: assert [\"S3'cr3t\"] == ['x']\n", "C:\\t\\test_a.py:6: [redacted]\n", ""},
		// unittest: its assertion's call and message, to its separator
		{"    self.assertEqual(cfg.password, 'x')\nAssertionError: 'S3cr3t-u' != 'x'\n- S3cr3t-u\n+ x\n\n---\n",
			"    self.assertEqual(cfg.password, 'x')\nAssertionError: '[redacted]' != 'x'\n- [redacted]\n+ x\n\n---\n", "S3cr3t-u"},
		{"    self.assertEqual([cfg.token], ['x'])\nAssertionError: Lists differ: ['T0k-u'] != ['x']\n\nFirst differing element 0:\n'T0k-u'\n'x'\n=====\nOK\n",
			"    self.assertEqual([cfg.token], ['x'])\nAssertionError: [redacted]\n\n[redacted]\n[redacted]\n[redacted]\n=====\nOK\n", ""},
	} {
		var found []string
		got, _ := maskAssertions(c.in, nil, func(v string) { found = append(found, v) })
		if got != c.want || strings.Join(found, ",") != c.found {
			t.Errorf("%q:\n got %q %q\nwant %q %q", c.in, got, found, c.want, c.found)
		}
	}
}

// FuzzMaskAssertions: any text is masked without a panic and keeps its
// line ends.
func FuzzMaskAssertions(f *testing.F) {
	fuzzKeepsLines(f, func(t *testing.T, s string) string { out, _ := maskAssertions(s, nil, nil); return out },
		">       assert cfg.password == \"g\"\nE       AssertionError: assert 'S3cr3t-v' == 'g'\nE         + S3cr3t-v\n",
		"E        +  where 'k3y-x9' = <Cfg>.api_key\n", "___ t ___\n> assert cfg.token\nE assert ''\nFAILED t.py::t - assert 'x...\n",
		"    assert os.getenv('API_KEY') == 1\nAssertionError: assert 1234 == 1\n  +  where 1234 = f()['pin_password']\n")
}
