package redact

import (
	"strings"
	"testing"
)

// yamlDocs writes, with PyYAML, documents as yaml.dump writes a program's
// config: dicts and lists to four levels, some under secrets' names, with
// strings of every kind PyYAML quotes or folds (spaces, ': ', ' #', quotes,
// long ones over several lines), numbers, booleans and nulls. One JSON
// array a line: [the document's text].
const yamlDocs = `import json, random, sys, yaml
rng = random.Random(int(sys.argv[1]))
secret_keys = ["api_key", "password", "token", "secrets", "creds", "client_secret"]
plain_keys = ["name", "host", "port", "mode", "env", "items", "region"]
def text():
    k = rng.randrange(11)
    if k == 0:
        return " ".join("w%d" % rng.randrange(10**6) for _ in range(rng.randrange(10, 25)))  # folded
    if k == 1:
        return "a: b # c"
    if k == 2:
        return "it's \"quoted\""
    if k == 3:
        return "- dash"
    if k == 4:
        return "ünï-%d" % rng.randrange(1000)
    if k == 5:
        return "esc \x01 %d " % rng.randrange(100) * rng.randrange(1, 12)  # double-quoted, folded with a backslash
    if k == 6:
        return "it's %d " % rng.randrange(100) * rng.randrange(1, 15)  # single-quoted, folded
    return "".join(rng.choice("abcxyz0123-_./") for _ in range(rng.randrange(1, 20)))
def scalar():
    return rng.choice([text, text, text, lambda: rng.randrange(10**6), lambda: rng.random() < 0.5, lambda: None])()
def node(depth):
    k = rng.randrange(4) if depth < 4 else 3
    if k == 0:
        return {rng.choice(secret_keys + plain_keys * 2) + ("" if rng.random() < 0.8 else str(rng.randrange(9))): node(depth + 1) for _ in range(rng.randrange(1, 4))}
    if k == 1:
        return [node(depth + 1) for _ in range(rng.randrange(1, 4))]
    return scalar()
for _ in range(int(sys.argv[2])):
    doc = {rng.choice(secret_keys + plain_keys): node(1) for _ in range(rng.randrange(1, 5))}
    print(json.dumps([yaml.dump(doc, default_flow_style=False, sort_keys=False, allow_unicode=True)]))
`

// yamlCheck reads pairs of documents (as written, as masked) and says, for
// each, what a reader of the masked one learns that it should not: every
// scalar under a secret's name (at any depth below it) must read as the
// mask (or be empty), and everything else must read as it was.
const yamlCheck = `import json, sys, yaml
secret_keys = {"api_key", "password", "token", "secrets", "creds", "client_secret"}
def is_secret(k):
    return isinstance(k, str) and k.rstrip("0123456789") in secret_keys
def compare(a, b, under, path):
    if isinstance(a, dict):
        if not isinstance(b, dict) or list(a) != list(b):
            return "%s: keys %r, masked %r" % (path, a if not isinstance(a, dict) else list(a), b if not isinstance(b, dict) else list(b))
        for k in a:
            why = compare(a[k], b[k], under or is_secret(k), path + "/" + str(k))
            if why: return why
        return ""
    if isinstance(a, list):
        if not isinstance(b, list) or len(a) != len(b):
            return "%s: list %r, masked %r" % (path, a, b)
        for i, (x, y) in enumerate(zip(a, b)):
            why = compare(x, y, under, path + "/" + str(i))
            if why: return why
        return ""
    if under:
        if a in ("", None) and b in ("", None): return ""
        # a value folded over lines is masked a line at a time
        return "" if isinstance(b, str) and set(b.split()) == {"MASKED"} else "%s: %r shown as %r" % (path, a, b)
    return "" if a == b else "%s: %r changed to %r" % (path, a, b)
for line in sys.stdin:
    orig, masked = json.loads(line)
    try:
        # the mask reads as a list in YAML ([redacted]): read as a word
        print(json.dumps(compare(yaml.safe_load(orig), yaml.safe_load(masked.replace("[redacted]", "MASKED")), False, "")))
    except yaml.YAMLError as e:
        print(json.dumps("the masked text is not YAML: %s" % e))
`

// TestYAMLBlocksAgreeWithPyYAML masks 1,500 documents yaml.dump wrote and
// reads them back with yaml.safe_load: every value under a secret's name,
// to any depth, reads as the mask; every other value and every key reads
// as it was.
func TestYAMLBlocksAgreeWithPyYAML(t *testing.T) {
	againstPython(t, yamlDocs, yamlCheck, 1500, func(s string) string { out, _ := maskAssignments(s, nil, nil); return out })
}

