// A bad --passes value is one error line and exit 1; a tile size below 2 likewise.
// MUTANT-N: skip
// RUN: not loopopt %s --passes fuse,vectorize 2>&1 | filecheck %s --check-prefix=PASS
// RUN: not loopopt %s --passes tile=1 2>&1 | filecheck %s --check-prefix=TILE
// RUN: not loopopt %s --target gpu 2>&1 | filecheck %s --check-prefix=TARGET

func.func @empty() {
  return
}

// PASS: loopopt: error: unknown pass 'vectorize' in --passes (known: fuse, contract, untile, scalrep, dead-stores, licm, tile=N, interchange=P, distribute)
// PASS-NOT: module
// TILE: loopopt: error: --passes tile=1: the tile size must be an integer >= 2
// TARGET: loopopt: error: argument --target: invalid choice: 'gpu'
