;; The "env" module the random programs import a global from.
(module (global (export "g") i32 (i32.const 7)))