// FuzzMaskAssignments: any text is masked without a panic and keeps its
// lines; each value handed over is a piece of the text.
func FuzzMaskAssignments(f *testing.F) {
	fuzzKeepsLines(f, func(t *testing.T, s string) string {
		out, _ := maskAssignments(s, nil, func(v string) {
			if v == "" || !strings.Contains(s, v) {
				t.Fatalf("handed over %q, not a piece of %q", v, s)
			}
		})
		return out
	}, "api_key:\n  prod: k-1x\n- a\n", "password: 'it''s'\n  more\n", "- - token:\n    - x\n  - y\n",
		"x = 1\npassword = a b\n  c\n", "\"k\": \"v\\\"w\",\n", "token:   # c\r\n  \"k\": \"v\"\r\n")
}

// sectionDocs writes config files with sections named for secrets and not:
// INI as configparser writes it, and TOML tables (as a person writes them;
// the standard library reads TOML but writes none). One JSON line a file:
// [text, "ini" or "toml"].
const sectionDocs = `import configparser, io, json, random, sys
rng = random.Random(int(sys.argv[1]))
secret = ["api_keys", "credentials", "secrets", "tokens", "passwords"]
plain = ["db", "app", "server", "paths", "logging"]
keys = ["prod", "dev", "key_id", "host", "name", "region", "url"]
def text():
    return rng.choice(["".join(rng.choice("abcxyz0123-_./") for _ in range(rng.randrange(1, 16))),
                       "two words %d" % rng.randrange(99), "a:b # c", "ünï"])
for _ in range(int(sys.argv[2])):
    names = rng.sample(secret + plain, rng.randrange(1, 5))
    if rng.random() < 0.5:
        cp = configparser.ConfigParser(interpolation=None)
        for n in names:
            cp[n] = {k: text().replace("%", "") for k in rng.sample(keys, rng.randrange(1, 4))}
        out = io.StringIO()
        cp.write(out)
        print(json.dumps([out.getvalue(), "ini"]))
    else:
        lines = []
        for n in names:
            if rng.random() < 0.3:
                n = n + "." + rng.choice(keys)
            lines.append("[%s]" % n)
            for k in rng.sample(keys, rng.randrange(1, 4)):
                v = rng.choice([json.dumps(text(), ensure_ascii=False), str(rng.randrange(10**5)), "true"])
                lines.append("%s = %s" % (k, v))
            lines.append("")
        print(json.dumps(["\n".join(lines), "toml"]))
`

// sectionCheck reads [original, masked, kind] and says what a reader of the
// masked file learns that it should not: every value of a section named for
// a secret must read as the mask, every other value as it was.
const sectionCheck = `import configparser, json, sys, tomllib
secret = {"api_keys", "credentials", "secrets", "tokens", "passwords"}
def flat(text, kind):
    out = {}
    if kind == "ini":
        cp = configparser.ConfigParser(interpolation=None)
        cp.read_string(text)
        for s in cp.sections():
            for k, v in cp[s].items():
                out[(s, k)] = v
    else:
        def walk(d, path):
            for k, v in d.items():
                if isinstance(v, dict): walk(v, path + [k])
                else: out[(".".join(path), k)] = v
        walk(tomllib.loads(text.replace("[redacted]", '"MASKED"').replace('"MASKED"', '"MASKED"')), [])
    return out
for line in sys.stdin:
    orig, masked, kind = json.loads(line)
    try:
        a, b = flat(orig, kind), flat(masked.replace('"[redacted]"', '"MASKED"').replace("[redacted]", "MASKED" if kind == "ini" else '"MASKED"'), kind)
    except Exception as e:
        print(json.dumps("the masked file does not read: %s" % e)); continue
    why = ""
    if a.keys() != b.keys():
        why = "keys %s, masked %s" % (sorted(a), sorted(b))
    for key, v in a.items():
        if why: break
        section = key[0].split(".")
        if any(p in secret for p in section):
            if b[key] != "MASKED": why = "%s: %r shown as %r" % (key, v, b[key])
        elif b[key] != v:
            why = "%s: %r changed to %r" % (key, v, b[key])
    print(json.dumps(why))
`

// TestSectionsAgreeWithPython masks 1,000 config files (INI that
// configparser writes, TOML tables) and reads them back with configparser
// and tomllib: every value of a section named for a secret reads as the
// mask, every other value as it was.
func TestSectionsAgreeWithPython(t *testing.T) {
	againstPython(t, sectionDocs, sectionCheck, 1000, func(s string) string { out, _ := maskAssignments(s, nil, nil); return out })
}
