// --print-lowering prints the pipeline, one step a line (every step a registered MLIR pass or a
// loopopt-* rewrite); --mlir-only prints the MLIR passes alone on one line, for
// `mlir-opt --pass-pipeline=...`. A StableHLO input adds IREE's input pipeline in front;
// --elementwise-fusion adds linalg's elementwise fusion after the unit-dim folding.
// MUTANT-N: skip (the lowering alone: no `loopopt %s` line)
// RUN: loopopt-lower --print-lowering | filecheck %s
// RUN: loopopt-lower --print-lowering --mlir-only | filecheck %s --check-prefix=MLIR
// RUN: loopopt-lower --print-lowering --input-kind stablehlo | filecheck %s --check-prefix=HLO
// RUN: loopopt-lower --print-lowering --elementwise-fusion | filecheck %s --check-prefix=FUSE

// CHECK:      builtin.module(
// CHECK-NEXT:   loopopt-scans-to-loops,
// CHECK-NEXT:   loopopt-scatters-to-loops,
// CHECK-NEXT:   loopopt-sorts-to-loops,
// CHECK-NEXT:   loopopt-check-input,
// CHECK-NEXT:   func.func(linalg-fold-unit-extent-dims,canonicalize,cse),
// CHECK-NEXT:   loopopt-matmul-of-broadcast-operand,
// CHECK-NEXT:   loopopt-recompute-gathered-elements,
// CHECK-NEXT:   loopopt-recompute-casts,
// CHECK-NEXT:   loopopt-prove-constant-checks,
// CHECK-NEXT:   loopopt-skip-inserted-zeros,
// CHECK-NEXT:   loopopt-duplicate-shared-fills,
// CHECK-NEXT:   eliminate-empty-tensors,
// CHECK-NEXT:   empty-tensor-to-alloc-tensor,
// CHECK-NEXT:   loopopt-read-only-inputs,
// CHECK-NEXT:   one-shot-bufferize{bufferize-function-boundaries function-boundary-type-conversion=identity-layout-map},
// CHECK-NEXT:   loopopt-fold-branch-buffers,
// CHECK-NEXT:   buffer-results-to-out-params{modify-public-functions=true},
// CHECK-NEXT:   loopopt-results-into-out-params,
// CHECK-NEXT:   ownership-based-buffer-deallocation,
// CHECK-NEXT:   buffer-deallocation-simplification,
// CHECK-NEXT:   bufferization-lower-deallocations,
// CHECK-NEXT:   canonicalize,
// CHECK-NEXT:   func.func(convert-linalg-to-affine-loops),
// CHECK-NEXT:   fold-memref-alias-ops,
// CHECK-NEXT:   loopopt-copies-to-loops,
// CHECK-NEXT:   loopopt-fold-reshape-views,
// CHECK-NEXT:   loopopt-drop-trailing-unit-dims,
// CHECK-NEXT:   loopopt-unify-dynamic-sizes,
// CHECK-NEXT:   canonicalize,
// CHECK-NEXT:   affine-expand-index-ops-as-affine,
// CHECK-NEXT:   cse,
// CHECK-NEXT:   loopopt-check-lowered)

// MLIR: builtin.module(func.func(linalg-fold-unit-extent-dims,canonicalize,cse),eliminate-empty-tensors,empty-tensor-to-alloc-tensor,one-shot-bufferize{bufferize-function-boundaries function-boundary-type-conversion=identity-layout-map},buffer-results-to-out-params{modify-public-functions=true},ownership-based-buffer-deallocation,buffer-deallocation-simplification,bufferization-lower-deallocations,canonicalize,func.func(convert-linalg-to-affine-loops),fold-memref-alias-ops,canonicalize,affine-expand-index-ops-as-affine,cse)

// HLO:      builtin.module(
// HLO-NEXT:   iree-stablehlo-input-transformation-pipeline,
// HLO-NEXT:   loopopt-scans-to-loops,
// HLO-NEXT:   loopopt-scatters-to-loops,
// HLO-NEXT:   loopopt-sorts-to-loops,
// HLO-NEXT:   loopopt-check-input,

// FUSE:      func.func(linalg-fold-unit-extent-dims,canonicalize,cse),
// FUSE-NEXT: func.func(linalg-fuse-elementwise-ops,canonicalize,cse),
// FUSE-NEXT: loopopt-matmul-of-broadcast-operand,
// FUSE-NEXT: loopopt-recompute-gathered-elements,
// FUSE-NEXT: loopopt-recompute-casts,
// FUSE-NEXT: loopopt-prove-constant-checks,
// FUSE-NEXT: loopopt-skip-inserted-zeros,
// FUSE-NEXT: loopopt-duplicate-shared-fills,
