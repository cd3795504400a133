package redact

import (
	"slices"
	"sort"
	"strings"

	"github.com/debugpy-guard/debugpy-guard/internal/pyrepr"
	"github.com/debugpy-guard/debugpy-guard/policies/expressions"
)

// Command lines whose options carry a password under no secret's name:
// mysql -pSECRET, curl -u ada:SECRET, sshpass -p SECRET, redis-cli -a
// SECRET. A program's command line shows in sys.argv, in the list it hands
// subprocess (['mysql', '-pSECRET', 'app']), in a CalledProcessError's
// message and in what it logs (running: curl -u ada:SECRET ...). Which
// option takes a secret is each program's own (-p is a port to ssh, a
// password glued to mysql and the database's name apart from it), so the
// options are read only after a program of the table below, as that
// program reads them.

// takes says how a program reads one option's secret.
type takes struct {
	next, glued, equals bool   // -p SECRET, -pSECRET, --password=SECRET
	after               byte   // the secret is what follows the first such byte: curl's user:SECRET, smbclient's user%SECRET; none, no secret
	upto                byte   // the secret ends before the first such byte after it: sqlplus's ada/SECRET@db
	prefix              string // the secret follows it: openssl's pass:SECRET (env:VAR and file:PATH name none)
	sub                 string // a word that comes before the option: docker login -p SECRET (docker run -p is a port)
	// nth: the option is the nth argument that is no option (its name is
	// ""), counted after sub when there is one: sqlplus ada/SECRET@db (1),
	// net user ada SECRET (2 after user), vault login SECRET.
	nth int
	// With nth: flags lists short flags each of which was given, alone or
	// in a cluster (htpasswd -b, -nb), unless short flags none of which was.
	flags, unless string
	skip          bool // the option takes the next argument, which holds no secret: htpasswd -C 10 (not counted by nth)
	noEquals      bool // with nth: an argument with '=' in it is not the secret (vault login method=userpass: a pair's, masked as one)
	slash         bool // the program's options begin with '/' too, as Windows' do: net user ada /delete
}

type option struct {
	name string
	takes
}

