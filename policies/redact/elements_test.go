package redact

import (
	"slices"
	"testing"
)

func TestMaskElements(t *testing.T) {
	for _, c := range []struct{ in, want, found string }{
		{"  <password>hunter2 x</password>", "  <password>[redacted]</password>", "hunter2 x"},
		{"<password>\n  <primary>x1y2</primary>\n  <replica> z3w4 </replica>\n</password>\n<user>ada</user>",
			"<password>\n  <primary>[redacted]</primary>\n  <replica> [redacted] </replica>\n</password>\n<user>ada</user>", "z3w4"},
		{"<secrets><db>x1y2</db></secrets><host>db</host>", "<secrets><db>[redacted]</db></secrets><host>db</host>", "x1y2"},
		// A namespace's prefix, attributes, CDATA, a comment, a pretty
		// printer's lines, a repr's escapes (found 2026-12-08: each showed).
		{"<ns:password>x1y2</ns:password>", "<ns:password>[redacted]</ns:password>", "x1y2"},
		{`<wsse:Password Type="...#PasswordText">x1y2</wsse:Password><wsse:Nonce>n0</wsse:Nonce>`,
			`<wsse:Password Type="...#PasswordText">[redacted]</wsse:Password><wsse:Nonce>n0</wsse:Nonce>`, "x1y2"},
		{"<password type='plain'\n  >x1y2</password>", "<password type='plain'\n  >[redacted]</password>", "x1y2"},
		{"<password><![CDATA[x<1>y2]]></password>", "<password><![CDATA[[redacted]]]></password>", "x<1>y2"},
		{"<password><!-- old: a --> x1y2</password>", "<password><!-- old: a --> [redacted]</password>", "x1y2"},
		{"<config>\n  <password>\n    x1y2\n  </password>\n</config>", "<config>\n  <password>\n    [redacted]\n  </password>\n</config>", "x1y2"},
		{`'<config>\n  <password>\n    x1y2\n  </password>\n</config>'`, `'<config>\n  <password>\n    [redacted]\n  </password>\n</config>'`, "x1y2"},
		{`'<password type=\'plain\'>x1y2</password>'`, `'<password type=\'plain\'>[redacted]</password>'`, "x1y2"},
		{"<Password>x1y2</Password><dbPassword>z3</dbPassword>", "<Password>[redacted]</Password><dbPassword>[redacted]</dbPassword>", "z3"},
		// Cut short, before the end tag: the text right after the tag.
		{"<config><password>x1y2", "<config><password>[redacted]", "x1y2"},
		{"'<config><password>x1y2'", "'<config><password>[redacted]'", "x1y2"},
		{"sent <c><password>x1y2... (truncated)\nINFO ok <b>", "sent <c><password>[redacted]\nINFO ok <b>", "x1y2... (truncated)"},
		{"['<password><primary>x1y2', 'other']", "['<password><primary>[redacted]', 'other']", "x1y2"},
		{`'<password>it\'s x', 'y'`, `'<password>[redacted]', 'y'`, `it\'s x`},
		{"sent <password>ab',cd", "sent <password>[redacted]", "ab',cd"}, // no literal holds it: its quote is the secret's
		{"<password><![CDATA[x1y2", "<password><![CDATA[[redacted]", "x1y2"},
		{"<config>\n  <password>\n    x1y2", "<config>\n  <password>\n    [redacted]", "x1y2"}, // a pretty printer's line
		{`'<config>\n\t<password>\n\t\tx1y2'`, `'<config>\n\t<password>\n\t\t[redacted]'`, "x1y2"},
		{"<config>\n  <password>\n  x1y2", "<config>\n  <password>\n  x1y2", ""}, // not indented below it
		// Not an element's text: no end tag, and a blank, a line's end or
		// brackets alone after it, as usage lines and docopt write them.
		{"usage: app login -p <password> registry", "usage: app login -p <password> registry", ""},
		{"Usage:\n  app login <user> <password>\n  app logout", "Usage:\n  app login <user> <password>\n  app logout", ""},
		{"app [<password>]", "app [<password>]", ""},
		// A start tag with no end tag holds what opens after it, as a cut
		// text's does (<password>\n  <value>VALUE).
		{"<token>\n<token>\n<user>ada</user>", "<token>\n<token>\n<user>[redacted]</user>", "ada"},
		{"<password/><user>ada</user>", "<password/><user>ada</user>", ""},
		{"<passwordless>x</passwordless> <password=x>", "<passwordless>x</passwordless> <password=x>", ""},
		{"a < password > b", "a < password > b", ""},
	} {
		var found []string
		got, _ := maskElements(c.in, nil, func(v string) { found = append(found, v) })
		if got != c.want {
			t.Errorf("maskElements(%q) = %q, want %q", c.in, got, c.want)
		}
		if c.found != "" && !slices.Contains(found, c.found) || c.found == "" && len(found) > 0 {
			t.Errorf("maskElements(%q) handed over %q, want %q", c.in, found, c.found)
		}
	}
}

