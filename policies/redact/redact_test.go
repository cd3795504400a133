package redact

import (
	"slices"
	"strings"
	"testing"

	"github.com/debugpy-guard/debugpy-guard/plugins/sdk"
	"github.com/debugpy-guard/debugpy-guard/policies/internal/policytest"
)

func TestDecide(t *testing.T) {
	vars := `{"variables":[{"name":"password","value":"'hunter2x'","type":"str"},{"name":"n","value":"3","type":"int"}]}`
	cases := []policytest.Case{
		{Name: "phase call", Tool: "debugpy_variables", Want: "abstain"},
		{Name: "no result", Phase: "result", Tool: "debugpy_variables", Want: "allow", Reason: "no result"},
		{Name: "nothing to redact", Phase: "result", Tool: "debugpy_variables", Result: `{"variables":[{"name":"n","value":"3"}]}`, Want: "allow", Reason: "nothing to redact"},
		{Name: "a secret's name", Phase: "result", Tool: "debugpy_variables", Result: vars, Want: "allow", Reason: "redacted 1 secret value(s)",
			Output: `"result":{"variables":[{"name":"password","value":"[redacted]","type":"str"},{"name":"n","value":"3","type":"int"}]}`},
		{Name: "a name from the settings", Phase: "result", Tool: "debugpy_variables", Result: `{"variables":[{"name":"PIN","value":"'4321'"}]}`,
			Settings: `{"names":["pin"]}`, Want: "allow", Output: `"value":"[redacted]"`},
		{Name: "the same, other settings", Phase: "result", Tool: "debugpy_variables", Result: `{"variables":[{"name":"PIN","value":"'4321'"}]}`,
			Want: "allow", Reason: "nothing to redact"},
		{Name: "an evaluate of a secret", Phase: "result", Tool: "debugpy_evaluate", Args: `{"expression":"cfg.password"}`,
			Result: `{"result":"'s3cr3t!!'","type":"str"}`, Want: "allow", Output: `"result":"[redacted]"`},
		// A text that holds a name only the settings call a secret: masked
		// with those settings, kept clean without them (judgedTexts keeps a
		// settings' texts apart).
		{Name: "a settings' name in a text", Phase: "result", Tool: "debugpy_output", Settings: `{"names":["pin"]}`,
			Result: `{"output":"login pin=48213 ok"}`, Want: "allow", Output: `pin=[redacted]`},
		{Name: "the same text, other settings", Phase: "result", Tool: "debugpy_output",
			Result: `{"output":"login pin=48213 ok"}`, Want: "allow", Reason: "nothing to redact"},
		// The secret's text, under a plain name first: found clean and kept
		// (judgedTexts), it is still masked under a secret's name, in a
		// secret's key, and as a secret expression's result.
		{Name: "the secret's text under a plain name", Phase: "result", Tool: "debugpy_variables",
			Result: `{"variables":[{"name":"greeting","value":"'hunter2x'","type":"str"}]}`, Want: "allow", Reason: "nothing to redact"},
		{Name: "the same text in a secret's key", Phase: "result", Tool: "debugpy_variables",
			Result: `{"variables":[{"name":"d","value":"'hunter2x'","type":"str","password":"'hunter2x'"}]}`, Want: "allow",
			Output: `"password":"[redacted]"`},
		{Name: "the same text as a secret's value", Phase: "result", Tool: "debugpy_evaluate", Args: `{"expression":"cfg.password"}`,
			Result: `{"result":"'hunter2x'","type":"str"}`, Want: "allow", Output: `"result":"[redacted]"`},
		{Name: "a token in any string", Phase: "result", Tool: "debugpy_output",
			Result: `{"output":"key AKIAIOSFODNN7EXAMPLE end"}`, Want: "allow", Reason: "redacted"},
	}
	policytest.Run(t, Decide, cases)
	// As the built-in module runs it: its settings read once, and the texts
	// it found clean kept from call to call.
	policytest.Prepared(t, Prepare, Decide, cases)
	// What was masked is handed to the host, which masks it everywhere.
	if got := sdk.TakeSecrets(); len(got) == 0 {
		t.Error("no secret handed to the host")
	}
}

func TestValidate(t *testing.T) {
	policytest.Validate(t, Validate, []policytest.Setting{
		{JSON: `{"names":["pin"]}`},
		{JSON: `{"name":["pin"]}`, Err: `unknown setting "name"`},
		{JSON: `{"names":[true]}`, Err: "must be an array of strings"},
	})
}

