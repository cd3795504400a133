// Package secrets says which names are a secret's: the built-ins share it,
// so that the name expressions refuses to read is the name redact masks.
package secrets

import (
	"slices"
	"strings"
	"unicode"

	"golang.org/x/text/unicode/norm"
)

// words make a name a secret's wherever they stand in it (lower-cased).
// account_key is Azure Storage's (AccountKey= in a connection string, the
// SDK's account_key=): a key to the whole account. requirepass and
// masterauth are Redis's (CONFIG SET requirepass VALUE). Each word of two
// is a word written without its underscore too (joinedToo).
var words = joinedToo([]string{"password", "passwd", "passphrase", "passcode", "secret", "api_key", "apikey",
	"private_key", "privatekey", "priv_key", "privkey", "access_key", "accesskey", "credential", "session_key", "signing_key",
	"encryption_key", "decryption_key", "master_key", "hmac_key", "fernet_key", "client_key", "app_key", "license_key",
	"ssh_key", "recovery_code", "mfa_code", "account_key", "accountkey", "requirepass", "masterauth",
	// a cipher's key by its cipher's name (aes_key, a key wrapping key),
	// and sshpass's password in its environment (SSHPASS: shown in clear
	// until 2026-12-08)
	"aes_key", "des_key", "cipher_key", "crypto_key", "wrapping_key", "symmetric_key", "sshpass",
	// OAuth's PKCE verifier and the device flow's code (RFC 7636, RFC 8628),
	// and OAuth 1.0a's verifier
	"code_verifier", "device_code", "oauth_verifier",
	// a second factor's backup codes, beside recovery_code; a wallet's seed
	// phrase (BIP 39: the whole wallet; "mnemonic" and "seed" alone name
	// other things, an opcode's, a random generator's)
	"backup_code", "seed_phrase", "seedphrase", "recovery_phrase", "mnemonic_phrase",
	// a password's hash that is the credential where it is kept: MySQL's
	// mysql.user column, Windows' NT hash (NTLM takes it in place of the
	// password: "pass the hash"); not nt_hash nor lm_hash, which stand in
	// account_hash and realm_hash
	"authentication_string", "ntlm_hash", "ntlmhash", "nthash",
	// the session cookies of Django, Java servlets and PHP: a bearer's
	// credential ("session_id" stays a name of logs and traces)
	"sessionid", "phpsessid",
	// a password in other languages: German, Portuguese, Spanish, French,
	// Dutch, Swedish, Polish, Russian, Chinese, Japanese, Korean
	"passwort", "kennwort", "senha", "contraseña", "contrasena", "motdepasse", "mot_de_passe", "wachtwoord", "lösenord",
	"losenord", "hasło", "haslo", "пароль", "密码", "口令", "パスワード", "비밀번호",
	// and Turkish, Czech and Slovak, Hungarian, Finnish, Danish and
	// Norwegian, Romanian, Greek, Hebrew, Arabic, Vietnamese, Thai,
	// Indonesian, Malay, Hindi (found 2026-12-08: a program's
	// {"şifre": ...} or mật_khẩu showed its value); a secret in German,
	// Italian and Russian, a token in Russian, credentials in German,
	// Spanish and Portuguese. Not the words that also name other things:
	// Italian's and Turkish's parola (a word), Spanish's clave (a key),
	// Indonesian's sandi (a code), French's jeton (a game's token).
	"şifre", "sifre", "heslo", "jelszó", "jelszo", "salasana", "adgangskode", "kodeord", "passord", "parolă",
	"κωδικός_πρόσβασης", "συνθηματικό", "סיסמה", "סיסמא", "كلمة_المرور", "كلمة_السر", "mật_khẩu", "mat_khau",
	"รหัสผ่าน", "kata_sandi", "kata_laluan", "पासवर्ड",
	"geheim", "segreto", "секрет", "токен", "zugangsdaten", "credencial"})

// joinedToo is ws and, after them, each of ws that holds an underscore
// written without it, when it is not one of ws already: signingkey, and
// camelCase's signingKey, which Mentions scans for as it is written
// (joinedParts reads it as signing_key only after). Written so, the
// JSON's {"signingKey": ...} and {"sessionKey": ...} that programs hold
// from other languages' APIs showed their keys (found 2026-12-07), while
// apiKey and privateKey, whose joined forms were listed, were masked.
func joinedToo(ws []string) []string {
	out := ws
	for _, w := range ws {
		if j := strings.ReplaceAll(w, "_", ""); j != w && !slices.Contains(out, j) {
			out = append(out, j)
		}
	}
	return out
}

