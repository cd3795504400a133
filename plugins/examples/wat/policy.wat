;; A debugpy-guard policy in WebAssembly text, written against plugins/ABI.md
;; alone: no SDK, no allocator, no WASI. Assemble it with wabt:
;;
;;   wat2wasm policy.wat -o policy.wasm
;;
;; The rule: attach by PID is denied, every execute-category call needs a
;; person (approve), everything else is left to other modules (abstain).
;;
;; It finds the request's tool and category by searching the bytes before
;; "arguments": ABI v1 fixes the order of the request's members (abi, phase,
;; tool, category, arguments, ...), and a JSON string cannot hold an
;; unescaped quote, so the first "arguments": is the member itself and
;; nothing an agent sends can fake the tool or the category.

(module
  (import "guard" "input" (func $input (param i32)))
  (import "guard" "output" (func $output (param i32 i32)))

  ;; Pages 0-1: constants below 1024, the request from 65536 on; grown as
  ;; needed (the host's memory limit caps it).
  (memory (export "memory") 2)

  (data (i32.const 0)   "\"arguments\":")                  ;; 12 bytes
  (data (i32.const 32)  "\"tool\":\"debugpy_attach_pid\"")  ;; 27 bytes
  (data (i32.const 64)  "\"category\":\"execute\"")         ;; 20 bytes
  (data (i32.const 128) "{\"decision\":\"deny\",\"reason\":\"attach by PID is off in this team's policy\"}") ;; 73
  (data (i32.const 256) "{\"decision\":\"approve\",\"reason\":\"execute-category calls run Python: a person decides\"}") ;; 85
  (data (i32.const 384) "{\"decision\":\"abstain\",\"reason\":\"\"}") ;; 34
  (data (i32.const 448) "settings must be a JSON object")  ;; 30
  (data (i32.const 512) "request too large for this module") ;; 33

  (global $base i32 (i32.const 65536))

  ;; The ABI version marker: present, never called.
  (func (export "guard_abi_v1"))

  ;; find: the offset of needle in hay[0:n), or -1.
  (func $find (param $hay i32) (param $n i32) (param $needle i32) (param $m i32) (result i32)
    (local $i i32) (local $j i32)
    (block $none
      (loop $outer
        (br_if $none (i32.gt_s (i32.add (local.get $i) (local.get $m)) (local.get $n)))
        (local.set $j (i32.const 0))
        (block $mismatch
          (loop $inner
            (br_if $mismatch (i32.ne
              (i32.load8_u (i32.add (local.get $hay) (i32.add (local.get $i) (local.get $j))))
              (i32.load8_u (i32.add (local.get $needle) (local.get $j)))))
            (local.set $j (i32.add (local.get $j) (i32.const 1)))
            (if (i32.eq (local.get $j) (local.get $m)) (then (return (local.get $i))))
            (br $inner)))
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (br $outer)))
    (i32.const -1))

  ;; read: makes room for n bytes at $base and has the host copy the pending
  ;; input there. 0 when there is no room.
  (func $read (param $n i32) (result i32)
    (local $need i32)
    (local.set $need (i32.sub
      (i32.shr_u (i32.add (i32.add (global.get $base) (local.get $n)) (i32.const 65535)) (i32.const 16))
      (memory.size)))
    (if (i32.gt_s (local.get $need) (i32.const 0))
      (then (if (i32.eq (memory.grow (local.get $need)) (i32.const -1)) (then (return (i32.const 0))))))
    (call $input (global.get $base))
    (i32.const 1))

  ;; guard_evaluate(len): the request is len bytes of JSON.
  (func (export "guard_evaluate") (param $len i32) (result i32)
    (local $end i32)
    (if (i32.eqz (call $read (local.get $len)))
      (then (call $output (i32.const 512) (i32.const 33)) (return (i32.const 1))))
    ;; Search only the members before "arguments".
    (local.set $end (call $find (global.get $base) (local.get $len) (i32.const 0) (i32.const 12)))
    (if (i32.lt_s (local.get $end) (i32.const 0)) (then (local.set $end (local.get $len))))
    (if (i32.ge_s (call $find (global.get $base) (local.get $end) (i32.const 32) (i32.const 27)) (i32.const 0))
      (then (call $output (i32.const 128) (i32.const 73)) (return (i32.const 0))))
    (if (i32.ge_s (call $find (global.get $base) (local.get $end) (i32.const 64) (i32.const 20)) (i32.const 0))
      (then (call $output (i32.const 256) (i32.const 85)) (return (i32.const 0))))
    (call $output (i32.const 384) (i32.const 34))
    (i32.const 0))

  ;; guard_validate(len): the settings, once at load; they must be an object.
  (func (export "guard_validate") (param $len i32) (result i32)
    (if (i32.eqz (call $read (local.get $len)))
      (then (call $output (i32.const 512) (i32.const 33)) (return (i32.const 1))))
    (if (i32.and (i32.gt_u (local.get $len) (i32.const 0))
                 (i32.eq (i32.load8_u (global.get $base)) (i32.const 123))) ;; '{'
      (then (return (i32.const 0))))
    (call $output (i32.const 448) (i32.const 30))
    (i32.const 1))
)
