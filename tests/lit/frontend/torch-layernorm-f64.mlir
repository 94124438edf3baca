// nn.LayerNorm as torch-mlir exports it (layernorm_small.mlir): the variance in f64 (extf, f64
// reductions, truncf), math.rsqrt, the weight and bias as two memref.globals; the fill shared by
// the two f64 reductions is repeated, so no memref.copy is made, and the result is written into
// the out-parameter.
// MUTANT-N: skip (the lowering alone: no `loopopt %s` line)
// RUN: loopopt-lower %S/../../../benchmarks/models/blocks/layernorm_small.mlir --report 2>&1 | filecheck %s

// CHECK: lowering: loopopt-duplicate-shared-fills: {{.*}}; 1 fill(s) repeated for their extra users
// CHECK: lowering: loopopt-results-into-out-params: {{.*}}; 1 result(s) written straight into their out-parameter
// CHECK: lowering: loopopt-copies-to-loops: {{.*}}; no op count changed
// CHECK-COUNT-2: memref.global "private" constant @{{.*}} : memref<32xf32> = dense_resource<
// CHECK-LABEL: func.func @layernorm_small(%arg0: memref<8x32xf32>, %arg1: memref<8x32xf32>)
// CHECK:         arith.extf %{{.*}} : f32 to f64
// CHECK:         arith.addf %{{.*}}, %{{.*}} : f64
// CHECK:         arith.truncf %{{.*}} : f64 to f32
// CHECK:         math.rsqrt %{{.*}} : f32
// CHECK:         affine.store %{{.*}}, %arg1[%{{.*}}, %{{.*}}] : memref<8x32xf32>
// CHECK-NOT:     memref.copy
// CHECK:         return
