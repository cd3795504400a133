package redact

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/debugpy-guard/debugpy-guard/plugins/sdk"
	"github.com/debugpy-guard/debugpy-guard/policies/internal/policytest"
)

func TestMaskRecords(t *testing.T) {
	for _, c := range []struct{ in, want, found string }{
		{"  - name: DB_PASSWORD\n    value: S3cret-k8s\n  - name: USER\n    value: ada\n",
			"  - name: DB_PASSWORD\n    value: [redacted]\n  - name: USER\n    value: ada\n", "S3cret-k8s"},
		{"- name: API_KEY\n  value: |\n    S3cret-block\n  other: x\n", "- name: API_KEY\n  value: [redacted]\n[redacted]\n  other: x\n", "|\n    S3cret-block"},
		{`[{"name": "DB_PASSWORD", "value": "S3cret-ecs"}, {"name": "USER", "value": "ada"}]`,
			`[{"name": "DB_PASSWORD", "value": "[redacted]"}, {"name": "USER", "value": "ada"}]`, "S3cret-ecs"},
		{"{'Name': '/prod/db_password', 'Type': 'String', 'Value': 'S3cret-ssm'}", "{'Name': '/prod/db_password', 'Type': 'String', 'Value': '[redacted]'}", "S3cret-ssm"},
		{"{'Name': '/prod/endpoint', 'Type': 'SecureString', 'Value': 'S3cret-secure'}", "{'Name': '/prod/endpoint', 'Type': 'SecureString', 'Value': '[redacted]'}", "S3cret-secure"},
		{"{'Name': '/prod/endpoint', 'Type': 'String', 'Value': 'db.example'}", "{'Name': '/prod/endpoint', 'Type': 'String', 'Value': 'db.example'}", ""},
		{"Parameter(Name='api_key', Value='S3cret-call')", "Parameter(Name='api_key', Value='[redacted]')", "S3cret-call"},
		{"{\n  \"Value\": \"S3cret-before\",\n  \"Name\": \"client_secret\"\n}", "{\n  \"Value\": \"[redacted]\",\n  \"Name\": \"client_secret\"\n}", "S3cret-before"},
		// cut short: what was read of it
		{"[{'name': 'token', 'value': 'S3cret-cut', 'x': 'abc", "[{'name': 'token', 'value': '[redacted]', 'x': 'abc", "S3cret-cut"},
		{"ValueError: bad value for name", "ValueError: bad value for name", ""},
		// a cookie's value, whatever its name
		{"Cookie(version=0, name='lang', value='S3cret-c', port=None)", "Cookie(version=0, name='lang', value='[redacted]', port=None)", "S3cret-c"},
		{"<CookieJar[<Cookie sid=S3cret-s for .example.org/>]>", "<CookieJar[<Cookie sid=[redacted] for .example.org/>]>", "S3cret-s"},
		{`<SimpleCookie: sid='S3cret-k' theme="it's">`, `<SimpleCookie: sid='[redacted]' theme="[redacted]">`, "S3cret-k,it's"},
		{`{'sid': <Morsel: sid="S3c\073ret-m"; HttpOnly; Path=/>}`, `{'sid': <Morsel: sid=[redacted]; HttpOnly; Path=/>}`, `"S3c\073ret-m"`},
		{`<Morsel: sid=S3cret-b>`, `<Morsel: sid=[redacted]>`, "S3cret-b"},
		// XML's records: an element's attributes, its text, a value element in it
		{`<appSettings><add key="Theme" value="dark"/><add key="ApiKey" value="S3cret-x"/></appSettings>`,
			`<appSettings><add key="Theme" value="dark"/><add key="ApiKey" value="[redacted]"/></appSettings>`, "S3cret-x"},
		{"<entry key=\"db.password\">S3cret-e</entry>\n<entry key=\"db.user\">ada</entry>", "<entry key=\"db.password\">[redacted]</entry>\n<entry key=\"db.user\">ada</entry>", "S3cret-e"},
		{"<property name=\"password\">\n  <value>S3cret-v</value>\n</property><property name=\"user\"><value>ada</value></property>",
			"<property name=\"password\">\n  <value>[redacted]</value>\n</property><property name=\"user\"><value>ada</value></property>", "S3cret-v"},
		{`<param name="token">S3cret-p</param>`, `<param name="token">[redacted]</param>`, "S3cret-p"},
		{`x <y and {'name': 'password', 'value': 'S3cret-d'}`, `x <y and {'name': 'password', 'value': '[redacted]'}`, "S3cret-d"},
		{`<Element 'password' at 0x7f00>`, `<Element 'password' at 0x7f00>`, ""},
		// web.xml's: a name element, then a value element
		{"<context-param>\n  <param-name>db.password</param-name>\n  <param-value>S3cret-w</param-value>\n</context-param>\n<context-param><param-name>db.user</param-name><param-value>ada</param-value></context-param>",
			"<context-param>\n  <param-name>db.password</param-name>\n  <param-value>[redacted]</param-value>\n</context-param>\n<context-param><param-name>db.user</param-name><param-value>ada</param-value></context-param>", "S3cret-w"},
		{"<env-entry><env-entry-name>apiToken</env-entry-name><env-entry-type>java.lang.String</env-entry-type><env-entry-value>S3cret-n</env-entry-value></env-entry>",
			"<env-entry><env-entry-name>apiToken</env-entry-name><env-entry-type>java.lang.String</env-entry-type><env-entry-value>[redacted]</env-entry-value></env-entry>", "S3cret-n"},
		// as xmltodict reads them: attributes under @, an element's text under #text
		{`{'add': [{'@key': 'ApiKey', '@value': 'S3cret-a'}, {'@key': 'Theme', '@value': 'dark'}]}`, `{'add': [{'@key': 'ApiKey', '@value': '[redacted]'}, {'@key': 'Theme', '@value': 'dark'}]}`, "S3cret-a"},
		{`{'param': {'@name': 'token', '#text': 'S3cret-t'}}`, `{'param': {'@name': 'token', '#text': '[redacted]'}}`, "S3cret-t"},
	} {
		var found []string
		got, _ := maskRecords(c.in, nil, func(v string) { found = append(found, v) })
		if got != c.want || strings.Join(found, ",") != c.found {
			t.Errorf("%q:\n got %q %q\nwant %q %q", c.in, got, found, c.want, c.found)
		}
	}
}

