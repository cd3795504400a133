;; Imports a host function ABI v1 does not have.
(module
  (import "guard" "exec" (func $exec (param i32 i32)))
  (memory (export "memory") 1)
  (func (export "guard_abi_v1"))
  (func (export "guard_evaluate") (param i32) (result i32) (i32.const 0)))
