// torch.topk(x, 50, -1) over rows of 32000 (an LLM's sampling step) as torch-mlir writes it: the
// positions (linalg.index), a tm_tensor.sort of the keys and positions by `oge` (descending), the
// first 50 of each row sliced. Only the first 50 are read: the row's first 50 of the stable order
// are selected (docs/cpu_codegen.md section 79) into a buffer of 50 keys and i32 positions, kept
// sorted: each element x, in order, enters where the buffer is not yet full (i < 50) or x is
// strictly before its last (not (last >= x or last is NaN)), at the place counted over the kept
// ones b with b >= x or b is NaN (a kept tie stays first); the kept ones after the place move one
// on (from the last down), x at the place. Then the values gathered at the kept positions and the
// positions written as the indices (the positions operand, a linalg.index generic, is not read),
// into results of 50 that the slices read.
// MUTANT-N: skip (the lowering alone: no `loopopt %s` line)
// RUN: loopopt-lower %s --report 2>&1 | filecheck %s

func.func @topk(%x: tensor<4x32000xf32>) -> (tensor<4x50xf32>, tensor<4x50xi64>) {
  %0 = tensor.empty() : tensor<4x32000xi64>
  %1 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} outs(%0 : tensor<4x32000xi64>) {
  ^bb0(%out: i64):
    %i = linalg.index 1 : index
    %c = arith.index_cast %i : index to i64
    linalg.yield %c : i64
  } -> tensor<4x32000xi64>
  %2:2 = tm_tensor.sort dimension(1) outs(%x, %1 : tensor<4x32000xf32>, tensor<4x32000xi64>) {
  ^bb0(%a: f32, %b: f32, %ia: i64, %ib: i64):
    %3 = arith.cmpf oge, %a, %b : f32
    tm_tensor.yield %3 : i1
  } -> tensor<4x32000xf32>, tensor<4x32000xi64>
  %v = tensor.extract_slice %2#0[0, 0] [4, 50] [1, 1] : tensor<4x32000xf32> to tensor<4x50xf32>
  %k = tensor.extract_slice %2#1[0, 0] [4, 50] [1, 1] : tensor<4x32000xi64> to tensor<4x50xi64>
  return %v, %k : tensor<4x50xf32>, tensor<4x50xi64>
}

