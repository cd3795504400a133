package kit

// The files of a new policy project in C; NAME is replaced by the project's
// name. guard.h is the ABI v1 helper the project carries (no libc, no
// network at build time); policy.c is the same rule as the Go template's.

const cGuardH = `/* guard.h: a tiny helper for debugpy-guard policy modules in C, ABI v1
 * (plugins/ABI.md in debugpy-guard's repository). It carries what a module
 * needs and nothing else: the two imports, a buffer for the request, a
 * JSON reader for the request's members, and a writer for the response.
 * No libc, no allocator: it builds with clang alone, with no network.
 *
 * The request is JSON as the host writes it: keys are never repeated and
 * never written with escapes, so json_get compares them byte for byte.
 */
#ifndef GUARD_H
#define GUARD_H

#define GUARD_EXPORT(name) __attribute__((export_name(name)))
#define GUARD_IMPORT(name) __attribute__((import_module("guard"), import_name(name)))

GUARD_IMPORT("input") void guard_input(void *ptr);
GUARD_IMPORT("output") void guard_output(const void *ptr, int len);

/* clang may call these for copies and fills; there is no libc to. */
void *memcpy(void *dst, const void *src, unsigned long n) {
	char *d = dst;
	const char *s = src;
	while (n--) *d++ = *s++;
	return dst;
}
void *memset(void *dst, int c, unsigned long n) {
	char *d = dst;
	while (n--) *d++ = (char)c;
	return dst;
}

/* ABI v1: the marker export. */
GUARD_EXPORT("guard_abi_v1") void guard_abi_v1(void) {}

/* The request, copied in by guard_read. */
#define GUARD_MAX_INPUT (1 << 20)
static char guard_in[GUARD_MAX_INPUT];

/* guard_read copies the pending input (len bytes) into guard_in; 0 when it
 * is too long for it. */
static int guard_read(int len) {
	if (len < 0 || len > GUARD_MAX_INPUT) return 0;
	guard_input(guard_in);
	return 1;
}

/* A JSON value: where it starts and how long it is; n == 0 when absent. */
typedef struct { const char *p; int n; } json;

static int json_ws(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

/* json_skip returns the length of the value at p (at most n bytes). */
static int json_skip(const char *p, int n) {
	int i = 0, depth = 0;
	do {
		if (i >= n) return 0;
		char c = p[i];
		if (c == '"') {
			for (i++; i < n && p[i] != '"'; i++)
				if (p[i] == '\\') i++;
			i++;
		} else if (c == '{' || c == '[') {
			depth++;
			i++;
		} else if (c == '}' || c == ']') {
			depth--;
			i++;
		} else if (json_ws(c) || c == ',' || c == ':') {
			i++;
		} else {
			while (i < n && !json_ws(p[i]) && p[i] != ',' && p[i] != '}' && p[i] != ']') i++;
		}
	} while (depth > 0);
	return i;
}

static json json_trim(json v) {
	while (v.n > 0 && json_ws(*v.p)) v.p++, v.n--;
	return v;
}

/* json_get is the value of key in the object v (absent: n == 0). */
static json json_get(json v, const char *key) {
	json none = {0, 0};
	v = json_trim(v);
	if (v.n == 0 || *v.p != '{') return none;
	int i = 1;
	int klen = 0;
	while (key[klen]) klen++;
	while (i < v.n) {
		while (i < v.n && (json_ws(v.p[i]) || v.p[i] == ',')) i++;
		if (i >= v.n || v.p[i] != '"') return none;
		int ks = i + 1, ke = ks;
		while (ke < v.n && v.p[ke] != '"') ke += v.p[ke] == '\\' ? 2 : 1;
		i = ke + 1;
		while (i < v.n && (json_ws(v.p[i]) || v.p[i] == ':')) i++;
		int vl = json_skip(v.p + i, v.n - i);
		if (vl == 0) return none;
		if (ke - ks == klen) {
			int k = 0;
			while (k < klen && v.p[ks + k] == key[k]) k++;
			if (k == klen) return (json){v.p + i, vl};
		}
		i += vl;
	}
	return none;
}

/* json_next walks an array: start with *it = 0; returns each element, and
 * n == 0 after the last. */
static json json_next(json arr, int *it) {
	json none = {0, 0};
	arr = json_trim(arr);
	if (arr.n == 0 || *arr.p != '[') return none;
	int i = *it ? *it : 1;
	while (i < arr.n && (json_ws(arr.p[i]) || arr.p[i] == ',')) i++;
	if (i >= arr.n || arr.p[i] == ']') return none;
	int l = json_skip(arr.p + i, arr.n - i);
	*it = i + l;
	return (json){arr.p + i, l};
}

static int json_is_string(json v) { return v.n >= 2 && v.p[0] == '"'; }

/* json_str decodes the string v into dst (at most cap-1 bytes, then a
 * terminating zero) and returns its length; -1 when v is not a string.
 * \uXXXX escapes become UTF-8 (a surrogate pair one code point). */
static int json_str(json v, char *dst, int cap) {
	if (!json_is_string(v)) return -1;
	int o = 0;
	for (int i = 1; i < v.n - 1 && o < cap - 4; i++) {
		char c = v.p[i];
		if (c != '\\') { dst[o++] = c; continue; }
		c = v.p[++i];
		switch (c) {
		case 'b': dst[o++] = '\b'; break;
		case 'f': dst[o++] = '\f'; break;
		case 'n': dst[o++] = '\n'; break;
		case 'r': dst[o++] = '\r'; break;
		case 't': dst[o++] = '\t'; break;
		case 'u': {
			unsigned cp = 0;
			for (int k = 1; k <= 4 && i + k < v.n; k++) {
				char h = v.p[i + k];
				cp = cp * 16 + (h >= 'a' ? h - 'a' + 10 : h >= 'A' ? h - 'A' + 10 : h - '0');
			}
			i += 4;
			if (cp >= 0xD800 && cp < 0xDC00 && i + 6 < v.n && v.p[i + 1] == '\\' && v.p[i + 2] == 'u') {
				unsigned lo = 0;
				for (int k = 3; k <= 6; k++) {
					char h = v.p[i + k];
					lo = lo * 16 + (h >= 'a' ? h - 'a' + 10 : h >= 'A' ? h - 'A' + 10 : h - '0');
				}
				if (lo >= 0xDC00 && lo < 0xE000) {
					cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
					i += 6;
				}
			}
			if (cp < 0x80) dst[o++] = (char)cp;
			else if (cp < 0x800) dst[o++] = (char)(0xC0 | cp >> 6), dst[o++] = (char)(0x80 | (cp & 63));
			else if (cp < 0x10000) dst[o++] = (char)(0xE0 | cp >> 12), dst[o++] = (char)(0x80 | (cp >> 6 & 63)), dst[o++] = (char)(0x80 | (cp & 63));
			else dst[o++] = (char)(0xF0 | cp >> 18), dst[o++] = (char)(0x80 | (cp >> 12 & 63)), dst[o++] = (char)(0x80 | (cp >> 6 & 63)), dst[o++] = (char)(0x80 | (cp & 63));
			break;
		}
		default: dst[o++] = c; /* " \ / */
		}
	}
	dst[o] = 0;
	return o;
}

/* json_is compares the string v with s. */
static int json_is(json v, const char *s) {
	char buf[64];
	int n = json_str(v, buf, sizeof buf);
	if (n < 0) return 0;
	int i = 0;
	while (i < n && s[i] && buf[i] == s[i]) i++;
	return i == n && !s[i];
}

/* The response. */
static char guard_out[8192];

static int guard_append(int o, const char *s, int quote) {
	for (; *s && o < (int)sizeof guard_out - 8; s++) {
		unsigned char c = (unsigned char)*s;
		if (quote && (c == '"' || c == '\\')) guard_out[o++] = '\\', guard_out[o++] = (char)c;
		else if (quote && c < 0x20) {
			const char *hex = "0123456789abcdef";
			guard_out[o++] = '\\', guard_out[o++] = 'u', guard_out[o++] = '0', guard_out[o++] = '0';
			guard_out[o++] = hex[c >> 4], guard_out[o++] = hex[c & 15];
		} else guard_out[o++] = (char)c;
	}
	return o;
}

/* guard_decide hands back a decision ("allow", "deny", "approve",
 * "abstain") and its reason (the reason's two parts are joined). */
static int guard_decide(const char *decision, const char *reason, const char *more) {
	int o = guard_append(0, "{\"decision\":\"", 0);
	o = guard_append(o, decision, 1);
	o = guard_append(o, "\",\"reason\":\"", 0);
	o = guard_append(o, reason, 1);
	o = guard_append(o, more, 1);
	o = guard_append(o, "\"}", 0);
	guard_output(guard_out, o);
	return 0;
}

/* guard_fail hands back an error (the call is denied, naming the module). */
static int guard_fail(const char *msg) {
	int o = guard_append(0, msg, 0);
	guard_output(guard_out, o);
	return 1;
}

#endif
`

