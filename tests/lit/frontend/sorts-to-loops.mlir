// torch.topk(p, 2, -1) as torch-mlir writes it (a router's top-2 of 8 experts): the positions along
// the row (linalg.index), a tm_tensor.sort of the values and positions by `oge` (descending), the
// first two of each row sliced. loopopt-sorts-to-loops writes the sort as loops over buffers before
// bufferization: for each row and element i (x), its rank counted over j (y) in an i32 buffer: a
// j before i counts where y >= x or y is NaN, a j after i where not (x >= y or x is NaN); then
// the value and the position stored at that rank (docs/cpu_codegen.md section 72).
// MUTANT-N: skip (the lowering alone: no `loopopt %s` line)
// RUN: loopopt-lower %s --report 2>&1 | filecheck %s

func.func @topk(%x: tensor<64x8xf32>) -> (tensor<64x2xf32>, tensor<64x2xi64>) {
  %0 = tensor.empty() : tensor<64x8xi64>
  %1 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} outs(%0 : tensor<64x8xi64>) {
  ^bb0(%out: i64):
    %i = linalg.index 1 : index
    %c = arith.index_cast %i : index to i64
    linalg.yield %c : i64
  } -> tensor<64x8xi64>
  %2:2 = tm_tensor.sort dimension(1) outs(%x, %1 : tensor<64x8xf32>, tensor<64x8xi64>) {
  ^bb0(%a: f32, %b: f32, %ia: i64, %ib: i64):
    %3 = arith.cmpf oge, %a, %b : f32
    tm_tensor.yield %3 : i1
  } -> tensor<64x8xf32>, tensor<64x8xi64>
  %v = tensor.extract_slice %2#0[0, 0] [64, 2] [1, 1] : tensor<64x8xf32> to tensor<64x2xf32>
  %k = tensor.extract_slice %2#1[0, 0] [64, 2] [1, 1] : tensor<64x8xi64> to tensor<64x2xi64>
  return %v, %k : tensor<64x2xf32>, tensor<64x2xi64>
}

// CHECK: loopopt-sorts-to-loops: {{.*}}loops: tm_tensor.sort at {{.*}}sorts-to-loops.mlir:18:10 (descending, rows of 8)
// CHECK-LABEL: func.func @topk(
// CHECK-NOT: tm_tensor
// CHECK: %[[POS:.*]] = memref.alloc() {alignment = 64 : i64} : memref<64x8xi64>
// CHECK: %[[VALS:.*]] = memref.alloc() : memref<64x8xf32>
// CHECK-NEXT: %[[IDX:.*]] = memref.alloc() : memref<64x8xi64>
// CHECK-NEXT: %[[RANK:.*]] = memref.alloc() : memref<64x8xi32>
// CHECK-NEXT: affine.for %[[R:.*]] = 0 to 64 {
// CHECK-NEXT: affine.for %[[I:.*]] = 0 to 8 {
// CHECK-NEXT: affine.store %c0_i32, %[[RANK]][%[[R]], %[[I]]] : memref<64x8xi32>
// CHECK-NEXT: %[[X:.*]] = affine.load %arg0[%[[R]], %[[I]]] : memref<64x8xf32>
// CHECK-NEXT: affine.for %[[J:.*]] = 0 to 8 {
// CHECK-NEXT: %[[Y:.*]] = affine.load %arg0[%[[R]], %[[J]]] : memref<64x8xf32>
// CHECK-NEXT: %[[YGE:.*]] = arith.cmpf oge, %[[Y]], %[[X]] : f32
// CHECK-NEXT: %[[YNAN:.*]] = arith.cmpf uno, %[[Y]], %[[Y]] : f32
// CHECK-NEXT: %[[YX:.*]] = arith.ori %[[YGE]], %[[YNAN]] : i1
// CHECK-NEXT: %[[XGE:.*]] = arith.cmpf oge, %[[X]], %[[Y]] : f32
// CHECK-NEXT: %[[XNAN:.*]] = arith.cmpf uno, %[[X]], %[[X]] : f32
// CHECK-NEXT: %[[XY:.*]] = arith.ori %[[XGE]], %[[XNAN]] : i1
// CHECK-NEXT: %[[FIRST:.*]] = arith.cmpi ult, %[[J]], %[[I]] : index
// CHECK-NEXT: %[[STRICT:.*]] = arith.xori %[[XY]], %true : i1
// CHECK-NEXT: %[[COUNTS:.*]] = arith.select %[[FIRST]], %[[YX]], %[[STRICT]] : i1
// CHECK-NEXT: %[[C:.*]] = arith.extui %[[COUNTS]] : i1 to i32
// CHECK-NEXT: %[[OLD:.*]] = affine.load %[[RANK]][%[[R]], %[[I]]] : memref<64x8xi32>
// CHECK-NEXT: %[[NEW:.*]] = arith.addi %[[OLD]], %[[C]] : i32
// CHECK-NEXT: affine.store %[[NEW]], %[[RANK]][%[[R]], %[[I]]] : memref<64x8xi32>
// CHECK-NEXT: }
// CHECK-NEXT: %[[RK:.*]] = affine.load %[[RANK]][%[[R]], %[[I]]] : memref<64x8xi32>
// CHECK-NEXT: %[[P:.*]] = arith.index_cast %[[RK]] : i32 to index
// CHECK-NEXT: %[[V:.*]] = affine.load %arg0[%[[R]], %[[I]]] : memref<64x8xf32>
// CHECK-NEXT: memref.store %[[V]], %[[VALS]][%[[R]], %[[P]]] : memref<64x8xf32>
// CHECK-NEXT: %[[K:.*]] = affine.load %[[POS]][%[[R]], %[[I]]] : memref<64x8xi64>
// CHECK-NEXT: memref.store %[[K]], %[[IDX]][%[[R]], %[[P]]] : memref<64x8xi64>
// CHECK: memref.dealloc %[[RANK]] : memref<64x8xi32>
// CHECK-NOT: tm_tensor
