;; A module of OPA's WebAssembly ABI written by hand, to take the paths a
;; module built by opa cannot be made to take. opa_eval's entrypoint picks
;; what it does (see the table below); "entrypoints" and "builtins" are the
;; JSON texts at 1024 and 1100, which opa_json_dump hands back as they are.
(module
  (import "env" "memory" (memory 2))
  (import "env" "opa_abort" (func $abort (param i32)))
  (import "env" "opa_println" (func $println (param i32)))
  (import "env" "opa_builtin1" (func $builtin1 (param i32 i32 i32) (result i32)))
  (global (export "opa_wasm_abi_version") i32 (i32.const 1))
  (global (export "opa_wasm_abi_minor_version") i32 (i32.const 3))
  (global $heap (mut i32) (i32.const 4096))
  (data (i32.const 1024) "{\"allow\":0,\"abort\":1,\"print\":2,\"badbuiltin\":3,\"noend\":4,\"outside\":5,\"spin\":6,\"echo\":7}\00")
  (data (i32.const 1200) "{\"sprintf\":0}\00")
  (data (i32.const 1300) "[{\"result\":\"allow\"}]\00")
  (data (i32.const 1400) "the policy gave up\00")
  (data (i32.const 1500) "hello from print\00")
  (export "memory" (memory 0))
  ;; Values are their JSON text's address: parse keeps the text where it is.
  (func (export "opa_malloc") (param $n i32) (result i32)
    (local $p i32)
    (local.set $p (global.get $heap))
    (global.set $heap (i32.add (global.get $heap) (local.get $n)))
    (local.get $p))
  (func (export "opa_json_parse") (param $p i32) (param $n i32) (result i32) (local.get $p))
  (func (export "opa_json_dump") (param $v i32) (result i32) (local.get $v))
  (func (export "opa_heap_ptr_get") (result i32) (global.get $heap))
  (func (export "builtins") (result i32) (i32.const 1200))
  (func (export "entrypoints") (result i32) (i32.const 1024))
  (func (export "opa_eval") (param $r i32) (param $ep i32) (param $data i32) (param $in i32) (param $len i32) (param $heap i32) (param $fmt i32) (result i32)
    (global.set $heap (local.get $heap))
    (block $default
      (block $echo (block $spin (block $outside (block $noend (block $badbuiltin (block $print (block $abort (block $allow
        (br_table $allow $abort $print $badbuiltin $noend $outside $spin $echo $default (local.get $ep)))
        (return (i32.const 1300)))
        (call $abort (i32.const 1400))
        (return (i32.const 1300)))
        (call $println (i32.const 1500))
        (return (i32.const 1300)))
        (drop (call $builtin1 (i32.const 7) (i32.const 0) (local.get $in)))
        (return (i32.const 1300)))
      ;; noend: a result whose text runs to the end of memory with no NUL
      (memory.fill (i32.const 8192) (i32.const 65) (i32.sub (i32.mul (memory.size) (i32.const 65536)) (i32.const 8192)))
      (return (i32.const 8192)))
      (return (i32.const 0x7fffffff)))
      (loop $forever (br $forever))
      (return (i32.const 1300)))
      ;; echo: the input, which ends where the heap begins: NUL it
      (i32.store8 (i32.add (local.get $in) (local.get $len)) (i32.const 0))
      (return (local.get $in)))
    (i32.const 1300))
)