// A secret's repr is handed to the host as shown and as the program holds
// it: a backslash, a tab, a no-break space are escaped in the repr, not in
// what the program prints. A bytes repr likewise; a number as it is.
func TestHandsOverShownAndDecoded(t *testing.T) {
	sdk.ResetCounters()
	sdk.TakeSecrets()
	res := `{"variables":[{"name":"password","value":"'bk\\\\sl\\xa0x\\ty'"},{"name":"api_key","value":"b'by\\x00tes'"},` +
		`{"name":"pin_secret","value":"12345678"},{"name":"token","value":"None"}]}`
	policytest.Run(t, Decide, []policytest.Case{{Name: "reprs", Phase: "result", Tool: "debugpy_variables", Result: res, Want: "allow",
		Reason: "redacted 4 secret value(s)"}})
	got := sdk.TakeSecrets()
	want := []string{`bk\\sl\xa0x\ty`, "bk\\sl\u00a0x\ty", `by\x00tes`, "by\x00tes", "12345678"}
	if !slices.Equal(got, want) {
		t.Errorf("handed over %q, want %q", got, want)
	}
}

// A container under a secret's name that spells its value with its
// items (characters, numbers, pieces of up to three characters) hands the
// host what it spells, from its display and from its rows of items; a run
// of fewer than four characters, and items of other kinds, hand nothing.
func TestHandsOverWhatASecretsContainerSpells(t *testing.T) {
	sdk.ResetCounters()
	sdk.TakeSecrets()
	res := `{"variables":[{"name":"password_chars","value":"['Q', 'v', \"'\", '7']","type":"list"},` +
		`{"name":"secret_codes","value":"[72, 0x79, 54, 119, ...]","type":"list"},` +
		`{"name":"token_parts","value":"('ab', 'cde', b'f', 1.5, 'gh', [1], 'ij')","type":"tuple"},` +
		`{"name":"api_key_items","value":"<list, len() = 300>","type":"list","children":[` +
		`{"name":"000","value":"'x'"},{"name":"001","value":"'y'"},{"name":"len()","value":"300"},{"name":"002","value":"'z'"},{"name":"003","value":"'w'"}]},` +
		`{"name":"user","value":"['a', 'b', 'c', 'd']","type":"list"}]}`
	policytest.Run(t, Decide, []policytest.Case{{Name: "spelled", Phase: "result", Tool: "debugpy_variables", Result: res, Want: "allow"}})
	got := sdk.TakeSecrets()
	for _, w := range []string{"Qv'7", "Hy6w", "abcdef", "xyzw"} {
		if !slices.Contains(got, w) {
			t.Errorf("%q not handed over: %q", w, got)
		}
	}
	for _, w := range []string{"gh", "ghij", "ij", "abcd"} {
		if slices.Contains(got, w) {
			t.Errorf("%q handed over: %q", w, got)
		}
	}
}

// The children of a row named for a secret are dropped; those named for a
// secret, at any depth, are handed over, and the others are not.
func TestHandsOverTheSecretsUnderASecretsName(t *testing.T) {
	sdk.ResetCounters()
	sdk.TakeSecrets()
	res := `{"variables":[{"name":"credentials","value":"<O object>","type":"O","children":[` +
		`{"name":"password","value":"'under-s3cret'","type":"str"},` +
		`{"name":"user","value":"'ada-lovelace'","type":"str"},` +
		`{"name":"inner","value":"<O object>","type":"O","children":[{"name":"api_key","value":"'deep-s3cret'","type":"str"},` +
		`{"name":"host","value":"'db.internal'","type":"str"},` +
		// Attributes whose names say they hold the value: key, value,
		// pin_code, at any depth (a number of 6 digits too).
		`{"name":"key","value":"'key-s3cret'","type":"str"},{"name":"pin_code","value":"482193","type":"int"},` +
		`{"name":"raw","value":"'cut-xxxxxxxxxx...yyyyyyyyyy'","type":"str"},` +
		`{"name":"domain","value":"'example.org'","type":"str"}]}]}]}`
	policytest.Run(t, Decide, []policytest.Case{{Name: "children", Phase: "result", Tool: "debugpy_variables", Result: res, Want: "allow"}})
	got := sdk.TakeSecrets()
	for _, w := range []string{"under-s3cret", "deep-s3cret", "key-s3cret", "482193"} {
		if !slices.Contains(got, w) {
			t.Errorf("%q not handed over: %q", w, got)
		}
	}
	for _, w := range []string{"ada-lovelace", "db.internal", "<O object>", "example.org", "'cut-xxxxxxxxxx...yyyyyyyyyy'", "cut-xxxxxxxxxx...yyyyyyyyyy"} {
		if slices.Contains(got, w) {
			t.Errorf("%q handed over: %q", w, got)
		}
	}
}

