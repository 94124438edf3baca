// A user's --lowering pipeline is checked before it runs: an unknown loopopt step, a pass the
// bindings do not have, and unbalanced brackets are one-line errors.
// MUTANT-N: skip (the lowering alone: no `loopopt %s` line)
// RUN: not loopopt-lower %s --lowering 'builtin.module(loopopt-no-such-step)' 2>&1 | filecheck %s --check-prefix=OURS
// RUN: not loopopt-lower %s --lowering 'builtin.module(no-such-pass,cse)' 2>&1 | filecheck %s --check-prefix=MLIR
// RUN: not loopopt-lower %s --lowering 'builtin.module(func.func(cse)' 2>&1 | filecheck %s --check-prefix=BRACKET

func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
  return %x : tensor<4xf32>
}

// OURS: loopopt: error: unknown lowering step 'loopopt-no-such-step' (loopopt's own: loopopt-check-input, loopopt-check-lowered, loopopt-copies-to-loops, loopopt-drop-trailing-unit-dims, loopopt-duplicate-shared-fills, loopopt-fold-branch-buffers, loopopt-fold-reshape-views, loopopt-matmul-of-broadcast-operand, loopopt-prove-constant-checks, loopopt-read-only-inputs, loopopt-recompute-casts, loopopt-recompute-gathered-elements, loopopt-results-into-out-params, loopopt-scans-to-loops, loopopt-scatters-to-loops, loopopt-skip-inserted-zeros, loopopt-sorts-to-loops, loopopt-unify-dynamic-sizes)
// MLIR: loopopt: error: lowering step 'no-such-pass' is not a pass pipeline: {{.*}}
// BRACKET: loopopt: error: lowering pipeline has an unclosed bracket: builtin.module(func.func(cse)