// CHECK: loopopt-sorts-to-loops: {{.*}}loops: tm_tensor.sort at {{.*}}sorts-select.mlir:{{[0-9]+}}:10 (descending, the first 50 of rows of 32000 selected)
// CHECK-LABEL: func.func @topk(
// CHECK-NOT: tm_tensor
// CHECK-NOT: memref.alloc() {{.*}}memref<4x32000xi64>
// CHECK: %[[BEST:.*]] = memref.alloc() : memref<50xf32>
// CHECK-NEXT: %[[BESTPOS:.*]] = memref.alloc() : memref<50xi32>
// CHECK-NEXT: affine.for %[[R:.*]] = 0 to 4 {
// CHECK-NEXT: %[[X0:.*]] = affine.load %arg0[%[[R]], 0] : memref<4x32000xf32>
// CHECK-NEXT: affine.for %[[J:.*]] = 0 to 50 {
// CHECK-NEXT: affine.store %[[X0]], %[[BEST]][%[[J]]] : memref<50xf32>
// CHECK-NEXT: affine.store %c0_i32, %[[BESTPOS]][%[[J]]] : memref<50xi32>
// CHECK-NEXT: }
// CHECK-NEXT: affine.for %[[I:.*]] = 0 to 32000 {
// CHECK-NEXT: %[[X:.*]] = affine.load %arg0[%[[R]], %[[I]]] : memref<4x32000xf32>
// CHECK-NEXT: %[[LAST:.*]] = affine.load %[[BEST]][49] : memref<50xf32>
// CHECK-NEXT: %[[LGE:.*]] = arith.cmpf oge, %[[LAST]], %[[X]] : f32
// CHECK-NEXT: %[[LNAN:.*]] = arith.cmpf uno, %[[LAST]], %[[LAST]] : f32
// CHECK-NEXT: %[[LX:.*]] = arith.ori %[[LGE]], %[[LNAN]] : i1
// CHECK-NEXT: %[[BEATS:.*]] = arith.xori %[[LX]], %true : i1
// CHECK-NEXT: %[[FILLING:.*]] = arith.cmpi ult, %[[I]], %c50 : index
// CHECK-NEXT: %[[ENTER:.*]] = arith.ori %[[FILLING]], %[[BEATS]] : i1
// CHECK-NEXT: scf.if %[[ENTER]] {
// CHECK-NEXT: %[[N:.*]] = affine.min #map(%[[I]])
// CHECK-NEXT: %[[PLACE:.*]] = affine.for %[[J:.*]] = 0 to 50 iter_args(%[[ACC:.*]] = %c0) -> (index) {
// CHECK-NEXT: %[[Y:.*]] = affine.load %[[BEST]][%[[J]]] : memref<50xf32>
// CHECK-NEXT: %[[YGE:.*]] = arith.cmpf oge, %[[Y]], %[[X]] : f32
// CHECK-NEXT: %[[YNAN:.*]] = arith.cmpf uno, %[[Y]], %[[Y]] : f32
// CHECK-NEXT: %[[YX:.*]] = arith.ori %[[YGE]], %[[YNAN]] : i1
// CHECK-NEXT: %[[HELD:.*]] = arith.cmpi ult, %[[J]], %[[N]] : index
// CHECK-NEXT: %[[COUNTS:.*]] = arith.andi %[[YX]], %[[HELD]] : i1
// CHECK-NEXT: %[[ONE:.*]] = arith.select %[[COUNTS]], %c1, %c0 : index
// CHECK-NEXT: %[[ACC1:.*]] = arith.addi %[[ACC]], %[[ONE]] : index
// CHECK-NEXT: affine.yield %[[ACC1]] : index
// CHECK-NEXT: }
// CHECK-NEXT: %[[XI:.*]] = arith.index_cast %[[I]] : index to i32
// CHECK-NEXT: affine.for %[[T:.*]] = 0 to 49 {
// CHECK-NEXT: %[[JJ:.*]] = affine.apply #map1(%[[T]])
// CHECK-NEXT: %[[PREV:.*]] = affine.load %[[BEST]][-%[[T]] + 48] : memref<50xf32>
// CHECK-NEXT: %[[PREVPOS:.*]] = affine.load %[[BESTPOS]][-%[[T]] + 48] : memref<50xi32>
// CHECK-NEXT: %[[CUR:.*]] = affine.load %[[BEST]][-%[[T]] + 49] : memref<50xf32>
// CHECK-NEXT: %[[CURPOS:.*]] = affine.load %[[BESTPOS]][-%[[T]] + 49] : memref<50xi32>
// CHECK-NEXT: %[[AFTER:.*]] = arith.cmpi ugt, %[[JJ]], %[[PLACE]] : index
// CHECK-NEXT: %[[AT:.*]] = arith.cmpi eq, %[[JJ]], %[[PLACE]] : index
// CHECK-NEXT: %[[KEPT:.*]] = arith.select %[[AT]], %[[X]], %[[CUR]] : f32
// CHECK-NEXT: %[[KEPTPOS:.*]] = arith.select %[[AT]], %[[XI]], %[[CURPOS]] : i32
// CHECK-NEXT: %[[NEW:.*]] = arith.select %[[AFTER]], %[[PREV]], %[[KEPT]] : f32
// CHECK-NEXT: %[[NEWPOS:.*]] = arith.select %[[AFTER]], %[[PREVPOS]], %[[KEPTPOS]] : i32
// CHECK-NEXT: affine.store %[[NEW]], %[[BEST]][-%[[T]] + 49] : memref<50xf32>
// CHECK-NEXT: affine.store %[[NEWPOS]], %[[BESTPOS]][-%[[T]] + 49] : memref<50xi32>
// CHECK-NEXT: }
// CHECK-NEXT: %[[FRONT:.*]] = arith.cmpi eq, %[[PLACE]], %c0 : index
// CHECK: }
// CHECK-NEXT: }
// CHECK-NEXT: affine.for %[[T:.*]] = 0 to 50 {
// CHECK-NEXT: %[[Q:.*]] = affine.load %[[BESTPOS]][%[[T]]] : memref<50xi32>
// CHECK-NEXT: %[[QI:.*]] = arith.index_cast %[[Q]] : i32 to index
// CHECK-NEXT: %[[V:.*]] = memref.load %arg0[%[[R]], %[[QI]]] : memref<4x32000xf32>
// CHECK-NEXT: affine.store %[[V]], %arg1[%[[R]], %[[T]]] : memref<4x50xf32>
// CHECK-NEXT: %[[K:.*]] = arith.index_cast %[[QI]] : index to i64
// CHECK-NEXT: affine.store %[[K]], %arg2[%[[R]], %[[T]]] : memref<4x50xi64>
// CHECK-NOT: tm_tensor