// The items of a container shown under a secret's name, past what its
// display shows, are handed to the host from the children the stop's
// listing opened: a list's 17th, a dict's value under its 19th key, an
// item of an item. An alias of one was shown in clear
// (found 2026-12-06). An object's attributes under it are not items (a
// user's name stays no secret), nor are debugpy's own rows, nor a string
// cut short.
func TestHandsOverTheItemsUnderASecretsName(t *testing.T) {
	sdk.ResetCounters()
	sdk.TakeSecrets()
	res := `{"variables":[` +
		`{"name":"passwords","value":"['pw-00', ...]","type":"list","children":[` +
		`{"name":"0","value":"'pw-s3cret-00'","type":"str"},{"name":"16","value":"'pw-s3cret-16'","type":"str"},` +
		`{"name":"17","value":"['nested-s3cret', ...]","type":"list","children":[{"name":"3","value":"'deeper-s3cret'","type":"str"}]},` +
		`{"name":"18","value":"'cut-xxxxxxxxxx...yyyyyyyyyy'","type":"str"},` +
		`{"name":"19","value":"<Cred object>","type":"Cred","children":[{"name":"user","value":"'ada-lovelace'","type":"str"},` +
		`{"name":"note","value":"'attr-s3cret'","type":"str"}]},` +
		`{"name":"len()","value":"123456789","type":"int"},` +
		`{"name":"Unable to handle:","value":"'Maximum number of items (500) reached.'","type":"str"}]},` +
		`{"name":"api_tokens","value":"{...}","type":"dict","children":[` +
		`{"name":"'svc18'","value":"'tk-s3cret-18'","type":"str"},{"name":"b'k'","value":"b'bk-s3cret'","type":"bytes"},` +
		`{"name":"-7","value":"'neg-s3cret'","type":"str"},` +
		// An object among the items, written as a call of its type: its
		// attributes are learned by their names, not all (a cookie jar's
		// domain was masked everywhere).
		`{"name":"'sid'","value":"Cookie(name='sid', domain='example.org')","type":"Cookie"}]},` +
		`{"name":"n","value":"['not-a-secret-at-all!']","type":"list","children":[{"name":"0","value":"'not-a-secret-at-all!'","type":"str"}]}]}`
	policytest.Run(t, Decide, []policytest.Case{{Name: "items", Phase: "result", Tool: "debugpy_variables", Result: res, Want: "allow"}})
	got := sdk.TakeSecrets()
	for _, w := range []string{"pw-s3cret-00", "pw-s3cret-16", "nested-s3cret", "deeper-s3cret", "tk-s3cret-18", "bk-s3cret",
		"neg-s3cret"} {
		if !slices.Contains(got, w) {
			t.Errorf("%q not handed over: %q", w, got)
		}
	}
	for _, w := range []string{"ada-lovelace", "attr-s3cret", "123456789", "20", "Maximum number of items (500) reached.", "not-a-secret-at-all!", "svc18",
		"example.org"} {
		if slices.Contains(got, w) {
			t.Errorf("%q handed over: %q", w, got)
		}
	}
	for _, w := range got {
		if strings.Contains(w, "cut-") {
			t.Errorf("a string cut short handed over: %q", w)
		}
	}
}

