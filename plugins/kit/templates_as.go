package kit

// The files of a new policy project in AssemblyScript; NAME is replaced by
// the project's name. guard.ts is the ABI v1 helper the project carries;
// policy.ts is the same rule as the Go template's. Tested with the
// compiler 0.28.20.

const asGuard = `// guard.ts: a tiny helper for debugpy-guard policy modules in
// AssemblyScript, ABI v1 (plugins/ABI.md in debugpy-guard's repository):
// the two imports, a buffer for the request, a JSON reader for the
// request's members, and a writer for the response. It works on bytes in
// linear memory, so the module needs no garbage collector (--runtime stub)
// and builds with the AssemblyScript compiler alone, with no network.
//
// The request is JSON as the host writes it: keys are never repeated and
// never written with escapes, so get compares them byte for byte.

@external("guard", "input")
declare function guard_input(ptr: usize): void;
@external("guard", "output")
declare function guard_output(ptr: usize, len: i32): void;

export const MAX_INPUT: i32 = 1 << 20;
const input: usize = memory.data(MAX_INPUT);
const output: usize = memory.data(8192);
const OUTPUT_CAP: i32 = 8192;

// A JSON value: where it starts and how long it is; n == 0 when absent.
@final
export class Json {
  constructor(public p: usize, public n: i32) {}
}

// read copies the pending input (len bytes); null when it is too long.
export function read(len: i32): Json | null {
  if (len < 0 || len > MAX_INPUT) return null;
  guard_input(input);
  return new Json(input, len);
}

function at(p: usize, i: i32): u8 {
  return load<u8>(p + <usize>i);
}

function ws(c: u8): bool {
  return c == 0x20 || c == 0x09 || c == 0x0a || c == 0x0d;
}

// skip is the length of the value at p (at most n bytes).
function skip(p: usize, n: i32): i32 {
  let i = 0;
  let depth = 0;
  do {
    if (i >= n) return 0;
    const c = at(p, i);
    if (c == 0x22) {
      for (i++; i < n && at(p, i) != 0x22; i++) if (at(p, i) == 0x5c) i++;
      i++;
    } else if (c == 0x7b || c == 0x5b) {
      depth++;
      i++;
    } else if (c == 0x7d || c == 0x5d) {
      depth--;
      i++;
    } else if (ws(c) || c == 0x2c || c == 0x3a) {
      i++;
    } else {
      while (i < n && !ws(at(p, i)) && at(p, i) != 0x2c && at(p, i) != 0x7d && at(p, i) != 0x5d) i++;
    }
  } while (depth > 0);
  return i < n ? i : n;
}

function trim(v: Json): Json {
  let p = v.p;
  let n = v.n;
  while (n > 0 && ws(load<u8>(p))) {
    p++;
    n--;
  }
  return new Json(p, n);
}

// get is the value of key in the object v (absent: n == 0).
export function get(v: Json, key: string): Json {
  const none = new Json(0, 0);
  v = trim(v);
  if (v.n == 0 || at(v.p, 0) != 0x7b) return none;
  const k = String.UTF8.encode(key);
  const kp = changetype<usize>(k);
  const kl = k.byteLength;
  let i = 1;
  while (i < v.n) {
    while (i < v.n && (ws(at(v.p, i)) || at(v.p, i) == 0x2c)) i++;
    if (i >= v.n || at(v.p, i) != 0x22) return none;
    const ks = i + 1;
    let ke = ks;
    while (ke < v.n && at(v.p, ke) != 0x22) ke += at(v.p, ke) == 0x5c ? 2 : 1;
    if (ke >= v.n) return none;
    i = ke + 1;
    while (i < v.n && (ws(at(v.p, i)) || at(v.p, i) == 0x3a)) i++;
    const l = skip(v.p + <usize>i, v.n - i);
    if (l == 0) return none;
    if (ke - ks == kl && memory.compare(v.p + <usize>ks, kp, kl) == 0) return new Json(v.p + <usize>i, l);
    i += l;
  }
  return none;
}

// elements are the elements of the array v.
export function elements(v: Json): Json[] {
  const out = new Array<Json>();
  v = trim(v);
  if (v.n == 0 || at(v.p, 0) != 0x5b) return out;
  let i = 1;
  while (i < v.n) {
    while (i < v.n && (ws(at(v.p, i)) || at(v.p, i) == 0x2c)) i++;
    if (i >= v.n || at(v.p, i) == 0x5d) break;
    const l = skip(v.p + <usize>i, v.n - i);
    if (l == 0) break;
    out.push(new Json(v.p + <usize>i, l));
    i += l;
  }
  return out;
}

function hex4(p: usize, i: i32, n: i32): u32 {
  let v: u32 = 0;
  for (let k = 0; k < 4 && i + k < n; k++) {
    const h = at(p, i + k);
    v = v * 16 + (h >= 0x61 ? h - 0x61 + 10 : h >= 0x41 ? h - 0x41 + 10 : h - 0x30);
  }
  return v;
}

// str decodes the string v; null when it is not a string. \uXXXX escapes
// become their code points (a surrogate pair one).
export function str(v: Json): string | null {
  if (v.n < 2 || at(v.p, 0) != 0x22) return null;
  const buf = new Uint8Array(v.n * 2 + 4);
  let o = 0;
  for (let i = 1; i < v.n - 1; i++) {
    let c = at(v.p, i);
    if (c != 0x5c) {
      buf[o++] = c;
      continue;
    }
    c = at(v.p, ++i);
    if (c == 0x62) buf[o++] = 8;
    else if (c == 0x66) buf[o++] = 12;
    else if (c == 0x6e) buf[o++] = 10;
    else if (c == 0x72) buf[o++] = 13;
    else if (c == 0x74) buf[o++] = 9;
    else if (c == 0x75) {
      let cp = hex4(v.p, i + 1, v.n);
      i += 4;
      if (cp >= 0xd800 && cp < 0xdc00 && i + 6 < v.n && at(v.p, i + 1) == 0x5c && at(v.p, i + 2) == 0x75) {
        const lo = hex4(v.p, i + 3, v.n);
        if (lo >= 0xdc00 && lo < 0xe000) {
          cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
          i += 6;
        }
      }
      if (cp >= 0xd800 && cp < 0xe000) cp = 0xfffd;
      if (cp < 0x80) buf[o++] = <u8>cp;
      else if (cp < 0x800) {
        buf[o++] = <u8>(0xc0 | (cp >> 6));
        buf[o++] = <u8>(0x80 | (cp & 63));
      } else if (cp < 0x10000) {
        buf[o++] = <u8>(0xe0 | (cp >> 12));
        buf[o++] = <u8>(0x80 | ((cp >> 6) & 63));
        buf[o++] = <u8>(0x80 | (cp & 63));
      } else {
        buf[o++] = <u8>(0xf0 | (cp >> 18));
        buf[o++] = <u8>(0x80 | ((cp >> 12) & 63));
        buf[o++] = <u8>(0x80 | ((cp >> 6) & 63));
        buf[o++] = <u8>(0x80 | (cp & 63));
      }
    } else buf[o++] = c; // " \ /
  }
  return String.UTF8.decodeUnsafe(buf.dataStart, o);
}

// is reports whether v is the string s.
export function is(v: Json, s: string): bool {
  const d = str(v);
  return d != null && d == s;
}

function put(o: i32, c: u8): i32 {
  store<u8>(output + <usize>o, c);
  return o + 1;
}

function append(o: i32, s: string, quote: bool): i32 {
  const b = String.UTF8.encode(s);
  const p = changetype<usize>(b);
  const hex = "0123456789abcdef";
  for (let i = 0; i < b.byteLength && o < OUTPUT_CAP - 8; i++) {
    const c = load<u8>(p + <usize>i);
    if (quote && (c == 0x22 || c == 0x5c)) {
      o = put(put(o, 0x5c), c);
    } else if (quote && c < 0x20) {
      o = put(put(put(put(o, 0x5c), 0x75), 0x30), 0x30);
      o = put(put(o, <u8>hex.charCodeAt(c >> 4)), <u8>hex.charCodeAt(c & 15));
    } else o = put(o, c);
  }
  return o;
}

// decide hands back a decision ("allow", "deny", "approve", "abstain") and
// its reason (the two parts joined).
export function decide(decision: string, reason: string, more: string): i32 {
  let o = append(0, '{"decision":"', false);
  o = append(o, decision, true);
  o = append(o, '","reason":"', false);
  o = append(o, reason, true);
  o = append(o, more, true);
  o = append(o, '"}', false);
  guard_output(output, o);
  return 0;
}

// fail hands back an error: the call is denied, naming the module.
export function fail(msg: string): i32 {
  const o = append(0, msg, false);
  guard_output(output, o);
  return 1;
}

// abort replaces AssemblyScript's import of env.abort, which the host does
// not give: a failed assertion traps.
export function abort(message: string | null, file: string | null, line: u32, column: u32): void {
  unreachable();
}
`

