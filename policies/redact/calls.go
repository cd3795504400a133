package redact

import "strings"

// Calls whose positional arguments carry a secret under no secret's name:
// server.login("ada@example.com", "SECRET"), FTP(host, user, "SECRET"),
// HTTPBasicAuth("ada", "SECRET"), Fernet(b"KEY"). A program's source shows
// them (debugpy_source), and so does a traceback, which quotes the line
// that failed: an authentication error's is the login line. Which argument
// is the secret is each callee's own, so the positions are read only for
// the callees below. A keyword argument is read by its name already
// (maskPairs: password="SECRET").

// callSecrets is, for each callee (its last name, or its last two for a
// name many libraries use: hmac.new, jwt.encode), which positional
// arguments are its secrets; -1 the last one given (Django's
// user.set_password(raw), keyring's set_password(service, user, secret)).
var callSecrets = map[string][]int{
	// smtplib's, ftplib's, imaplib's and docker's client.login(user,
	// password), pexpect's pxssh login(server, username, password): the
	// second and the third (pxssh's password was shown and its username
	// masked until 2026-12-08); poplib's pass_
	"login": {1, 2}, "pass_": {0},
	"FTP": {2}, "FTP_TLS": {2}, // ftplib.FTP(host, user, passwd)
	"HTTPBasicAuth": {1}, "HTTPDigestAuth": {1}, "HTTPProxyAuth": {1}, "HttpNtlmAuth": {1}, "BasicAuth": {1}, "DigestAuth": {1}, // requests, aiohttp, httpx
	"simple_bind_s": {1}, "simple_bind": {1}, "bind_s": {1}, // python-ldap
	"set_password": {-1}, "add_password": {3}, // keyring, Django; urllib's password managers
	"SMBConnection": {1},
	"Fernet":        {0}, "hmac.new": {0}, "AES.new": {0}, "DES3.new": {0}, "ChaCha20.new": {0}, // keys
	"jwt.encode": {1}, "jwt.decode": {1},
	"pymysql.connect": {2}, "MySQLdb.connect": {2}, // (host, user, password, database)
	"CommunityData": {0}, "UsmUserData": {1, 2}, // pysnmp: SNMPv1/v2c's community; v3's authentication and privacy keys
	// paramiko's Transport.auth_password(username, password), pika's
	// PlainCredentials(username, password), MinIO's Minio(endpoint,
	// access_key, secret_key), pymssql.connect(server, user, password),
	// cx_Oracle.connect(user, password, dsn), redis.Redis(host, port, db,
	// password) (shown in clear until 2026-12-08)
	"auth_password": {1}, "PlainCredentials": {1}, "Minio": {2}, "pymssql.connect": {2}, "cx_Oracle.connect": {1},
	"Redis": {3}, "StrictRedis": {3},
	"authenticate": {1}, // PyMongo 3's db.authenticate(name, password), ldap3's and others' (user, password)
	// python-ldap's bind(who, cred), ldap3's rebind(user, password), the
	// irc package's oper(nick, password) (shown in clear until 2026-12-08;
	// socket's bind takes one argument, an address)
	"bind": {1}, "rebind": {1}, "oper": {1},
}

// callSecret is the positions of the secret arguments of the callee named
// w (a dotted name), if it has any.
func callSecret(w string) ([]int, bool) {
	last := w[strings.LastIndexByte(w, '.')+1:]
	if k, ok := callSecrets[last]; ok {
		return k, true
	}
	if i := strings.LastIndexByte(w, '.'); i > 0 {
		two := w[strings.LastIndexByte(w[:i], '.')+1:]
		k, ok := callSecrets[two]
		return k, ok && two != last
	}
	return nil, false
}

// maxCallPieces bounds how many pieces of a call's arguments are read
// before its secret: a call is read from each of its callee's names, and
// calls nested without end would make that the square of the text.
const maxCallPieces = 64

// maskCalls masks, in s, the string given as the secret argument of a
// call to a callee of callSecrets, its pieces too ('a' 'b', over lines as
// a source writes a long call), and hands each to found (decoded: the
// program's value). TestCallsAgreeWithPython reads the masked source back
// with CPython's ast.
func maskCalls(s string, found func(string)) (string, bool) {
	h := hidden{s: s, found: found}
	hide := h.hide
	for i := 0; i < len(s); i++ {
		k := strings.IndexByte(s[i:], '(')
		if k < 0 {
			break
		}
		i += k
		ws := i
		for ws > 0 && !endsWord[s[ws-1]] {
			ws--
		}
		ats, ok := callSecret(s[ws:i])
		if !ok || ws == i {
			continue
		}
		for _, at := range ats {
			if v, ok := callArgument(s, i, at); ok {
				(&scanner{s: s}).run(v, hide, found)
			}
		}
	}
	return h.masked()
}

// callArgument is the first string of the call's positional argument at
// (-1: the last) when that argument is strings alone; the call's opening
// bracket is at open.
func callArgument(s string, open, at int) (piece, bool) {
	sc := &scanner{s: s}
	var first piece // the first piece of the argument read
	var strs bool   // it is strings alone so far
	var last *piece // the last argument's first string, when it is strings alone
	depth, arg := 0, 0
	p, ok := sc.nextOver(open + 1)
	for n := 0; ok && n < maxCallPieces; p, ok = sc.nextOver(p.end) {
		if n++; first.end == 0 { // an argument starts
			if p.kind == ')' { // f(), or f(a, )
				return pick(last, at)
			}
			if eq, ok := sc.next(p.end); p.kind == 'w' && ok && eq.kind == '=' && lone(s, eq) {
				return pick(last, at) // a keyword: the positionals are over
			}
			first, strs = p, p.kind == 's'
			if p.kind == '(' || p.kind == '[' || p.kind == '{' {
				depth++
			}
			continue
		}
		switch {
		case p.kind == '(' || p.kind == '[' || p.kind == '{':
			depth, strs = depth+1, false
		case (p.kind == ')' || p.kind == ']' || p.kind == '}') && depth > 0:
			depth--
		case p.kind == ',' && depth == 0, p.kind == ')' && depth == 0:
			last = nil // the argument ends
			if strs {
				f := first
				last = &f
			}
			if arg == at && last != nil {
				return *last, true
			}
			if p.kind == ')' {
				return pick(last, at)
			}
			arg, first = arg+1, piece{}
		case p.kind != 's':
			strs = false
		}
	}
	return piece{}, false
}

// pick is the last argument's string when at asks for the last one.
func pick(last *piece, at int) (piece, bool) {
	if at < 0 && last != nil {
		return *last, true
	}
	return piece{}, false
}