// A record listed a row a field: its value row is masked beside a name
// row that names a secret (an object's name and value, a dict's 'Name' and
// 'Value', an ElementTree element's tag and text), and not beside one that
// names none, nor a text row beside a name row.
func TestRecordRowsMasked(t *testing.T) {
	const secret = "Wx7bZgQm3yJ0o9nN2vTq"
	listing := func(rows ...[2]string) string {
		var out []map[string]any
		for _, r := range rows {
			out = append(out, map[string]any{"name": r[0], "value": r[1], "type": "str"})
		}
		res, _ := json.Marshal(map[string]any{"variables_reference": 9, "variables": out})
		return string(res)
	}
	sdk.HandlePrepared(Prepare)
	defer sdk.Handle(nil)
	v := "'" + secret + "'"
	for _, rows := range [][][2]string{
		{{"name", "'db_password'"}, {"value", v}},
		{{"'Name'", "'/prod/api_key'"}, {"'Value'", v}},
		{{"attrib", "{}"}, {"tag", "'password'"}, {"tail", "None"}, {"text", v}},
		{{"Type", "'SecureString'"}, {"Name", "'/prod/endpoint'"}, {"Value", v}},
	} {
		out := shownResult(t, policytest.Case{Phase: "result", Tool: "debugpy_variables", Result: listing(rows...)})
		if strings.Contains(out, secret[:12]) {
			t.Errorf("%v: %s", rows, out)
		}
	}
	for _, rows := range [][][2]string{
		{{"name", "'db_host'"}, {"value", v}},
		{{"tag", "'user'"}, {"text", v}},
		{{"name", "'password'"}, {"text", v}},
		{{"tag", "'password'"}, {"value", v}},
	} {
		out, _ := sdk.Evaluate(policytest.Case{Phase: "result", Tool: "debugpy_variables", Result: listing(rows...)}.Request())
		sdk.TakeSecrets()
		if !strings.Contains(string(out), "nothing to redact") {
			t.Errorf("%v: a value masked beside a name of no secret: %s", rows, out)
		}
	}
}

