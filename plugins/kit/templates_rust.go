package kit

// The files of a new policy project in Rust (no_std, no crates); NAME is
// replaced by the project's name. guard.rs is the ABI v1 helper the
// project carries; policy.rs is the same rule as the Go template's. Both
// build with Debian's rustc 1.63 and later.

const rustGuard = `//! guard.rs: a tiny helper for debugpy-guard policy modules in Rust, ABI v1
//! (plugins/ABI.md in debugpy-guard's repository), for ` + "`" + `no_std` + "`" + `: the two
//! imports, a buffer for the request, a JSON reader for the request's
//! members, and a writer for the response. No crates: it builds with rustc
//! and the wasm32 standard library alone, with no network.
//!
//! The request is JSON as the host writes it: keys are never repeated and
//! never written with escapes, so ` + "`" + `get` + "`" + ` compares them byte for byte.

#[link(wasm_import_module = "guard")]
extern "C" {
    #[link_name = "input"]
    fn guard_input(ptr: *mut u8);
    #[link_name = "output"]
    fn guard_output(ptr: *const u8, len: i32);
}

/// ABI v1: the marker export.
#[no_mangle]
pub extern "C" fn guard_abi_v1() {}

pub const MAX_INPUT: usize = 1 << 20;
static mut INPUT: [u8; MAX_INPUT] = [0; MAX_INPUT];
static mut OUTPUT: [u8; 8192] = [0; 8192];

/// read copies the pending input (len bytes) and returns it; None when it
/// is too long for the buffer.
pub fn read(len: i32) -> Option<Json> {
    if len < 0 || len as usize > MAX_INPUT {
        return None;
    }
    unsafe {
        let input = &mut *core::ptr::addr_of_mut!(INPUT);
        guard_input(input.as_mut_ptr());
        Some(Json(&input[..len as usize]))
    }
}

/// A JSON value: its bytes, empty when absent.
#[derive(Clone, Copy)]
pub struct Json(pub &'static [u8]);

fn ws(c: u8) -> bool {
    c == b' ' || c == b'\t' || c == b'\n' || c == b'\r'
}

/// skip is the length of the value at the start of p.
fn skip(p: &[u8]) -> usize {
    let (mut i, mut depth) = (0usize, 0i32);
    loop {
        if i >= p.len() {
            return 0;
        }
        match p[i] {
            b'"' => {
                i += 1;
                while i < p.len() && p[i] != b'"' {
                    i += if p[i] == b'\\' { 2 } else { 1 };
                }
                i += 1;
            }
            b'{' | b'[' => {
                depth += 1;
                i += 1;
            }
            b'}' | b']' => {
                depth -= 1;
                i += 1;
            }
            c if ws(c) || c == b',' || c == b':' => i += 1,
            _ => {
                while i < p.len() && !ws(p[i]) && p[i] != b',' && p[i] != b'}' && p[i] != b']' {
                    i += 1;
                }
            }
        }
        if depth <= 0 {
            return i.min(p.len());
        }
    }
}

impl Json {
    pub fn exists(self) -> bool {
        !self.0.is_empty()
    }

    fn trim(self) -> &'static [u8] {
        let mut p = self.0;
        while let [c, rest @ ..] = p {
            if !ws(*c) {
                break;
            }
            p = rest;
        }
        p
    }

    /// get is the value of key in this object (absent: empty).
    pub fn get(self, key: &str) -> Json {
        let p = self.trim();
        if p.first() != Some(&b'{') {
            return Json(&[]);
        }
        let key = key.as_bytes();
        let mut i = 1;
        while i < p.len() {
            while i < p.len() && (ws(p[i]) || p[i] == b',') {
                i += 1;
            }
            if i >= p.len() || p[i] != b'"' {
                return Json(&[]);
            }
            let ks = i + 1;
            let mut ke = ks;
            while ke < p.len() && p[ke] != b'"' {
                ke += if p[ke] == b'\\' { 2 } else { 1 };
            }
            if ke >= p.len() {
                return Json(&[]);
            }
            i = ke + 1;
            while i < p.len() && (ws(p[i]) || p[i] == b':') {
                i += 1;
            }
            let n = skip(&p[i..]);
            if n == 0 {
                return Json(&[]);
            }
            if &p[ks..ke] == key {
                return Json(&p[i..i + n]);
            }
            i += n;
        }
        Json(&[])
    }

    /// elements walks this array.
    pub fn elements(self) -> Elements {
        let p = self.trim();
        if p.first() == Some(&b'[') {
            Elements(&p[1..])
        } else {
            Elements(&[])
        }
    }

    /// str decodes this string into buf and returns it; None when it is
    /// not a string (or not valid UTF-8 once decoded). \uXXXX escapes
    /// become UTF-8 (a surrogate pair one code point).
    pub fn str<'a>(self, buf: &'a mut [u8]) -> Option<&'a str> {
        let p = self.0;
        if p.len() < 2 || p[0] != b'"' {
            return None;
        }
        let mut o = 0;
        let mut i = 1;
        while i < p.len() - 1 && o + 4 < buf.len() {
            let c = p[i];
            if c != b'\\' {
                buf[o] = c;
                o += 1;
                i += 1;
                continue;
            }
            i += 1;
            let e = p[i];
            i += 1;
            let b = match e {
                b'b' => 8,
                b'f' => 12,
                b'n' => b'\n',
                b'r' => b'\r',
                b't' => b'\t',
                b'u' => {
                    let mut cp = hex4(&p[i..]);
                    i += 4;
                    if (0xD800..0xDC00).contains(&cp) && p.len() > i + 6 && p[i] == b'\\' && p[i + 1] == b'u' {
                        let lo = hex4(&p[i + 2..]);
                        if (0xDC00..0xE000).contains(&lo) {
                            cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
                            i += 6;
                        }
                    }
                    let ch = char::from_u32(cp).unwrap_or('\u{FFFD}');
                    o += ch.encode_utf8(&mut buf[o..]).len();
                    continue;
                }
                other => other, // " \ /
            };
            buf[o] = b;
            o += 1;
        }
        core::str::from_utf8(&buf[..o]).ok()
    }
}

fn hex4(p: &[u8]) -> u32 {
    let mut v = 0;
    for &h in p.iter().take(4) {
        v = v * 16
            + match h {
                b'0'..=b'9' => (h - b'0') as u32,
                b'a'..=b'f' => (h - b'a' + 10) as u32,
                b'A'..=b'F' => (h - b'A' + 10) as u32,
                _ => 0,
            };
    }
    v
}

/// The elements of an array.
pub struct Elements(&'static [u8]);

impl Iterator for Elements {
    type Item = Json;
    fn next(&mut self) -> Option<Json> {
        let mut p = self.0;
        while let [c, rest @ ..] = p {
            if !(ws(*c) || *c == b',') {
                break;
            }
            p = rest;
        }
        if p.is_empty() || p[0] == b']' {
            self.0 = &[];
            return None;
        }
        let n = skip(p);
        if n == 0 {
            self.0 = &[];
            return None;
        }
        self.0 = &p[n..];
        Some(Json(&p[..n]))
    }
}

/// is reports whether v is the string s.
pub fn is(v: Json, s: &str) -> bool {
    let mut buf = [0u8; 64];
    v.str(&mut buf) == Some(s)
}

fn output() -> &'static mut [u8; 8192] {
    unsafe { &mut *core::ptr::addr_of_mut!(OUTPUT) }
}

fn append(o: &mut usize, s: &str, quote: bool) {
    let out = output();
    {
        for &c in s.as_bytes() {
            if *o + 8 >= out.len() {
                return;
            }
            if quote && (c == b'"' || c == b'\\') {
                out[*o] = b'\\';
                out[*o + 1] = c;
                *o += 2;
            } else if quote && c < 0x20 {
                let hex = b"0123456789abcdef";
                out[*o..*o + 6].copy_from_slice(&[b'\\', b'u', b'0', b'0', hex[(c >> 4) as usize], hex[(c & 15) as usize]]);
                *o += 6;
            } else {
                out[*o] = c;
                *o += 1;
            }
        }
    }
}

/// decide hands back a decision ("allow", "deny", "approve", "abstain")
/// and its reason (the two parts joined).
pub fn decide(decision: &str, reason: &str, more: &str) -> i32 {
    let mut o = 0;
    append(&mut o, "{\"decision\":\"", false);
    append(&mut o, decision, true);
    append(&mut o, "\",\"reason\":\"", false);
    append(&mut o, reason, true);
    append(&mut o, more, true);
    append(&mut o, "\"}", false);
    unsafe { guard_output(output().as_ptr(), o as i32) };
    0
}

/// fail hands back an error: the call is denied, naming the module.
pub fn fail(msg: &str) -> i32 {
    let mut o = 0;
    append(&mut o, msg, false);
    unsafe { guard_output(output().as_ptr(), o as i32) };
    1
}

#[panic_handler]
fn panic(_: &core::panic::PanicInfo) -> ! {
    core::arch::wasm32::unreachable()
}
`

