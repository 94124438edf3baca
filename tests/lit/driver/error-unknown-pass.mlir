// A bad --passes value is one error line and exit 2 (a bad command line); a tile size below 2 likewise.
// MUTANT-N: skip
// RUN: not loopopt %s --passes fuse,frobnicate 2>&1 | filecheck %s --check-prefix=PASS
// RUN: not loopopt %s --passes tile=1 2>&1 | filecheck %s --check-prefix=TILE
// RUN: not loopopt %s --target gpu 2>&1 | filecheck %s --check-prefix=TARGET

func.func @empty() {
  return
}

// PASS: loopopt: error: unknown pass 'frobnicate' in --passes (known: fold-constant-copies, fold-result-copies, fusion, contraction, powers, expm1, remf, untile, scalar-replacement, dead-stores, dead-carried, checks-first, isolate-products, unit-loops, fold-permuted-copies, product-views, pack-operands, deinterleave-strided, constant-lanes, loop-order, block-transposes, time-tiles, cache-tile, licm, rows-in-lanes, pack-strided, register-tile, pack-constant-panels, pack-column-blocks, pack-argument-panels, transpose-tiles, panel-layout, flat-loops, flat-reductions, linear-views, vectorize, math-approx, vector-reductions, sweep-vectors, residue-order, unmask-loads, cleanup, tiling=N, interchange=P, distribution; also fuse, contract, scalrep, tile=N, distribute; or none alone)
// PASS-NOT: module
// TILE: loopopt: error: --passes tile=1: the tile size must be an integer >= 2
// TARGET: loopopt: error: argument --target: invalid choice: 'gpu'
