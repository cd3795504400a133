;; Imports a WASI function that does not exist.
(module
  (import "wasi_snapshot_preview1" "sock_steal" (func $s (param i32) (result i32)))
  (memory (export "memory") 1)
  (func (export "guard_abi_v1"))
  (func (export "guard_evaluate") (param i32) (result i32) (i32.const 0)))
