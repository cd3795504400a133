package secrets

import (
	"math/rand/v2"
	"strings"
	"testing"
	"unicode"
)

// FuzzMentions: every name IsName calls a secret's, in any text, is
// mentioned: a scan that skips texts Mentions rejects never skips a name.
func FuzzMentions(f *testing.F) {
	for _, s := range []string{"password", "DB_PASSWORD", "myAuth", "X-Auth-Token", "ｐａｓｓｗｏｒｄ", "pass\\x77ord", "otp_code", "Cookie", "ssn", "user", "X-Api-Key", "private-key"} {
		f.Add(s)
	}
	extra := map[string]bool{"ssn": true}
	f.Fuzz(func(t *testing.T, name string) {
		if IsName(name, extra) && !Mentions("{'"+name+"': 1}", extra) {
			t.Fatalf("%q is a secret's name, and not mentioned", name)
		}
	})
}

// TestMentions: random names from the words and parts, in any case, with
// other letters around them; and texts that hold none are not mentioned.
func TestMentions(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	var all []string
	for _, w := range byFirst {
		all = append(all, w...)
	}
	letters := "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ_-.0123456789"
	for range 20000 {
		var b strings.Builder
		for range rng.IntN(3) {
			b.WriteByte(letters[rng.IntN(len(letters))])
		}
		w := all[rng.IntN(len(all))]
		if rng.IntN(2) == 0 {
			w = strings.ReplaceAll(w, "_", "-")
		}
		for _, c := range w {
			if rng.IntN(2) == 0 {
				c = []rune(strings.ToUpper(string(c)))[0]
			}
			b.WriteRune(c)
		}
		for range rng.IntN(3) {
			b.WriteByte(letters[rng.IntN(len(letters))])
		}
		if n := b.String(); IsName(n, nil) && !Mentions(n, nil) {
			t.Fatalf("%q is a secret's name, and not mentioned", n)
		}
	}
	for _, s := range []string{"{'user': 'ada', 'port': 5432}", "Config(host='db', debug=False)", ""} {
		if Mentions(s, nil) {
			t.Errorf("%q mentions no secret's name", s)
		}
	}
	if !Mentions("{'SSN': 1}", map[string]bool{"ssn": true}) {
		t.Error("extra names are mentioned")
	}
}

