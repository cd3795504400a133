package audit

import (
	"bytes"
	"encoding/json"
	"errors"
	"math"
	"strconv"

	"github.com/debugpy-guard/debugpy-guard/plugins/abi"
)

// appendRecord appends rec's JSON, byte for byte as json.Marshal(rec)
// writes it (TestRecordAgreesWithMarshal fills every field of Entry, by
// reflection, so that a field added there and not here fails it).
// json.Marshal of a record, and the copy of the record to the heap that
// passing it as an interface makes, were ~5 µs of the ~9 µs of CPU the
// audit syncer spent a call, on the same two cores as the calls; a denied
// call's record takes 1.4 µs here and no allocation, 2.9 µs and two in
// json.Marshal alone (docs/PERFORMANCE.md).
func appendRecord(b []byte, rec *record) ([]byte, error) {
	b = strconv.AppendUint(append(b, `{"seq":`...), rec.Seq, 10)
	b = abi.AppendString(append(b, `,"time":`...), rec.Time)
	b = abi.AppendString(append(b, `,"prev":`...), rec.Prev)
	e := &rec.Entry
	b = abi.AppendString(append(b, `,"kind":`...), e.Kind)
	b = abi.AppendString(append(b, `,"call":`...), e.Call)
	b = optString(b, `,"session":`, e.Session)
	b = optString(b, `,"client":`, e.Client)
	b = abi.AppendString(append(b, `,"tool":`...), e.Tool)
	b = optString(b, `,"category":`, e.Category)
	b = optString(b, `,"arguments_sha256":`, e.ArgumentsSHA256)
	if len(e.Arguments) > 0 {
		var err error
		if b, err = appendRaw(append(b, `,"arguments":`...), e.Arguments); err != nil {
			return nil, err
		}
	}
	b = optString(b, `,"decision":`, e.Decision)
	b = optStrings(b, `,"reasons":`, e.Reasons)
	b = optStrings(b, `,"modules":`, e.Modules)
	if len(e.Monitor) > 0 {
		b = append(b, `,"monitor":[`...)
		for i, v := range e.Monitor {
			if i > 0 {
				b = append(b, ',')
			}
			b = abi.AppendString(append(b, `{"module":`...), v.Module)
			b = abi.AppendString(append(b, `,"verdict":`...), v.Verdict)
			b = optString(b, `,"reason":`, v.Reason)
			b = append(b, '}')
		}
		b = append(b, ']')
	}
	if a := e.Approval; a != nil {
		b = append(b, `,"approval":{`...)
		if a.ID != "" {
			b = abi.AppendString(append(b, `"id":`...), a.ID)
			b = append(b, ',')
		}
		b = abi.AppendString(append(b, `"channel":`...), a.Channel)
		b = abi.AppendString(append(b, `,"state":`...), a.State)
		b = append(b, '}')
	}
	b = optString(b, `,"outcome":`, e.Outcome)
	b = optString(b, `,"error":`, e.Error)
	if e.DurationMS != 0 {
		var err error
		if b, err = appendFloat(append(b, `,"duration_ms":`...), e.DurationMS); err != nil {
			return nil, err
		}
	}
	return append(b, '}'), nil
}

// optString appends a member that json's omitempty leaves out when empty.
func optString(b []byte, key, s string) []byte {
	if s == "" {
		return b
	}
	return abi.AppendString(append(b, key...), s)
}

func optStrings(b []byte, key string, ss []string) []byte {
	if len(ss) == 0 {
		return b
	}
	b = append(append(b, key...), '[')
	for i, s := range ss {
		if i > 0 {
			b = append(b, ',')
		}
		b = abi.AppendString(b, s)
	}
	return append(b, ']')
}

// appendRaw appends raw JSON as json.Marshal does a json.RawMessage:
// checked, compacted, and <, >, &, U+2028 and U+2029 escaped in its strings.
func appendRaw(b, raw []byte) ([]byte, error) {
	n := len(b)
	c := bytes.NewBuffer(b)
	if err := json.Compact(c, raw); err != nil {
		return nil, err
	}
	b = c.Bytes()
	if !bytes.ContainsAny(b[n:], "<>&\u2028\u2029") { // nothing to escape: the arguments as a gate re-encodes them
		return b, nil
	}
	var h bytes.Buffer
	json.HTMLEscape(&h, b[n:])
	return append(b[:n], h.Bytes()...), nil
}

// appendFloat appends f as json.Marshal does a float64.
func appendFloat(b []byte, f float64) ([]byte, error) {
	if math.IsInf(f, 0) || math.IsNaN(f) {
		return nil, errors.New("json: unsupported value: " + strconv.FormatFloat(f, 'g', -1, 64))
	}
	format := byte('f')
	if abs := math.Abs(f); abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		format = 'e'
	}
	b = strconv.AppendFloat(b, f, format, -1, 64)
	if format == 'e' { // e-09 is e-9, as encoding/json writes it
		if n := len(b); n >= 4 && b[n-4] == 'e' && b[n-3] == '-' && b[n-2] == '0' {
			b[n-2] = b[n-1]
			b = b[:n-1]
		}
	}
	return b, nil
}