// parts make a name a secret's when they are a whole part of it (split at
// underscores, digits, dashes, dots and lower-to-upper case changes):
// "auth" is, "author" is not; DB_PASS and smtp_pw are, bypass is not.
var parts = map[string]bool{"pwd": true, "pw": true, "pass": true, "auth": true, "authorization": true, "cookie": true, "cookies": true,
	"creds": true, "cred": true,
	"dsn": true, "jwt": true, "bearer": true, "otp": true, "totp": true, "psk": true}

// IsName reports whether name, folded to NFKC, is a secret's name, or one
// of extra (lower-cased).
func IsName(name string, extra map[string]bool) bool {
	if !Mentions(name, extra) { // most names, at once (FuzzMentions)
		return false
	}
	n := name
	if !ascii(n) {
		n = norm.NFKC.String(name)
	}
	if extra[strings.ToLower(n)] {
		return true
	}
	return isSecrets(joinedParts(n))
}

// valueParts are the parts of an attribute's name that say it holds the
// value of the object it is in: under an object named for a secret
// (self.credentials.key, e.credentials.pin_code, a Cookie's value), such
// an attribute holds the secret, while its user, host or domain say who
// and where.
var valueParts = map[string]bool{"key": true, "value": true, "val": true, "data": true, "raw": true, "material": true,
	"blob": true, "bytes": true, "pin": true, "seed": true, "phrase": true, "plaintext": true}

// HoldsValue reports whether name, an attribute's, has a part of
// valueParts: under an object named for a secret, it holds the secret.
func HoldsValue(name string) bool {
	n := name
	if !ascii(n) {
		n = norm.NFKC.String(name)
	}
	for _, p := range strings.Split(joinedParts(n), "_") {
		if valueParts[p] {
			return true
		}
	}
	return false
}

// joinedParts is name's parts, lower-cased, joined by _: split at every
// character that is not of a word (wordRune: an underscore, a digit, a dash, a dot:
// X-Api-Key is x_api_key) and where a lower case letter meets an upper
// case one. A name already so (db_password) is returned as it is.
func joinedParts(name string) string {
	if ascii(name) {
		plain := len(name) > 0 && name[0] != '_' && name[len(name)-1] != '_'
		for i := 0; plain && i < len(name); i++ {
			c := name[i]
			plain = 'a' <= c && c <= 'z' || c == '_' && name[i-1] != '_'
		}
		if plain {
			return name
		}
	}
	var b strings.Builder
	start := 0
	rs := []rune(name)
	for i := 0; i <= len(rs); i++ {
		split := i == len(rs) || !wordRune(rs[i]) ||
			i > 0 && unicode.IsLower(rs[i-1]) && unicode.IsUpper(rs[i])
		if split {
			if i > start {
				if b.Len() > 0 {
					b.WriteByte('_')
				}
				b.WriteString(strings.ToLower(string(rs[start:i])))
			}
			start = i
			if i < len(rs) && !wordRune(rs[i]) {
				start = i + 1
			}
		}
	}
	return b.String()
}

// wordRune: r is of a word: a letter, or a mark that goes with one (Thai's
// and Hindi's vowels: รหัสผ่าน, पासवर्ड split at each were no word).
func wordRune(r rune) bool {
	return unicode.IsLetter(r) || unicode.In(r, unicode.Mn, unicode.Mc)
}

