;; A start function that never ends: instantiation must end anyway, when the
;; fuel the module starts with runs out.
(module
  (memory (export "memory") 1)
  (func $forever (loop $l (br $l)))
  (start $forever)
  (func (export "guard_abi_v1"))
  (func (export "guard_evaluate") (param i32) (result i32) (i32.const 0)))
