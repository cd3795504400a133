// Package secrets says which names are a secret's: the built-ins share it,
// so that the name expressions refuses to read is the name redact masks.
package secrets

import (
	"strings"
	"unicode"

	"golang.org/x/text/unicode/norm"
)

// words make a name a secret's wherever they stand in it (lower-cased).
var words = []string{"password", "passwd", "passphrase", "passcode", "secret", "api_key", "apikey",
	"private_key", "privatekey", "priv_key", "privkey", "access_key", "accesskey", "credential", "session_key", "signing_key",
	"encryption_key", "decryption_key", "master_key", "hmac_key", "fernet_key", "client_key", "app_key", "license_key",
	"ssh_key", "recovery_code", "mfa_code"}

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
	l := strings.ToLower(n)
	if extra[l] {
		return true
	}
	// api-key is api_key (an HTTP header's X-Api-Key, a dict's 'api-key')
	l = strings.ReplaceAll(l, "-", "_")
	for _, w := range words {
		if strings.Contains(l, w) {
			return true
		}
	}
	if len(l) < 2 {
		return false
	}
	token := strings.Contains(l, "token")
	var ps []string // the parts, kept for languageTokens only when a token is named
	start := 0
	rs := []rune(n)
	for i := 0; i <= len(rs); i++ {
		split := i == len(rs) || !unicode.IsLetter(rs[i]) ||
			i > 0 && unicode.IsLower(rs[i-1]) && unicode.IsUpper(rs[i])
		if split {
			if i > start {
				p := strings.ToLower(string(rs[start:i]))
				if parts[p] {
					return true
				}
				if token {
					ps = append(ps, p)
				}
			}
			start = i
			if i < len(rs) && !unicode.IsLetter(rs[i]) {
				start = i + 1
			}
		}
	}
	return token && !languageTokens(ps)
}

// A token is a credential (access_token, GITHUB_TOKEN, apitoken), and in a
// language model's code a piece of text: tokens, tokenizer, max_tokens,
// token_ids, pad_token. Those, denied and masked, made such a program
// impossible to debug (every count of tokens masked wherever it showed).
// languageTokens reports whether every part of a name that holds "token"
// means the text's: the tokenizer's words; tokens counted (tokens after
// max, num, prompt ... : max_new_tokens, OPENAI_MAX_TOKENS; api_tokens is
// credentials); a token's ids, count or type (token_ids, TOKEN_LIMIT); a
// tokenizer's special tokens (pad_token, eos_token). A name glued
// together (apitoken, maxtokens) is a credential's.
func languageTokens(ps []string) bool {
	for i, p := range ps {
		if !strings.Contains(p, "token") {
			continue
		}
		prev, next := "", ""
		if i > 0 {
			prev = ps[i-1]
		}
		if i+1 < len(ps) {
			next = ps[i+1]
		}
		switch {
		case tokenizerWords[p]:
		case p == "tokens" && tokensCounted[prev]:
		case p == "token" && (tokenFacts[next] || specialTokens[prev]):
		default:
			return false
		}
	}
	return true
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
		for _, w := range byFirst[c|0x20] {
			// every word and part has two letters or more: the second
			// letter rules most places out before the rest is compared
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

// foldEqual: t is w (lower-case) in any case, a '-' standing for a '_'.
func foldEqual(t, w string) bool {
	for k := 0; k < len(w); k++ {
		c := t[k]
		switch {
		case c == '-' && w[k] == '_':
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