// programs lists, for each program, the options that take a secret: its
// manual's, read as its parser reads them (getopt's -pX and -p X, but
// mysql's -p only glued; curl's long options apart only).
var programs = func() map[string][]option {
	m := map[string][]option{}
	add := func(opts []option, names ...string) {
		for _, n := range names {
			m[n] = append(m[n], opts...)
		}
	}
	short := takes{next: true, glued: true}
	long := takes{next: true, equals: true}
	userPass := takes{next: true, glued: true, after: ':'}
	add([]option{{"-p", takes{glued: true}}, {"--password", takes{equals: true}}}, // -p apart: a prompt, then the database
		"mysql", "mysqldump", "mysqladmin", "mysqlimport", "mysqlshow", "mysqlcheck", "mysqlpump", "mysqlslap", "mysqlbinlog", "mysqlsh",
		"mariadb", "mariadb-dump", "mariadb-admin", "mariadb-import", "mariadb-show", "mariadb-check", "mariadb-slap", "mariadb-binlog")
	add([]option{{"-u", userPass}, {"--user", takes{next: true, after: ':'}}, {"-U", userPass}, {"--proxy-user", takes{next: true, after: ':'}},
		{"-E", userPass}, {"--cert", takes{next: true, after: ':'}}, {"--pass", takes{next: true}}, {"--proxy-pass", takes{next: true}},
		{"--oauth2-bearer", takes{next: true}}}, "curl")
	add([]option{{"--password", long}, {"--http-password", long}, {"--ftp-password", long}, {"--proxy-password", long}}, "wget")
	add([]option{{"-p", short}}, "sshpass")
	add([]option{{"-a", takes{next: true}}, {"--pass", takes{next: true}}}, "redis-cli")
	login := func(t takes) takes { t.sub = "login"; return t }
	add([]option{{"-p", login(short)}, {"--password", login(long)}}, "docker", "podman", "nerdctl", "buildah", "skopeo", "helm", "az")
	add([]option{{"-w", short}}, "ldapsearch", "ldapmodify", "ldapadd", "ldapdelete", "ldapmodrdn", "ldapcompare", "ldapwhoami", "ldapexop")
	add([]option{{"-w", short}, {"-s", short}, {"-a", short}}, "ldappasswd") // -s the new password, -a the old
	add([]option{{"-P", takes{next: true}}, {"--password", long}}, "zip", "zipcloak")
	add([]option{{"-P", takes{next: true}}}, "unzip")
	add([]option{{"-p", takes{glued: true}}}, "7z", "7za", "7zr")
	pass := takes{next: true, prefix: "pass:"}
	add([]option{{"-passin", pass}, {"-passout", pass}, {"-pass", pass}, {"-k", takes{next: true}}}, "openssl")
	apart := takes{next: true}
	add([]option{{"-storepass", apart}, {"-keypass", apart}, {"-srcstorepass", apart}, {"-deststorepass", apart},
		{"-srckeypass", apart}, {"-destkeypass", apart}, {"-new", apart}}, "keytool", "jarsigner")
	userPct := takes{next: true, glued: true, after: '%'}
	add([]option{{"-U", userPct}, {"--user", takes{next: true, equals: true, after: '%'}}, {"--password", long}}, "smbclient", "rpcclient", "smbcacls", "smbget")
	add([]option{{"-P", short}}, "sqlcmd", "bcp", "osql")
	add([]option{{"-p", apart}, {"--password", long}},
		"mongo", "mongosh", "mongodump", "mongorestore", "mongoexport", "mongoimport", "mongostat", "mongotop", "mongofiles")
	add([]option{{"-P", apart}, {"--pw", apart}}, "mosquitto_pub", "mosquitto_sub", "mosquitto_rr")
	add([]option{{"-N", short}, {"-P", short}}, "ssh-keygen")
	add([]option{{"-u", takes{next: true, after: ','}}}, "lftp")
	// Oracle's tools: a connect string user/SECRET@db, first or after a
	// keyword (userid=, rman's target).
	connect := takes{next: true, after: '/', upto: '@'}
	add([]option{{"", takes{nth: 1, after: '/', upto: '@'}}, {"userid", takes{equals: true, after: '/', upto: '@'}}},
		"sqlplus", "sqlldr", "expdp", "impdp", "exp", "imp")
	add([]option{{"", takes{nth: 1, after: '/', upto: '@'}}, {"target", connect}, {"catalog", connect}, {"auxiliary", connect}}, "rman")
	// Passwords as arguments that are no option: htpasswd's in batch mode
	// (-b: file, user, password; with -n no file), Windows' net user NAME
	// PASSWORD (* asks for it), Vault's login TOKEN.
	valueless := takes{skip: true}
	add([]option{{"", takes{nth: 3, flags: "b", unless: "n"}}, {"", takes{nth: 2, flags: "bn"}}, {"-C", valueless}, {"-r", valueless}}, "htpasswd")
	add([]option{{"", takes{nth: 2, sub: "user", slash: true}}}, "net", "net.exe")
	add([]option{{"", takes{nth: 1, sub: "login", noEquals: true}}}, "vault")
	// Wi-Fi: NetworkManager's nmcli takes a property's value after its
	// name (device wifi connect SSID password SECRET; connection modify
	// NAME wifi-sec.psk SECRET), wpa_passphrase SSID SECRET.
	add([]option{{"password", apart}, {"wifi-sec.psk", apart}, {"802-11-wireless-security.psk", apart}, {"802-1x.password", apart}}, "nmcli")
	add([]option{{"", takes{nth: 2}}}, "wpa_passphrase")
	// RabbitMQ's rabbitmqctl add_user NAME SECRET, change_password NAME
	// SECRET, authenticate_user NAME SECRET (shown in clear until 2026-12-08)
	add([]option{{"", takes{nth: 2, sub: "add_user"}}, {"", takes{nth: 2, sub: "change_password"}}, {"", takes{nth: 2, sub: "authenticate_user"}}}, "rabbitmqctl")
	// PowerShell's ConvertTo-SecureString SECRET -AsPlainText (or -String
	// SECRET), as a program runs powershell -Command with it (shown in clear
	// until 2026-12-08)
	add([]option{{"", takes{nth: 1, unless: "S"}}, {"-String", apart}}, "ConvertTo-SecureString", "convertto-securestring") // nth: not with -String
	// Remote desktops' and consoles' (FreeRDP's /p:SECRET, its gateway's
	// /gp:SECRET and a pass-the-hash /pth:HASH; rdesktop's -p; PuTTY's
	// -pw; ipmitool's -P), databases' clients (mysqladmin's password
	// NEW, cqlsh's, mycli's, influx's, clickhouse's, Db2's connect ...
	// using SECRET), svn's, httpie's -a ada:SECRET, etcdctl's --user
	// root:SECRET and curl's --oauth2-bearer (each shown in clear until
	// 2026-12-08)
	add([]option{{"/p:", takes{glued: true}}, {"/gp:", takes{glued: true}}, {"/pth:", takes{glued: true}}, {"-p", short}},
		"xfreerdp", "xfreerdp3", "wlfreerdp", "wlfreerdp3", "sdl-freerdp", "sdl-freerdp3")
	add([]option{{"-p", short}}, "rdesktop")
	add([]option{{"-pw", apart}}, "plink", "pscp", "psftp", "putty")
	add([]option{{"-P", short}}, "ipmitool")
	add([]option{{"", takes{nth: 1, sub: "password"}}}, "mysqladmin", "mariadb-admin")
	add([]option{{"-p", short}, {"--password", long}}, "cqlsh", "mycli")
	add([]option{{"-password", apart}, {"--password", long}}, "influx")
	add([]option{{"--password", long}}, "clickhouse", "clickhouse-client", "svn")
	add([]option{{"", takes{nth: 1, sub: "using"}}}, "db2")
	add([]option{{"-a", userPass}, {"--auth", takes{next: true, equals: true, after: ':'}}}, "http", "https", "httpie")
	add([]option{{"--password", long}, {"--user", takes{next: true, equals: true, after: ':'}}}, "etcdctl")
	add([]option{{"-A", short}, {"-X", short}, {"-c", short}}, "snmpget", "snmpgetnext", "snmpset", "snmpwalk", "snmpbulkwalk", "snmpbulkget", "snmptable", "snmptrap")
	return m
}()