const rustPolicy = `//! NAME: a debugpy-guard policy in Rust (no_std), on guard.rs (ABI v1).
//!
//! The sample rule (the same as the Go template's): an expression to
//! evaluate that mentions one of the settings' words (password, secret,
//! token by default; ASCII letters match in any case) is denied; changing a
//! variable needs a person; everything else is left to the other modules.
//!
//! Build it with ` + "`" + `debugpy-guard policy build .` + "`" + `, test it with
//! ` + "`" + `debugpy-guard policy test cases` + "`" + ` (README.md).
#![no_std]

mod guard;
use guard::{decide, fail, is, read, Json};

const DEFAULT_WORDS: [&str; 3] = ["password", "secret", "token"];

/// mentions reports whether text holds word, ASCII letters in any case.
fn mentions(text: &str, word: &str) -> bool {
    let (t, w) = (text.as_bytes(), word.as_bytes());
    !w.is_empty() && t.windows(w.len()).any(|s| s.eq_ignore_ascii_case(w))
}

/// guard_validate checks the settings once, at load: words, when given,
/// is a list of non-empty strings.
#[no_mangle]
pub extern "C" fn guard_validate(len: i32) -> i32 {
    let settings = match read(len) {
        Some(s) => s,
        None => return fail("NAME: the settings are too long"),
    };
    let words = settings.get("words");
    if !words.exists() {
        return 0;
    }
    if words.0.iter().find(|c| !c.is_ascii_whitespace()) != Some(&b'[') {
        return fail("NAME: words must be a list of strings");
    }
    let mut buf = [0u8; 256];
    for w in words.elements() {
        if !matches!(w.str(&mut buf), Some(s) if !s.is_empty()) {
            return fail("NAME: words must be a list of non-empty strings");
        }
    }
    0
}

static mut EXPR: [u8; 65536] = [0; 65536];

/// guard_evaluate is the rule, for each call. The request's members: phase
/// ("call" before the tool runs, "result" after), tool, category (read,
/// write, execute), arguments, result, settings, session, debug_session,
/// derived (plugins/ABI.md).
#[no_mangle]
pub extern "C" fn guard_evaluate(len: i32) -> i32 {
    let req = match read(len) {
        Some(r) => r,
        None => return fail("NAME: the request is too long"),
    };
    if !is(req.get("phase"), "call") {
        return decide("abstain", "", "");
    }
    let tool = req.get("tool");
    if is(tool, "debugpy_evaluate") {
        let buf = unsafe { &mut *core::ptr::addr_of_mut!(EXPR) };
        let expr = match req.get("arguments").get("expression").str(buf) {
            Some(e) => e,
            None => return decide("abstain", "", ""),
        };
        let words: Json = req.get("settings").get("words");
        if !words.exists() {
            for w in DEFAULT_WORDS {
                if mentions(expr, w) {
                    return decide("deny", "the expression mentions ", w);
                }
            }
            return decide("abstain", "", "");
        }
        let mut buf = [0u8; 256];
        for w in words.elements() {
            if let Some(w) = w.str(&mut buf) {
                if mentions(expr, w) {
                    return decide("deny", "the expression mentions ", w);
                }
            }
        }
    } else if is(tool, "debugpy_set_variable") {
        return decide("approve", "changing a variable of the running program needs a person", "");
    }
    decide("abstain", "", "")
}
`

