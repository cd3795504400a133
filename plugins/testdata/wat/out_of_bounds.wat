;; Points its output past the end of its memory.
(module
  (import "guard" "output" (func $output (param i32 i32)))
  (memory (export "memory") 1)
  (func (export "guard_abi_v1"))
  (func (export "guard_evaluate") (param i32) (result i32)
    (call $output (i32.const 65000) (i32.const 4096))
    (i32.const 0)))
