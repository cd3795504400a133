package redact

import (
	"strings"

	"github.com/debugpy-guard/debugpy-guard/policies/expressions"
)

// The commands a client sends on the wire of a line protocol carry a
// password under no secret's name, a command's argument in its place.
//
// Redis's: AUTH [USER] PASSWORD, HELLO 3 AUTH USER PASSWORD, MIGRATE ...
// AUTH PASSWORD (or AUTH2 USER PASSWORD), ACL SETUSER ada on >PASSWORD
// (<PASSWORD removes one). redis-py holds a command as the tuple of its
// arguments: at a stop in its connection's on_connect, send_command's
// args are ('AUTH', 'default', 'PASSWORD'), or ('HELLO', 3, 'AUTH',
// 'default', 'PASSWORD'); acl_setuser's are ('ACL SETUSER', 'ada', 'on',
// b'>PASSWORD'); a source line or a traceback shows
// r.execute_command('AUTH', user, 'PASSWORD'). redis-cli's and a program's
// own log show a command as a line (AUTH PASSWORD, 127.0.0.1:6379> AUTH
// PASSWORD). A command is read as Redis reads it: its name in any case,
// and redis-py's first argument split at its spaces, as its pack_command
// does. (Redis's own MONITOR and SLOWLOG never show these commands'
// passwords: they skip or redact them.)
//
// IRC's: PRIVMSG NickServ :IDENTIFY [ACCOUNT] PASSWORD (and REGISTER
// PASSWORD EMAIL), NICKSERV or NS IDENTIFY [ACCOUNT] PASSWORD, OPER NAME
// PASSWORD, as a bot writes them to its socket (b'PRIVMSG NickServ
// :IDENTIFY PASSWORD\r\n') and as the irc package's privmsg('NickServ',
// 'IDENTIFY PASSWORD') hands its text.

// wireWord is one argument of a command: its value, the bodies of the
// literals that spell it (one, or a run of them that Python concatenates:
// pprint's 'a' 'b' over lines), whether they spell it as it is (one, with
// no escape), and whether it is a string (a number or a name in source is
// none: x in execute_command('AUTH', x) is no secret to mask).
type wireWord struct {
	val              string
	bodies           [][2]int
	verbatim, string bool
}

// wireSecrets hides the passwords of the command w, when it is written
// as Redis's manual and redis-py write it: its name in capitals (AUTH, not
// auth or Auth: a list of a web app's routes, ['auth', 'login', 'logout'],
// holds no password). On a line (prose), a password is no prose's word:
// it has a digit or a symbol (a log's "AUTH failed" masks nothing).
func wireSecrets(s string, w []wireWord, prose bool, hide func(from, to int), found func(string)) {
	if len(w) == 0 || w[0].val != strings.ToUpper(w[0].val) {
		return
	}
	is := func(i int, name string) bool { return i < len(w) && strings.EqualFold(w[i].val, name) }
	secret := func(i, skip int) { // the password is w[i].val[skip:]
		if i >= len(w) || !w[i].string || len(w[i].val) <= skip || w[i].val == mask || prose && !notLettersOnly(w[i].val[skip:]) {
			return
		}
		if w[i].verbatim {
			hide(w[i].bodies[0][0]+skip, w[i].bodies[0][1])
			return
		}
		// Spelled with escapes or in pieces: each piece masked whole (but
		// ACL's > before the password), the value handed over as the
		// program holds it.
		for k, b := range w[i].bodies {
			if k == 0 && strings.HasPrefix(s[b[0]:b[1]], w[i].val[:skip]) {
				b[0] += skip
			}
			if b[0] < b[1] {
				hide(b[0], b[1])
			}
		}
		if found != nil {
			found(w[i].val[skip:])
		}
	}
	switch {
	case is(0, "auth"):
		if len(w) == 2 || len(w) == 3 {
			secret(len(w)-1, 0)
		}
	case is(0, "hello"):
		for i := 1; i < len(w); i++ {
			if is(i, "auth") {
				secret(i+2, 0)
				return
			}
		}
	case is(0, "migrate"):
		for i := 1; i < len(w); i++ {
			switch {
			case is(i, "auth"):
				secret(i+1, 0)
			case is(i, "auth2"):
				secret(i+2, 0)
			}
		}
	case is(0, "acl") && is(1, "setuser"):
		for i := 3; i < len(w); i++ {
			if v := w[i].val; len(v) > 1 && (v[0] == '>' || v[0] == '<') {
				secret(i, 1)
			}
		}
	case is(0, "privmsg") && is(1, "nickserv") && is(2, ":identify"), is(0, "nickserv") && is(1, "identify"), is(0, "ns") && is(1, "identify"):
		args := len(w) - 2 // after IDENTIFY: [ACCOUNT] PASSWORD, the password last
		if is(0, "privmsg") {
			args--
		}
		if args == 1 || args == 2 {
			secret(len(w)-1, 0)
		}
	case is(0, "identify"):
		if len(w) == 2 || len(w) == 3 {
			secret(len(w)-1, 0)
		}
	case is(0, "privmsg") && is(1, "nickserv") && is(2, ":register"), is(0, "nickserv") && is(1, "register"), is(0, "ns") && is(1, "register"):
		if is(0, "privmsg") {
			secret(3, 0)
		} else {
			secret(2, 0)
		}
	case is(0, "oper"):
		if len(w) == 3 {
			secret(2, 0)
		}
	}
}