const rustReadme = `# NAME: a debugpy-guard policy in Rust

A policy module for [debugpy-guard](https://github.com/debugpy-guard/debugpy-guard), in Rust
without the standard library (` + "`" + `no_std` + "`" + `) and without crates. ` + "`" + `guard.rs` + "`" + ` is a tiny helper for ABI v1
(the imports, a buffer for the request, a JSON reader, the response); it travels with the project,
so the build needs rustc and the wasm32 standard library, and nothing from a network.

` + readmeLoop +
	`` + "`" + `policy build` + "`" + ` runs ` + "`" + `rustc --edition 2021 --crate-type cdylib --target wasm32-unknown-unknown
-C opt-level=2 -C panic=abort -C strip=symbols -o NAME.wasm policy.rs` + "`" + ` with the first rustc that has
the wasm32 target: ` + "`" + `$RUSTC` + "`" + `, the one on PATH, then /usr/bin/rustc (the same source and rustc give the
same bytes). Edit ` + "`" + `policy.rs` + "`" + `: ` + "`" + `guard_evaluate` + "`" + ` gets each call's request (` + "`" + `req.get("tool")` + "`" + `,
` + "`" + `"arguments"` + "`" + `, ` + "`" + `"phase"` + "`" + `, ` + "`" + `"settings"` + "`" + ` ...) and answers with
` + "`" + `decide("allow" | "deny" | "approve" | "abstain", reason, more)` + "`" + `; ` + "`" + `guard_validate` + "`" + ` checks the
settings once at load. The request and response are plugins/ABI.md in debugpy-guard's repository.
A module gets no files, environment or network.

## The toolchain, on a machine with no network

Debian's ` + "`" + `rustc` + "`" + ` and ` + "`" + `libstd-rust-dev-wasm32` + "`" + ` packages (or rustup with
` + "`" + `rustup target add wasm32-unknown-unknown` + "`" + `). On a machine with network and the same Debian release:

` + "`" + `` + "`" + `` + "`" + `sh
apt-get install --download-only -y rustc libstd-rust-dev-wasm32   # the .debs land in /var/cache/apt/archives
cp /var/cache/apt/archives/*.deb /media/usb/
` + "`" + `` + "`" + `` + "`" + `

and on the machine with none: ` + "`" + `apt-get install -y /media/usb/*.deb` + "`" + ` (or ` + "`" + `dpkg -i /media/usb/*.deb` + "`" + `).

` + readmeDeploy