// The strings of a container shown under a secret's name are handed to the
// host, not only masked: every string of a list, a dict's values and not
// its keys. An alias of one, read under an innocent name, was shown in
// clear (found 2026-12-05). A number, a key, a string cut short by the
// debugger and another row's strings are not secrets. So for a display
// written as a call of its type (a dataclass's, a namedtuple's, a short
// bytearray's): an alias of a dataclass's field was shown in clear (found
// 2026-12-06); not for an object's <...> nor what is no call of a type.
func TestHandsOverAContainersStrings(t *testing.T) {
	sdk.ResetCounters()
	sdk.TakeSecrets()
	res := `{"variables":[` +
		`{"name":"password","value":"['alpha-s3cret', 'beta-s3cret', 'yyyyyyyyyyyyyyyyyyyy...zzzzzzzzzz']","type":"list"},` +
		`{"name":"tokens","value":"{'user': 'ada-lovelace', 'api': 'tok-s3cret', 'port': 5432}","type":"dict"},` +
		// Every spelling of a repr: bytes, double quotes, escapes, a key
		// with a colon in it, blanks before the colon.
		`{"name":"api_keys","value":"[b'by\\x00tes-s3cret', \"it's-s3cret\", 'nb\\xa0sp-s3cret']","type":"list"},` +
		`{"name":"secrets","value":"{'host:port' : 'colon-s3cret', \"k\": 'dq-s3cret'}","type":"dict"},` +
		`{"name":"n","value":"['not-a-secret']"}]}`
	// Displays written as a call of the type, which show its fields.
	res = res[:len(res)-2] + `,` +
		`{"name":"db_secret","value":"DB(host='db-host', key='dc-s3cret')","type":"DB"},` +
		`{"name":"api_creds","value":"app.models.Creds(user='svc', key=\"nt-s3cret\")","type":"Creds"},` +
		`{"name":"auth","value":"namespace(token='ns-s3cret', n=3)","type":"SimpleNamespace"},` +
		`{"name":"pwd","value":"bytearray(b'ba-s3cret')","type":"bytearray"},` +
		`{"name":"secret_obj","value":"<Vault object at 0x7f00 'not-learned-x'>","type":"Vault"},` +
		`{"name":"api_secret","value":"3rd(party='no-call-s3cret')","type":"X"}]}`
	policytest.Run(t, Decide, []policytest.Case{{Name: "containers", Phase: "result", Tool: "debugpy_variables", Result: res, Want: "allow"}})
	got := sdk.TakeSecrets()
	for _, w := range []string{"dc-s3cret", "db-host", "nt-s3cret", "ns-s3cret", "ba-s3cret", "alpha-s3cret", "beta-s3cret", "ada-lovelace", "tok-s3cret",
		`by\x00tes-s3cret`, "by\x00tes-s3cret", "it's-s3cret", `nb\xa0sp-s3cret`, "nb\u00a0sp-s3cret", "colon-s3cret", "dq-s3cret"} {
		if !slices.Contains(got, w) {
			t.Errorf("%q not handed over: %q", w, got)
		}
	}
	for _, w := range []string{"5432", "user", "port", "host:port", "not-a-secret", "yyyyyyyyyyyyyyyyyyyy...zzzzzzzzzz", "not-learned-x", "no-call-s3cret"} {
		if slices.Contains(got, w) {
			t.Errorf("%q handed over: %q", w, got)
		}
	}
}

// Bytes of a cipher key's length under key or _key (a cipher object's
// attribute) are a key, masked and handed over; other bytes under key,
// and a key of a string, are not.
func TestCipherKeyRows(t *testing.T) {
	sdk.ResetCounters()
	sdk.TakeSecrets()
	key := strings.Repeat("k3", 8)
	res := `{"variables":[{"name":"_key","value":"b'` + key + `'","type":"bytes"},{"name":"key","value":"b'` + key + key + `'","type":"bytes"},` +
		`{"name":"key","value":"b'short'","type":"bytes"},{"name":"key","value":"'` + key + `'","type":"str"},{"name":"sort_key","value":"b'` + key + `'","type":"bytes"}]}`
	policytest.Run(t, Decide, []policytest.Case{{Name: "keys", Phase: "result", Tool: "debugpy_variables", Result: res, Want: "allow",
		Output: `{"name":"_key","value":"[redacted]","type":"bytes"},{"name":"key","value":"[redacted]","type":"bytes"},{"name":"key","value":"b'short'","type":"bytes"},` +
			`{"name":"key","value":"'` + key + `'","type":"str"},{"name":"sort_key","value":"b'` + key + `'","type":"bytes"}`}})
	if got := sdk.TakeSecrets(); !slices.Contains(got, key) || !slices.Contains(got, key+key) {
		t.Errorf("handed over %q, want the keys", got)
	}
}
