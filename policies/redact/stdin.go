package redact

import (
	"path"
	"strings"
)

// Programs that read a password on their standard input are handed it by
// the line that runs them, under no name and no option: echo PW | sudo -S
// apt update, printf '%s\n' PW | docker login --password-stdin, echo
// 'ada:PW' | chpasswd, passwd --stdin ada <<< PW. A program's scripts and
// the commands it runs with shell=True show such lines. What echo or
// printf writes into the pipe, or the here-string, is masked when the
// command that reads it is one of these (stdinReads); the words of both
// are read as a shell reads them (shellWords).

// stdinReads reports whether a command's words (its program first) read a
// password on standard input, as each program's manual says. A program
// that runs another (sudo, env, timeout) hands it its input: any program
// among the words counts.
func stdinReads(words []string) bool {
	for i, w := range words {
		if readsStdin(path.Base(w), words[i+1:]) {
			return true
		}
	}
	return false
}

func readsStdin(prog string, args []string) bool {
	has := func(opts ...string) bool {
		for _, a := range args {
			for _, o := range opts {
				if a == o {
					return true
				}
			}
		}
		return false
	}
	switch prog {
	case "sudo": // -S, --stdin, or -S in a cluster of its options (-kS)
		for i := 0; i < len(args) && strings.HasPrefix(args[i], "-"); i++ {
			a := args[i]
			if a == "--stdin" || !strings.HasPrefix(a, "--") && strings.IndexByte(a, 'S') > 0 {
				return true
			}
			if a == "-u" || a == "-g" || a == "-p" || a == "-U" || a == "-C" || a == "-D" || a == "-h" || a == "-r" || a == "-t" || a == "-T" {
				i++ // its value
			}
		}
	case "passwd":
		return has("--stdin")
	case "chpasswd", "chgpasswd":
		return true
	case "sshpass": // with none of -p, -f, -d, -e it reads the password from its input
		return !has("-p", "-f", "-d", "-e") && !strings.HasPrefix(strings.Join(args, " "), "-p")
	case "docker", "podman", "nerdctl", "buildah", "skopeo", "helm", "oras", "crane", "regctl", "cosign":
		return has("--password-stdin")
	case "smbpasswd":
		return has("-s")
	case "htpasswd": // -i, alone or in a cluster (-ci)
		for _, a := range args {
			if strings.HasPrefix(a, "-") && !strings.HasPrefix(a, "--") && strings.IndexByte(a, 'i') > 0 {
				return true
			}
		}
	case "openssl":
		for i := 0; i+1 < len(args); i++ {
			if (args[i] == "-passin" || args[i] == "-passout" || args[i] == "-pass") && (args[i+1] == "stdin" || args[i+1] == "fd:0") {
				return true
			}
		}
	case "gpg", "gpg2":
		return has("--passphrase-fd=0") || strings.Contains(strings.Join(args, " "), "--passphrase-fd 0")
	case "kinit":
		return has("--password-file=STDIN")
	case "vault": // vault login - (the token on its input)
		return has("login") && has("-")
	case "cryptsetup":
		return has("--key-file=-") || strings.Contains(strings.Join(args, " "), "-d -")
	}
	return false
}

// maxPipes bounds the pipes and here-strings of a line that pipedSecrets
// reads, and the words it reads back from a here-string.
const maxPipes = 16

// mayPipe: s may hand a password to a program's input (pipedSecrets).
func mayPipe(s string) bool {
	return strings.Contains(s, "<<<") || strings.IndexByte(s, '|') >= 0 && (strings.Contains(s, "echo") || strings.Contains(s, "printf"))
}