// TestIsName: the names programs keep credentials under, in the
// spellings they use; and names that only look like them.
func TestIsName(t *testing.T) {
	for _, n := range []string{"password", "DB_PASSWORD", "db_pass", "DB_PASS", "SMTP_PW", "smtpPass", "pw", "admin_pwd",
		"passcode", "api_key", "X-Api-Key", "apiKey", "client_secret", "ENCRYPTION_KEY", "fernet_key", "APP_KEY", "hmac_key",
		"master_key", "priv_key", "privkey", "totp_seed", "wifi_psk", "Authorization", "auth", "session_key", "ｐａｓｓｗｏｒｄ",
		"refresh_token", "credentials", "jwt", "dsn", "Cookie",
		// tokens that are credentials: whole, glued, plural, camel-cased
		"token", "TOKEN", "GITHUB_TOKEN", "HF_TOKEN", "access_token", "accessToken", "apitoken", "authtoken", "id_token",
		"csrf_token", "api_tokens", "tokens", "user_tokens", "maxtokens", "token_secret", "next_token_value", "bearer_token_ids",
		// abbreviations and plurals programs use
		"creds", "db_creds", "awsCreds", "cookies", "ssh_key", "recovery_code", "mfa_code",
		// Azure Storage's key, as its connection string and its SDK name it
		"AccountKey", "account_key", "STORAGE_ACCOUNT_KEY",
		// a cipher's key by its cipher, sshpass's environment
		"aes_key", "AES_KEY", "aesKey", "wrapping_key", "SSHPASS",
		// Redis's
		"requirepass", "masterauth", "REDIS_REQUIREPASS",
		// a second factor's backup codes, a wallet's seed phrase, OAuth 1.0a's verifier, session cookies
		"backup_codes", "BACKUP_CODE", "seed_phrase", "seedPhrase", "recovery_phrase", "mnemonic_phrase", "oauth_verifier",
		"sessionid", "JSESSIONID", "PHPSESSID", "django_sessionid",
		// two words joined, camel-cased or not (signingKey showed its key)
		"signingKey", "sessionKey", "signingkey", "SESSIONKEY", "encryptionKey", "masterKey", "hmacKey", "clientKey",
		"sshKey", "recoveryCode", "mfaCode", "backupCode", "codeVerifier", "deviceCode", "recoveryPhrase", "authenticationString",
		// a hash that is the credential: MySQL's, Windows' NT hash
		"authentication_string", "ntlm_hash", "NTLMHash", "nthash", "user_nthash",
		// a password in other languages
		"Passwort", "db_kennwort", "senha", "contraseña", "CONTRASENA", "mot_de_passe", "пароль", "密码", "パスワード", "wachtwoord",
		"şifre", "db_sifre", "heslo", "jelszó", "salasana", "adgangskode", "passord", "parolă", "κωδικός_πρόσβασης", "סיסמה",
		"كلمة_المرور", "mật_khẩu", "mat_khau", "รหัสผ่าน", "kata_sandi", "katasandi", "पासवर्ड", "geheimnis", "Geheimnis", "segreto",
		"секрет", "токен", "zugangsdaten", "credenciales",
		// a secret's word before a part of facts, then a credential; or
		// after one; or followed by what holds it
		"auth_token", "password_reset_token", "SECRET_KEY", "SECRET_KEY_FALLBACKS", "password_hash",
		"password_salt", "password_confirmation", "new_password", "password2", "passwordNew", "api_key_header",
		"access_key_id", "secret_id", "auth_header", "token_value", "session_cookie", "max_password", "secrets_manager",
		"passwords", "secrets", "password_reset_code", "password_reset", "password_changed", "secret_url",
		"WEBHOOK_SECRET_URL", "secret_message"} {
		if !IsName(n, nil) {
			t.Errorf("%q is a secret's name", n)
		}
	}
	for _, n := range []string{"user", "author", "bypass", "compass", "passenger", "passed", "power", "account_hash", "realm_hash", "month_hash",
		"pwm", "keyboard", "primary_key", "sort_key", "otpx", "sessions", "name", "port", "credit", "incredible", "cookiecutter",
		// a language model's tokens: pieces of text, their counts and ids
		"tokenizer", "Tokenizer", "tokenize", "detokenized", "max_tokens", "max_new_tokens", "OPENAI_MAX_TOKENS", "maxTokens",
		"num_tokens", "prompt_tokens", "completion_tokens", "special_tokens", "additional_special_tokens", "token_ids",
		"input_token_ids", "token_count", "TOKEN_LIMIT", "token_type_ids", "pad_token", "eos_token_id", "tokenizer_config",
		// what a name says about a secret: its length, rules, age, kind, name, place
		"password_length", "min_password_length", "passwordLength", "PASSWORD_RESET_TIMEOUT", "password_reset_required",
		"AUTH_PASSWORD_VALIDATORS", "PASSWORD_HASHERS", "auth_method", "authType", "AUTH_USER_MODEL", "SESSION_COOKIE_AGE",
		"CSRF_COOKIE_NAME", "SESSION_COOKIE_SECURE", "secret_name", "secrets_file", "JWT_ALGORITHM",
		"jwt_expiration", "token_url", "AUTH_TOKEN_URL", "TOKEN_ENDPOINT", "credential_type", "credentials_file", "password_file",
		"passwordlength", "otp_digits", "pass_rules", "password_changed_at", "password_last_changed_at",
		// other words that begin with a secret's
		"secretary", "Secretaries", "secretariat", "secretion", "passwordless", "passwordless_login",
		// words that hold another language's (senha, haslo) but are none
		"chosen_hash", "has_loaded", "hasLoaded", "mot", "passe",
		"the_slot", "theSlot", "parola", "clave", "sandi", "jeton",
		// what backup, seed, mnemonic and session name alone
		"backup", "backup_dir", "seed", "random_seed", "mnemonic", "opcode_mnemonic", "session_id", "sessions"} {
		if IsName(n, nil) {
			t.Errorf("%q is not a secret's name", n)
		}
	}
}

