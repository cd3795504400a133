;; Has the marker but no guard_evaluate.
(module
  (memory (export "memory") 1)
  (func (export "guard_abi_v1")))
