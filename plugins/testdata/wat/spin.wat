;; An endless loop of a runtime-free guest: the tightest loop there is, one
;; branch back to its header, which the fuel rewrite charges. The fuel runs
;; out, or the watchdog empties it at the deadline.
(module
  (memory (export "memory") 1)
  (func (export "guard_abi_v1"))
  (func (export "guard_evaluate") (param i32) (result i32)
    (loop $l (br $l))
    (i32.const 0)))
