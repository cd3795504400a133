package redact

import (
	"bytes"
	"encoding/base64"
	"encoding/hex"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/debugpy-guard/debugpy-guard/internal/percent"
	"github.com/debugpy-guard/debugpy-guard/policies/expressions"
	"github.com/debugpy-guard/debugpy-guard/policies/secrets"
)

// Hand-written matchers for the secrets redact masks. They were regexps;
// Go's regexp package in a wasm guest cost ~70 ms to compile on an
// instance's first redaction and tens of µs a string after, enough to push
// a large result past the module's 100 ms limit. These scan each string
// once and allocate only when they mask.

func isB64URL(c byte) bool {
	return c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '_' || c == '-'
}

// isB64Std: a byte of standard base64, its padding aside.
func isB64Std(c byte) bool { return isB64URL(c) && c != '-' && c != '_' || c == '+' || c == '/' }

func isWord(c byte) bool { return isB64URL(c) && c != '-' }

// run is the length of the run of bytes of s from i that ok accepts.
func run(s string, i int, ok func(byte) bool) int {
	n := 0
	for i+n < len(s) && ok(s[i+n]) {
		n++
	}
	return n
}

// jwt finds a JSON web token: three base64url parts of 5 or more
// characters, joined by dots, the first starting with eyJ.
func jwt(s string, from int) (start, end int, ok bool) {
	for {
		i := strings.Index(s[from:], "eyJ")
		if i < 0 {
			return 0, 0, false
		}
		start = from + i
		end = start
		parts := 0
		for parts < 3 {
			n := run(s, end, isB64URL)
			if n < 5 {
				break
			}
			end += n
			parts++
			if parts < 3 {
				if end >= len(s) || s[end] != '.' {
					break
				}
				end++
			}
		}
		if parts == 3 {
			return start, end, true
		}
		from = start + 3
	}
}

// pem finds a PEM private key block, to its END line or the end of s.
func pem(s string, from int) (start, end int, ok bool) {
	for {
		i := strings.Index(s[from:], "-----BEGIN ")
		if i < 0 {
			return 0, 0, false
		}
		start = from + i
		rest, key := privateKeyLabel(s, start+len("-----BEGIN "))
		if !key {
			from = start + 1
			continue
		}
		k := strings.Index(s[rest:], "-----END ")
		if k < 0 {
			return start, len(s), true
		}
		e := rest + k + len("-----END ")
		e += run(s, e, isUpperOrSpace)
		if strings.HasPrefix(s[e:], "-----") {
			e += len("-----")
		}
		return start, e, true
	}
}

// privateKeyLabel reads the label of a PEM banner that starts at s[i]
// (after "-----BEGIN " or "-----END "): ok when it names a private key
// (... PRIVATE KEY, ... PRIVATE KEY BLOCK) and the banner closes with
// "-----"; end is after that.
func privateKeyLabel(s string, i int) (end int, ok bool) {
	j := i + run(s, i, isUpperOrSpace)
	if !strings.HasSuffix(s[:j], "PRIVATE KEY") && !strings.HasSuffix(s[:j], "PRIVATE KEY BLOCK") || !strings.HasPrefix(s[j:], "-----") {
		return 0, false
	}
	return j + len("-----"), true
}

func isUpperOrSpace(c byte) bool { return c >= 'A' && c <= 'Z' || c == ' ' }

// pemTail finds the end of a private key block whose BEGIN line is not in
// s (a window of a file's lines that starts inside the block, a text cut
// short at its start): the key's base64 lines just above its END line,
// and the END line. A line is the key's when, without its indentation, a
// quote around it and a repr's or JSON's escaped line end, it holds
// base64 bytes only; the first that does not stops the reading (a PEM
// header, code, a blank line). A block whose BEGIN is in s is pem's.
func pemTail(s string, from int) (start, end int, ok bool) {
	for {
		i := strings.Index(s[from:], "-----END ")
		if i < 0 {
			return 0, 0, false
		}
		at := from + i
		from = at + 1
		if end, ok = privateKeyLabel(s, at+len("-----END ")); !ok {
			continue
		}
		if b := strings.LastIndex(s[:at], "-----BEGIN "); b >= 0 && !strings.Contains(s[b:at], "-----END ") {
			continue // its BEGIN is in s: pem's
		}
		start = at
		for start > 0 && strings.IndexByte(" \t'\"", s[start-1]) >= 0 { // the END line's indentation, its quote
			start--
		}
		for {
			ls, ok := lineAbove(s, start)
			if !ok || !base64Line(s[ls:start]) {
				break
			}
			start = ls
		}
		return start, end, true
	}
}

// lineAbove is where the line that ends just before s[at] begins: its line
// end real ("\n", "\r\n") or escaped as a repr or JSON writes it (a
// backslash and n), and the line above it ends the same way (a file's
// lines may hold escapes, a repr's line ends are all escaped). ok is false
// when no line ends just before at.
func lineAbove(s string, at int) (int, bool) {
	switch {
	case strings.HasSuffix(s[:at], "\n"):
		return strings.LastIndexByte(s[:at-1], '\n') + 1, true
	case strings.HasSuffix(s[:at], `\n`):
		if i := strings.LastIndex(s[:at-2], `\n`); i >= 0 {
			return i + 2, true
		}
		return 0, true
	}
	return 0, false
}

// base64Line reports whether line, a line above a key's END line, is one
// of the key's: base64 bytes only, 4 or more, once its indentation, a
// quote around it, and its line end (real or escaped) are set aside.
func base64Line(line string) bool {
	line = strings.TrimRight(line, "\r\n")
	line = strings.TrimSuffix(strings.TrimSuffix(line, `\n`), `\r`)
	line = strings.TrimLeft(line, " \t'\"")
	line = strings.TrimRight(line, " \t'\",")
	line = strings.TrimSuffix(strings.TrimSuffix(line, `\n`), `\r`)
	if len(line) < 4 {
		return false
	}
	for i := 0; i < len(line); i++ {
		if c := line[i]; !(c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '+' || c == '/' || c == '=') {
			return false
		}
	}
	return true
}