const cPolicy = `/* NAME: a debugpy-guard policy in C, on guard.h (ABI v1).
 *
 * The sample rule (the same as the Go template's): an expression to
 * evaluate that mentions one of the settings' words (password, secret,
 * token by default; ASCII letters match in any case) is denied; changing a
 * variable needs a person; everything else is left to the other modules.
 *
 * Build it with ` + "`" + `debugpy-guard policy build .` + "`" + `, test it with
 * ` + "`" + `debugpy-guard policy test cases` + "`" + ` (README.md).
 */
#include "guard.h"

static const char *default_words[] = {"password", "secret", "token", 0};

static char lower(char c) { return c >= 'A' && c <= 'Z' ? (char)(c + 32) : c; }

/* mentions reports whether text holds word, ASCII letters in any case. */
static int mentions(const char *text, const char *word) {
	for (int i = 0; text[i]; i++) {
		int k = 0;
		while (word[k] && lower(text[i + k]) == lower(word[k])) k++;
		if (!word[k]) return 1;
	}
	return 0;
}

static char expr[65536];
static char word[256];

/* guard_validate checks the settings once, at load: words, when given, is
 * a list of non-empty strings. */
GUARD_EXPORT("guard_validate") int guard_validate(int len) {
	if (!guard_read(len)) return guard_fail("NAME: the settings are too long");
	json settings = {guard_in, len};
	json words = json_get(settings, "words");
	if (words.n == 0) return 0;
	if (json_trim(words).p[0] != '[') return guard_fail("NAME: words must be a list of strings");
	int it = 0;
	for (json w = json_next(words, &it); w.n; w = json_next(words, &it))
		if (json_str(w, word, sizeof word) <= 0) return guard_fail("NAME: words must be a list of non-empty strings");
	return 0;
}

/* guard_evaluate is the rule, for each call. The request's members: phase
 * ("call" before the tool runs, "result" after), tool, category (read,
 * write, execute), arguments, result, settings, session, debug_session,
 * derived (plugins/ABI.md). */
GUARD_EXPORT("guard_evaluate") int guard_evaluate(int len) {
	if (!guard_read(len)) return guard_fail("NAME: the request is too long");
	json req = {guard_in, len};
	if (!json_is(json_get(req, "phase"), "call")) return guard_decide("abstain", "", "");
	json tool = json_get(req, "tool");
	if (json_is(tool, "debugpy_evaluate")) {
		json e = json_get(json_get(req, "arguments"), "expression");
		if (json_str(e, expr, sizeof expr) < 0) return guard_decide("abstain", "", "");
		json words = json_get(json_get(req, "settings"), "words");
		if (words.n == 0) {
			for (int i = 0; default_words[i]; i++)
				if (mentions(expr, default_words[i])) return guard_decide("deny", "the expression mentions ", default_words[i]);
			return guard_decide("abstain", "", "");
		}
		int it = 0;
		for (json w = json_next(words, &it); w.n; w = json_next(words, &it))
			if (json_str(w, word, sizeof word) > 0 && mentions(expr, word)) return guard_decide("deny", "the expression mentions ", word);
	} else if (json_is(tool, "debugpy_set_variable")) {
		return guard_decide("approve", "changing a variable of the running program needs a person", "");
	}
	return guard_decide("abstain", "", "");
}
`