// arg is one argument of a command line, as the program gets it (val),
// and where each of its bytes is written in the text.
type arg struct {
	val string
	// A shell's word: from[i] and to[i] are where val[i] is written (its
	// escape's backslash included), in[i] the quote it is inside (0: none).
	from, to []int
	in       []byte
	// A shell's word: where it is written, its quotes included. A list's
	// string (from nil): its body, and its literal's prefix and quote (an
	// escape in it is written back as repr writes it).
	start, end int
	prefix     string
}

// edit replaces a span of a text.
type edit struct {
	from, to int
	with     string
}

// maskCommands masks, in every line of s, the secrets that the options of
// a known program's command line carry (programs): a command as a shell
// reads it (mysql -uroot -p'S3 cret' app, $ curl -u "ada:pw" url) to its
// line's end or a shell operator, and as a Python list of strings
// (['mysql', '-pSECRET'], sys.argv, a CalledProcessError's repr). It hands
// each secret to found as the program gets it. TestCommandsAgreeWithPython
// reads the masked lines back with shlex and ast.
func maskCommands(s string, found func(string)) (string, bool) {
	return maskCommandsIn(s, found, nestedDepth)
}

// maskCommandsIn is maskCommands, reading strings inside strings depth
// levels deep.
func maskCommandsIn(s string, found func(string), depth int) (string, bool) {
	piped := mayPipe(s)
	if !piped && !mayHoldSecret(s) { // most texts: at once
		return s, false
	}
	var edits []edit
	for line := 0; line < len(s); {
		end := line + strings.IndexAny(s[line:], "\n\r")
		if end < line {
			end = len(s)
		}
		options, pipe := mayHoldSecret(s[line:end]), piped && mayPipe(s[line:end])
		if options || pipe {
			strs := literals(s, line, end)
			if depth > 0 {
				edits = escapedCommands(s, strs, edits, found, depth)
			}
			if options {
				edits = commandsIn(s, line, end, strs, edits, found, depth)
			}
			if pipe {
				edits = pipedSecrets(s, line, end, edits, found) // echo PW | sudo -S (stdin.go)
			}
		}
		line = end + 1
	}
	if len(edits) == 0 {
		return s, false
	}
	return applyEdits(s, edits), true
}

// applyEdits makes edits to s.
func applyEdits(s string, edits []edit) string {
	slices.SortFunc(edits, func(a, b edit) int { return a.from - b.from })
	var b strings.Builder
	last := 0
	for _, e := range edits {
		if e.from < last {
			// Two readings of one text (a string's decoded, a line's)
			// overlap: what either masks is masked.
			last = max(last, e.to)
			continue
		}
		b.WriteString(s[last:e.from])
		b.WriteString(e.with)
		last = e.to
	}
	b.WriteString(s[last:])
	return b.String()
}