// TestRecordsAgreeWithYAMLAndJSON: records that name a secret in one field
// and hold it in another, as PyYAML dumps a container's environment (block
// and flow styles, a multi-line value as a block scalar), json.dumps an
// ECS task's (indented or not), and Python's repr shows boto3's SSM
// answers (a SecureString under any name) and a call's keywords, and
// http.cookiejar's cookies (repr and str: every value), and XML's
// records as ElementTree and minidom write them (an element's key and
// value attributes, its text, a value element in it, web.xml's name and
// value elements; as a repr too, and as xmltodict reads them): no 8
// bytes of a secret left, the other records' values shown.
func TestRecordsAgreeWithYAMLAndJSON(t *testing.T) {
	againstPython(t, recordsDocs, recordsCheck, 600, func(s string) string { out, _ := maskText(s, nil); return out })
}

const recordsDocs = `
import http.cookiejar, json, random, string, sys, xml.dom.minidom, xmltodict, yaml
import xml.etree.ElementTree as ET
rng = random.Random(int(sys.argv[1]))
SECRET = ["DB_PASSWORD", "API_TOKEN", "client_secret", "/prod/db/password", "app.api_key", "SECRET_KEY", "AUTH_TOKEN"]
OTHER = ["HOST", "USER_NAME", "/prod/db/host", "REGION", "app.port"]
def secret():
    s = "S" + "".join(rng.choice(string.ascii_letters + string.digits + "-_./+=") for _ in range(rng.randint(9, 20)))
    if rng.random() < 0.15:
        s += "\n" + "".join(rng.choice(string.ascii_letters) for _ in range(10))
    return s
for n in range(int(sys.argv[2])):
    secrets, controls, recs = [], [], []
    for k in range(rng.randint(2, 5)):
        if rng.random() < 0.5:
            name, value = rng.choice(SECRET), secret()
            secrets.append(value)
        else:
            name, value = rng.choice(OTHER), "ctrl%dx%d" % (n, k)
            controls.append(value)
        recs.append((name, value))
    kind = rng.choice(["yaml", "yaml", "json", "ssm", "call", "cookie", "xml"])
    if kind == "yaml":
        doc = {"containers": [{"name": "app", "env": [{"name": a, "value": b} for a, b in recs]}]}
        out = yaml.dump(doc, default_flow_style=rng.choice([False, False, None]), sort_keys=rng.random() < 0.5)
    elif kind == "json":
        out = json.dumps({"environment": [{"name": a, "value": b} for a, b in recs]}, indent=rng.choice([None, 2]), sort_keys=rng.random() < 0.5)
    elif kind == "ssm":
        params = []
        for a, b in recs:
            t = "SecureString" if b in secrets and rng.random() < 0.5 else "String"
            params.append({"Name": a if t == "String" else rng.choice([a, "/prod/x%d" % n]), "Type": t, "Value": b, "Version": 1})
        out = repr({"Parameters": params, "InvalidParameters": []})
    elif kind == "call":
        out = "\n".join("Parameter(Name=%r, Value=%r)" % r for r in recs)
    elif kind == "xml":  # .NET's appSettings, Java's properties, Spring's beans, as ElementTree and minidom write them
        secrets = [b.replace("\n", "") for b in secrets]
        recs = [(a, b.replace("\n", "")) for a, b in recs]
        style = rng.choice(["add", "entry", "property", "nested", "webxml"])
        root = ET.Element(rng.choice(["appSettings", "properties", "beans"]))
        for a, b in recs:
            if style == "add":
                ET.SubElement(root, "add", {"key": a, "value": b})
            elif style == "entry":
                ET.SubElement(root, "entry", {"key": a}).text = b
            elif style == "property":
                ET.SubElement(root, "property", {"name": a, "value": b})
            elif style == "nested":
                ET.SubElement(ET.SubElement(root, "property", {"name": a}), "value").text = b
            else:
                param = ET.SubElement(root, "context-param")
                ET.SubElement(param, "param-name").text = a
                ET.SubElement(param, "param-value").text = b
        out = ET.tostring(root, encoding="unicode")
        if rng.random() < 0.5:
            out = xml.dom.minidom.parseString(out).toprettyxml(indent=rng.choice(["  ", "\t"]))
        if rng.random() < 0.3:
            out = repr(out)
        elif rng.random() < 0.3:
            out = repr(xmltodict.parse(ET.tostring(root, encoding="unicode")))
    else:  # http.cookiejar's: every cookie's value is a credential, its domain shown
        jar, domain = http.cookiejar.CookieJar(), "ctrl%d.example.org" % n
        secrets = [b.replace("\n", "") for _, b in recs]
        controls = [domain]
        for (a, _), b in zip(recs, secrets):
            jar.set_cookie(http.cookiejar.Cookie(0, a.strip("/").replace("/", "_"), b, None, False, domain, True, False, "/", True, False, None, False, None, None, {}))
        out = rng.choice([repr(jar), repr(list(jar)), "\n".join(str(c) for c in jar)])
    print(json.dumps([out, json.dumps(secrets), json.dumps(controls)]))
`

