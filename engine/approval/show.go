package approval

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
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
		case r == '"' || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\t':
			b.WriteString(`\t`)
		case r == '\r':
			b.WriteString(`\r`)
		case r > ' ' && r < 0x7f:
			b.WriteRune(r)
		default:
			b.WriteString(`\u{` + strconv.FormatInt(int64(r), 16) + `}`)
		}
	}
	b.WriteByte('"')
	return b.String()
}