// isSecrets reports whether a name of joined parts (joinedParts) is a
// secret's: it holds a secret's word or part, and one of them is not
// followed by a part of facts.
//
// A name may say something about a secret rather than hold one: its
// length, its policy, its kind, where it is kept (password_length,
// PASSWORD_RESET_TIMEOUT, auth_method, SESSION_COOKIE_AGE, secret_name,
// jwt_algorithm). Read as a secret's, such a name was refused in every
// expression, and its value masked everywhere: auth_method = "password"
// made "password" a secret, masked in every field name that holds the word
// (password_reset_required). A secret's word followed by another
// (auth_token, api_key) is read by the last: auth_password_validators is
// about passwords, auth_token and password_reset_token are credentials. A
// word glued to what follows (passwordreset, credentials_file) is read so
// too, and one glued into another word (secretary, passwordless) is not a
// secret's word.
func isSecrets(joined string) bool {
	if joined == "" {
		return false
	}
	// what follows a secret's word or part (w) says something about it
	facts := func(w, rest string) bool {
		if rest == "s" || strings.HasPrefix(rest, "s_") { // a plural: credentials_file
			rest = rest[1:]
		}
		rest = strings.TrimPrefix(rest, "_")
		next, after, _ := strings.Cut(rest, "_")
		for events[next] { // password_reset_timeout, password_last_changed_at; not password_reset_code
			next, after, _ = strings.Cut(after, "_")
		}
		if w == "secret" && places[next] { // a secret URL is a capability: whoever has it is let in
			return false
		}
		return factParts[next] || startsSecret(rest)
	}
	for _, w := range words {
		for i := strings.Index(joined, w); i >= 0; {
			if !otherWord(joined[i:]) && !facts(w, joined[i+len(w):]) {
				return true
			}
			j := strings.Index(joined[i+1:], w)
			if j < 0 {
				break
			}
			i += 1 + j
		}
	}
	prev := ""
	for rest := joined; rest != ""; {
		p, after, _ := strings.Cut(rest, "_")
		next, _, _ := strings.Cut(after, "_")
		if parts[p] || strings.Contains(p, "token") && !languageToken(prev, p, next) {
			if !facts(p, after) {
				return true
			}
		}
		prev, rest = p, after
	}
	return false
}

// events are what happens to a secret; what follows says whether the name
// holds a fact of it (PASSWORD_RESET_TIMEOUT, password_changed_at) or a
// secret (password_reset_code).
var events = map[string]bool{"reset": true, "changed": true, "updated": true, "created": true, "last": true}

// otherWords begin with a secret's word and are other words.
var otherWords = []string{"secretar", "secretion", "secreted", "secreting", "secretive", "passwordless"}

func otherWord(s string) bool {
	for _, o := range otherWords {
		if strings.HasPrefix(s, o) {
			return true
		}
	}
	return false
}

// startsSecret reports whether rest (parts joined by _) begins with a
// secret's word or part: the name is read by that one.
func startsSecret(rest string) bool {
	first, after, _ := strings.Cut(rest, "_")
	next, _, _ := strings.Cut(after, "_")
	if parts[first] || strings.Contains(first, "token") && !languageToken("", first, next) {
		return true
	}
	for _, w := range words {
		if strings.HasPrefix(rest, w) {
			return true
		}
	}
	return false
}

// factParts are the parts that, after a secret's word, say something about
// the secret (its size, age, rules, kind, name, place, state), not hold it.
var factParts = map[string]bool{"length": true, "len": true, "min": true, "max": true, "count": true, "size": true, "digits": true,
	"age": true, "expiry": true, "expires": true, "expired": true, "expiration": true, "ttl": true, "timeout": true, "lifetime": true,
	"rotation": true, "policy": true, "policies": true, "rule": true, "rules": true, "validator": true, "validators": true,
	"hasher": true, "hashers": true, "strength": true, "complexity": true, "required": true, "enabled": true, "disabled": true,
	"at": true, "date": true, "time": true, "method": true, "methods": true, "type": true, "types": true,
	"kind": true, "mode": true, "scheme": true, "schemes": true, "provider": true, "providers": true, "backend": true, "backends": true,
	"strategy": true, "algorithm": true, "algorithms": true, "issuer": true, "audience": true, "leeway": true, "url": true, "uri": true,
	"endpoint": true, "name": true, "names": true, "domain": true, "path": true, "file": true, "dir": true, "secure": true,
	"httponly": true, "samesite": true, "field": true, "fields": true, "label": true, "prompt": true, "hint": true,
	"placeholder": true, "error": true, "errors": true, "user": true, "username": true}

// places are the fact parts that name where something is reached: after
// "secret" they may name a capability (secret_url, a presigned or a
// webhook's URL), which is the secret itself.
var places = map[string]bool{"url": true, "uri": true, "endpoint": true}