// recordsCheck reads each text's masked form with its secrets and the
// values it must show (records, cookies, tables): no 8 bytes of a secret
// left, as it is, as repr writes it or as JSON does, and every other value
// shown.
const recordsCheck = `
import json, sys
def windows(s):
    return {s[i:i + 8] for i in range(len(s) - 7)}
for line in sys.stdin:
    text, masked, secrets, controls = json.loads(line)
    bad = [s for s in json.loads(secrets) if any(w in masked for w in windows(s) | windows(repr(s)[1:-1]) | windows(json.dumps(s)[1:-1]))]
    lost = [c for c in json.loads(controls) if c not in masked]
    print(json.dumps("left %r" % bad if bad else "controls masked %r" % lost if lost else ""))
`

// FuzzMaskRecords: no text makes it fail, and it keeps a text's lines.
func FuzzMaskRecords(f *testing.F) {
	fuzzKeepsLines(f, func(t *testing.T, s string) string { out, _ := maskRecords(s, nil, nil); return out },
		"- name: DB_PASSWORD\n  value: |\n    x\n", "[{'name': 'token', 'value': 'x", "{name: api_key, value: 'a\n\n  b'}", "Parameter(Name='api_key', Value=x)", "{'Type': 'SecureString', 'Value': \"a\\\"", "<SimpleCookie: a='x' b=\"it's\"", "<Morsel: a=\"x\\\"\\", "<Morsel: a=b>]",
		"form-data; name=\"password\"\r\n\r\nx\\", `b'form-data; name="token"\r\n\r\na\\r\n--`, "<key>password</key><string>x", "<entry key=\"password\">\n  x")
}

// TestCookiesAgreeWithPython: http.cookies' cookies, as repr, str and
// http.client's debug lines show them, with values of any character
// (quoted and escaped as a header codes them; a quote, a backslash, a
// semicolon, a blank, a line's end; a BaseCookie's as it is, of the
// characters a server may send, RFC 6265's, but >): no 8 bytes of a value left, as it
// is, as coded or as a repr writes either, and each cookie's name shown
// where the value is read apart from it.
func TestCookiesAgreeWithPython(t *testing.T) {
	againstPython(t, cookiesDocs, recordsCheck, 600, func(s string) string { out, _ := maskText(s, nil); return out })
}

const cookiesDocs = `
import http.cookies, json, random, sys
rng = random.Random(int(sys.argv[1]))
ALPHABET = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789" * 3 + "-_./+=!#$%&'*^|~:\"; ,\\\\()<>?@[]{}" + "\n\té"
class AppCookie(http.cookies.SimpleCookie):
    pass
for n in range(int(sys.argv[2])):
    sc = rng.choice([http.cookies.SimpleCookie, http.cookies.BaseCookie, AppCookie])()
    values, names = [], []
    for k in range(rng.randint(1, 3)):
        name = "ctrl%dx%d" % (n, k)
        value = "S" + "".join(rng.choice(ALPHABET) for _ in range(rng.randint(9, 20)))
        if type(sc) is http.cookies.BaseCookie:
            # a value as it is: as a server may send one (RFC 6265's
            # cookie-octets), but for a > (a Morsel's repr ends at a >
            # that a bracket follows: S>]x would show ]x)
            value = "".join(c for c in value if c not in '"\\,; \t\n>')
        sc[name] = value
        if rng.random() < 0.5:
            sc[name]["path"] = "/"
            sc[name]["httponly"] = True
        m = sc[name]
        values += [m.value, m.coded_value]
        names.append(name)
    form = rng.choice(["repr", "morsel", "dict", "str", "repr-str", "debug", "headers", "js"])
    if form == "repr":
        out = repr(sc)
    elif form == "morsel":
        out = "\n".join(repr(m) for m in sc.values())
    elif form == "dict":
        out = repr(dict(sc))
    elif form == "str":
        out, names = str(sc), []
    elif form == "repr-str":
        out, names = repr(str(sc)), []
    elif form == "debug":  # http.client's: header: Set-Cookie: ...
        out, names = "\n".join("header: Set-Cookie: " + m.OutputString() for m in sc.values()), []
    elif form == "headers":
        out, names = repr([("Set-Cookie", m.OutputString()) for m in sc.values()]), []
    else:
        out, names = sc.js_output(), []
    print(json.dumps([out, json.dumps(values), json.dumps(names)]))
`

