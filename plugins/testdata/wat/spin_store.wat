;; Says it is running (guard.log), then stores to its memory for ever: the
;; module the runtime is closed under (TestCloseUnderARunningCall).
(module
  (import "guard" "log" (func $log (param i32 i32 i32)))
  (memory (export "memory") 1)
  (data (i32.const 0) "spinning")
  (func (export "guard_abi_v1"))
  (func (export "guard_evaluate") (param i32) (result i32)
    (call $log (i32.const 1) (i32.const 0) (i32.const 8))
    (loop $l
      (i32.store (i32.const 64) (i32.add (i32.load (i32.const 64)) (i32.const 1)))
      (br $l))
    (i32.const 0)))
