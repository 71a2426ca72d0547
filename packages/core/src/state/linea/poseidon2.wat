;; Poseidon2 over KoalaBear (p = 2^31 - 2^24 + 1), width 16: the same permutation and hash as
;; poseidon2.ts (whose comments cite Linea's Poseidon2.sol), in 64-bit integers. Compiled by
;; scripts/build-wasm.js into poseidon2Wasm.ts.
;;
;; Memory: 0..127 the state (16 x i64), 128..191 h (8 x i64), 1024.. the constants (full-round keys
;; 6 x 16 u32, partial-round keys 21 u32, the internal diagonal 16 u32), 4096.. the input, whose hash
;; is written at 2048.
(module
  (memory (export "memory") 4)
  (global $P i64 (i64.const 2130706433))

  (func $sbox (param $x i64) (result i64)
    (local $y i64)
    (local.set $y (i64.rem_u (i64.mul (local.get $x) (local.get $x)) (global.get $P)))
    (i64.rem_u (i64.mul (local.get $y) (local.get $x)) (global.get $P)))

  ;; circ(2·M4, M4, M4, M4) with M4 = [[2,3,1,1],[1,2,3,1],[1,1,2,3],[3,1,1,2]].
  (func $external
    (local $g i32) (local $a i64) (local $b i64) (local $c i64) (local $d i64) (local $t i64) (local $j i32)
    (local.set $g (i32.const 0))
    (loop $groups
      (local.set $a (i64.load (local.get $g)))
      (local.set $b (i64.load offset=8 (local.get $g)))
      (local.set $c (i64.load offset=16 (local.get $g)))
      (local.set $d (i64.load offset=24 (local.get $g)))
      (i64.store (local.get $g)
        (i64.add (i64.add (i64.add (i64.shl (local.get $a) (i64.const 1)) (i64.mul (local.get $b) (i64.const 3))) (local.get $c)) (local.get $d)))
      (i64.store offset=8 (local.get $g)
        (i64.add (i64.add (i64.add (local.get $a) (i64.shl (local.get $b) (i64.const 1))) (i64.mul (local.get $c) (i64.const 3))) (local.get $d)))
      (i64.store offset=16 (local.get $g)
        (i64.add (i64.add (i64.add (local.get $a) (local.get $b)) (i64.shl (local.get $c) (i64.const 1))) (i64.mul (local.get $d) (i64.const 3))))
      (i64.store offset=24 (local.get $g)
        (i64.add (i64.add (i64.add (i64.mul (local.get $a) (i64.const 3)) (local.get $b)) (local.get $c)) (i64.shl (local.get $d) (i64.const 1))))
      (local.set $g (i32.add (local.get $g) (i32.const 32)))
      (br_if $groups (i32.lt_u (local.get $g) (i32.const 128))))
    (local.set $j (i32.const 0))
    (loop $columns
      (local.set $t
        (i64.add (i64.add (i64.load (local.get $j)) (i64.load offset=32 (local.get $j)))
                 (i64.add (i64.load offset=64 (local.get $j)) (i64.load offset=96 (local.get $j)))))
      (i64.store (local.get $j) (i64.rem_u (i64.add (i64.load (local.get $j)) (local.get $t)) (global.get $P)))
      (i64.store offset=32 (local.get $j) (i64.rem_u (i64.add (i64.load offset=32 (local.get $j)) (local.get $t)) (global.get $P)))
      (i64.store offset=64 (local.get $j) (i64.rem_u (i64.add (i64.load offset=64 (local.get $j)) (local.get $t)) (global.get $P)))
      (i64.store offset=96 (local.get $j) (i64.rem_u (i64.add (i64.load offset=96 (local.get $j)) (local.get $t)) (global.get $P)))
      (local.set $j (i32.add (local.get $j) (i32.const 8)))
      (br_if $columns (i32.lt_u (local.get $j) (i32.const 32)))))

  ;; Full round `r`: its 16 keys added, x^3 on every element, the external matrix.
  (func $fullRound (param $r i32)
    (local $i i32) (local $keys i32)
    (local.set $keys (i32.add (i32.const 1024) (i32.mul (local.get $r) (i32.const 64))))
    (local.set $i (i32.const 0))
    (loop $elements
      (i64.store (i32.shl (local.get $i) (i32.const 3))
        (call $sbox (i64.add (i64.load (i32.shl (local.get $i) (i32.const 3)))
                             (i64.load32_u (i32.add (local.get $keys) (i32.shl (local.get $i) (i32.const 2)))))))
      (local.set $i (i32.add (local.get $i) (i32.const 1)))
      (br_if $elements (i32.lt_u (local.get $i) (i32.const 16))))
    (call $external))

  ;; Partial round `r`: its key and x^3 on the first element, then x_i <- sum + d_i·x_i.
  (func $partialRound (param $r i32)
    (local $i i32) (local $sum i64)
    (i64.store (i32.const 0)
      (call $sbox (i64.add (i64.load (i32.const 0)) (i64.load32_u (i32.add (i32.const 1408) (i32.shl (local.get $r) (i32.const 2)))))))
    (local.set $sum (i64.const 0))
    (local.set $i (i32.const 0))
    (loop $sum
      (local.set $sum (i64.add (local.get $sum) (i64.load (local.get $i))))
      (local.set $i (i32.add (local.get $i) (i32.const 8)))
      (br_if $sum (i32.lt_u (local.get $i) (i32.const 128))))
    (local.set $sum (i64.rem_u (local.get $sum) (global.get $P)))
    (local.set $i (i32.const 0))
    (loop $elements
      (i64.store (i32.shl (local.get $i) (i32.const 3))
        (i64.rem_u
          (i64.add (local.get $sum)
                   (i64.mul (i64.load (i32.shl (local.get $i) (i32.const 3)))
                            (i64.load32_u (i32.add (i32.const 1492) (i32.shl (local.get $i) (i32.const 2))))))
          (global.get $P)))
      (local.set $i (i32.add (local.get $i) (i32.const 1)))
      (br_if $elements (i32.lt_u (local.get $i) (i32.const 16)))))

  (func $permute
    (local $r i32)
    (call $external)
    (call $fullRound (i32.const 0))
    (call $fullRound (i32.const 1))
    (call $fullRound (i32.const 2))
    (local.set $r (i32.const 0))
    (loop $partial
      (call $partialRound (local.get $r))
      (local.set $r (i32.add (local.get $r) (i32.const 1)))
      (br_if $partial (i32.lt_u (local.get $r) (i32.const 21))))
    (call $fullRound (i32.const 3))
    (call $fullRound (i32.const 4))
    (call $fullRound (i32.const 5)))

  ;; The big-endian 32-bit limb at `at` (a byte address).
  (func $limb (param $at i32) (result i64)
    (i64.extend_i32_u
      (i32.or (i32.or (i32.shl (i32.load8_u (local.get $at)) (i32.const 24))
                      (i32.shl (i32.load8_u offset=1 (local.get $at)) (i32.const 16)))
              (i32.or (i32.shl (i32.load8_u offset=2 (local.get $at)) (i32.const 8))
                      (i32.load8_u offset=3 (local.get $at))))))

  ;; The hash of the `length` bytes at 4096, a multiple of 32 (the caller left-pads the last block),
  ;; written big-endian at 2048.
  (func (export "hash") (param $length i32)
    (local $block i32) (local $i i32) (local $m i64) (local $v i32)
    ;; h = 0
    (local.set $i (i32.const 0))
    (loop $zero
      (i64.store offset=128 (local.get $i) (i64.const 0))
      (local.set $i (i32.add (local.get $i) (i32.const 8)))
      (br_if $zero (i32.lt_u (local.get $i) (i32.const 64))))
    (local.set $block (i32.const 0))
    (block $done
      (loop $blocks
        (br_if $done (i32.ge_u (local.get $block) (local.get $length)))
        ;; state = h ‖ m
        (local.set $i (i32.const 0))
        (loop $load
          (i64.store (local.get $i) (i64.load offset=128 (local.get $i)))
          (i64.store offset=64 (local.get $i)
            (i64.rem_u (call $limb (i32.add (i32.add (i32.const 4096) (local.get $block)) (i32.shr_u (local.get $i) (i32.const 1))))
                       (global.get $P)))
          (local.set $i (i32.add (local.get $i) (i32.const 8)))
          (br_if $load (i32.lt_u (local.get $i) (i32.const 64))))
        (call $permute)
        ;; h = state[8..16] + m
        (local.set $i (i32.const 0))
        (loop $feed
          (local.set $m (call $limb (i32.add (i32.add (i32.const 4096) (local.get $block)) (i32.shr_u (local.get $i) (i32.const 1)))))
          (i64.store offset=128 (local.get $i)
            (i64.rem_u (i64.add (i64.load offset=64 (local.get $i)) (local.get $m)) (global.get $P)))
          (local.set $i (i32.add (local.get $i) (i32.const 8)))
          (br_if $feed (i32.lt_u (local.get $i) (i32.const 64))))
        (local.set $block (i32.add (local.get $block) (i32.const 32)))
        (br $blocks)))
    ;; out = h, big-endian limbs
    (local.set $i (i32.const 0))
    (loop $out
      (local.set $v (i32.wrap_i64 (i64.load offset=128 (i32.shl (local.get $i) (i32.const 3)))))
      (i32.store8 offset=2048 (i32.shl (local.get $i) (i32.const 2)) (i32.shr_u (local.get $v) (i32.const 24)))
      (i32.store8 offset=2049 (i32.shl (local.get $i) (i32.const 2)) (i32.shr_u (local.get $v) (i32.const 16)))
      (i32.store8 offset=2050 (i32.shl (local.get $i) (i32.const 2)) (i32.shr_u (local.get $v) (i32.const 8)))
      (i32.store8 offset=2051 (i32.shl (local.get $i) (i32.const 2)) (local.get $v))
      (local.set $i (i32.add (local.get $i) (i32.const 1)))
      (br_if $out (i32.lt_u (local.get $i) (i32.const 8)))))
)
