// The MLP with a dynamic batch (torch.export.Dim; mlp_dynamic_small.mlir): memref<?x16xf32> in
// and out. The out-parameter's batch is checked equal to the input's at entry; every batch loop
// is then bounded by the one value %dim (no memref.dim of the out-parameter but the check's).
// MUTANT-N: skip (the lowering alone: no `loopopt %s` line)
// RUN: loopopt-lower %S/../../../benchmarks/models/blocks/mlp_dynamic_small.mlir | filecheck %s

// CHECK-LABEL: func.func @mlp_dynamic_small(%arg0: memref<?x16xf32>, %arg1: memref<?x16xf32>)
// CHECK:         %[[N:.*]] = memref.dim %arg0, %[[C0:.*]] : memref<?x16xf32>
// CHECK-NEXT:    %[[M:.*]] = memref.dim %arg1, %[[C0]] : memref<?x16xf32>
// CHECK-NEXT:    %[[EQ:.*]] = arith.cmpi eq, %[[M]], %[[N]] : index
// CHECK-NEXT:    cf.assert %[[EQ]], "loopopt: mlp_dynamic_small: dim 0 of output argument 1 must equal dim 0 of argument 0"
// CHECK-NOT:     memref.dim
// CHECK:         memref.alloc(%[[N]]) {alignment = 64 : i64} : memref<?x32xf32>
// CHECK-COUNT-6: affine.for %{{.*}} = 0 to %[[N]] {
// CHECK-NOT:     memref.dim
// CHECK-NOT:     memref.copy
// CHECK:         return