// mayNameWire: s may hold a command of wireSecrets, whose name is
// written in capitals (most texts are told at once: a search for a word in
// any case took a first listing's reading from 0.83 to 1.13 ms).
func mayNameWire(s string) bool {
	if !strings.ContainsAny(s, "AES") { // each name has one of these capitals; most texts have none
		return false
	}
	return strings.Contains(s, "AUTH") || strings.Contains(s, "SETUSER") || strings.Contains(s, "PRIVMSG") ||
		strings.Contains(s, "NICKSERV") || strings.Contains(s, "NS ") || strings.Contains(s, "IDENTIFY") || strings.Contains(s, "OPER ")
}

// maskWire masks the passwords of the protocols' commands in s
// (wireSecrets): a sequence of their arguments, a line of their words, a
// string that holds one (and one with escapes, read decoded).
func maskWire(s string, found func(string)) (string, bool) {
	s, commands := wireCommands(s, found)
	s, inStrings := maskInStrings(s, wireCommands, found, nestedDepth)
	return s, commands || inStrings
}

// maxWireWords bounds the arguments of a command read: ACL SETUSER's
// rules are a few, and a long sequence read from each of its strings
// would cost the square of its length.
const maxWireWords = 32

// wireCommands is maskWire on s as it is.
func wireCommands(s string, found func(string)) (string, bool) {
	if !mayNameWire(s) {
		return s, false
	}
	h := hidden{s: s, found: found}
	var w []wireWord
	sc := &scanner{s: s}
	for i := 0; i < len(s); i++ { // sequences: ('AUTH', 'default', 'PASSWORD')
		k := strings.IndexAny(s[i:], "([")
		if k < 0 {
			break
		}
		i += k
		w = wireSequence(sc, i, w[:0])
		wireSecrets(s, w, false, h.hide, found)
	}
	for line := 0; line < len(s); { // lines, and strings without escapes
		end := lineEnd(s, line)
		from := line + blanks(s[line:end])
		if p := strings.Index(s[from:end], "> "); p >= 0 && redisPrompt(s[from:from+p]) {
			from += p + 2 // 127.0.0.1:6379> AUTH PASSWORD
		}
		w = wireLine(s, from, end, w[:0])
		wireSecrets(s, w, true, h.hide, found)
		if quotedName(s[line:end]) {
			for _, l := range literals(s, line, end) {
				if l.Known && !strings.Contains(s[l.BodyStart:l.BodyEnd], `\`) {
					w = wireLine(s, l.BodyStart, l.BodyEnd, w[:0])
					wireSecrets(s, w, true, h.hide, found)
				}
			}
		}
		if end == len(s) {
			break
		}
		line = next(s, end)
	}
	return h.masked()
}

// wireSequence reads the Python tuple or list that opens at s[open] as
// a command's arguments, when its first item is a string that begins
// with a command's name and each item is a string, a number or a name:
// its words, or none (w empty).
func wireSequence(sc *scanner, open int, w []wireWord) []wireWord {
	s := sc.s
	closing := byte(')')
	if s[open] == '[' {
		closing = ']'
	}
	p, ok := sc.nextOver(open + 1)
	if !ok || p.kind != 's' {
		return w
	}
	for n := 0; n < maxWireWords; n++ {
		switch {
		case p.kind == 's' && n == 0: // redis-py splits its first argument at its spaces: 'ACL SETUSER'
			l, _ := expressions.ReadLiteral(s, p.start)
			if !l.Known || !wireName(l.Value) {
				return w[:0]
			}
			for _, f := range strings.Fields(l.Value) {
				w = append(w, wireWord{val: f})
			}
		case p.kind == 's':
			a := wireWord{string: true}
			for { // a run of literals is one string
				l, _ := expressions.ReadLiteral(s, p.start)
				a.val += l.Value
				a.bodies = append(a.bodies, [2]int{l.BodyStart, l.BodyEnd})
				a.verbatim = len(a.bodies) == 1 && l.Known && l.Value == s[l.BodyStart:l.BodyEnd]
				q, ok := sc.nextOver(p.end)
				if !ok || q.kind != 's' {
					break
				}
				p = q
			}
			w = append(w, a)
		case p.kind == 'w':
			w = append(w, wireWord{val: s[p.start:p.end]})
		default:
			return w[:0]
		}
		sep, ok := sc.nextOver(p.end)
		switch {
		case !ok:
			return w[:0]
		case sep.kind == closing:
			return w
		case sep.kind != ',':
			return w[:0]
		}
		if p, ok = sc.nextOver(sep.end); !ok {
			return w[:0]
		}
		if p.kind == closing {
			return w // a trailing comma: ('AUTH', 'PASSWORD',)
		}
	}
	return w[:0]
}

// wireName: v begins with the name of a command of wireSecrets.
func wireName(v string) bool {
	name, _, _ := strings.Cut(v, " ")
	for _, c := range []string{"auth", "hello", "migrate", "acl", "privmsg", "nickserv", "ns", "identify", "oper"} {
		if strings.EqualFold(name, c) {
			return true
		}
	}
	return false
}

// quotedName: a quote in s is followed by a command's name (a string
// that may begin with one: 'AUTH default PASSWORD').
func quotedName(s string) bool {
	for i := 0; i < len(s); i++ {
		k := strings.IndexAny(s[i:], `'"`)
		if k < 0 {
			return false
		}
		i += k
		if n, _, _ := strings.Cut(s[i+1:min(len(s), i+9)], " "); wireName(n) {
			return true
		}
	}
	return false
}

// redisPrompt: p is redis-cli's prompt before its "> " (127.0.0.1:6379,
// 127.0.0.1:6379[2], redis /tmp/redis.sock, not connected).
func redisPrompt(p string) bool {
	if p == "redis" || p == "not connected" {
		return true
	}
	host, port, ok := strings.Cut(p, ":")
	if !ok || host == "" || port == "" {
		return false
	}
	if db := strings.IndexByte(port, '['); db > 0 && strings.HasSuffix(port, "]") {
		port = port[:db]
	}
	return run(port, 0, isDigit) == len(port) && !strings.ContainsAny(host, " \t'\"")
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

// wireLine reads the words of s[from:to] as redis-cli reads a command
// line: words apart by blanks, each bare or quoted ("a b", 'a b', with
// backslash escapes in double quotes). A quote that does not close, or a
// line of more than maxWireWords words, is no command (w empty).
func wireLine(s string, from, to int, w []wireWord) []wireWord {
	for i := from; ; {
		i += blanks(s[i:to])
		if len(w) == 1 && !wireName(w[0].val) {
			return w[:0] // no command: the rest of the line is not read
		}
		if i >= to {
			return w
		}
		if len(w) == maxWireWords || len(w) == 0 && !isWordStart(s[i]) {
			return w[:0]
		}
		switch c := s[i]; c {
		case '"', '\'':
			e := i + 1
			for e < to && s[e] != c {
				if s[e] == '\\' && c == '"' {
					e++
				}
				e++
			}
			if e >= to {
				return w[:0]
			}
			body := s[i+1 : e]
			val := body
			if c == '"' && strings.Contains(body, `\`) {
				val = unescapeWire(body)
			}
			w = append(w, wireWord{val: val, bodies: [][2]int{{i + 1, e}}, verbatim: val == body, string: true})
			i = e + 1
		default:
			e := i
			for e < to && s[e] != ' ' && s[e] != '\t' {
				e++
			}
			w = append(w, wireWord{val: s[i:e], bodies: [][2]int{{i, e}}, verbatim: true, string: true})
			i = e
		}
	}
}

// unescapeWire is a double-quoted word's value as redis-cli reads it
// (sdssplitargs): \xHH, \n, \r, \t, \b, \a, and any other byte after a
// backslash as itself.
func unescapeWire(body string) string {
	var b strings.Builder
	for i := 0; i < len(body); i++ {
		if body[i] != '\\' || i+1 == len(body) {
			b.WriteByte(body[i])
			continue
		}
		i++
		switch c := body[i]; c {
		case 'x':
			if i+2 < len(body) && isHex(body[i+1]) && isHex(body[i+2]) {
				b.WriteByte(hexValue(body[i+1])<<4 | hexValue(body[i+2]))
				i += 2
				continue
			}
			b.WriteByte(c)
		case 'n':
			b.WriteByte('\n')
		case 'r':
			b.WriteByte('\r')
		case 't':
			b.WriteByte('\t')
		case 'b':
			b.WriteByte('\b')
		case 'a':
			b.WriteByte('\a')
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

func isHex(c byte) bool { return isDigit(c) || 'a' <= c|0x20 && c|0x20 <= 'f' }

func hexValue(c byte) byte {
	if isDigit(c) {
		return c - '0'
	}
	return c | 0x20 - 'a' + 10
}
