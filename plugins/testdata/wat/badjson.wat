;; Answers with bytes that are not JSON.
(module
  (import "guard" "output" (func $output (param i32 i32)))
  (memory (export "memory") 1)
  (data (i32.const 16) "this is not json")
  (func (export "guard_abi_v1"))
  (func (export "guard_evaluate") (param i32) (result i32)
    (call $output (i32.const 16) (i32.const 16))
    (i32.const 0)))