// A property list's <key>, then its value's element, whatever its name
// (plistlib's, macOS's): shown in clear until 2026-12-08.
func TestMaskPropertyLists(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"<dict><key>Password</key><string>x1y2z3</string><key>User</key><string>ada</string></dict>",
			"<dict><key>Password</key><string>[redacted]</string><key>User</key><string>ada</string></dict>"},
		{"<key>api_key</key>\n\t<data>\n\teDF5Mno=\n\t</data>", "<key>api_key</key>\n\t<data>\n\t[redacted]\n\t</data>"},
	} {
		if got, _ := maskText(c.in, nil); got != c.want {
			t.Errorf("maskText(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

// A page's label and the value after it, and HTML's meta element (found
// 2026-12-08: each showed its value); a page's prose and a header row's
// next name are left.
func TestMaskLabels(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"<dl><dt>API key</dt>\n  <dd>sk-4f9Q2x</dd><dt>Plan</dt><dd>pro-2</dd></dl>", "<dl><dt>API key</dt>\n  <dd>[redacted]</dd><dt>Plan</dt><dd>pro-2</dd></dl>"},
		{"<tr><td>Password</td><td><code>hunter2!</code></td></tr>", "<tr><td>Password</td><td><code>[redacted]</code></td></tr>"},
		{"<li><b>Token:</b> ghx-1234</li>", "<li><b>Token:</b> [redacted]</li>"},
		{`<meta name="api-key" content="k3y-9Zq">`, `<meta name="api-key" content="[redacted]">`},
		{"<h2>Password</h2><p>Choose a strong one.</p>", "<h2>Password</h2><p>Choose a strong one.</p>"},
		{"<tr><th>Password</th><th>User2</th></tr>", "<tr><th>Password</th><th>User2</th></tr>"},
		{"<td>Token</td><td>expires 2024-01-01</td>", "<td>Token</td><td>expires 2024-01-01</td>"},
		{"<span>Password</span><span>12%</span>", "<span>Password</span><span>12%</span>"},
	} {
		if got, _ := maskText(c.in, nil); got != c.want {
			t.Errorf("maskText(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

// TestElementsAgreeWithElementTree: XML documents as ElementTree, minidom
// and plistlib write them, with elements named for a secret under a
// namespace's prefix, with attributes, holding CDATA or other elements,
// pretty printed or not, shown as they are, as a repr, and cut short inside
// a secret (as a slice or a log's payload[:n] shows one): no 8 bytes of a
// secret left, every other element's text shown (before the cut).
func TestElementsAgreeWithElementTree(t *testing.T) {
	againstPython(t, elementsDocs, recordsCheck, 600, func(s string) string { out, _ := maskText(s, nil); return out })
}

const elementsDocs = `
import json, plistlib, random, string, sys, xml.dom.minidom
import xml.etree.ElementTree as ET
rng = random.Random(int(sys.argv[1]))
SECRET = ["password", "Password", "wsse:Password", "db_password", "apiKey", "secret", "client-secret", "AUTH_TOKEN"]
OTHER = ["host", "user", "wsse:Username", "region", "port"]
NS = {"wsse": "http://docs.oasis-open.org/wss/2004/01/oasis-200401-wss-wssecurity-secext-1.0.xsd"}
ALPHABET = string.ascii_letters + string.digits + "-_./+=!#$%*@&<>'\""
def secret():
    return "S" + "".join(rng.choice(ALPHABET) for _ in range(rng.randint(9, 20)))
for n in range(int(sys.argv[2])):
    secrets, controls, recs = [], [], []
    for k in range(rng.randint(2, 5)):
        if rng.random() < 0.5:
            name, value = rng.choice(SECRET), secret()
        else:
            name, value = rng.choice(OTHER), "ctrl%dx%d" % (n, k)
        if name in dict(recs):
            continue  # a property list's keys are a dict's
        (secrets if name in SECRET else controls).append(value)
        recs.append((name, value))
    kind = rng.choice(["etree", "etree", "minidom", "plist"])
    if kind == "plist":
        data = {}
        for a, b in recs:
            data[a] = b.encode() if b in secrets and rng.random() < 0.3 else b
        out = plistlib.dumps(data).decode()
        # a <data> value is base64: what the text shows of the secret
        secrets = [plistlib.dumps(v).decode().split("<data>")[1].split("</data>")[0].strip() if isinstance(v, bytes) else v for v in data.values() if isinstance(v, bytes) or v in secrets]
        secrets = [s.replace("\n", "").replace("\t", "") for s in secrets]
    else:
        root = ET.Element("wsse:Security" if rng.random() < 0.3 else "config", {"xmlns:wsse": NS["wsse"]})
        for a, b in recs:
            attrs = {"Type": "#PasswordText"} if b in secrets and rng.random() < 0.3 else {}
            e = ET.SubElement(root, a, attrs)
            if b in secrets and rng.random() < 0.3:
                ET.SubElement(e, rng.choice(["primary", "value"])).text = b
            else:
                e.text = b
        out = ET.tostring(root, encoding="unicode")
        if kind == "minidom":
            doc = xml.dom.minidom.parseString(out)
            if rng.random() < 0.5:  # CDATA for the secrets' texts (a ]]> in none)
                for node in list(doc.getElementsByTagName("*")):
                    c = node.firstChild
                    if c is not None and c.nodeType == c.TEXT_NODE and c.data in secrets and "]]>" not in c.data:
                        node.replaceChild(doc.createCDATASection(c.data), c)
            out = doc.toprettyxml(indent=rng.choice(["  ", "\t"])) if rng.random() < 0.6 else doc.documentElement.toxml()
    # escaped as XML writes it: what the text shows of each secret
    shown = lambda v: v if kind == "minidom" and "CDATA" in out and v in out else v.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace('"', "&quot;")
    if kind != "plist":
        secrets = [shown(s) if shown(s) in out else s for s in secrets]
    if rng.random() < 0.3:
        # cut inside a secret: what is left of it, 8 bytes or more, is the secret
        cands = [s for s in secrets if len(s) >= 12 and s in out]
        if cands:
            s = rng.choice(cands)
            start = out.index(s)
            at = start + rng.randint(8, len(s) - 1)
            out = out[:at]
            controls = [c for c in controls if c in out]
            secrets = [x for x in secrets if x in out] + [out[start:]]
            if rng.random() < 0.5:
                out = "DEBUG sent " + out + "... (truncated)"
    if rng.random() < 0.3:
        out = repr(out)
    print(json.dumps([out, json.dumps(secrets), json.dumps(controls)]))
`

// FuzzMaskElements: no text makes it fail, and it keeps a text's lines.
func FuzzMaskElements(f *testing.F) {
	fuzzKeepsLines(f, func(t *testing.T, s string) string { out, _ := maskElements(s, nil, nil); return out },
		"<password>x</password>", "<a:password b='c'>\n<![CDATA[x", "<password><password><p>x", "<password\\n>x<!--", "<secret>x]]>", "<password><![CDATA[x]]")
}
