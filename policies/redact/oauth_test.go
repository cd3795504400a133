package redact

import (
	"strings"
	"testing"
)

func TestMaskQueryCodes(t *testing.T) {
	for _, c := range []struct{ in, want, found string }{
		{"GET /callback?code=4/0AX4XfWh8sR2kq&state=abc HTTP/1.1", "GET /callback?code=[redacted]&state=abc HTTP/1.1", "4/0AX4XfWh8sR2kq"},
		{"https://app.example/cb#state=s&code=4%2F0AX4", "https://app.example/cb#state=s&code=[redacted]", "4/0AX4"},
		{"see (https://app.example/cb?code=Splx9)", "see (https://app.example/cb?code=[redacted])", "Splx9"},
		{"'https://a/cb?code=Q1w2'", "'https://a/cb?code=[redacted]'", "Q1w2"},
		// not a query's code parameter
		{"error_code=42 zipcode=75001 ?response_type=code&code_challenge=abc", "error_code=42 zipcode=75001 ?response_type=code&code_challenge=abc", ""},
		{"https://a/cb?code=&state=x", "https://a/cb?code=&state=x", ""},
	} {
		var found []string
		got, _ := maskQueryCodes(c.in, func(v string) { found = append(found, v) })
		if got != c.want || strings.Join(found, ",") != c.found {
			t.Errorf("%q:\n got %q %q\nwant %q %q", c.in, got, found, c.want, c.found)
		}
	}
	// A token request's body names the grant: its code is a secret's name
	// there, in a dict too; elsewhere a code is a code.
	for in, want := range map[string]string{
		"{'grant_type': 'authorization_code', 'code': 'Splx1OBeZQQ', 'redirect_uri': 'https://a/cb'}":  "{'grant_type': 'authorization_code', 'code': '[redacted]', 'redirect_uri': 'https://a/cb'}",
		"code=Splx1OBeZQQ&grant_type=authorization_code":                                               "code=[redacted]&grant_type=authorization_code",
		"{'code': 'print(1)', 'lang': 'python'}":                                                       "{'code': 'print(1)', 'lang': 'python'}",
		"device_code=GmRhmhcxhwAzkoEqiMEg_DnyEys&client_id=c":                                          "device_code=[redacted]&client_id=c",
		"ImmutableMultiDict([('code', 'Splx1OBeZQQ'), ('state', 'xyz')])":                              "ImmutableMultiDict([('code', '[redacted]'), ('state', 'xyz')])",
		"SplitResult(scheme='https', netloc='a', path='/cb', query='code=Splx1&state=s', fragment='')": "SplitResult(scheme='https', netloc='a', path='/cb', query='code=[redacted]&state=s', fragment='')",
		"{'code': 404, 'message': 'not found'}":                                                        "{'code': 404, 'message': 'not found'}",
	} {
		if got, _ := maskText(in, nil); got != want {
			t.Errorf("%q:\n got %q\nwant %q", in, got, want)
		}
	}
}

// FuzzMaskQueryCodes: any text is masked without a panic, keeps its line
// ends, and has no code parameter's value left.
func FuzzMaskQueryCodes(f *testing.F) {
	fuzzKeepsLines(f, func(t *testing.T, s string) string {
		got, _ := maskQueryCodes(s, nil)
		if again, changed := maskQueryCodes(got, nil); changed {
			t.Fatalf("%q: masked %q, and again %q", s, got, again)
		}
		return got
	}, "GET /cb?code=4/0AX4&state=x", "#code=", "?code=[redacted]&code=x", "a&code=b\nc?code=d")
}

// TestOAuthAgreesWithOAuthlib: what oauthlib writes where a web app is
// debugged: the redirect with its code (add_params_to_uri, in the query
// or the fragment), printed, in an access log's request line and in a
// list's repr, and its parameters as a callback reads them (urlsplit's
// result, parse_qs's dict, werkzeug's ImmutableMultiDict: Flask's
// request.args); the token request's body (prepare_request_body, with a
// PKCE verifier and a client secret) and its dict; the device flow's
// body; and, as the control, an authorization request's URL (its
// response_type=code and code_challenge are no secrets) and a URL with an
// error_code. Masked, each URL and body is read back by urllib.parse:
// every code, verifier, device code and client secret reads as the mask,
// every other parameter as it was, and no 6 bytes of a credential are left.
func TestOAuthAgreesWithOAuthlib(t *testing.T) {
	againstPython(t, oauthDocs, oauthCheck, 600, func(s string) string { out, _ := maskText(s, nil); return out })
}