// TestHoldsValue: an attribute that holds its object's value, by a part of
// its name; not one that says who or where.
func TestHoldsValue(t *testing.T) {
	for name, want := range map[string]bool{
		"key": true, "value": true, "pin_code": true, "keyMaterial": true, "raw_bytes": true, "SEED": true, "secret_value": true,
		"user": false, "username": false, "host": false, "domain": false, "keyboard": false, "values_count": false, "path": false,
	} {
		if got := HoldsValue(name); got != want {
			t.Errorf("HoldsValue(%q) = %v, want %v", name, got, want)
		}
	}
}

// TestJoinedParts: a name is its parts, lower-cased, joined by _, whether
// it is returned as it is or built.
func TestJoinedParts(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	letters := "abcXYZ_-.09 Pqé"
	for range 20000 {
		rs := make([]rune, rng.IntN(12))
		for i := range rs {
			rs[i] = []rune(letters)[rng.IntN(len([]rune(letters)))]
		}
		n := string(rs)
		// the parts: runs of letters, split where lower meets upper case
		var want []string
		cur := []rune{}
		for i, r := range rs {
			letter := unicode.IsLetter(r)
			if !letter || i > 0 && unicode.IsLower(rs[i-1]) && unicode.IsUpper(r) {
				if len(cur) > 0 {
					want = append(want, strings.ToLower(string(cur)))
				}
				cur = cur[:0]
			}
			if letter {
				cur = append(cur, r)
			}
		}
		if len(cur) > 0 {
			want = append(want, strings.ToLower(string(cur)))
		}
		if got := joinedParts(n); got != strings.Join(want, "_") {
			t.Fatalf("%q: %q, want %q", n, got, strings.Join(want, "_"))
		}
	}
}

// TestMentionsAsEveryWordCompared: Mentions, which looks at a word only
// where its first two letters stand, answers as comparing every word at
// every byte does, on random texts of letters, the words' pieces, blanks,
// dashes, underscores, backslashes and bytes past ASCII.
func TestMentionsAsEveryWordCompared(t *testing.T) {
	every := func(text string) bool {
		for i := 0; i < len(text); i++ {
			c := text[i]
			if c >= 0x80 || c == '\\' {
				return true
			}
			for _, w := range byFirst[c|0x20] {
				if len(text)-i >= len(w) && text[i+1]|0x20 == w[1] && foldEqual(text[i:i+len(w)], w) {
					return true
				}
			}
		}
		return false
	}
	var pieces []string
	for _, ws := range byFirst {
		for _, w := range ws {
			pieces = append(pieces, w, w[:len(w)/2], strings.ToUpper(w[len(w)/2:]), strings.ReplaceAll(w, "_", "-"))
		}
	}
	pieces = append(pieces, "a", "Q", " ", "_", "-", ".", "=", "\\", "é", "\x80", "pa", "PW", "oK", "t", "tok")
	rng := rand.New(rand.NewPCG(3, 4))
	for range 200000 {
		var b strings.Builder
		for range 1 + rng.IntN(6) {
			p := pieces[rng.IntN(len(pieces))]
			if rng.IntN(4) == 0 && len(p) > 1 {
				p = p[rng.IntN(len(p)):] // cut: maybe inside a UTF-8 sequence
			}
			b.WriteString(p)
		}
		s := b.String()
		if got, want := Mentions(s, nil), every(s); got != want {
			t.Fatalf("Mentions(%q) = %v, every word compared: %v", s, got, want)
		}
	}
}