// A token is a credential (access_token, GITHUB_TOKEN, apitoken), and in a
// language model's code a piece of text: tokens, tokenizer, max_tokens,
// token_ids, pad_token. Those, denied and masked, made such a program
// impossible to debug (every count of tokens masked wherever it showed).
// languageToken reports whether a name's part p, which holds "token",
// between prev and next (its neighbours, or ""), means the text's: the tokenizer's words; tokens counted (tokens after
// max, num, prompt ... : max_new_tokens, OPENAI_MAX_TOKENS; api_tokens is
// credentials); a token's ids, count or type (token_ids, TOKEN_LIMIT); a
// tokenizer's special tokens (pad_token, eos_token). A name glued
// together (apitoken, maxtokens) is a credential's.
func languageToken(prev, p, next string) bool {
	return tokenizerWords[p] || p == "tokens" && tokensCounted[prev] || p == "token" && (tokenFacts[next] || specialTokens[prev])
}

var (
	tokenizerWords = map[string]bool{"tokenizer": true, "tokenizers": true, "tokenize": true, "tokenizes": true, "tokenized": true,
		"tokenizing": true, "tokenization": true, "detokenize": true, "detokenizer": true, "detokenized": true}
	tokensCounted = map[string]bool{"max": true, "min": true, "num": true, "n": true, "total": true, "prompt": true, "completion": true,
		"input": true, "output": true, "new": true, "special": true, "generated": true, "remaining": true, "used": true, "context": true,
		"cached": true, "reasoning": true, "added": true, "vocab": true, "stop": true}
	tokenFacts = map[string]bool{"ids": true, "id": true, "count": true, "counts": true, "type": true, "types": true, "len": true,
		"length": true, "limit": true, "budget": true, "usage": true, "index": true, "idx": true, "offset": true, "offsets": true,
		"embedding": true, "embeddings": true, "logits": true, "probs": true}
	specialTokens = map[string]bool{"bos": true, "eos": true, "pad": true, "unk": true, "sep": true, "cls": true, "mask": true, "sos": true}
)

func ascii(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}

// Mentions reports whether text may hold a secret's name (IsName) in some
// part of it, read as it is written or decoded: false only when none of the
// words and parts IsName looks for, nor a name of extra, occurs in it, in
// any case. Text with a byte that is not ASCII or with a backslash (a name
// folded to NFKC, or escaped, spells them otherwise) may always. It lets a
// scan of a long text for names skip the texts that hold none.
func Mentions(text string, extra map[string]bool) bool {
	for i := 0; i < len(text); i++ {
		c := text[i]
		if c >= 0x80 || c == '\\' {
			return true
		}
		// every word and part has two letters or more: its first two
		// rule most places out before any word is compared (a text of
		// code is mostly letters, and many words share a first one)
		if i+1 == len(text) || text[i+1] >= 0x80 || !firstTwo[c|0x20][text[i+1]|0x20] {
			continue // a byte past ASCII next: true there
		}
		for _, w := range byFirst[c|0x20] {
			if len(text)-i >= len(w) && text[i+1]|0x20 == w[1] && foldEqual(text[i:i+len(w)], w) {
				return true
			}
		}
	}
	if len(extra) > 0 {
		l := strings.ToLower(text)
		for n := range extra {
			if strings.Contains(l, n) {
				return true
			}
		}
	}
	return false
}

// foldEqual: t is w (lower-case) in any case, a '-' or a blank standing
// for a '_' (a table's header spells api_key "API Key").
func foldEqual(t, w string) bool {
	for k := 0; k < len(w); k++ {
		c := t[k]
		switch {
		case (c == '-' || c == ' ') && w[k] == '_':
		case 'A' <= c && c <= 'Z':
			if c+'a'-'A' != w[k] {
				return false
			}
		case c != w[k]:
			return false
		}
	}
	return true
}

// firstTwo says which first two letters (lower-cased as Mentions reads
// them) begin a word or part of byFirst.
var firstTwo = func() (t [128][128]bool) {
	for _, ws := range byFirst {
		for _, w := range ws {
			if w[0] < 0x80 && w[1] < 0x80 { // a word past ASCII is found by its first such byte
				t[w[0]][w[1]] = true
			}
		}
	}
	return t
}()

// byFirst are the words and parts by their first letter, and "token"
// (languageTokens).
var byFirst = func() (t [256][]string) {
	t['t'] = append(t['t'], "token")
	for _, w := range words {
		t[w[0]] = append(t[w[0]], w)
	}
	for p := range parts {
		t[p[0]] = append(t[p[0]], p)
	}
	return t
}()