const asPolicy = `// NAME: a debugpy-guard policy in AssemblyScript, on guard.ts (ABI v1).
//
// The sample rule (the same as the Go template's): an expression to
// evaluate that mentions one of the settings' words (password, secret,
// token by default; ASCII letters match in any case) is denied; changing a
// variable needs a person; everything else is left to the other modules.
//
// Build it with ` + "`" + `debugpy-guard policy build .` + "`" + `, test it with
// ` + "`" + `debugpy-guard policy test cases` + "`" + ` (README.md).
import { Json, read, get, elements, str, is, decide, fail } from "./guard";

const DEFAULT_WORDS = ["password", "secret", "token"];

// lower lower-cases ASCII letters only.
function lower(s: string): string {
  let out = "";
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    out += String.fromCharCode(c >= 65 && c <= 90 ? c + 32 : c);
  }
  return out;
}

// mentions reports whether text holds word, ASCII letters in any case.
function mentions(text: string, word: string): bool {
  return word.length > 0 && lower(text).includes(lower(word));
}

// ABI v1: the marker export.
export function guard_abi_v1(): void {}

// guard_validate checks the settings once, at load: words, when given, is
// a list of non-empty strings.
export function guard_validate(len: i32): i32 {
  const settings = read(len);
  if (settings == null) return fail("NAME: the settings are too long");
  const words = get(settings, "words");
  if (words.n == 0) return 0;
  let i = 0;
  while (i < words.n && load<u8>(words.p + <usize>i) <= 0x20) i++;
  if (load<u8>(words.p + <usize>i) != 0x5b) return fail("NAME: words must be a list of strings");
  const list = elements(words);
  for (let k = 0; k < list.length; k++) {
    const w = str(list[k]);
    if (w == null || w.length == 0) return fail("NAME: words must be a list of non-empty strings");
  }
  return 0;
}

// guard_evaluate is the rule, for each call. The request's members: phase
// ("call" before the tool runs, "result" after), tool, category (read,
// write, execute), arguments, result, settings, session, debug_session,
// derived (plugins/ABI.md).
export function guard_evaluate(len: i32): i32 {
  const req = read(len);
  if (req == null) return fail("NAME: the request is too long");
  if (!is(get(req, "phase"), "call")) return decide("abstain", "", "");
  const tool = get(req, "tool");
  if (is(tool, "debugpy_evaluate")) {
    const expr = str(get(get(req, "arguments"), "expression"));
    if (expr == null) return decide("abstain", "", "");
    const words = get(get(req, "settings"), "words");
    if (words.n == 0) {
      for (let k = 0; k < DEFAULT_WORDS.length; k++)
        if (mentions(expr, DEFAULT_WORDS[k])) return decide("deny", "the expression mentions ", DEFAULT_WORDS[k]);
      return decide("abstain", "", "");
    }
    const list = elements(words);
    for (let k = 0; k < list.length; k++) {
      const w = str(list[k]);
      if (w != null && mentions(expr, w)) return decide("deny", "the expression mentions ", w);
    }
  } else if (is(tool, "debugpy_set_variable")) {
    return decide("approve", "changing a variable of the running program needs a person", "");
  }
  return decide("abstain", "", "");
}
`