const cReadme = `# NAME: a debugpy-guard policy in C

A policy module for [debugpy-guard](https://github.com/debugpy-guard/debugpy-guard), in C with no
libc. ` + "`" + `guard.h` + "`" + ` is a tiny helper for ABI v1 (the imports, a buffer for the request, a JSON reader,
the response); it travels with the project, so the build needs clang and nothing from a network.

` + readmeLoop +
	`` + "`" + `policy build` + "`" + ` runs ` + "`" + `clang --target=wasm32 -O2 -nostdlib -g0 -Wl,--no-entry -o NAME.wasm policy.c` + "`" + `
(the same source and clang give the same bytes). Edit ` + "`" + `policy.c` + "`" + `: ` + "`" + `guard_evaluate` + "`" + ` gets each
call's request (` + "`" + `json_get(req, "tool")` + "`" + `, ` + "`" + `"arguments"` + "`" + `, ` + "`" + `"phase"` + "`" + `, ` + "`" + `"settings"` + "`" + ` ...) and answers
with ` + "`" + `guard_decide("allow" | "deny" | "approve" | "abstain", reason, more)` + "`" + `; ` + "`" + `guard_validate` + "`" + `
checks the settings once at load. The request and response are plugins/ABI.md in debugpy-guard's
repository. A module gets no files, environment or network.

## The toolchain, on a machine with no network

The build needs ` + "`" + `clang` + "`" + ` and ` + "`" + `wasm-ld` + "`" + ` (Debian: the ` + "`" + `clang` + "`" + ` and ` + "`" + `lld` + "`" + ` packages; any clang with the
wasm32 target works). On a machine with network and the same Debian release:

` + "`" + `` + "`" + `` + "`" + `sh
apt-get install --download-only -y clang lld      # the .debs land in /var/cache/apt/archives
cp /var/cache/apt/archives/*.deb /media/usb/
` + "`" + `` + "`" + `` + "`" + `

and on the machine with none: ` + "`" + `apt-get install -y /media/usb/*.deb` + "`" + ` (or ` + "`" + `dpkg -i /media/usb/*.deb` + "`" + `).

` + readmeDeploy