// awsKey finds an AWS access key id: AKIA or ASIA and 16 upper-case letters
// or digits, a word of its own (after an escape too: a repr's '\nAKIA...').
func awsKey(s string, from int) (start, end int, ok bool) {
	for at := from + 2; at < len(s); { // one scan, for the IA both prefixes end with
		i := strings.Index(s[at:], "IA")
		if i < 0 {
			return 0, 0, false
		}
		i += at
		at = i + 1
		if s[i-2] != 'A' || s[i-1] != 'K' && s[i-1] != 'S' {
			continue
		}
		start = i - 2
		end = start + 4 + run(s, start+4, func(c byte) bool { return c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' })
		if end-start == 20 && (start == 0 || !isWord(s[start-1]) || afterEscape(s, start)) && (end == len(s) || !isWord(s[end])) {
			return start, end, true
		}
	}
	return 0, 0, false
}

// awsNear is how near its id an AWS secret access key is looked for
// (awsSecret): a tuple's or a CSV row's next field, a dict's next item.
const awsNear = 128

// awsSecret finds an AWS secret access key beside its access key id (an
// id of awsKey within awsNear bytes, before or after it): a word of its
// own of 40 bytes of the base64 alphabet (letters, digits, + and /), not
// followed by padding, with upper and lower case letters both (not a
// SHA-1's hex). The id was masked and its secret shown, in a tuple
// ('AKIA...', 'wJalr...'), an IAM credentials CSV's row, a dict whose keys
// name neither (found 2026-12-07).
func awsSecret(s string, from int) (start, end int, ok bool) {
	// Most texts hold no id; and none before from-awsNear is near a key at
	// or after from (a later call's, after a key found).
	if _, _, ok := awsKey(s, max(0, from-awsNear)); !ok {
		return 0, 0, false
	}
	for i := from; i < len(s); {
		j := i + run(s, i, isB64Std)
		if j == i {
			i++
			continue
		}
		if c := j - 40; c >= i && (c == i || afterEscape(s, c)) && (j == len(s) || s[j] != '=') && mixedCase(s[c:j]) {
			w := s[max(0, c-awsNear):min(len(s), j+awsNear)]
			if _, _, ok := awsKey(w, 0); ok {
				return c, j, true
			}
		}
		i = j
	}
	return 0, 0, false
}

// isAWSSecret: v is an AWS secret access key's shape alone (awsSecret's
// word, without its id).
func isAWSSecret(v string) bool {
	return len(v) == 40 && run(v, 0, isB64Std) == 40 && mixedCase(v)
}

// isAWSKeyID: v is an AWS access key id alone.
func isAWSKeyID(v string) bool {
	if len(v) != 20 {
		return false
	}
	start, end, ok := awsKey(v, 0)
	return ok && start == 0 && end == len(v)
}

// mixedCase: w has an upper and a lower case letter.
func mixedCase(w string) bool {
	upper, lower := false, false
	for i := 0; i < len(w) && !(upper && lower); i++ {
		upper = upper || w[i] >= 'A' && w[i] <= 'Z'
		lower = lower || w[i] >= 'a' && w[i] <= 'z'
	}
	return upper && lower
}

// webhookPaths begin the path of a webhook URL that is its credential:
// whoever has the URL posts to the channel (Slack's, Discord's, Microsoft
// Teams'), whatever name the program keeps it under.
var webhookPaths = []string{"hooks.slack.com/services/", "hooks.slack.com/workflows/", "hooks.slack.com/triggers/",
	"discord.com/api/webhooks/", "discordapp.com/api/webhooks/", "webhook.office.com/webhookb2/"}

// webhook finds the ids and secret of a webhook URL: the path after one of
// webhookPaths, 16 bytes or more of letters, digits, -, _, /, @ and .
func webhook(s string, from int) (start, end int, ok bool) {
	if !strings.Contains(s[from:], "hook") { // in every one of webhookPaths: most texts are passed with one scan
		return 0, 0, false
	}
	for from < len(s) {
		at, place := -1, ""
		for _, p := range webhookPaths {
			if i := strings.Index(s[from:], p); i >= 0 && (at < 0 || i < at) {
				at, place = i, p
			}
		}
		if at < 0 {
			return 0, 0, false
		}
		start = from + at + len(place)
		if n := run(s, start, isPathByte); n >= 16 {
			return start, start + n, true
		}
		from = start
	}
	return 0, 0, false
}

func isPathByte(c byte) bool { return isB64URL(c) || c == '/' || c == '@' || c == '.' }

// telegramBot finds a Telegram bot's token in a URL of its API
// (api.telegram.org/bot<id>:<secret>/sendMessage, and /file/bot...), as a
// bot's requests and their errors print it: whoever has the token is the
// bot.
func telegramBot(s string, from int) (start, end int, ok bool) {
	for from < len(s) {
		i := strings.Index(s[from:], "telegram.org/")
		if i < 0 {
			return 0, 0, false
		}
		start = from + i + len("telegram.org/")
		if strings.HasPrefix(s[start:], "file/") {
			start += len("file/")
		}
		from = start
		if !strings.HasPrefix(s[start:], "bot") {
			continue
		}
		start += len("bot")
		id := run(s, start, func(c byte) bool { return c >= '0' && c <= '9' })
		if id < 5 || start+id == len(s) || s[start+id] != ':' {
			continue
		}
		if n := run(s, start+id+1, isB64URL); n >= 30 {
			return start, start + id + 1 + n, true
		}
	}
	return 0, 0, false
}

// discordBot finds a Discord bot's token: the bot's id (a snowflake, 17
// to 20 digits) in base64, a dot, 6 bytes, a dot, 27 to 38 bytes, a word
// of its own. Its first part must decode to the digits, which no other
// token's does (discord.py's bot.run(TOKEN) takes it; whoever has it is
// the bot).
func discordBot(s string, from int) (start, end int, ok bool) {
	for from < len(s) {
		i := strings.IndexByte(s[from:], '.')
		if i < 0 {
			return 0, 0, false
		}
		dot := from + i
		from = dot + 1
		id := dot
		for id > 0 && dot-id < 28 && isB64URL(s[id-1]) {
			id--
		}
		if n := dot - id; n < 23 || n > 27 || s[id] < 'M' || s[id] > 'O' || id > 0 && isB64URL(s[id-1]) && !afterEscape(s, id) {
			continue
		}
		digits, err := base64.RawURLEncoding.DecodeString(s[id:dot])
		if err != nil || len(digits) < 17 || len(digits) > 20 || strings.Trim(string(digits), "0123456789") != "" {
			continue
		}
		if run(s, dot+1, isB64URL) != 6 || dot+7 >= len(s) || s[dot+7] != '.' {
			continue
		}
		last := run(s, dot+8, isB64URL)
		if last < 27 || last > 38 || dot+8+last < len(s) && s[dot+8+last] == '.' {
			continue
		}
		return id, dot + 8 + last, true
	}
	return 0, 0, false
}

// azureSecret finds a Microsoft Entra ID (Azure AD) application's client
// secret as its portal makes them: 3 bytes, a digit, "Q~", then 31 to 34
// bytes of letters, digits and _~.-, a word of its own (msal's
// client_credential; whoever has it signs in as the application).
func azureSecret(s string, from int) (start, end int, ok bool) {
	isSecretByte := func(c byte) bool { return isB64URL(c) || c == '~' || c == '.' }
	for from < len(s) {
		i := strings.Index(s[from:], "Q~")
		if i < 0 {
			return 0, 0, false
		}
		at := from + i
		from = at + 2
		start = at - 4
		if start < 0 || s[at-1] < '0' || s[at-1] > '9' || run(s, start, isSecretByte) < 4 ||
			start > 0 && isSecretByte(s[start-1]) && !afterEscape(s, start) {
			continue
		}
		n := run(s, at+2, isSecretByte)
		if n < 31 || n > 34 {
			continue
		}
		return start, at + 2 + n, true
	}
	return 0, 0, false
}

// maskShapes replaces every credential of a well-known shape in s (JWT,
// PEM or PGP private key, a private key's DER, AWS key id and the secret
// beside it, a token of a well-known prefix, a webhook URL's path, a
// Telegram or Discord bot's token, an Azure application's client secret,
// the password of a URL, a signed URL's signature, a password's hash, HTTP
// Basic credentials), and hands each to found, as
// written and as the program holds it (shapeHeld). Every shape reads s as it is and what any of them
// finds is masked: shapes may overlap (a SHA-512 crypt hash's last field
// may hold "eyJ" and two dots, a JWT's shape), and a shape masked first
// must not cut another short, leaving the rest of it shown.
func maskShapes(s string, found func(string)) (string, bool) {
	var spans [][2]int
	eachShape(s, func(start, end int, held func(string) string) {
		handShape(s[start:end], held, found)
		spans = append(spans, [2]int{start, end})
	})
	if spans == nil {
		return s, false
	}
	return writeSpans(s, spans, found), true // a PEM block's lines: a mask for each, its line ends kept
}

// handShape hands a credential found by its shape to found, as written
// and, when it differs, as the program holds it (to nothing when found is
// nil: a test's reading of one mask, with no host).
func handShape(v string, held func(string) string, found func(string)) {
	if found == nil {
		return
	}
	found(v)
	if held != nil {
		if h := held(v); h != "" && h != v {
			found(h)
		}
	}
}

// eachShape calls f with each credential of a well-known shape in s, and
// its shape's held.
func eachShape(s string, f func(start, end int, held func(string) string)) {
	for _, shape := range shapes {
		for from := 0; ; {
			start, end, ok := shape.find(s, from)
			if !ok {
				break
			}
			f(start, end, shape.held)
			from = end
		}
	}
}

// tokenPrefixes are the prefixes of well-known tokens, with the shortest
// run of token characters that must follow; dots says a '.' may stand
// inside the run (SendGrid's SG.<id>.<secret>, Google's ya29. tokens).
var tokenPrefixes = []tokenPrefix{
	{"ghp_", 30, false}, {"gho_", 30, false}, {"ghu_", 30, false}, {"ghs_", 30, false}, {"ghr_", 30, false}, {"github_pat_", 40, false},
	{"xoxa-", 10, false}, {"xoxb-", 10, false}, {"xoxp-", 10, false}, {"xoxo-", 10, false}, {"xoxr-", 10, false}, {"xoxs-", 10, false},
	{"xapp-", 10, false}, {"xoxe-", 10, false}, {"xoxe.", 10, false},
	{"sk_live_", 16, false}, {"sk_test_", 16, false}, {"rk_live_", 16, false}, {"rk_test_", 16, false}, {"whsec_", 16, false},
	{"npm_", 30, false}, {"AIza", 35, false},
	// GitLab's tokens: personal, deploy, runner, trigger, feed, OAuth,
	// service account, CI job.
	{"glpat-", 20, false}, {"gldt-", 20, false}, {"glrt-", 20, false}, {"glptt-", 20, false}, {"glft-", 20, false},
	{"gloas-", 20, false}, {"glsoat-", 20, false}, {"glcbt-", 20, false},
	// Vault's service, batch and recovery tokens; PyPI's (a macaroon
	// whose base64 begins AgE); SendGrid's; DigitalOcean's personal,
	// OAuth and refresh tokens; Shopify's app tokens and shared secret;
	// Docker Hub's; Grafana's cloud and service account tokens;
	// Sentry's; Atlassian's API tokens; Postman's; Linear's; Notion's (not
	// its older secret_..., the start of many a Python name);
	// Doppler's; Pulumi's; age's secret keys.
	{"hvs.", 24, false}, {"hvb.", 24, false}, {"hvr.", 24, false}, {"pypi-AgE", 50, false}, {"SG.", 60, true},
	{"dop_v1_", 64, false}, {"doo_v1_", 64, false}, {"dor_v1_", 64, false},
	{"shpat_", 32, false}, {"shpca_", 32, false}, {"shppa_", 32, false}, {"shpss_", 32, false},
	{"dckr_pat_", 24, false}, {"glc_", 32, false}, {"glsa_", 32, false}, {"sntrys_", 40, false}, {"sntryu_", 40, false},
	{"ATATT3", 50, false}, {"PMAK-", 40, false}, {"lin_api_", 32, false}, {"ntn_", 40, false},
	{"dp.st.", 40, true}, {"dp.pt.", 40, true}, {"dp.sa.", 40, true}, {"pul-", 40, false}, {"AGE-SECRET-KEY-1", 50, false},
	// Google's OAuth client secrets, access tokens and refresh tokens
	// (1//0..., which google-auth's Credentials keep and its token
	// endpoint's answer shows); Amazon MWS's auth tokens.
	{"GOCSPX-", 24, false}, {"ya29.", 50, true}, {"1//0", 40, false}, {"amzn.mws.", 36, false},
	// BIP 32's extended private keys (a wallet's every key): xprv and its
	// testnet's and SegWit's kin, 111 characters of base58
	{"xprv", 100, false}, {"tprv", 100, false}, {"yprv", 100, false}, {"zprv", 100, false}, {"Yprv", 100, false}, {"Zprv", 100, false},
	// AI providers' API keys: Anthropic's sk-ant-api03-..., OpenAI's
	// sk-proj-... and legacy sk-<48>, OpenRouter's sk-or-v1-..., and
	// others of the form; Hugging Face's hf_, Groq's, Perplexity's,
	// Replicate's, xAI's, NVIDIA's, Tavily's.
	{"sk-", 40, false}, {"hf_", 30, false}, {"gsk_", 40, false}, {"pplx-", 40, false}, {"r8_", 30, false}, {"xai-", 60, false},
	{"nvapi-", 50, false}, {"tvly-", 30, false},
	// Databricks' personal access tokens; Figma's; Supabase's; Square's
	// access tokens and application secrets; Mapbox's secret tokens
	// (sk. and a JWT-like body); Netlify's, Fly.io's, Buildkite's,
	// CircleCI's, Contentful's, New Relic's user keys, Heroku's.
	{"dapi", 32, false}, {"figd_", 40, false}, {"sbp_", 40, false}, {"sq0atp-", 22, false}, {"sq0csp-", 40, false},
	{"sk.eyJ", 50, true}, {"nfp_", 36, false}, {"fo1_", 40, false}, {"bkua_", 40, false}, {"CCIPAT_", 40, false},
	{"CFPAT-", 40, false}, {"NRAK-", 27, false}, {"HRKU-", 36, false},
}

type tokenPrefix struct {
	prefix string
	min    int
	dots   bool
}

// prefixed finds a token that starts with one of tokenPrefixes: the first
// in s, in one pass (a pass per prefix cost ~20 scans of every string).
func prefixed(s string, from int) (start, end int, ok bool) {
	escapes := strings.IndexByte(s[from:], '\\') >= 0 // afterEscape's test costs a scan as long again: most texts hold no escape
	for st := from; st < len(s); st++ {
		ps := prefixesByFirst[s[st]]
		if len(ps) == 0 || st > 0 && isB64URL(s[st-1]) && !(escapes && afterEscape(s, st)) { // a token starts a word (a repr's '\nghp_...' too)
			continue
		}
		for _, t := range ps {
			// the second byte first: a call a prefix costs in WebAssembly
			if len(s)-st < len(t.prefix) || s[st+1] != t.prefix[1] || !strings.HasPrefix(s[st:], t.prefix) {
				continue
			}
			n := run(s, st+len(t.prefix), isB64URL)
			for t.dots { // a dot inside the run, not one that ends a sentence
				at := st + len(t.prefix) + n
				if at+1 >= len(s) || s[at] != '.' || !isB64URL(s[at+1]) {
					break
				}
				n += 1 + run(s, at+1, isB64URL)
			}
			if n >= t.min {
				return st, st + len(t.prefix) + n, true
			}
		}
	}
	return 0, 0, false
}

// prefixesByFirst are tokenPrefixes by their first byte.
var prefixesByFirst = func() (t [256][]tokenPrefix) {
	for _, p := range tokenPrefixes {
		t[p.prefix[0]] = append(t[p.prefix[0]], p)
	}
	return t
}()

// shapes are the credentials maskShapes finds; held, when set, is what the
// program holds of one as written: a URL's password and a signature
// percent-decoded (p%40ss is p@ss), Basic credentials' password.
var shapes = []struct {
	find func(string, int) (int, int, bool)
	held func(string) string
}{{jwt, nil}, {pem, nil}, {awsKey, nil}, {awsSecret, nil}, {prefixed, nil}, {webhook, nil}, {telegramBot, nil}, {discordBot, nil}, {azureSecret, nil}, {urlPassword, percentDecoded}, {netlocPassword, percentDecoded},
	{signature, percentDecoded}, {passwordHash, nil}, {mysqlHash, nil}, {ldapHash, nil}, {basicCredentials, basicPassword},
	{pemInBase64, nil}, {pemInHex, nil}, {puttyPrivateLines, nil}, {pemTail, nil}, {derKey, derHeld}, {wif, nil}}

func percentDecoded(v string) string { return percent.Decode(v, false) }

// derHeld is what the program holds of a private key's DER that derKey
// found written as numbers: its bytes (the other forms are learned as
// written).
func derHeld(v string) string {
	if v == "" || v[0] < '0' || v[0] > '9' || strings.HasPrefix(v, "30") && !strings.Contains(v, ",") {
		return ""
	}
	return numbersHeld(v)
}

// cryptIDs are the ids of crypt(3)'s hash formats and their kin's
// ($6$salt$hash in /etc/shadow, $2b$12$... bcrypt, htpasswd's $apr1$,
// yescrypt's $y$, PHC strings' $argon2id$v=19$m=...$salt$hash), and
// djangoHashers the algorithms of Django's password hashes
// (pbkdf2_sha256$600000$salt$hash). A password's hash is a credential:
// it is cracked offline, and some protocols take it in place of the
// password.
var (
	cryptIDs      = map[string]bool{"1": true, "2a": true, "2b": true, "2x": true, "2y": true, "5": true, "6": true, "7": true, "y": true, "gy": true, "md5": true, "sha1": true, "apr1": true, "argon2i": true, "argon2d": true, "argon2id": true, "scrypt": true, "pbkdf2": true, "pbkdf2-sha256": true, "pbkdf2-sha512": true}
	djangoHashers = []string{"pbkdf2_sha256", "pbkdf2_sha1", "argon2", "bcrypt_sha256", "bcrypt", "scrypt", "sha1", "md5"}
)

// passwordHash finds a password's hash in one of those formats: a $ that
// starts a word (or ends a Django algorithm's name), then $-separated
// fields of [./A-Za-z0-9=,+-], at least three $ in all (two for Django's
// salted sha1 and md5), the last field 16 bytes or more. A word starts
// after any byte but [./A-Za-z0-9_$-] (a hash's own '=', ',' and '+' may
// stand before it: HASH=$6$..., --hash=pbkdf2_sha256$...), and after an
// escape (a repr's or JSON's line end or tab, '\n$6$...', and \xhh,
// \uhhhh, \Uhhhhhhhh).
func passwordHash(s string, from int) (start, end int, ok bool) {
	isHash := func(c byte) bool {
		return isB64URL(c) || c == '.' || c == '/' || c == '$' || c == '=' || c == ',' || c == '+'
	}
	startsWord := func(i int) bool {
		c := byte(0)
		if i > 0 {
			c = s[i-1]
		}
		return !isB64URL(c) && c != '.' && c != '/' && c != '$' || afterEscape(s, i)
	}
	for from < len(s) {
		i := strings.IndexByte(s[from:], '$')
		if i < 0 {
			return 0, 0, false
		}
		i += from
		from = i + 1
		start, least := i, 3
		if j := strings.IndexByte(s[i+1:], '$'); j > 0 && startsWord(i) && cryptIDs[s[i+1:i+1+j]] {
			// $id$...
		} else {
			k := slices.IndexFunc(djangoHashers, func(h string) bool { return strings.HasSuffix(s[:i], h) && startsWord(i-len(h)) })
			if k < 0 {
				continue
			}
			start = i - len(djangoHashers[k])
			if djangoHashers[k] == "sha1" || djangoHashers[k] == "md5" {
				least = 2
			}
		}
		e := i + run(s, i, isHash)
		last := strings.LastIndexByte(s[i:e], '$') + i
		if strings.Count(s[i:e], "$") < least || e-last-1 < 16 {
			continue
		}
		return start, e, true
	}
	return 0, 0, false
}

// basicCredentials finds HTTP Basic credentials after their scheme, in any
// text: "Basic " and base64 that decodes to printable text with a ':' in it
// (RFC 7617's user:password), whatever names them or none ("sending Basic
// dXNlcjpwYXNz"). "Basic usage" decodes to no such text.
func basicCredentials(s string, from int) (start, end int, ok bool) {
	for from < len(s) {
		i := strings.Index(s[from:], "asic ")
		if i < 0 {
			return 0, 0, false
		}
		at := from + i - 1 // the B
		from += i + len("asic ")
		if at < 0 || s[at]|0x20 != 'b' || at > 0 && isWord(s[at-1]) && !afterEscape(s, at) {
			continue
		}
		start = from + run(s, from, func(c byte) bool { return c == ' ' })
		n, whole := base64Run(s, start)
		end = start + whole
		if n < 4 || end < len(s) && isWord(s[end]) {
			continue
		}
		if _, ok := basicDecoded(s[start : start+n]); !ok {
			continue
		}
		return start, end, true
	}
	return 0, 0, false
}

// basicDecoded decodes Basic credentials' base64 (its padding or none):
// printable text with a ':' in it, or not ok. The text is UTF-8, or else
// latin-1, as requests and urllib3 encode it.
func basicDecoded(b64 string) (string, bool) {
	v, err := base64.RawStdEncoding.DecodeString(strings.TrimRight(b64, "="))
	if err != nil || bytes.IndexByte(v, ':') < 0 {
		return "", false
	}
	text := string(v)
	if !utf8.Valid(v) {
		rs := make([]rune, len(v))
		for i, c := range v {
			rs[i] = rune(c)
		}
		text = string(rs)
	}
	if strings.ContainsFunc(text, func(r rune) bool { return !unicode.IsPrint(r) }) {
		return "", false
	}
	return text, true
}

// basicPassword is the password of Basic credentials as written.
func basicPassword(b64 string) string {
	v, _ := basicDecoded(b64)
	_, pw, _ := strings.Cut(v, ":")
	return pw
}

// pemInBase64 finds a PEM private key encoded in base64, as a Kubernetes
// secret's data holds it (tls.key: LS0tLS1CRUdJTi...) and a config's
// *_key_data: a run of base64 that begins with "-----BEGIN" encoded
// (LS0tLS1CRUdJTi) and decodes to text that holds "PRIVATE KEY" (a bundle
// of a certificate and its key too).
func pemInBase64(s string, from int) (start, end int, ok bool) {
	const begin = "LS0tLS1CRUdJTi" // base64 of "-----BEGIN"
	for from < len(s) {
		i := strings.Index(s[from:], begin)
		if i < 0 {
			return 0, 0, false
		}
		start = from + i
		from = start + len(begin)
		n, whole := base64Run(s, start)
		end = start + whole
		v, err := base64.RawStdEncoding.DecodeString(s[start : start+n-n%4])
		if err == nil && bytes.Contains(v, []byte("PRIVATE KEY")) {
			return start, end, true
		}
	}
	return 0, 0, false
}

// pemInHex finds a PEM private key encoded in hex, as bytes.hex() and
// binascii.hexlify write a key file's bytes: a run of hex digits, in one
// case, that begins with "-----BEGIN" encoded (2d2d2d2d2d424547494e) and
// decodes to text that holds "PRIVATE KEY".
func pemInHex(s string, from int) (start, end int, ok bool) {
	for from < len(s) {
		i, j := strings.Index(s[from:], "2d2d2d2d2d424547494e"), strings.Index(s[from:], "2D2D2D2D2D424547494E")
		if i < 0 || j >= 0 && j < i {
			i = j
		}
		if i < 0 {
			return 0, 0, false
		}
		start = from + i
		from = start + 20
		n := run(s, start, func(c byte) bool { return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F' })
		v, err := hex.DecodeString(s[start : start+n-n%2])
		if err == nil && bytes.Contains(v, []byte("PRIVATE KEY")) {
			return start, start + n, true
		}
	}
	return 0, 0, false
}

// derKey finds a private key's DER bytes without their PEM armor, and an
// OpenSSH private key's body without its BEGIN and END lines, as a
// program holds them (key.private_bytes(Encoding.DER, ...), a key's body
// kept apart from its BEGIN and END lines, in an environment's value or a
// database's column): in base64 (a word of its own that begins with the
// 'M' of a DER SEQUENCE, and the base64 lines that follow it, as a PEM
// body's), in hex (bytes.hex(), binascii.hexlify: "30..."), or as a bytes
// repr (b'0\x82\x04\xbd\x02\x01\x00...'). What it decodes to must
// begin as a private key's DER does (privateKeyDER). Each showed in clear
// under an innocent name (found 2026-12-07).
func derKey(s string, from int) (start, end int, ok bool) {
	for i := from; i < len(s); i++ {
		switch c := s[i]; {
		case (c == 'M' && i+1 < len(s) && s[i+1] >= 'C' && s[i+1] <= 'I' || c == 'b' && strings.HasPrefix(s[i:], opensshMagic)) &&
			(i == 0 || !isB64Std(s[i-1]) && s[i-1] != '=' || afterEscape(s, i)):
			_, n := base64Run(s, i)
			if n < 32 {
				i += n
				continue
			}
			end := base64Body
			if i > 0 && (s[i-1] == '"' || s[i-1] == '\'') && i+n < len(s) && s[i+n] == s[i-1] {
				end = quotedBase64Lines // a literal of the line alone: its lines are literals too
			}
			if c == 'b' { // an OpenSSH private key's body: its magic says so
				return i, end(s, i+n), true
			}
			if head, err := base64.StdEncoding.DecodeString(s[i : i+24]); err == nil && privateKeyDER(head) {
				return i, end(s, i+n), true
			}
			i += n
		case c == '3' && i+1 < len(s) && s[i+1] == '0' && (i == 0 || !percent.IsHex(s[i-1]) || afterEscape(s, i)):
			n := run(s, i, percent.IsHex)
			if n >= 64 && (i+n == len(s) || !isWord(s[i+n])) {
				head, err := hex.DecodeString(s[i : i+36])
				if err == nil && privateKeyDER(head) {
					return i, i + n, true
				}
			}
			i += n - 1
		case (c == '\'' || c == '"') && i+1 < len(s) && s[i+1] == '0' && i > 0 && (s[i-1] == 'b' || s[i-1] == 'B'):
			l, ok := expressions.ReadLiteral(s, i-1)
			if ok && l.Known && len(l.Value) >= 24 && privateKeyDER([]byte(l.Value[:18])) {
				return l.BodyStart, l.BodyEnd, true
			}
		case c == '4' && afterOpen(s, i):
			if end, head := byteNumbers(s, i, 18); len(head) >= minDERNumbers && privateKeyDER(append(head, make([]byte, 18-len(head))...)) {
				return i, end, true
			}
		}
	}
	return 0, 0, false
}

// minDERNumbers is the fewest of a DER's bytes, written as numbers, that
// derKey reads as a private key's: privateKeyDER looks at its first 12
// (debugpy shows a list's first 15, then "...").
const minDERNumbers = 12

// byteNumbers reads the run of numbers at s[i] that a list or tuple of
// bytes shows as, list(der) as repr, pprint, json.dumps and debugpy write
// it ([48, 130, 4, 188, ...], [48,130,...], one a line): numbers of 0 to
// 255 without leading zeros, each after a comma and blanks. It returns
// where the run's last number ends, and the first max bytes.
func byteNumbers(s string, i, max int) (end int, head []byte) {
	for {
		n, v := 0, 0
		for i+n < len(s) && s[i+n] >= '0' && s[i+n] <= '9' && n < 4 {
			v = v*10 + int(s[i+n]-'0')
			n++
		}
		if n == 0 || v > 255 || n > 1 && s[i] == '0' || i+n < len(s) && (s[i+n] >= '0' && s[i+n] <= '9' || isWord(s[i+n])) {
			return end, head
		}
		if len(head) < max {
			head = append(head, byte(v))
		}
		end = i + n
		j := end
		if j >= len(s) || s[j] != ',' {
			return end, head
		}
		j++
		for j < len(s) && (s[j] == ' ' || s[j] == '\n') {
			j++
		}
		i = j
	}
}

// afterOpen reports whether s[i] follows a '[' or '(' and blanks: a
// list's or tuple's first element, or a numpy array's (array([ 48, 130,
// ..., dtype=uint8), whose numbers are padded to one width).
func afterOpen(s string, i int) bool {
	for i > 0 && s[i-1] == ' ' {
		i--
	}
	return i > 0 && (s[i-1] == '[' || s[i-1] == '(')
}

// numbersHeld is the bytes a run of numbers (byteNumbers) shows, as the
// program holds them, for the host to mask the run wherever a display of
// numbers spells them (plugins' sequence reading).
func numbersHeld(v string) string {
	var b []byte
	for _, f := range strings.Split(v, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n < 0 || n > 255 {
			return ""
		}
		b = append(b, byte(n))
	}
	return string(b)
}

// quotedBase64Lines is where a base64 body that a string literal ends at
// end (at its closing quote) ends, held as a program's source holds a
// key's lines: a string literal a line (a list's items, a tuple's, the
// pieces of an implicit concatenation, a dict's values, bytes literals),
// each last on its line but for , ) ] } + \ and blanks. It takes the
// lines below that hold such a literal of base64, to the first that does
// not. Read as a PEM body's lines, only the first line was masked, and
// debugpy_source's windows showed the others (found 2026-12-07).
func quotedBase64Lines(s string, end int) int {
	const after = ",)]}+\\ \t\r"
	for {
		if end >= len(s) || s[end] != '"' && s[end] != '\'' {
			return end // not a literal's end
		}
		j := end + 1 // past the closing quote, then , ) ] } + \ blanks, and a comment, to the line's end
		for j < len(s) && strings.IndexByte(after, s[j]) >= 0 {
			j++
		}
		if j < len(s) && s[j] == '#' {
			if k := strings.IndexByte(s[j:], '\n'); k >= 0 {
				j += k
			} else {
				j = len(s)
			}
		}
		next, ok := lineBelow(s, j)
		if !ok {
			return end
		}
		le := strings.IndexByte(s[next:], '\n')
		if le < 0 {
			le = len(s) - next
		}
		open, close, rest := lastLiteral(s[next : next+le])
		if close < 0 || strings.Trim(rest, after) != "" {
			return end
		}
		body := s[next+open+1 : next+close]
		if b, whole := base64Run(body, 0); b < 4 || whole != len(body) {
			return end
		}
		end = next + close
	}
}

// lastLiteral finds the last quoted literal of a line of code (no escape
// inside: a key's base64 has none), before a comment: where its quotes
// stand (close < 0 for none, or one not closed), and what follows it up
// to the comment.
func lastLiteral(line string) (open, close int, rest string) {
	open, close = -1, -1
	i := 0
	for ; i < len(line) && line[i] != '#'; i++ {
		if c := line[i]; c == '"' || c == '\'' {
			j := strings.IndexByte(line[i+1:], c)
			if j < 0 {
				return -1, -1, ""
			}
			open, close = i, i+1+j
			i = close
		}
	}
	if close < 0 {
		return -1, -1, ""
	}
	return open, close, line[close+1 : i]
}

// opensshMagic is "openssh-key-v1\x00" in base64: an OpenSSH private key's
// body begins so, its BEGIN and END lines aside (a public key's begins
// AAAA).
const opensshMagic = "b3BlbnNzaC1rZXktdjE"

// base64Body is where a base64 body that ends its first line at end ends:
// the base64 lines that follow it (a PEM body's, 64 or 70 bytes each), to
// the first line that is not one.
func base64Body(s string, end int) int {
	for {
		next, ok := lineBelow(s, end)
		if !ok {
			return end
		}
		_, m := base64Run(s, next)
		if m < 4 || next+m < len(s) && (isWord(s[next+m]) || s[next+m] == '-') {
			return end
		}
		end = next + m
	}
}

// privateKeyDER reports whether head, the first 18 bytes or more of DER,
// begins as a private key's does: a SEQUENCE of at least 32 bytes (not
// compared with the bytes that follow: another mask may have rewritten a
// piece of them), its version an INTEGER 0, 1 or 3, and then what follows
// that version in a private key: an INTEGER of 128 bytes or more (PKCS#1's
// RSA modulus, a DSA key's p), an AlgorithmIdentifier (PKCS#8), an OCTET
// STRING of a curve's size (SEC1's EC key), a ContentInfo (PKCS#12). A
// certificate, a public key (their SEQUENCE holds a SEQUENCE first) and an
// encrypted PKCS#8 key are not.
func privateKeyDER(head []byte) bool {
	if len(head) < 18 || head[0] != 0x30 {
		return false
	}
	hdr, l := 2, int(head[1])
	switch head[1] {
	case 0x81:
		hdr, l = 3, int(head[2])
	case 0x82:
		hdr, l = 4, int(head[2])<<8|int(head[3])
	default:
		if head[1] >= 0x80 {
			return false
		}
	}
	if l < 32 {
		return false
	}
	v := head[hdr:]
	if v[0] != 0x02 || v[1] != 0x01 {
		return false
	}
	algorithm := v[3] == 0x30 && (v[5] == 0x06 || v[4] >= 0x80 && v[4] <= 0x82 && v[5+int(v[4]&0x7f)] == 0x06)
	switch v[2] {
	case 0: // PKCS#1 RSA, DSA; PKCS#8
		return v[3] == 0x02 && (v[4] == 0x81 || v[4] == 0x82) || algorithm
	case 1: // SEC1 EC; PKCS#8 v2
		return v[3] == 0x04 && v[4] >= 0x18 && v[4] <= 0x42 || algorithm
	case 3: // PKCS#12
		return algorithm
	}
	return false
}

// base64Run is the length of the run of the base64 alphabet at s[i]
// (body), and of that run with the padding after it (whole).
func base64Run(s string, i int) (body, whole int) {
	body = run(s, i, isB64Std)
	return body, body + run(s, i+body, func(c byte) bool { return c == '=' })
}

// lineBelow is where the line after the one that ends at s[at] begins:
// its line end real ("\n", "\r\n") or escaped as a repr writes it.
func lineBelow(s string, at int) (int, bool) {
	switch {
	case strings.HasPrefix(s[at:], "\r\n"):
		return at + 2, true
	case strings.HasPrefix(s[at:], "\n"):
		return at + 1, true
	case strings.HasPrefix(s[at:], `\r\n`):
		return at + 4, true
	case strings.HasPrefix(s[at:], `\n`):
		return at + 2, true
	}
	return 0, false
}

// puttyPrivateLines finds the private part of a PuTTY key file (.ppk),
// which has no PEM banner: the lines that "Private-Lines: N" counts, after
// it; their line ends as written, or escaped as a repr writes them
// ('...Private-Lines: 1\nAAAA...\nPrivate-MAC: ...').
func puttyPrivateLines(s string, from int) (start, end int, ok bool) {
	for from < len(s) {
		i := strings.Index(s[from:], "Private-Lines: ")
		if i < 0 {
			return 0, 0, false
		}
		at := from + i + len("Private-Lines: ")
		from = at
		d := run(s, at, func(c byte) bool { return c >= '0' && c <= '9' })
		lines, err := strconv.Atoi(s[at : at+d])
		if err != nil || lines < 1 || lines > 1000 {
			continue
		}
		esc := "" // the line end escaped, in a repr
		for _, e := range []string{`\r\n`, `\n`} {
			if strings.HasPrefix(s[at+d:], e) {
				esc = e
				break
			}
		}
		eol := func(i int) int { // where the line from i ends
			if esc == "" {
				return lineEnd(s, i)
			}
			if k := strings.Index(s[i:], esc); k >= 0 {
				return i + k
			}
			return len(s)
		}
		skip := func(i int) int { // the start of the line after the end at i
			if esc == "" {
				return next(s, i)
			}
			return min(i+len(esc), len(s))
		}
		if start = eol(at); start == len(s) {
			continue
		}
		start = skip(start)
		end = start
		for k := 0; k < lines && end < len(s); k++ {
			if k > 0 {
				end = skip(end)
			}
			end = eol(end)
		}
		if end > start {
			return start, end, true
		}
	}
	return 0, 0, false
}

// mysqlHash finds MySQL's native password hash, as mysql.user's
// authentication_string holds it: '*' and 40 upper-case hex digits, a word
// of its own.
func mysqlHash(s string, from int) (start, end int, ok bool) {
	for from < len(s) {
		i := strings.IndexByte(s[from:], '*')
		if i < 0 {
			return 0, 0, false
		}
		start = from + i
		from = start + 1
		n := run(s, start+1, func(c byte) bool { return c >= '0' && c <= '9' || c >= 'A' && c <= 'F' })
		end = start + 1 + n
		if n == 40 && (end == len(s) || !isWord(s[end])) && (start == 0 || !isWord(s[start-1]) || afterEscape(s, start)) {
			return start, end, true
		}
	}
	return 0, 0, false
}

// ldapSchemes are the schemes of an LDAP userPassword's hash (RFC 2307,
// OpenLDAP's and 389's): {SSHA}base64, {CRYPT}$6$..., {PBKDF2-SHA512}...
var ldapSchemes = []string{"{SSHA}", "{SSHA256}", "{SSHA384}", "{SSHA512}", "{SHA}", "{SHA256}", "{SHA384}", "{SHA512}",
	"{SMD5}", "{MD5}", "{CRYPT}", "{PBKDF2}", "{PBKDF2-SHA1}", "{PBKDF2-SHA256}", "{PBKDF2-SHA512}", "{ARGON2}", "{BCRYPT}"}

// ldapHash finds such a hash: its scheme (in any case) and 16 bytes or more
// of base64, '$', '.', ',' and '-'.
func ldapHash(s string, from int) (start, end int, ok bool) {
	for from < len(s) {
		i := strings.IndexByte(s[from:], '{')
		if i < 0 {
			return 0, 0, false
		}
		start = from + i
		from = start + 1
		if start+1 == len(s) || strings.IndexByte("SsMmCcPpAaBb", s[start+1]) < 0 { // a scheme's first letter: most '{' open a dict
			continue
		}
		j := strings.IndexByte(s[start:min(len(s), start+16)], '}')
		if j < 0 || !slices.ContainsFunc(ldapSchemes, func(sc string) bool { return strings.EqualFold(sc, s[start:start+j+1]) }) {
			continue
		}
		n := run(s, start+j+1, func(c byte) bool { return isB64URL(c) || strings.IndexByte("+/=$.,", c) >= 0 })
		if n >= 16 {
			return start, start + j + 1 + n, true
		}
	}
	return 0, 0, false
}

// afterEscape reports whether an escape as a repr or JSON writes it ends
// at s[i]: \n, \r, \t, \b, \f, \xhh, \uhhhh, \Uhhhhhhhh.
func afterEscape(s string, i int) bool {
	hex := func(t string) bool {
		for j := 0; j < len(t); j++ {
			if !percent.IsHex(t[j]) {
				return false
			}
		}
		return true
	}
	switch {
	case i >= 2 && s[i-2] == '\\' && strings.IndexByte("nrtbf", s[i-1]) >= 0:
		return true
	case i >= 4 && s[i-4:i-2] == `\x` && hex(s[i-2:i]):
		return true
	case i >= 6 && s[i-6:i-4] == `\u` && hex(s[i-4:i]):
		return true
	}
	return i >= 10 && s[i-10:i-8] == `\U` && hex(s[i-8:i])
}

// signatureParams name a signed URL's signature among its query's
// parameters (compared without case): Azure's SAS token's sig, S3's and
// Cloud Storage's X-Amz-Signature and X-Goog-Signature, CloudFront's and
// S3's older Signature. Whoever has such a URL reads (or writes) what it
// names until it expires, whatever name the program keeps it under.
var signatureParams = []string{"sig", "signature", "x-amz-signature", "x-goog-signature"}

// signature finds a signed URL's signature: the value of a query parameter
// of signatureParams (after '?', '&' or HTML's "&amp;"), to the next '&',
// '#', quote, backslash, blank or angle bracket; one of fewer than 8 bytes
// is not one.
func signature(s string, from int) (start, end int, ok bool) {
	for from < len(s) {
		i := strings.IndexAny(s[from:], "?&")
		if i < 0 {
			return 0, 0, false
		}
		k := from + i + 1
		from = k
		if strings.HasPrefix(s[k:], "amp;") {
			k += len("amp;")
		}
		e := strings.IndexByte(s[k:min(len(s), k+len("x-goog-signature")+1)], '=')
		if e < 0 || !slices.ContainsFunc(signatureParams, func(p string) bool { return strings.EqualFold(p, s[k:k+e]) }) {
			continue
		}
		vs := k + e + 1
		ve := vs
		for ve < len(s) && strings.IndexByte("&#'\"\\ \t\r\n<>", s[ve]) < 0 {
			ve++
		}
		if ve-vs >= 8 {
			return vs, ve, true
		}
	}
	return 0, 0, false
}

// urlPassword finds the password of a URL: scheme://user:PASSWORD@host.
func urlPassword(s string, from int) (start, end int, ok bool) {
	for from < len(s) {
		i := strings.Index(s[from:], "://")
		if i < 0 {
			return 0, 0, false
		}
		u := from + i + 3
		if start, end, ok := userinfoPassword(s, u, "/?# \n'\""); ok {
			return start, end, true
		}
		from = u
	}
	return 0, 0, false
}

// userinfoPassword finds the password of the network location that starts
// at s[u] and ends at a byte of stop: after the first ':' of what comes
// before its last '@', as urllib.parse reads it (a password may hold an
// @: ada:p@ss@db is p@ss, and to the first @ showed ss, found
// 2026-12-08).
func userinfoPassword(s string, u int, stop string) (start, end int, ok bool) {
	j := u
	for j < len(s) && strings.IndexByte(stop, s[j]) < 0 {
		j++
	}
	at := strings.LastIndexByte(s[u:j], '@')
	if at < 0 {
		return cutUserinfo(s, u, j)
	}
	if c := strings.IndexByte(s[u:u+at], ':'); c >= 0 && c+1 < at {
		return u + c + 1, u + at, true
	}
	return 0, 0, false
}

// cutUserinfo finds the password of the network location s[u:j] that
// holds no '@' because it was cut short before it: a log's url[:40], a
// slice, a repr the debugger cut (https://ada:PASSWO, https://ada:PASS...
// (truncated)). What follows its first ':' (to a cut's "...") is no port,
// a port's digits or a list of hosts' (h1:27017,h2:27017), and so is taken
// for the password when it has a digit or a symbol: a placeholder's word
// (host:port) and a template's ({host}:{port}, $HOST:$PORT, %s:%d) are
// left. Shown in clear until 2026-12-08.
func cutUserinfo(s string, u, j int) (start, end int, ok bool) {
	loc := s[u:j]
	if cut := strings.Index(loc, "..."); cut >= 0 {
		loc = loc[:cut]
	}
	c := strings.IndexByte(loc, ':')
	if c < 0 || loc[0] == '[' { // an IPv6 address's colons
		return 0, 0, false
	}
	v := loc[c+1:]
	port := strings.TrimLeft(strings.TrimRight(v, ".,;:!?"), "0123456789")
	if port == "" || port[0] == ',' || strings.ContainsAny(v, "{}$%<>\\") || !notLettersOnly(v) || strings.IndexFunc(v, unicode.IsControl) >= 0 {
		return 0, 0, false // a terminal's escape after a port (http://127.0.0.1:5000\x1b[0m) is no password
	}
	return u + c + 1, u + len(loc), true
}

// netlocPassword finds the password of a URL's network location without
// its scheme, as urllib.parse's results show it: ParseResult(scheme='postgres',
// netloc='app:PASSWORD@db:5432', ...), {'netloc': 'app:PASSWORD@db'}; and
// as xmlrpc.client's ServerProxy shows its URL's (proxyPassword).
func netlocPassword(s string, from int) (start, end int, ok bool) {
	if start, end, ok := proxyPassword(s, from); ok {
		return start, end, true
	}
	for from < len(s) {
		i := strings.Index(s[from:], "netloc")
		if i < 0 {
			return 0, 0, false
		}
		u := from + i + len("netloc")
		from = u
		if u < len(s) && (s[u] == '\'' || s[u] == '"') { // a dict's key
			u++
		}
		u += run(s, u, isBlank)
		if u >= len(s) || s[u] != '=' && s[u] != ':' {
			continue
		}
		u++
		u += run(s, u, isBlank)
		if u >= len(s) || s[u] != '\'' && s[u] != '"' {
			continue
		}
		stop := "/\n'"
		if s[u] == '"' {
			stop = "/\n\""
		}
		if start, end, ok := userinfoPassword(s, u+1, stop); ok {
			return start, end, true
		}
	}
	return 0, 0, false
}

// proxyPassword finds the password of the URL an xmlrpc.client
// ServerProxy was made with, which its repr shows without the scheme:
// <ServerProxy for ada:PASSWORD@example.com/RPC2> (found 2026-12-08,
// shown in clear; its __host row, 'ada:PASSWORD@example.com', is learned
// from it).
func proxyPassword(s string, from int) (start, end int, ok bool) {
	const at = "ServerProxy for "
	for from < len(s) {
		i := strings.Index(s[from:], at)
		if i < 0 {
			return 0, 0, false
		}
		u := from + i + len(at)
		from = u
		if start, end, ok := userinfoPassword(s, u, "/> \t\r\n'\"\\"); ok {
			return start, end, true
		}
	}
	return 0, 0, false
}

// maskAssignments masks the value of each line that assigns to a secret's
// name: DB_PASSWORD = "s3cr3t" in a source file, API_KEY=k in a .env file,
// password: x in a config, export TOKEN=t in a shell script. A quoted value
// is masked inside its quotes; an unquoted one when it is a single word.
// A YAML key with its value on the lines below (api_key: then a block
// indented under it, or its "- " items: what yaml.dump writes of a dict or
// a list) has every value of that block masked, keys kept; so have the
// lines that go on with a value past its key's column (a long value that
// yaml.dump folds, an INI value's continuation), and every value of an INI
// section or a TOML table named for a secret ([api_keys] then prod = k).
func maskAssignments(s string, extra map[string]bool, found func(string)) (string, bool) {
	if !strings.ContainsAny(s, "=:") {
		return s, false
	}
	lines := strings.SplitAfter(s, "\n")
	starts := make([]int, len(lines)) // each line's offset in s
	for li := 1; li < len(lines); li++ {
		starts[li] = starts[li-1] + len(lines[li-1])
	}
	// The values' spans in s, masked together at the end: a span widened
	// to a credential of a well-known shape (wholeShapes) is widened to all
	// of it, over the lines below too. Masked a line at a time, a PEM
	// block that began after a secret's value on its line (password: x
	// -----BEGIN ... PRIVATE KEY-----) had its BEGIN line masked and its
	// key shown: maskShapes, after, no longer found a block (found
	// 2026-12-06).
	var spans [][2]int
	hideAt := func(li, vs, ve int) {
		if found != nil {
			found(lines[li][vs:ve])
		}
		spans = append(spans, [2]int{starts[li] + vs, starts[li] + ve})
	}
	block := -1      // the column of the secret's key whose block this is; -1: none
	open := byte(0)  // in the block, the quote of a value still open at the last line's end
	section := false // in an INI section or a TOML table named for a secret: [api_keys]
	for li, line := range lines {
		if h, ok := sectionHeader(line, extra); ok {
			section = h
			block = -1
			continue
		}
		indent := run(line, 0, func(c byte) bool { return c == ' ' })
		if block >= 0 {
			content := strings.TrimRight(line[indent:], "\r\n")
			switch {
			case open != 0 && content != "":
				// A quoted value folded over lines: this line is its,
				// to its closing quote, which stays.
				vs, ve := indent, indent+len(strings.TrimRight(content, " \t"))
				if closes(line[vs:ve], open) {
					ve, open = ve-1, 0
				}
				if ve > vs {
					hideAt(li, vs, ve)
				}
				continue
			case content == "" || content[0] == '#': // a blank or a comment: the block goes on
				continue
			case indent > block || indent == block && (content == "-" || strings.HasPrefix(content, "- ")):
				if vs, ve, ok := blockValue(line, indent); ok {
					hideAt(li, vs, ve)
					open = opened(line, vs, ve)
				}
				continue
			}
			block, open = -1, 0
		}
		i := run(line, 0, isSpace)
		for strings.HasPrefix(line[i:], "- ") { // a YAML list's item: - password: x
			i += 2 + run(line, i+2, isBlank)
		}
		col := i // the key's column, which a YAML block below it is indented past
		if strings.HasPrefix(line[i:], "export ") {
			i += len("export ")
			i += run(line, i, isSpace)
		}
		q := byte(0)
		if i < len(line) && (line[i] == '"' || line[i] == '\'') {
			q = line[i]
			i++
		}
		n := run(line, i, func(c byte) bool { return isB64URL(c) || c == '.' })
		if n == 0 {
			continue
		}
		name := line[i : i+n]
		j := i + n
		if q != 0 {
			if j >= len(line) || line[j] != q {
				continue
			}
			j++
		}
		j += run(line, j, isBlank)
		if j >= len(line) || (line[j] != '=' && line[j] != ':') || strings.HasPrefix(line[j:], "==") || strings.HasPrefix(line[j:], ":=") ||
			strings.HasPrefix(line[j:], "=>") || // Ruby's, Perl's and PHP's pair: maskPairs
			!section && !secrets.IsName(name, extra) {
			continue
		}
		sep := line[j]
		j++
		j += run(line, j, isBlank)
		rest := strings.TrimRight(line[j:], "\r\n")
		if sep == ':' && (rest == "" || rest[0] == '#') {
			block = col // YAML: its value is the block below
			continue
		}
		var vs, ve int
		switch {
		case rest != "" && (rest[0] == '"' || rest[0] == '\''):
			vs, ve = quoted(line, j, j+len(rest))
		case sep == ':' && q == 0:
			// YAML's plain or flow value runs to the line's end: password:
			// it's "x", token: [a, b]. What reads as a comment (" # old")
			// is masked with it: configparser reads it as the value's.
			vs, ve = j, j+len(strings.TrimRight(rest, " \t"))
		default:
			// A word, to a blank, or to a ',' or ';' that ends it (JSON's
			// "pin": 1234, a statement's end); one inside it is the
			// value's (abc,def), as a '#' is (abc#def).
			vs, ve = j, j
			for ve < len(line) && line[ve] > ' ' && line[ve] != '(' && line[ve] != '[' && line[ve] != '{' &&
				!((line[ve] == ',' || line[ve] == ';') && (ve+1 == len(line) || line[ve+1] <= ' ')) {
				ve++
			}
			if ve < len(line) && (line[ve] == '(' || line[ve] == '[' || line[ve] == '{') {
				continue // code, not a value
			}
			// An INI value runs to the line's end, what reads as a
			// comment with it: password = two words # old. Not past code.
			if rest := strings.TrimRight(line[ve:], " \t\r\n"); ve < len(line) && isBlank(line[ve]) && rest != "" &&
				!strings.ContainsAny(rest, "()[]{}=,;'\"") {
				ve += len(rest)
			}
		}
		if ve <= vs || line[vs:ve] == mask {
			continue
		}
		hideAt(li, vs, ve)
		block = col // a value folded over the lines below it, indented past its key
		open = opened(line, vs, ve)
	}
	if spans == nil {
		return s, false
	}
	return writeSpans(s, spans, found), true
}

// sectionHeader reads line as an INI section's or a TOML table's header
// ([name], [a.b."c"], [[name]]): ok when it is one, secret when a part of
// its name is a secret's ([api_keys], [credentials.prod]).
func sectionHeader(line string, extra map[string]bool) (secret, ok bool) {
	t := strings.TrimSpace(line)
	if t == "" || t[0] != '[' { // most lines
		return false, false
	}
	if c := strings.Index(t, " #"); c >= 0 {
		t = strings.TrimSpace(t[:c])
	}
	if len(t) < 3 || t[len(t)-1] != ']' {
		return false, false
	}
	name := strings.Trim(t, "[]")
	if name == "" || strings.ContainsAny(name, "[]'=,(){}") { // a list's repr, code: not a header
		return false, false
	}
	for _, part := range strings.Split(name, ".") {
		if secrets.IsName(strings.Trim(strings.TrimSpace(part), `"`), extra) {
			return true, true
		}
	}
	return false, true
}

// blockValue is where the value of a line of a YAML block starts and ends,
// the line's content starting at i: after its "- " marks and its key
// ("prod: ", quoted or not), inside its quotes or to the line's end. ok
// is false when there is none: a key that opens a deeper block ("prod:"),
// a value already masked.
func blockValue(line string, i int) (vs, ve int, ok bool) {
	end := len(strings.TrimRight(line, "\r\n"))
	for i < end && line[i] == '-' && (i+1 == end || isBlank(line[i+1])) {
		i++
		i += run(line[:end], i, isBlank)
	}
	if i < end && (line[i] == '"' || line[i] == '\'') { // a quoted key, or a quoted value
		if e := strings.IndexByte(line[i+1:end], line[i]); e >= 0 && i+2+e < end && line[i+2+e] == ':' {
			i += 2 + e + 1
		}
	} else if c := strings.Index(line[i:end], ": "); c >= 0 {
		i += c + 2
	} else if strings.HasSuffix(line[i:end], ":") {
		return 0, 0, false
	}
	i += run(line[:end], i, isBlank)
	if i >= end || line[i] == '#' {
		return 0, 0, false
	}
	if q := line[i]; q == '"' || q == '\'' {
		vs, ve = quoted(line, i, end)
	} else {
		vs, ve = i, i+len(strings.TrimRight(line[i:end], " \t")) // a comment with it, as above
	}
	if ve <= vs || line[vs:ve] == mask {
		return 0, 0, false
	}
	return vs, ve, true
}

// quoted is where the quoted value that opens at line[i] lies, in a line
// that ends at end: to the last quote of its kind, an escaped one inside
// ("k\"x", YAML's doubled quote inside a single-quoted value) not ending
// it, when what follows that quote ends a value (a blank, ',', ';', a
// bracket, a comment); to the line's end when the quote closes nowhere on
// the line (YAML folds a long quoted value over lines: its lines below are
// masked as the block's).
func quoted(line string, i, end int) (vs, ve int) {
	vs, ve = i+1, len(strings.TrimRight(line[:end], " \t"))
	if e := strings.LastIndexByte(line[i+1:end], line[i]); e >= 0 {
		p, n := i+1+e, 0 // the last quote, and the run of quotes that ends with it
		for p-n > i && line[p-n] == line[i] {
			n++
		}
		if line[i] == '\'' && n%2 == 0 {
			return vs, ve // YAML's doubled quote, the value's own: it goes on below ('a''\n  b')
		}
		if after := strings.TrimSpace(line[i+2+e : end]); after == "" || strings.IndexByte(",;)]}#", after[0]) >= 0 {
			ve = i + 1 + e
		}
	}
	return vs, ve
}

// opened is the quote of a quoted value masked at line[vs:ve] when it
// does not close on its line (quoted: it runs to the line's end), or 0.
func opened(line string, vs, ve int) byte {
	if vs == 0 || line[vs-1] != '"' && line[vs-1] != '\'' {
		return 0
	}
	if ve < len(line) && line[ve] == line[vs-1] {
		return 0 // closed
	}
	return line[vs-1]
}

// closes reports whether text, a line of a quoted value folded over lines,
// ends with the value's closing quote q: a quote not escaped (an even run
// of backslashes before a ", an odd run of ' for YAML's doubled quotes).
func closes(text string, q byte) bool {
	n := 0
	for n < len(text) && text[len(text)-1-n] == q {
		n++
	}
	if n == 0 {
		return false
	}
	if q == '\'' {
		return n%2 == 1
	}
	b := 0
	for b < len(text)-1 && text[len(text)-2-b] == '\\' {
		b++
	}
	return b%2 == 0
}

// isBlank: a space or a tab (within a line).
func isBlank(c byte) bool { return c == ' ' || c == '\t' }

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

// toSemicolon is the ';' that ends a value with blanks in it, from i (a
// blank), or i: none comes before a quote, a line's end, '&' or another
// pair (a blank, then key=).
func toSemicolon(s string, i int) int {
	for k := i; k < len(s); k++ {
		switch c := s[k]; {
		case c == ';':
			return k
		case strings.IndexByte("'\"\n\r&", c) >= 0:
			return i
		case c == '=':
			ks := k
			for ks > i && (isB64URL(s[ks-1]) || s[ks-1] == '.') {
				ks--
			}
			if ks < k && isBlank(s[ks-1]) {
				return i
			}
		}
	}
	return i
}

// unescapedAny: v holds a byte of chars that no backslash escapes (a
// call's f(password=x, y), not the shell's S3c\(r\)t).
func unescapedAny(v, chars string) bool {
	for i := 0; i < len(v); i++ {
		if v[i] == '\\' {
			i++
		} else if strings.IndexByte(chars, v[i]) >= 0 {
			return true
		}
	}
	return false
}

// maskKeyValues masks the value of each key=value pair, with a secret's
// name for key, of a connection string or an option list, in any text:
// ODBC's and ADO's Server=db;PWD=s3cr3t; (a {braced} value may hold a ';'),
// libpq's host=db password=s3cr3t dbname=app, a query's password=s3cr3t&x.
// A pair that a ';' stands before or after is a connection string's: its
// value runs to the next ';'. Any other pair starts a line or a string, or
// follows a blank, '&' or '?', and its value runs to the next blank, '&',
// ';' or quote, and is left when it holds ',', '(' or ')': that is code (a
// call's keyword argument f(a, password=pw)), not a value.
func maskKeyValues(s string, extra map[string]bool, found func(string)) (string, bool) {
	if strings.IndexByte(s, '=') < 0 || !secrets.Mentions(s, extra) {
		return s, false
	}
	var spans [][2]int
	for i := 0; i < len(s); i++ {
		if s[i] != '=' || i > 0 && strings.IndexByte("=!<>:", s[i-1]) >= 0 {
			continue
		}
		ks := i
		for ks > 0 && (isB64URL(s[ks-1]) || s[ks-1] == '.') {
			ks--
		}
		if ks == i || !secrets.IsName(s[ks:i], extra) {
			continue
		}
		before := byte('\n')
		if ks > 0 {
			before = s[ks-1]
		}
		if i+1 < len(s) && s[i+1] == '=' && before != ';' {
			continue // a comparison, password == x; but ;Password==x; holds "=x"
		}
		vs := i + 1
		ve, conn := vs, before == ';'
		switch {
		case vs < len(s) && s[vs] == '{': // ODBC: {a;b}, a '}' doubled inside
			ve = vs + 1
			for ve < len(s) && (s[ve] != '}' || ve+1 < len(s) && s[ve+1] == '}') {
				if s[ve] == '}' {
					ve++
				}
				ve++
			}
			ve = min(ve+1, len(s))
			conn = true
		case vs+1 < len(s) && s[vs] == '$' && (s[vs+1] == '\'' || s[vs+1] == '"'):
			// bash's quoting of a value with a control or a quote in it
			// (declare -p, set, printf %q): $'S3c\'r\x2dt', to its quote
			ve = vs + 2
			for ve < len(s) && s[ve] != s[vs+1] && s[ve] != '\n' && s[ve] != '\r' {
				if s[ve] == '\\' && ve+1 < len(s) && s[ve+1] != '\n' {
					ve++
				}
				ve++
			}
			ve = min(ve+1, len(s))
			if s[ve-1] != s[vs+1] {
				ve = lineEnd(s, vs) // not closed on its line: to the line's end
			}
			conn = true
		default:
			for ve < len(s) && !strings.ContainsRune(";&'\"\n\r", rune(s[ve])) && (conn || !isBlank(s[ve])) {
				if s[ve] == '\\' { // the shell's escape of a blank, a quote, a ; or a & (printf %q: with\ space\;x; in a repr, with\\ space)
					n := 1
					for ve+n < len(s) && s[ve+n] == '\\' {
						n++
					}
					if !conn && ve+n < len(s) && n%2 == 1 && (s[ve+n] == 'n' || s[ve+n] == 'r') {
						break // a repr's line end (a connection string's value runs to its ;)
					}
					ve += n - 1
					if ve+1 < len(s) && s[ve+1] != '\n' && s[ve+1] != '\r' {
						ve++
					}
				}
				ve++
			}
			// a value with blanks in it, then ';': Password=a b;Server=x
			if !conn && ve < len(s) && isBlank(s[ve]) {
				ve = toSemicolon(s, ve)
			}
			if ve < len(s) && s[ve] == ';' {
				conn = true
			}
		}
		if !conn {
			if strings.IndexByte(" \t&?'\"\n\r", before) < 0 || unescapedAny(s[vs:ve], ",()") {
				continue
			}
		}
		if ve <= vs || s[vs:ve] == mask { // masked already; but not [redacted])04HF, a word read short by another mask
			continue
		}
		spans = append(spans, [2]int{vs, ve})
		i = ve - 1
	}
	if len(spans) == 0 {
		return s, false
	}
	if found != nil {
		for _, sp := range spans {
			found(s[sp[0]:sp[1]])
		}
	}
	return writeSpans(s, spans, found), true
}