const asReadme = `# NAME: a debugpy-guard policy in AssemblyScript

A policy module for [debugpy-guard](https://github.com/debugpy-guard/debugpy-guard), in
AssemblyScript. ` + "`" + `guard.ts` + "`" + ` is a tiny helper for ABI v1 (the imports, a buffer for the request, a
JSON reader, the response); it travels with the project, so the build needs the AssemblyScript
compiler and nothing from a network.

` + readmeLoop +
	`` + "`" + `policy build` + "`" + ` runs ` + "`" + `asc policy.ts -o NAME.wasm -O3 --noAssert --use abort=guard/abort` + "`" + ` (the same
source and compiler give the same bytes; ` + "`" + `abort` + "`" + ` traps, as the host gives no ` + "`" + `env.abort` + "`" + `). Edit
` + "`" + `policy.ts` + "`" + `: ` + "`" + `guard_evaluate` + "`" + ` gets each call's request (` + "`" + `get(req, "tool")` + "`" + `, ` + "`" + `"arguments"` + "`" + `,
` + "`" + `"phase"` + "`" + `, ` + "`" + `"settings"` + "`" + ` ...) and answers with
` + "`" + `decide("allow" | "deny" | "approve" | "abstain", reason, more)` + "`" + `; ` + "`" + `guard_validate` + "`" + ` checks the
settings once at load. The request and response are plugins/ABI.md in debugpy-guard's repository.
A module gets no files, environment or network.

## The toolchain, on a machine with no network

The compiler is the npm package ` + "`" + `assemblyscript` + "`" + ` (0.28.20 was tested), run by Node.js 18 or later.
On a machine with network:

` + "`" + `` + "`" + `` + "`" + `sh
npm install -g assemblyscript@0.28.20
tar -C "$(npm root -g)" -czf /media/usb/assemblyscript.tgz assemblyscript   # with its binaryen and long
` + "`" + `` + "`" + `` + "`" + `

and on the machine with none (Node.js installed, e.g. Debian's ` + "`" + `nodejs` + "`" + `):

` + "`" + `` + "`" + `` + "`" + `sh
tar -C "$(npm root -g)" -xzf /media/usb/assemblyscript.tgz
ln -s "$(npm root -g)/assemblyscript/bin/asc.js" /usr/local/bin/asc
` + "`" + `` + "`" + `` + "`" + `

` + readmeDeploy