// maskInStrings runs mask on the value of each string literal of s whose
// body has an escape: the repr of a text of lines, whose line ends are
// \n there and which a reading of lines cannot see; and so on inside them,
// depth levels deep. What it masks is written back as repr writes it.
func maskInStrings(s string, mask func(string, func(string)) (string, bool), found func(string), depth int) (string, bool) {
	if depth == 0 || !strings.Contains(s, `\`) {
		return s, false
	}
	var edits []edit
	for line := 0; line < len(s); {
		end := lineEnd(s, line)
		for _, l := range literals(s, line, end) {
			if !l.Known || !strings.Contains(s[l.BodyStart:l.BodyEnd], `\`) {
				continue
			}
			v, masked := mask(l.Value, found)
			if w, inner := maskInStrings(v, mask, found, depth-1); inner {
				v, masked = w, true
			}
			if masked {
				edits = append(edits, edit{l.BodyStart, l.BodyEnd, writeBody(v, s[l.start:l.BodyStart])})
			}
		}
		line = end + 1
	}
	if len(edits) == 0 {
		return s, false
	}
	return applyEdits(s, edits), true
}

// escapedCommands reads the strings of a line (strs) whose body has an
// escape as Python decodes them, masks the commands in each, and adds the
// edit that writes the body back as repr writes it: a shell's line in a
// repr ('keytool -storepass \'S3 cret\' -v'), whose escaped quotes a shell's
// reading of the text would misread.
func escapedCommands(s string, strs []strLit, edits []edit, found func(string), depth int) []edit {
	for _, l := range strs {
		body := s[l.BodyStart:l.BodyEnd]
		if !l.Known || !strings.Contains(body, "\\") || !mayHoldSecret(l.Value) && !mayPipe(l.Value) {
			continue
		}
		if v, changed := maskCommandsIn(l.Value, found, depth-1); changed {
			edits = append(edits, edit{l.BodyStart, l.BodyEnd, writeBody(v, s[l.start:l.BodyStart])})
		}
	}
	return edits
}

// writeBody writes v as the body of a literal with the prefix and quote
// written (pre: 'rb' and its quote): as repr writes it; a raw literal's
// is masked whole.
func writeBody(v, pre string) string {
	q, p := pre[len(pre)-1], strings.ToLower(pre)
	switch {
	case strings.Contains(p, "r"):
		return mask
	case strings.Contains(p, "b"):
		return pyrepr.BytesBody(v, q)
	}
	return pyrepr.Body(v, q)
}

// mayHoldSecret: s has an option, or a connect string's / and @ (Oracle's
// tools take ada/SECRET@db with no option), or the words of the programs
// whose secret follows a word with no option (net user ada SECRET, vault
// login SECRET, nmcli ... password SECRET, wpa_passphrase SSID SECRET,
// rabbitmqctl add_user NAME SECRET).
func mayHoldSecret(s string) bool {
	return hasOption(s) || strings.IndexByte(s, '@') >= 0 && strings.IndexByte(s, '/') >= 0 ||
		strings.Contains(s, "vault") || strings.Contains(s, "net") && strings.Contains(s, "user") ||
		strings.Contains(s, "nmcli") || strings.Contains(s, "wpa_passphrase") || strings.Contains(s, "rabbitmqctl") ||
		strings.Contains(s, "freerdp") || strings.Contains(s, "admin") && strings.Contains(s, "password") || strings.Contains(s, "db2")
}

// hasOption: s has an option, a '-' after a blank or a quote. (Found by
// IndexByte, not a loop over the bytes: in WebAssembly the loop added
// 0.3-0.8 ms to a read of output after 32 KiB of log lines.)
func hasOption(s string) bool {
	for i := 1; i < len(s); i++ {
		k := strings.IndexByte(s[i:], '-')
		if k < 0 {
			return false
		}
		i += k
		if c := s[i-1]; c == ' ' || c == '\t' || c == '\'' || c == '"' {
			return true
		}
	}
	return false
}

// commandsIn finds the commands of the line s[line:end] and adds the
// edits that mask their secrets. A command written inside a string
// ('mysql -pSECRET', 'app'; sh -c 'mysql -pSECRET') ends with it; one in
// a string with an escape is read decoded (escapedCommands).
func commandsIn(s string, line, end int, strs []strLit, edits []edit, found func(string), depth int) []edit {
	for i := line; i < end; {
		if !isProgramByte(s[i]) || i > line && (isProgramByte(s[i-1]) || s[i-1] == ':') { // a URL's path is none
			i++
			continue
		}
		j := i
		for j < end && isProgramByte(s[j]) {
			j++
		}
		rd, ok := reader(s[i:j])
		if !ok || j == end {
			i = j
			continue
		}
		// The last string to start before the program is the one that
		// may hold it (strings do not nest).
		stop := end
		if k := sort.Search(len(strs), func(k int) bool { return strs[k].BodyStart > i }) - 1; k >= 0 && j < strs[k].BodyEnd {
			stop = strs[k].BodyEnd
			if strs[k].Known && strings.Contains(s[strs[k].BodyStart:stop], "\\") {
				stop = i // read decoded
			}
		}
		visit := func(a *arg) {
			// A program among the arguments runs the rest: docker exec db
			// mysql -pSECRET, sudo, env, timeout. Its options are its own.
			if inner, ok := reader(a.val); ok && rd.take == nil {
				rd = inner
				return
			}
			if rd.shell {
				if rd.command(a.val) && depth > 0 {
					if v, changed := maskCommandsIn(a.val, found, depth-1); changed {
						edits = append(edits, a.replace(v))
					}
				}
				return
			}
			if from, to, ok := rd.secret(a.val); ok {
				if found != nil {
					found(a.val[from:to])
				}
				edits = append(edits, a.edit(from, to))
			}
		}
		next := j
		switch c := s[j]; {
		case stop <= j:
		case c == ' ' || c == '\t':
			next = shellWords(s, j, stop, visit)
		case c == '\'' || c == '"':
			var list bool
			if next, list = listStrings(s, line, j, end, visit); !list && (j+1 == end || s[j+1] == ' ' || s[j+1] == '\t') {
				next = shellWords(s, j+1, end, visit) // '/opt/x y/mysql' -p...: a shell's quoted program
			}
		}
		i = max(next, j)
	}
	return edits
}

// reader is the reader of the options of the program whose path is p,
// when it is a program of the table or a shell.
func reader(p string) (*options, bool) {
	if k := strings.LastIndexByte(p, '/'); k >= 0 {
		p = p[k+1:]
	}
	p = strings.TrimSuffix(p, ".exe")
	opts, ok := programs[p]
	if !ok && !shells[p] {
		return nil, false
	}
	return &options{opts: opts, shell: shells[p], slash: slices.ContainsFunc(opts, func(o option) bool { return o.slash })}, true
}

// strLit is a string literal of a text: where it starts (its prefix), and
// what expressions.ReadLiteral read of it.
type strLit struct {
	start int
	expressions.Literal
}

// literals are the strings of the line s[line:end] read as Python reads
// them from its start (a quote that opens none is passed).
func literals(s string, line, end int) []strLit {
	var out []strLit
	for i := line; i < end; i++ {
		if s[i] == '\'' || s[i] == '"' {
			if start, l, ok := readString(s[:end], line, i); ok {
				out = append(out, strLit{start, l})
				i = l.End - 1
			}
		}
	}
	return out
}

// readString reads the string literal whose quote is at s[q], with the
// prefix of up to two letters before it (from lo on) when Python reads
// one there, and returns where it starts.
func readString(s string, lo, q int) (int, expressions.Literal, bool) {
	start := q
	for start > lo && q-start < 2 && strings.IndexByte("rRbBuU", s[start-1]) >= 0 {
		start--
	}
	l, ok := expressions.ReadLiteral(s, start)
	if !ok && start != q {
		start = q
		l, ok = expressions.ReadLiteral(s, q)
	}
	return start, l, ok
}

// shells run the command line of their -c's argument: sh -c 'mysql
// -pSECRET' (and so does a container's or a remote host's sh -c).
var shells = map[string]bool{"sh": true, "bash": true, "dash": true, "zsh": true, "ksh": true, "ash": true}

// options reads a program's arguments one at a time, as the program does.
type options struct {
	opts  []option
	shell bool           // a shell: what it reads is its -c's command line
	take  *option        // the argument before is this option, which takes the next one whole
	words map[string]int // of the words an option comes after (docker login), the count of arguments that are no option when it was read
	n     int            // the count of arguments read that are no option
	given string         // the short flags given, alone or in clusters
	slash bool           // an argument that begins with '/' is an option too
	skip  bool           // a shell's -o or +o: the next argument is its option's name
	ended bool           // past --, or a shell's command line
}

// secret reads the argument w and returns where its secret is, when it
// holds one.
func (r *options) secret(w string) (from, to int, ok bool) {
	if o := r.take; o != nil {
		r.take = nil
		if o.skip {
			return 0, 0, false
		}
		return o.part(w, 0)
	}
	if r.ended {
		return 0, 0, false
	}
	if w == "--" { // the end of the options
		r.ended = true
		return 0, 0, false
	}
	option := strings.HasPrefix(w, "-") || r.slash && strings.HasPrefix(w, "/")
	if !option {
		r.n++
		for _, o := range r.opts {
			if _, seen := r.words[w]; o.sub != "" && o.sub == w && !seen {
				if r.words == nil {
					r.words = map[string]int{}
				}
				r.words[w] = r.n
			}
		}
	} else if len(w) > 1 && w[1] != '-' {
		r.given += w[1:]
	}
	for k := range r.opts {
		o := &r.opts[k]
		at, seen := r.words[o.sub]
		if o.sub != "" && !seen {
			continue
		}
		switch {
		case o.nth > 0:
			if !option && r.n-at == o.nth && w != "*" && !(o.noEquals && strings.Contains(w, "=")) &&
				!strings.ContainsFunc(o.flags, func(f rune) bool { return !strings.ContainsRune(r.given, f) }) &&
				!strings.ContainsAny(r.given, o.unless) {
				if from, to, ok := o.part(w, 0); ok {
					return from, to, true
				}
			}
		case o.name == "":
		case o.skip && len(o.name) == 2 && len(w) > 2 && w[1] != '-' && w[len(w)-1] == o.name[1]:
			r.take = o // a cluster that ends with it: htpasswd -bC 10
			return 0, 0, false
		case w == o.name && (o.next || o.skip):
			r.take = o
			return 0, 0, false
		case o.glued && len(w) > len(o.name) && strings.HasPrefix(w, o.name):
			return o.part(w, len(o.name))
		case o.equals && strings.HasPrefix(w, o.name+"="):
			return o.part(w, len(o.name)+1)
		}
	}
	return 0, 0, false
}

// part is where the secret of the option's value v[from:] is: past its
// prefix or its user's name, to the end or to upto; none when v has
// neither.
func (o *option) part(v string, from int) (int, int, bool) {
	switch {
	case o.prefix != "":
		if !strings.HasPrefix(v[from:], o.prefix) {
			return 0, 0, false
		}
		from += len(o.prefix)
	case o.after != 0:
		k := strings.IndexByte(v[from:], o.after)
		if k < 0 {
			return 0, 0, false
		}
		from += k + 1
	}
	to := len(v)
	if o.upto != 0 && from < len(v) {
		at := from
		if v[from] == '"' { // a quoted password may hold what ends one: ada/"p@ss"@db
			if q := strings.IndexByte(v[from+1:], '"'); q >= 0 {
				at = from + 1 + q + 1
			}
		}
		if k := strings.IndexByte(v[at:], o.upto); k >= 0 {
			to = at + k
		}
	}
	return from, to, from < to
}

// command reads a shell's argument w and reports whether it is the
// command line the shell runs: the one after -c (or a cluster of flags
// ending with it, -ec).
func (r *options) command(w string) bool {
	switch {
	case r.ended:
		return false
	case r.skip:
		r.skip = false
	case w == "-o" || w == "+o": // bash -o pipefail -c '...'
		r.skip = true
	case r.take != nil:
		r.take, r.ended = nil, true
		return true
	case w == "--" || !strings.HasPrefix(w, "-") && !strings.HasPrefix(w, "+"):
		r.ended = true
	case len(w) > 1 && w[1] != '-' && strings.HasSuffix(w, "c"):
		r.take = &option{}
	}
	return false
}

// isProgramByte: a byte of a program's path.
func isProgramByte(c byte) bool { return isWord(c) || c == '-' || c == '.' || c == '/' }

// edit masks the bytes from, to of a: a shell's word keeps its quotes
// balanced (the mask is written in the quote its first byte was in, and
// that quote is closed and the last byte's opened after it); a list's
// string is written again as repr writes it, the mask in its value.
func (a arg) edit(from, to int) edit {
	if a.from == nil {
		return edit{a.start, a.end, writeBody(a.val[:from]+mask+a.val[to:], a.prefix)}
	}
	with := mask
	if first, last := a.in[from], a.in[to-1]; first != last {
		if first != 0 {
			with += string(first)
		}
		if last != 0 {
			with += string(last)
		}
	}
	return edit{a.from[from], a.to[to-1], with}
}

// replace writes v in place of a's value: in a shell's single quotes
// (shlex.quote's), or as repr writes a list's string.
func (a arg) replace(v string) edit {
	if a.from == nil {
		return edit{a.start, a.end, writeBody(v, a.prefix)}
	}
	return edit{a.start, a.end, "'" + strings.ReplaceAll(v, "'", `'"'"'`) + "'"}
}

// shellWords reads the words of a command line from i as a POSIX shell
// splits them (quotes, backslashes), to end, a shell operator or a
// comment. A quote with no closing one before end ends it too.
func shellWords(s string, i, end int, visit func(*arg)) int {
	// One word at a time, in arrays that each word reuses: a long
	// command costs its length.
	var a arg
	var val []byte
	put := func(c byte, f, t int, q byte) {
		val, a.from, a.to, a.in = append(val, c), append(a.from, f), append(a.to, t), append(a.in, q)
	}
	for {
		for i < end && (s[i] == ' ' || s[i] == '\t') {
			i++
		}
		if i >= end || strings.IndexByte(";&|<>()`#", s[i]) >= 0 {
			return i
		}
		a.start, val, a.from, a.to, a.in = i, val[:0], a.from[:0], a.to[:0], a.in[:0]
	word:
		for i < end {
			switch c := s[i]; c {
			case ' ', '\t', ';', '&', '|', '<', '>', '(', ')', '`':
				break word
			case '\\':
				if i+1 < end {
					put(s[i+1], i, i+2, 0)
					i += 2
				} else {
					i++
				}
			case '\'':
				k := strings.IndexByte(s[i+1:end], '\'')
				if k < 0 {
					end = i
					break word
				}
				for j := i + 1; j <= i+k; j++ {
					put(s[j], j, j+1, '\'')
				}
				i += k + 2
			case '"':
				k := closingDouble(s, i+1, end)
				if k < 0 {
					end = i
					break word
				}
				for j := i + 1; j < k; j++ {
					if s[j] == '\\' && strings.IndexByte("$`\"\\", s[j+1]) >= 0 {
						put(s[j+1], j, j+2, '"')
						j++
						continue
					}
					put(s[j], j, j+1, '"')
				}
				i = k + 1
			default:
				put(c, i, i+1, 0)
				i++
			}
		}
		if i > a.start { // '' is a word: an empty one
			a.val, a.end = string(val), i
			visit(&a)
		}
		if i >= end {
			return end
		}
	}
}

// closingDouble is where the double quote that closes one opened before
// i is, before end; -1 when there is none.
func closingDouble(s string, i, end int) int {
	for ; i < end; i++ {
		switch s[i] {
		case '\\':
			i++
		case '"':
			return i
		}
	}
	return -1
}

// listStrings reads a Python list's or tuple's strings after the one
// that holds the program (its body ends at j), as repr writes them:
// ['mysql', '-pSECRET', 'app'], and returns where it stopped. It reports
// whether the program is a string of its own followed by another.
func listStrings(s string, line, j, end int, visit func(*arg)) (int, bool) {
	open := strings.LastIndexByte(s[line:j], s[j])
	if open < 0 {
		return j, false
	}
	if _, l, ok := readString(s[:end], line, line+open); !ok || l.End != j+1 {
		return j, false
	}
	sc := scanner{s: s[:end]}
	at := j + 1
	for {
		comma, ok := sc.next(at)
		if !ok || comma.kind != ',' {
			return at, at > j+1
		}
		p, ok := sc.next(comma.end)
		if !ok || p.kind != 's' {
			return at, at > j+1
		}
		l, _ := expressions.ReadLiteral(s[:end], p.start)
		a := arg{val: l.Value, start: l.BodyStart, end: l.BodyEnd, prefix: s[p.start:l.BodyStart]}
		if !l.Known {
			a.val, a.prefix = s[l.BodyStart:l.BodyEnd], "r"+a.prefix // masked whole
		}
		visit(&a)
		at = p.end
	}
}

// maskIMAPLogin masks the password of IMAP's LOGIN command as a protocol
// trace shows it: imaplib's debug lines (> b'CJKG1 LOGIN ada "S3cret"'), a
// program's own log of what it sent. The command is a tag (a word with a
// digit), LOGIN, the user and the password, each an atom or a quoted
// string; a quoted password runs to the last " of its line (its escapes,
// doubled again in a repr, cannot end it early), an atom to a blank or a
// quote.
func maskIMAPLogin(s string, found func(string)) (string, bool) {
	var spans [][2]int
	for from := 0; ; {
		i := strings.Index(s[from:], " LOGIN ")
		if i < 0 {
			break
		}
		i += from
		from = i + len(" LOGIN ")
		t := i // the tag: a word before it
		for t > 0 && isWord(s[t-1]) {
			t--
		}
		if t == i || t > 0 && !isSpace(s[t-1]) && s[t-1] != '\'' && s[t-1] != '"' || !strings.ContainsAny(s[t:i], "0123456789") {
			continue // a tag has a digit (A1, CJKG1): not prose's "the LOGIN page for ada"
		}
		u := from
		if u < len(s) && s[u] == '"' { // the user, quoted
			e := strings.IndexByte(s[u+1:], '"')
			if e < 0 {
				continue
			}
			u += e + 2
		} else {
			u += run(s, u, func(c byte) bool { return !isSpace(c) && c != '"' && c != '\'' })
		}
		if u >= len(s) || s[u] != ' ' {
			continue
		}
		p := u + 1
		end := lineEnd(s, p)
		var ps, pe int
		if p < len(s) && s[p] == '"' {
			ps, pe = p+1, p+1+strings.LastIndexByte(s[p+1:end], '"')
			if pe < ps {
				pe = end // not closed on its line: to its end
			}
		} else {
			ps, pe = p, p+run(s, p, func(c byte) bool { return !isSpace(c) && c != '"' && c != '\'' && c != '\\' })
		}
		if pe > ps {
			spans = append(spans, [2]int{ps, pe})
			if found != nil {
				found(s[ps:pe])
			}
			from = pe
		}
	}
	if len(spans) == 0 {
		return s, false
	}
	return writeSpans(s, spans, found), true
}

// maskSMTPAuth masks what smtplib's debug lines (set_debuglevel(1)) show
// a client send in an SMTP AUTH exchange after its AUTH line: AUTH LOGIN's
// password (base64, on a line of its own after the server's 334
// challenge), CRAM-MD5's answer. The exchange ends at a reply that is no
// 334. Captured lines in a string's repr are read decoded too.
func maskSMTPAuth(s string, found func(string)) (string, bool) {
	s, lines := smtpAuthLines(s, found)
	s, inStrings := maskInStrings(s, smtpAuthLines, found, nestedDepth)
	return s, lines || inStrings
}

// smtpAuthLines is maskSMTPAuth on s's lines.
func smtpAuthLines(s string, found func(string)) (string, bool) {
	h := hidden{s: s, found: found}
	auth := false
	for line := 0; line < len(s); {
		end := lineEnd(s, line)
		t := strings.TrimLeft(s[line:end], " \t")
		body, sent := strings.CutPrefix(t, "send: ")
		switch {
		case sent && (strings.HasPrefix(body, "'AUTH ") || strings.HasPrefix(body, "b'AUTH ")):
			auth = true
		case sent && auth:
			q := strings.IndexAny(body, "'\"")
			if q >= 0 && q <= 1 {
				from := end - len(body) + q + 1 // after the quote, to the \r\n and the quote that end it
				to := from + len(strings.TrimSuffix(strings.TrimSuffix(strings.TrimRight(body[q+1:], " \t"), body[q:q+1]), `\r\n`))
				if to > from {
					h.hide(from, to)
				}
			}
		case strings.HasPrefix(t, "reply: retcode (") && !strings.HasPrefix(t, "reply: retcode (334)"):
			auth = false
		}
		if end == len(s) {
			break
		}
		line = next(s, end)
	}
	return h.masked()
}
