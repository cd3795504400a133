;; Denies debugpy_evaluate, abstains on every other tool: a module without a
;; runtime that reads the request and decides, for the benchmarks that set
;; a module's cost against the host's (cmd/debugpy-guard's
;; BenchmarkDeniedVsIntercept). As plugins/examples/wat/policy.wat does, it
;; looks for the tool only before "arguments": ABI v1 fixes the members'
;; order, so an argument cannot fake the tool.
(module
  (import "guard" "input" (func $input (param i32)))
  (import "guard" "output" (func $output (param i32 i32)))
  (memory (export "memory") 2)

  (data (i32.const 0)   "\"arguments\":")                  ;; 12 bytes
  (data (i32.const 32)  "\"tool\":\"debugpy_evaluate\"")   ;; 25 bytes
  (data (i32.const 64)  "{\"decision\":\"deny\",\"reason\":\"evaluate is not allowed\"}") ;; 54 bytes
  (data (i32.const 128) "{\"decision\":\"abstain\",\"reason\":\"\"}") ;; 34 bytes
  (data (i32.const 192) "request too large for this module") ;; 33 bytes

  (global $base i32 (i32.const 65536))

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

  (func (export "guard_evaluate") (param $len i32) (result i32)
    (local $end i32)
    ;; The request goes at 64 KiB, in the memory's second page: longer
    ;; requests are refused (the benchmark's are ~300 bytes).
    (if (i32.gt_u (local.get $len) (i32.const 65536))
      (then (call $output (i32.const 192) (i32.const 33)) (return (i32.const 1))))
    (call $input (global.get $base))
    (local.set $end (call $find (global.get $base) (local.get $len) (i32.const 0) (i32.const 12)))
    (if (i32.lt_s (local.get $end) (i32.const 0)) (then (local.set $end (local.get $len))))
    (if (i32.ge_s (call $find (global.get $base) (local.get $end) (i32.const 32) (i32.const 25)) (i32.const 0))
      (then (call $output (i32.const 64) (i32.const 54)) (return (i32.const 0))))
    (call $output (i32.const 128) (i32.const 34))
    (i32.const 0)))
