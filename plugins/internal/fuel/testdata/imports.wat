;; Every kind of import, globals of its own, a start function, an exported
;; global and a loop in a constant-heavy body: the rewrite must put the fuel
;; global after the imported and defined ones and keep every index.
(module
  (import "env" "f" (func $f (param i32) (result i32)))
  (import "env" "g" (global $ig i32))
  (import "env" "h" (global $ih (mut i64)))
  (import "env" "t" (table 1 funcref))
  (import "env" "m" (memory 1))
  (global $a (mut i32) (i32.const 1))
  (global $b f64 (f64.const 2.5))
  (export "a" (global $a))
  (export "b" (global $b))
  (func $start (global.set $a (i32.add (global.get $ig) (global.get $a))))
  (start $start)
  (func (export "run") (param i32) (result i32) (local $i i32) (local i64 f32)
    (loop $l
      (local.set $i (i32.add (local.get $i) (call $f (local.get 0))))
      (br_if $l (i32.lt_u (local.get $i) (i32.const 10))))
    (v128.const i32x4 1 2 3 4)
    (drop)
    (memory.fill (i32.const 0) (i32.const 0) (i32.const 8))
    (i64.trunc_sat_f64_s (f64.const 1.5))
    (drop)
    (local.get $i)))
