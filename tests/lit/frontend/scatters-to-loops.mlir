// h.index_add_(0, dst, msg) as torch-mlir writes it (a GCN's messages summed into their nodes): a
// tm_tensor.scatter of 512 rows of 16 into 64 rows, dimension map [0]. loopopt-scatters-to-loops
// writes it as loops over buffers before bufferization: the original copied, then for each update
// row b and column j, p = (k + j1, j) with k = idx[b, 0], or k + 64 where k < 0 (index_put's
// negative index), j1 the update's unit dimension; where 0 <= p < 64 the region's addf
// (the original element first) is stored at p, in TMTensor's order (docs/cpu_codegen.md section 66).
// MUTANT-N: skip (the lowering alone: no `loopopt %s` line)
// RUN: loopopt-lower %s --report 2>&1 | filecheck %s

func.func @index_add(%u: tensor<512x1x16xf32>, %i: tensor<512x1xi64>, %x: tensor<64x16xf32>) -> tensor<64x16xf32> {
  %s = tm_tensor.scatter {dimension_map = array<i64: 0>} unique_indices(false) ins(%u, %i : tensor<512x1x16xf32>, tensor<512x1xi64>) outs(%x : tensor<64x16xf32>) {
  ^bb0(%a: f32, %b: f32):
    %r = arith.addf %b, %a : f32
    tm_tensor.yield %r : f32
  } -> tensor<64x16xf32>
  return %s : tensor<64x16xf32>
}

// CHECK: loopopt-scatters-to-loops: {{.*}}loops: tm_tensor.scatter at {{.*}}scatters-to-loops.mlir:11:8
// CHECK-LABEL: func.func @index_add(
// CHECK-NOT: tm_tensor
// CHECK: affine.for %[[R:.*]] = 0 to 64 {
// CHECK: affine.for %[[B:.*]] = 0 to 512 {
// CHECK-NEXT: affine.for %[[J1:.*]] = 0 to 1 {
// CHECK-NEXT: affine.for %[[J:.*]] = 0 to 16 {
// CHECK-NEXT: %[[K:.*]] = affine.load %{{.*}}[%[[B]], 0] : memref<512x1xi64>
// CHECK-NEXT: %[[C:.*]] = arith.index_cast %[[K]] : i64 to index
// CHECK-NEXT: %[[NEG:.*]] = arith.cmpi slt, %[[C]], %c0 : index
// CHECK-NEXT: %[[END:.*]] = arith.addi %[[C]], %c64 : index
// CHECK-NEXT: %[[Y:.*]] = arith.select %[[NEG]], %[[END]], %[[C]] : index
// CHECK-NEXT: %[[P:.*]] = arith.addi %[[Y]], %[[J1]] : index
// CHECK-NEXT: %[[GE:.*]] = arith.cmpi sge, %[[P]], %c0 : index
// CHECK-NEXT: %[[LT:.*]] = arith.cmpi slt, %[[P]], %c64 : index
// CHECK-NEXT: %[[OK:.*]] = arith.andi %[[GE]], %[[LT]] : i1
// CHECK-NEXT: scf.if %[[OK]] {
// CHECK-NEXT: %[[V:.*]] = affine.load %{{.*}}[%[[B]], %[[J1]], %[[J]]] : memref<512x1x16xf32>
// CHECK-NEXT: %[[W:.*]] = memref.load %[[OUT:.*]][%[[P]], %[[J]]] : memref<64x16xf32>
// CHECK-NEXT: %[[S:.*]] = arith.addf %[[W]], %[[V]] : f32
// CHECK-NEXT: memref.store %[[S]], %[[OUT]][%[[P]], %[[J]]] : memref<64x16xf32>
// CHECK-NOT: tm_tensor
