// StableHLO from JAX (jax.nn.softmax; jax_softmax_small.mlir): recognised without a flag,
// turned into linalg on tensors by iree-stablehlo-input-transformation-pipeline in-process, then
// the linalg lowering. The other JAX fixtures lower the same way.
// MUTANT-N: skip (the lowering alone: no `loopopt %s` line)
// RUN: loopopt-lower %S/../../../benchmarks/models/blocks/jax_softmax_small.mlir --report 2>&1 | filecheck %s
// RUN: loopopt-lower %S/../../../benchmarks/models/blocks/jax_mlp_small.mlir | filecheck %s --check-prefix=MLP

// CHECK: lowering: iree-stablehlo-input-transformation-pipeline: {{.*}}stablehlo.reduce -2
// CHECK: lowering: loopopt-check-lowered:
// CHECK-LABEL: func.func public @jax_softmax_small(%arg0: memref<8x32xf32>, %arg1: memref<8x32xf32>)
// CHECK:         math.exp
// CHECK:         arith.divf
// CHECK-NOT:     stablehlo
// CHECK:         return

// MLP-LABEL: func.func public @jax_mlp_small(%arg0: memref<8x16xf32>, %arg1: memref<8x16xf32>)
// MLP:         memref.get_global
// MLP-NOT:     stablehlo
// MLP:         affine.store %{{.*}}, %arg1[%{{.*}}, %{{.*}}] : memref<8x16xf32>
