;; A guard_validate that never ends: the load must end anyway, at the
;; setup's deadline or when its fuel runs out, and refuse the module.
(module
  (memory (export "memory") 1)
  (func (export "guard_abi_v1"))
  (func (export "guard_validate") (param i32) (result i32) (loop $l (br $l)) (i32.const 0))
  (func (export "guard_evaluate") (param i32) (result i32) (i32.const 0)))
