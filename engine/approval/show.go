package approval

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// MaxShown bounds what a person is shown of a call's arguments. Arguments
// that take more to show are refused, never cut: a person approves only
// what they saw in full.
const MaxShown = 8 << 10

// Show renders a call's canonical arguments for a person: one line per
// argument, every key and every value in full, strings quoted with every
// character that is not printable ASCII escaped (\n, \t, \u{a0}, \u{ff45}
// ...), so that whitespace, control characters and look-alike letters are
// visible, and long runs of spaces counted (⟨6000 spaces⟩). It fails when
// the rendering is over MaxShown bytes.
func Show(args json.RawMessage) (string, error) {
	dec := json.NewDecoder(bytes.NewReader(args))
	dec.UseNumber()
	var b strings.Builder
	tok, err := dec.Token()
	if err != nil || tok != json.Delim('{') {
		return "", fmt.Errorf("the arguments are not a JSON object")
	}
	n := 0
	for dec.More() {
		k, _ := dec.Token()
		fmt.Fprintf(&b, "  %s = ", visible(k.(string)))
		if err := showValue(&b, dec); err != nil {
			return "", err
		}
		b.WriteByte('\n')
		n++
	}
	if n == 0 {
		b.WriteString("  (none)\n")
	}
	out := strings.TrimRight(b.String(), "\n")
	if len(out) > MaxShown {
		return "", fmt.Errorf("the arguments take %d bytes to show, over the %d a person is shown: too long to approve", len(out), MaxShown)
	}
	return out, nil
}

func showValue(b *strings.Builder, dec *json.Decoder) error {
	tok, err := dec.Token()
	if err != nil {
		return err
	}
	switch t := tok.(type) {
	case json.Delim:
		open, close := "[", "]"
		if t == '{' {
			open, close = "{", "}"
		}
		b.WriteString(open)
		for i := 0; dec.More(); i++ {
			if i > 0 {
				b.WriteString(", ")
			}
			if t == '{' {
				k, _ := dec.Token()
				b.WriteString(visible(k.(string)) + ": ")
			}
			if err := showValue(b, dec); err != nil {
				return err
			}
		}
		dec.Token()
		b.WriteString(close)
	case string:
		b.WriteString(visible(t))
	case nil:
		b.WriteString("null")
	default:
		fmt.Fprint(b, t)
	}
	return nil
}

// visible quotes s with everything but printable ASCII escaped.
func visible(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for i := 0; i < len(s); {
		if s[i] == ' ' {
			j := i
			for j < len(s) && s[j] == ' ' {
				j++
			}
			if j-i >= 4 {
				fmt.Fprintf(&b, "⟨%d spaces⟩", j-i)
			} else {
				b.WriteString(s[i:j])
			}
			i = j
			continue
		}
		r, size := rune(s[i]), 1
		if r >= 0x80 {
			r, size = utf8.DecodeRuneInString(s[i:])
		}
		i += size
		switch {
		case r == '"':
			b.WriteString(`\"`)
		case r > ' ' && r < 0x7f && r != '\\':
			b.WriteRune(r)
		default:
			escape(&b, r)
		}
	}
	b.WriteByte('"')
	return b.String()
}

// Prose is a text a person reads, such as a module's reason or where the
// program stopped, made safe to show as it is: printable characters and
// the space as they are, every other character escaped as Show escapes it
// (\n, \t, \u{1b}, \u{202e}, \u{a0} ...) and a backslash doubled, so that
// no character of it acts on the terminal or the screen that shows it.
// Reasons quote what the agent wrote (a path, an expression, a team's
// module formatting the arguments into its reason): shown raw, a path's
// `\x1b[2A\x1b[2K` moved the cursor up and wrote over the arguments a person
// was shown (TestAttackApprovalShowsEverything).
func Prose(s string) string {
	var b strings.Builder
	for _, r := range s {
		if r != '\\' && (r == ' ' || unicode.IsPrint(r)) {
			b.WriteRune(r)
		} else {
			escape(&b, r)
		}
	}
	return b.String()
}

// maxReason is how much of each reason a person is shown: a reason may
// quote a long argument, and a long one would push the arguments, the
// call's whole truth, off the top of a terminal. What is cut is counted.
const maxReason = 1 << 10

// Reasons are the reasons a call needs a person, as a person is shown
// them: each cut at maxReason bytes, made safe by Prose, joined by "; ".
func Reasons(reasons []string) string {
	shown := make([]string, len(reasons))
	for i, r := range reasons {
		if len(r) > maxReason {
			cut := maxReason
			for cut > 0 && !utf8.RuneStart(r[cut]) {
				cut--
			}
			r = r[:cut] + fmt.Sprintf("…⟨%d bytes more⟩", len(r)-cut)
		}
		shown[i] = Prose(r)
	}
	return strings.Join(shown, "; ")
}

// escape writes r as Show and Prose write what they do not show as it is.
func escape(b *strings.Builder, r rune) {
	switch r {
	case '\\':
		b.WriteString(`\\`)
	case '\n':
		b.WriteString(`\n`)
	case '\t':
		b.WriteString(`\t`)
	case '\r':
		b.WriteString(`\r`)
	default:
		b.WriteString(`\u{` + strconv.FormatInt(int64(r), 16) + `}`)
	}
}
