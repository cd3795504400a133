;; Returns non-zero: a module error whose output is the error text.
(module
  (import "guard" "output" (func $output (param i32 i32)))
  (memory (export "memory") 1)
  (data (i32.const 16) "cannot decide")
  (func (export "guard_abi_v1"))
  (func (export "guard_evaluate") (param i32) (result i32)
    (call $output (i32.const 16) (i32.const 13))
    (i32.const 7)))