const oauthDocs = `
import json, random, string, sys
from urllib.parse import parse_qs, parse_qsl, urlsplit
from werkzeug.datastructures import ImmutableMultiDict
from oauthlib.oauth2 import WebApplicationClient, DeviceClient
from oauthlib.common import add_params_to_uri
rng = random.Random(int(sys.argv[1]))
def word(n, extra=""):
    return "".join(rng.choice(string.ascii_letters + string.digits + extra) for _ in range(n))
for i in range(int(sys.argv[2])):
    code = rng.choice(["4/", ""]) + word(rng.randint(8, 40), "-._~/")
    state = word(12)
    client = WebApplicationClient("client-" + word(6))
    kind = rng.randint(0, 5)
    secret = [code]
    if kind == 0:  # the redirect
        url = add_params_to_uri("https://app.example.com/oauth/callback" + rng.choice(["", "?next=%2Fhome"]), [("code", code), ("state", state)], fragment=rng.random() < 0.3)
        text = rng.choice(["%s", "redirect: %s", "['%s']", '127.0.0.1 - - [05/Dec/2026 10:00:00] "GET %s HTTP/1.1" 302 -'])
        if text.startswith("127"):
            url = url.split("example.com", 1)[1]
        text = text % url
        form, body = "url", url
        u = urlsplit(url)
        params = u.query or u.fragment
        read = rng.random()
        if read < 0.15:  # the redirect's parameters, as a callback's handler reads them
            text, form = repr(u), "split"
        elif read < 0.3:
            text, form = repr(parse_qs(params)), "qs"
        elif read < 0.45:
            text, form = repr(ImmutableMultiDict(parse_qsl(params))), "multi"
    elif kind == 1 or kind == 2:  # the token request
        verifier = word(rng.randint(43, 60), "-._~")
        cs = word(24)
        body = client.prepare_request_body(code=code, redirect_uri="https://app.example.com/cb", code_verifier=verifier, client_secret=cs)
        secret += [verifier, cs]
        if kind == 1:
            text, form = body, "body"
        else:
            text, form = repr(dict(parse_qsl(body))), "dict"
    elif kind == 3:  # the device flow
        dc = word(40, "-_")
        secret = [dc]
        body = DeviceClient("c").prepare_request_body(device_code=dc)
        text, form = body, "body"
    elif kind == 4:  # the control: an authorization request
        url = client.prepare_request_uri("https://auth.example.com/authorize", redirect_uri="https://app.example.com/cb", state=state, code_challenge=word(43), code_challenge_method="S256")
        text, form, body, secret = url, "url", url, []
    else:  # the control: other codes
        url = "https://shop.example.com/search?q=%s&error_code=%d&zipcode=%s" % (word(6), rng.randint(1, 999), word(5))
        text, form, body, secret = url, "url", url, []
    print(json.dumps([text, form, json.dumps(secret)]))
`

const oauthCheck = `
import ast, json, re, sys
from urllib.parse import urlsplit, parse_qsl
M = "[redacted]"
SECRET = {"code", "code_verifier", "client_secret", "device_code"}
def params(form, text):
    if form == "dict":
        return list(ast.literal_eval(text).items())
    if form == "split":
        return parse_qsl(re.search(r"query='([^']*)'", text).group(1) or re.search(r"fragment='([^']*)'", text).group(1), keep_blank_values=True)
    if form == "qs":
        return [(k, v) for k, vs in ast.literal_eval(text).items() for v in vs]
    if form == "multi":
        return list(ast.literal_eval(text[len("ImmutableMultiDict("):-1]))
    if form == "body":
        return parse_qsl(text, keep_blank_values=True)
    url = re.search(r"(https://\S+?|/oauth/\S+?)(?:'\]|\s|$)", text).group(1)
    u = urlsplit(url)
    return parse_qsl(u.query, keep_blank_values=True) + parse_qsl(u.fragment, keep_blank_values=True)
for line in sys.stdin:
    text, masked, form, secret = json.loads(line)
    secret = json.loads(secret)
    left = [s for s in secret if any(s[i:i + 6] in masked for i in range(len(s) - 5))]
    if left:
        print(json.dumps("left %r" % left))
        continue
    want = [(k, M if k in SECRET else v) for k, v in params(form, text)]
    got = params(form, masked)
    print(json.dumps("" if got == want else "got %r want %r" % (got, want)))
`