// pipedSecrets adds the edits that mask what the line s[line:end] hands a
// program of stdinReads on its input: echo's or printf's arguments before
// a pipe into it, and a here-string after it (<<< PW).
func pipedSecrets(s string, line, end int, edits []edit, found func(string)) []edit {
	// A command line has a few pipes: a line of many (a table's) is read
	// to its maxPipes-th, so that a long one costs its length, not its
	// square.
	pipes := 0
	for p := line; p < end && pipes < maxPipes; p++ {
		switch {
		case s[p] == '|' && (p+1 == end || s[p+1] != '|') && (p == line || s[p-1] != '|'):
			pipes++
			at := p + 1
			if at < end && s[at] == '&' { // |& pipes stderr too
				at++
			}
			if ws, _ := words(s, at, end); !stdinReads(ws) {
				continue
			}
			edits = echoed(s, line, p, end, edits, found)
		case strings.HasPrefix(s[p:end], "<<<"):
			// the command before the here-string: its words from any of
			// them to the <<< (a reader's, or a program's that runs one),
			// the last maxPipes words
			pipes++
			back := 0
			for c := p - 1; c >= line && back < maxPipes; c-- {
				if !isProgramByte(s[c]) || c > line && isProgramByte(s[c-1]) {
					continue
				}
				back++
				if ws, k := words(s, c, end); k == p && stdinReads(ws) {
					first := true
					shellWords(s, p+3, end, func(a *arg) {
						if first {
							edits, first = hide(a, edits, found), false
						}
					})
					break
				}
			}
			p += 2
		}
	}
	return edits
}

// words are the words of the command at s[i:end], to a shell operator,
// and where they stopped (shellWords).
func words(s string, i, end int) ([]string, int) {
	var ws []string
	k := shellWords(s, i, end, func(a *arg) { ws = append(ws, a.val) })
	return ws, k
}

// echoed masks the arguments of the echo or printf whose command ends at
// the pipe s[p]: echo's (its options -n, -e, -E apart), and printf's after
// its format, or its format when it has no other.
func echoed(s string, line, p, end int, edits []edit, found func(string)) []edit {
	for c := p - 1; c >= line; c-- {
		prog := ""
		switch {
		case strings.HasPrefix(s[c:p], "echo"):
			prog = "echo"
		case strings.HasPrefix(s[c:p], "printf"):
			prog = "printf"
		default:
			continue
		}
		if c > line && isProgramByte(s[c-1]) || c+len(prog) < p && !isBlank(s[c+len(prog)]) {
			continue
		}
		var args []arg
		if k := shellWords(s, c+len(prog), end, func(a *arg) {
			args = append(args, arg{val: a.val, from: append([]int(nil), a.from...), to: append([]int(nil), a.to...),
				in: append([]byte(nil), a.in...), start: a.start, end: a.end})
		}); k != p {
			return edits // the pipe is not this command's end
		}
		if prog == "echo" {
			for len(args) > 0 && len(args[0].val) > 1 && strings.Trim(args[0].val, "-neE") == "" && args[0].val[0] == '-' {
				args = args[1:]
			}
		} else if len(args) > 1 {
			args = args[1:]
		}
		for i := range args {
			edits = hide(&args[i], edits, found)
		}
		return edits
	}
	return edits
}

// hide masks a whole word and hands its value to found: a printf format's
// without its line end, and of a user:password line (chpasswd's) the
// password too.
func hide(a *arg, edits []edit, found func(string)) []edit {
	if a.val == "" || variable(a) {
		return edits
	}
	if found != nil {
		v := strings.TrimSuffix(a.val, `\n`)
		found(v)
		if _, pw, ok := strings.Cut(v, ":"); ok && pw != "" {
			found(pw)
		}
	}
	return append(edits, a.edit(0, len(a.val)))
}

// variable: a is a shell variable's expansion ($PW, "${PW}"), whose value
// the line does not show.
func variable(a *arg) bool {
	v := a.val
	if len(v) < 2 || v[0] != '$' || a.in[0] == '\'' {
		return false
	}
	v = v[1:]
	if v[0] == '{' && v[len(v)-1] == '}' {
		v = v[1 : len(v)-1]
	}
	return v != "" && (v[0] < '0' || v[0] > '9') && run(v, 0, func(c byte) bool { return isWordByte(c) }) == len(v)
}
