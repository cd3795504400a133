;; Endless recursion, each frame with locals held live across the call: the
;; guest's stack grows until wazero's limit traps it.
(module
  (memory (export "memory") 1)
  (func (export "guard_abi_v1"))
  (func $down (param $n i64) (result i64)
    (local $a i64) (local $b i64) (local $c i64) (local $d i64)
    (local.set $a (i64.add (local.get $n) (i64.const 1)))
    (local.set $b (i64.mul (local.get $a) (i64.const 3)))
    (local.set $c (i64.xor (local.get $b) (local.get $n)))
    (local.set $d (call $down (local.get $c)))
    (i64.add (i64.add (local.get $a) (local.get $b)) (i64.add (local.get $c) (local.get $d))))
  (func (export "guard_evaluate") (param i32) (result i32)
    (drop (call $down (i64.const 0)))
    (i32.const 0)))
