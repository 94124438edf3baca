// torch.topk(x, 50, -1) over rows of 32000 (an LLM's sampling step) as torch-mlir writes it: the
// positions (linalg.index), a tm_tensor.sort of the keys and positions by `oge` (descending), the
// first 50 of each row sliced. Only the first 50 are read: the row's first 50 of the stable order
// are selected (docs/cpu_codegen.md sections 79, 85) into a heap of 50 i64 entries, each the key's
// rank (the f32 bits with -0.0 as 0.0 and NaN as one NaN, ordered as unsigned, all flipped:
// descending) above its position, so that the unsigned order of entries is the stable order. The
// row's first 50 put in, heapified (each parent sifted down: 5 steps, the later child moved up
// where the entry is before it); each later element x that is strictly before the bar (the row's
// element at the root's position: not (bar >= x or bar is NaN)) enters as the root, sifted down,
// and the bar is read again; then the heap sorted (the root swapped with the end, the end's entry
// sifted down in the heap one shorter) and the values gathered at the positions, the positions
// written as the indices (the positions operand, a linalg.index generic, is not read), into
// results of 50 that the slices read.
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
// CHECK: %[[HEAP:.*]] = memref.alloc() : memref<50xi64>
// CHECK-NEXT: affine.for %[[R:.*]] = 0 to 4 {
// CHECK-NEXT: affine.for %[[J:.*]] = 0 to 50 {
// CHECK-NEXT: %[[XJ:.*]] = affine.load %arg0[%[[R]], %[[J]]] : memref<4x32000xf32>
// CHECK-NEXT: %[[B:.*]] = arith.bitcast %[[XJ]] : f32 to i32
// CHECK-NEXT: %[[NAN:.*]] = arith.cmpf uno, %[[XJ]], %[[XJ]] : f32
// CHECK-NEXT: %[[NZ:.*]] = arith.cmpi eq, %[[B]], %c-2147483648_i32 : i32
// CHECK-NEXT: %[[B1:.*]] = arith.select %[[NZ]], %c0_i32, %[[B]] : i32
// CHECK-NEXT: %[[B2:.*]] = arith.select %[[NAN]], %c2143289344_i32, %[[B1]] : i32
// CHECK-NEXT: %[[S:.*]] = arith.shrsi %[[B2]], %c31_i32 : i32
// CHECK-NEXT: %[[M:.*]] = arith.ori %[[S]], %c-2147483648_i32 : i32
// CHECK-NEXT: %[[U:.*]] = arith.xori %[[B2]], %[[M]] : i32
// CHECK-NEXT: %[[D:.*]] = arith.xori %[[U]], %c-1_i32 : i32
// CHECK-NEXT: %[[K:.*]] = arith.extui %[[D]] : i32 to i64
// CHECK-NEXT: %[[HI:.*]] = arith.shli %[[K]], %c32_i64 : i64
// CHECK-NEXT: %[[P:.*]] = arith.index_cast %[[J]] : index to i64
// CHECK-NEXT: %[[E:.*]] = arith.ori %[[HI]], %[[P]] : i64
// CHECK-NEXT: affine.store %[[E]], %[[HEAP]][%[[J]]] : memref<50xi64>
// CHECK-NEXT: }
// CHECK-NEXT: affine.for %[[T:.*]] = 0 to 25 {
// CHECK-NEXT: %[[START:.*]] = affine.apply #map(%[[T]])
// CHECK-NEXT: %[[VS:.*]] = memref.load %[[HEAP]][%[[START]]] : memref<50xi64>
// CHECK-NEXT: %[[HS:.*]] = affine.for %{{.*}} = 0 to 5 iter_args(%[[H:.*]] = %[[START]]) -> (index) {
// CHECK-NEXT: %[[H2:.*]] = arith.addi %[[H]], %[[H]] : index
// CHECK-NEXT: %[[L:.*]] = arith.addi %[[H2]], %c1 : index
// CHECK-NEXT: %[[RR:.*]] = arith.addi %[[H2]], %c2 : index
// CHECK-NEXT: %[[HAS_L:.*]] = arith.cmpi ult, %[[L]], %c50 : index
// CHECK-NEXT: %[[HAS_R:.*]] = arith.cmpi ult, %[[RR]], %c50 : index
// CHECK-NEXT: %[[LC:.*]] = arith.minui %[[L]], %c49 : index
// CHECK-NEXT: %[[RC:.*]] = arith.minui %[[RR]], %c49 : index
// CHECK-NEXT: %[[VL:.*]] = memref.load %[[HEAP]][%[[LC]]] : memref<50xi64>
// CHECK-NEXT: %[[VR:.*]] = memref.load %[[HEAP]][%[[RC]]] : memref<50xi64>
// CHECK-NEXT: %[[LR:.*]] = arith.cmpi ult, %[[VL]], %[[VR]] : i64
// CHECK-NEXT: %[[PICK:.*]] = arith.andi %[[HAS_R]], %[[LR]] : i1
// CHECK-NEXT: %[[R1:.*]] = arith.index_castui %[[PICK]] : i1 to index
// CHECK-NEXT: %[[C:.*]] = arith.addi %[[LC]], %[[R1]] : index
// CHECK-NEXT: %[[VC:.*]] = arith.select %[[PICK]], %[[VR]], %[[VL]] : i64
// CHECK-NEXT: %[[EC:.*]] = arith.cmpi ult, %[[VS]], %[[VC]] : i64
// CHECK-NEXT: %[[MOVE:.*]] = arith.andi %[[HAS_L]], %[[EC]] : i1
// CHECK-NEXT: memref.store %[[VC]], %[[HEAP]][%[[H]]] : memref<50xi64>
// CHECK-NEXT: %[[H1:.*]] = arith.select %[[MOVE]], %[[C]], %[[H]] : index
// CHECK-NEXT: affine.yield %[[H1]] : index
// CHECK-NEXT: }
// CHECK-NEXT: memref.store %[[VS]], %[[HEAP]][%[[HS]]] : memref<50xi64>
// CHECK-NEXT: }
// CHECK-NEXT: %[[ROOT:.*]] = affine.load %[[HEAP]][0] : memref<50xi64>
// CHECK-NEXT: %[[RP:.*]] = arith.andi %[[ROOT]], %c4294967295_i64 : i64
// CHECK-NEXT: %[[RI:.*]] = arith.index_cast %[[RP]] : i64 to index
// CHECK-NEXT: %[[BAR0:.*]] = memref.load %arg0[%[[R]], %[[RI]]] : memref<4x32000xf32>
// CHECK-NEXT: %{{.*}} = affine.for %[[I:.*]] = 50 to 32000 iter_args(%[[BAR:.*]] = %[[BAR0]]) -> (f32) {
// CHECK-NEXT: %[[X:.*]] = affine.load %arg0[%[[R]], %[[I]]] : memref<4x32000xf32>
// CHECK-NEXT: %[[GE:.*]] = arith.cmpf oge, %[[BAR]], %[[X]] : f32
// CHECK-NEXT: %[[BNAN:.*]] = arith.cmpf uno, %[[BAR]], %[[BAR]] : f32
// CHECK-NEXT: %[[KEPT:.*]] = arith.ori %[[GE]], %[[BNAN]] : i1
// CHECK-NEXT: %[[NBAR:.*]] = scf.if %[[KEPT]] -> (f32) {
// CHECK-NEXT: scf.yield %[[BAR]] : f32
// CHECK-NEXT: } else {
// CHECK-NEXT: arith.bitcast %[[X]] : f32 to i32
// CHECK: %[[EX:.*]] = arith.ori %{{.*}}, %{{.*}} : i64
// CHECK-NEXT: %[[HX:.*]] = affine.for %{{.*}} = 0 to 5 iter_args(%[[H:.*]] = %c0) -> (index) {
// CHECK: arith.cmpi ult, %[[EX]], %{{.*}} : i64
// CHECK: affine.yield
// CHECK-NEXT: }
// CHECK-NEXT: memref.store %[[EX]], %[[HEAP]][%[[HX]]] : memref<50xi64>
// CHECK-NEXT: %[[ROOT1:.*]] = affine.load %[[HEAP]][0] : memref<50xi64>
// CHECK-NEXT: %[[RP1:.*]] = arith.andi %[[ROOT1]], %c4294967295_i64 : i64
// CHECK-NEXT: %[[RI1:.*]] = arith.index_cast %[[RP1]] : i64 to index
// CHECK-NEXT: %[[BAR1:.*]] = memref.load %arg0[%[[R]], %[[RI1]]] : memref<4x32000xf32>
// CHECK-NEXT: scf.yield %[[BAR1]] : f32
// CHECK-NEXT: }
// CHECK-NEXT: affine.yield %[[NBAR]] : f32
// CHECK-NEXT: }
// CHECK-NEXT: affine.for %[[T:.*]] = 0 to 49 {
// CHECK-NEXT: %[[END:.*]] = affine.apply #map1(%[[T]])
// CHECK-NEXT: %[[VE:.*]] = memref.load %[[HEAP]][%[[END]]] : memref<50xi64>
// CHECK-NEXT: %[[V0:.*]] = affine.load %[[HEAP]][0] : memref<50xi64>
// CHECK-NEXT: memref.store %[[V0]], %[[HEAP]][%[[END]]] : memref<50xi64>
// CHECK-NEXT: %[[HE:.*]] = affine.for %{{.*}} = 0 to 5 iter_args(%[[H:.*]] = %c0) -> (index) {
// CHECK: %[[HAS_L:.*]] = arith.cmpi ult, %{{.*}}, %[[END]] : index
// CHECK-NEXT: %[[HAS_R:.*]] = arith.cmpi ult, %{{.*}}, %[[END]] : index
// CHECK: arith.cmpi ult, %[[VE]], %{{.*}} : i64
// CHECK: affine.yield
// CHECK-NEXT: }
// CHECK-NEXT: memref.store %[[VE]], %[[HEAP]][%[[HE]]] : memref<50xi64>
// CHECK-NEXT: }
// CHECK-NEXT: affine.for %[[T:.*]] = 0 to 50 {
// CHECK-NEXT: %[[V:.*]] = affine.load %[[HEAP]][%[[T]]] : memref<50xi64>
// CHECK-NEXT: %[[Q:.*]] = arith.andi %[[V]], %c4294967295_i64 : i64
// CHECK-NEXT: %[[QI:.*]] = arith.index_cast %[[Q]] : i64 to index
// CHECK-NEXT: %[[VAL:.*]] = memref.load %arg0[%[[R]], %[[QI]]] : memref<4x32000xf32>
// CHECK-NEXT: affine.store %[[VAL]], %arg1[%[[R]], %[[T]]] : memref<4x50xf32>
// CHECK-NEXT: affine.store %[[Q]], %arg2[%[[R]], %[[T]]] : memref<4x50xi64>
// CHECK-NOT: tm_tensor
