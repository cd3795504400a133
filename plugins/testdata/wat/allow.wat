;; The smallest ABI v1 module: always allow.
(module
  (import "guard" "output" (func $output (param i32 i32)))
  (memory (export "memory") 1)
  (data (i32.const 16) "{\"decision\":\"allow\",\"reason\":\"wat\"}")
  (func (export "guard_abi_v1"))
  (func (export "guard_evaluate") (param i32) (result i32)
    (call $output (i32.const 16) (i32.const 35))
    (i32.const 0)))