// TestFormFieldsAgreeWithPython: multipart/form-data bodies as urllib3
// (requests) writes them (RFC 7578: a name's quote and line ends
// percent-encoded, as HTML5 does), fields of any printable character but
// a line's end, a file's part among them, as they are and as a repr of
// their bytes shows them: read back by Python's email parser, every field
// named for a secret reads as the mask, every other as it was, the file
// too.
func TestFormFieldsAgreeWithPython(t *testing.T) {
	againstPython(t, formDocs, formCheck, 600, func(s string) string { out, _ := maskText(s, nil); return out })
}

const formDocs = `
import json, random, string, sys
rng = random.Random(int(sys.argv[1]))
CHARS = string.ascii_letters + string.digits + " !#$%&'()*+,-./:;<=>?@[]^_{|}~\"\\\\é"
SECRET = ["password", "api_key", "client_secret", "token", "csrfmiddlewaretoken"]
OTHER = ["username", "email", "next", "remember"]
def field(name):
    return name.replace("\"", "%22").replace("\n", "%0A").replace("\r", "%0D")
for n in range(int(sys.argv[2])):
    boundary = "%032x" % rng.getrandbits(128)
    parts, fields = [], []
    for k in range(rng.randint(1, 4)):
        name = rng.choice(SECRET + OTHER)
        value = "".join(rng.choice(CHARS) for _ in range(rng.randint(1, 20)))
        if name in SECRET:
            value = "S" + value + "9"
        fields.append((name, value, name in SECRET))
        parts.append('--%s\r\nContent-Disposition: form-data; name="%s"\r\n\r\n%s\r\n' % (boundary, field(name), value))
    if rng.random() < 0.3:  # a file's part: left
        parts.append('--%s\r\nContent-Disposition: form-data; name="password"; filename="notes.txt"\r\nContent-Type: text/plain\r\n\r\nfile-ctrl%d\r\n' % (boundary, n))
    body = "".join(parts) + "--%s--\r\n" % boundary
    text = repr(body.encode()) if rng.random() < 0.4 else body
    print(json.dumps([text, boundary, json.dumps(fields), "file-ctrl%d" % n if "filename" in body else ""]))
`

const formCheck = `
import ast, email.parser, email.policy, json, sys
for line in sys.stdin:
    text, masked, boundary, fields, control = json.loads(line)
    fields = json.loads(fields)
    raw = ast.literal_eval(masked) if masked.startswith("b") else masked.encode()
    msg = email.parser.BytesParser(policy=email.policy.HTTP).parsebytes(b"Content-Type: multipart/form-data; boundary=" + boundary.encode() + b"\r\n\r\n" + raw)
    got = [(p.get_param("name", header="content-disposition"), p.get_payload(decode=True).decode()) for p in msg.iter_parts() if not p.get_filename()]
    why = ""
    if len(got) != len(fields):
        why = "%d fields read back, want %d" % (len(got), len(fields))
    for (name, value, secret), (gname, gvalue) in zip(fields, got):
        if why:
            break
        if secret and gvalue != "[redacted]":
            why = "%s: %r left" % (name, gvalue)
        elif not secret and gvalue != value:
            why = "%s: %r changed to %r" % (name, value, gvalue)
    if not why and control and control not in masked:
        why = "the file's part masked"
    print(json.dumps(why))
`
