// torch.argsort(x, -1) of rows of 300 as torch-mlir writes it: the positions (linalg.index), a
// tm_tensor.sort of the keys and positions by `ole` (ascending), its positions returned. A row
// longer than 128 is merge-sorted (docs/cpu_codegen.md section 79): the row's runs of 16 sorted
// into half 0 of two row buffers of keys and i32 positions, each element stored at its rank in its
// run (counted over the run, ties before it counting), then stages 4 .. ceil(log2 300) - 1 = 8,
// stage s merging runs of 2^s from half s mod 2 into the other half by one loop of 150 steps,
// each writing one output from a run pair's front and one from its back: the front's cursors take
// the first run's element where it is not exhausted and either the second is or a <= b (or b is
// NaN), the back's the second run's where it is not exhausted and either the first is or
// a <= b (ties: the first run first); both reset where a run pair starts, key and position loaded
// again at the chosen (clamped) index; then the positions of half 9 mod 2 = 1 written
// as the indices: the sorted positions operand (a linalg.index generic) is neither read nor kept,
// and the values, which nothing reads, are not written. No loop is unrolled.
// MUTANT-N: skip (the lowering alone: no `loopopt %s` line)
// RUN: loopopt-lower %s --report 2>&1 | filecheck %s

func.func @argsort(%x: tensor<4x300xf32>) -> tensor<4x300xi64> {
  %0 = tensor.empty() : tensor<4x300xi64>
  %1 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} outs(%0 : tensor<4x300xi64>) {
  ^bb0(%out: i64):
    %i = linalg.index 1 : index
    %c = arith.index_cast %i : index to i64
    linalg.yield %c : i64
  } -> tensor<4x300xi64>
  %2:2 = tm_tensor.sort dimension(1) outs(%x, %1 : tensor<4x300xf32>, tensor<4x300xi64>) {
  ^bb0(%a: f32, %b: f32, %ia: i64, %ib: i64):
    %3 = arith.cmpf ole, %a, %b : f32
    tm_tensor.yield %3 : i1
  } -> tensor<4x300xf32>, tensor<4x300xi64>
  return %2#1 : tensor<4x300xi64>
}

// CHECK: loopopt-sorts-to-loops: {{.*}}loops: tm_tensor.sort at {{.*}}sorts-merge.mlir:{{[0-9]+}}:10 (ascending, rows of 300: runs of 16 ranked, merged in 5 stages)
// CHECK-LABEL: func.func @argsort(
// CHECK-NOT: tm_tensor
// CHECK-NOT: memref.alloc() {{.*}}memref<4x300
// CHECK: %[[KEYS:.*]] = memref.alloc() : memref<2x300xf32>
// CHECK-NEXT: %[[AT:.*]] = memref.alloc() : memref<2x300xi32>
// CHECK-NEXT: affine.for %[[R:.*]] = 0 to 4 {
// CHECK-NEXT: affine.for %[[I:.*]] = 0 to 300 {
// CHECK-NEXT: %[[X:.*]] = affine.load %arg0[%[[R]], %[[I]]] : memref<4x300xf32>
// CHECK-NEXT: %[[RK:.*]] = affine.for %[[J:.*]] = #map(%[[I]]) to min #map1(%[[I]]) iter_args(%[[ACC:.*]] = %c0) -> (index) {
// CHECK-NEXT: %[[Y:.*]] = affine.load %arg0[%[[R]], %[[J]]] : memref<4x300xf32>
// CHECK-NEXT: %[[YLE:.*]] = arith.cmpf ole, %[[Y]], %[[X]] : f32
// CHECK-NEXT: %[[XNAN:.*]] = arith.cmpf uno, %[[X]], %[[X]] : f32
// CHECK-NEXT: %[[YX:.*]] = arith.ori %[[YLE]], %[[XNAN]] : i1
// CHECK-NEXT: %[[XLE:.*]] = arith.cmpf ole, %[[X]], %[[Y]] : f32
// CHECK-NEXT: %[[YNAN:.*]] = arith.cmpf uno, %[[Y]], %[[Y]] : f32
// CHECK-NEXT: %[[XY:.*]] = arith.ori %[[XLE]], %[[YNAN]] : i1
// CHECK-NEXT: %[[FIRST:.*]] = arith.cmpi ult, %[[J]], %[[I]] : index
// CHECK-NEXT: %[[STRICT:.*]] = arith.xori %[[XY]], %true : i1
// CHECK-NEXT: %[[COUNTS:.*]] = arith.select %[[FIRST]], %[[YX]], %[[STRICT]] : i1
// CHECK-NEXT: %[[ONE:.*]] = arith.select %[[COUNTS]], %c1, %c0 : index
// CHECK-NEXT: %[[ACC1:.*]] = arith.addi %[[ACC]], %[[ONE]] : index
// CHECK-NEXT: affine.yield %[[ACC1]] : index
// CHECK-NEXT: }
// CHECK-NEXT: %[[BLK:.*]] = affine.apply #map(%[[I]])
// CHECK-NEXT: %[[TO:.*]] = arith.addi %[[BLK]], %[[RK]] : index
// CHECK-NEXT: memref.store %[[X]], %[[KEYS]][%c0, %[[TO]]] : memref<2x300xf32>
// CHECK-NEXT: %[[XI:.*]] = arith.index_cast %[[I]] : index to i32
// CHECK-NEXT: memref.store %[[XI]], %[[AT]][%c0, %[[TO]]] : memref<2x300xi32>
// CHECK-NEXT: }
// CHECK-NEXT: affine.for %[[S:.*]] = 4 to 9 {
// CHECK-NEXT: %[[SRC:.*]] = affine.apply #map2(%[[S]])
// CHECK-NEXT: %[[DST:.*]] = affine.apply #map3(%[[S]])
// CHECK-NEXT: %[[W:.*]] = arith.shli %c1, %[[S]] : index
// CHECK-NEXT: %[[WMASK:.*]] = arith.subi %[[W]], %c1 : index
// CHECK-NEXT: %{{.*}}:4 = affine.for %[[H:.*]] = 0 to 150 iter_args(%[[IA:.*]] = %c0, %[[IB:.*]] = %c0, %[[JA:.*]] = %c0, %[[JB:.*]] = %c0) -> (index, index, index, index) {
// CHECK-NEXT: %[[T:.*]] = arith.andi %[[H]], %[[WMASK]] : index
// CHECK-NEXT: %[[HT:.*]] = arith.subi %[[H]], %[[T]] : index
// CHECK-NEXT: %[[BASE:.*]] = arith.addi %[[HT]], %[[HT]] : index
// CHECK-NEXT: %[[START:.*]] = arith.cmpi eq, %[[T]], %c0 : index
// CHECK-NEXT: %[[MID0:.*]] = arith.addi %[[BASE]], %[[W]] : index
// CHECK-NEXT: %[[MID:.*]] = arith.minsi %[[MID0]], %c300 : index
// CHECK-NEXT: %[[END0:.*]] = arith.addi %[[MID0]], %[[W]] : index
// CHECK-NEXT: %[[END:.*]] = arith.minsi %[[END0]], %c300 : index
// CHECK-NEXT: %[[A:.*]] = arith.select %[[START]], %[[BASE]], %[[IA]] : index
// CHECK-NEXT: %[[B:.*]] = arith.select %[[START]], %[[MID]], %[[IB]] : index
// CHECK-NEXT: %[[AC:.*]] = arith.minsi %[[A]], %c299 : index
// CHECK-NEXT: %[[BC:.*]] = arith.minsi %[[B]], %c299 : index
// CHECK-NEXT: %[[XA:.*]] = memref.load %[[KEYS]][%[[SRC]], %[[AC]]] : memref<2x300xf32>
// CHECK-NEXT: %[[XB:.*]] = memref.load %[[KEYS]][%[[SRC]], %[[BC]]] : memref<2x300xf32>
// CHECK-NEXT: %[[LE:.*]] = arith.cmpf ole, %[[XA]], %[[XB]] : f32
// CHECK-NEXT: %[[NAN:.*]] = arith.cmpf uno, %[[XB]], %[[XB]] : f32
// CHECK-NEXT: %[[AB:.*]] = arith.ori %[[LE]], %[[NAN]] : i1
// CHECK-NEXT: %[[HAS_A:.*]] = arith.cmpi slt, %[[A]], %[[MID]] : index
// CHECK-NEXT: %[[NO_B:.*]] = arith.cmpi sge, %[[B]], %[[END]] : index
// CHECK-NEXT: %[[A_FIRST:.*]] = arith.ori %[[NO_B]], %[[AB]] : i1
// CHECK-NEXT: %[[TAKE_A:.*]] = arith.andi %[[HAS_A]], %[[A_FIRST]] : i1
// CHECK-NEXT: %[[FROM:.*]] = arith.select %[[TAKE_A]], %[[AC]], %[[BC]] : index
// CHECK-NEXT: %[[KEY:.*]] = memref.load %[[KEYS]][%[[SRC]], %[[FROM]]] : memref<2x300xf32>
// CHECK-NEXT: %[[P:.*]] = memref.load %[[AT]][%[[SRC]], %[[FROM]]] : memref<2x300xi32>
// CHECK-NEXT: %[[FRONT:.*]] = arith.addi %[[BASE]], %[[T]] : index
// CHECK-NEXT: memref.store %[[KEY]], %[[KEYS]][%[[DST]], %[[FRONT]]] : memref<2x300xf32>
// CHECK-NEXT: memref.store %[[P]], %[[AT]][%[[DST]], %[[FRONT]]] : memref<2x300xi32>
// CHECK-NEXT: %[[NEXT_A:.*]] = arith.addi %[[A]], %c1 : index
// CHECK-NEXT: %[[NEXT_B:.*]] = arith.addi %[[B]], %c1 : index
// CHECK-NEXT: %[[IA1:.*]] = arith.select %[[TAKE_A]], %[[NEXT_A]], %[[A]] : index
// CHECK-NEXT: %[[IB1:.*]] = arith.select %[[TAKE_A]], %[[B]], %[[NEXT_B]] : index
// CHECK-NEXT: %[[MID1:.*]] = arith.subi %[[MID]], %c1 : index
// CHECK-NEXT: %[[END1:.*]] = arith.subi %[[END]], %c1 : index
// CHECK-NEXT: %[[LA:.*]] = arith.select %[[START]], %[[MID1]], %[[JA]] : index
// CHECK-NEXT: %[[LB:.*]] = arith.select %[[START]], %[[END1]], %[[JB]] : index
// CHECK-NEXT: %[[LAC:.*]] = arith.maxsi %[[LA]], %c0 : index
// CHECK-NEXT: %[[LBC:.*]] = arith.maxsi %[[LB]], %c0 : index
// CHECK-NEXT: %[[YA:.*]] = memref.load %[[KEYS]][%[[SRC]], %[[LAC]]] : memref<2x300xf32>
// CHECK-NEXT: %[[YB:.*]] = memref.load %[[KEYS]][%[[SRC]], %[[LBC]]] : memref<2x300xf32>
// CHECK-NEXT: %[[YLE:.*]] = arith.cmpf ole, %[[YA]], %[[YB]] : f32
// CHECK-NEXT: %[[YNAN:.*]] = arith.cmpf uno, %[[YB]], %[[YB]] : f32
// CHECK-NEXT: %[[YAB:.*]] = arith.ori %[[YLE]], %[[YNAN]] : i1
// CHECK-NEXT: %[[HAS_LB:.*]] = arith.cmpi sge, %[[LB]], %[[MID]] : index
// CHECK-NEXT: %[[NO_LA:.*]] = arith.cmpi slt, %[[LA]], %[[BASE]] : index
// CHECK-NEXT: %[[B_LAST:.*]] = arith.ori %[[NO_LA]], %[[YAB]] : i1
// CHECK-NEXT: %[[TAKE_B:.*]] = arith.andi %[[HAS_LB]], %[[B_LAST]] : i1
// CHECK-NEXT: %[[FROM_BACK:.*]] = arith.select %[[TAKE_B]], %[[LBC]], %[[LAC]] : index
// CHECK-NEXT: %[[KEY_BACK:.*]] = memref.load %[[KEYS]][%[[SRC]], %[[FROM_BACK]]] : memref<2x300xf32>
// CHECK-NEXT: %[[P_BACK:.*]] = memref.load %[[AT]][%[[SRC]], %[[FROM_BACK]]] : memref<2x300xi32>
// CHECK-NEXT: %[[BACK:.*]] = arith.subi %[[END1]], %[[T]] : index
// CHECK-NEXT: memref.store %[[KEY_BACK]], %[[KEYS]][%[[DST]], %[[BACK]]] : memref<2x300xf32>
// CHECK-NEXT: memref.store %[[P_BACK]], %[[AT]][%[[DST]], %[[BACK]]] : memref<2x300xi32>
// CHECK-NEXT: %[[PREV_A:.*]] = arith.subi %[[LA]], %c1 : index
// CHECK-NEXT: %[[PREV_B:.*]] = arith.subi %[[LB]], %c1 : index
// CHECK-NEXT: %[[JA1:.*]] = arith.select %[[TAKE_B]], %[[LA]], %[[PREV_A]] : index
// CHECK-NEXT: %[[JB1:.*]] = arith.select %[[TAKE_B]], %[[PREV_B]], %[[LB]] : index
// CHECK-NEXT: affine.yield %[[IA1]], %[[IB1]], %[[JA1]], %[[JB1]] : index, index, index, index
// CHECK-NEXT: }
// CHECK-NEXT: }
// CHECK-NEXT: affine.for %[[T:.*]] = 0 to 300 {
// CHECK-NEXT: %[[Q:.*]] = affine.load %[[AT]][1, %[[T]]] : memref<2x300xi32>
// CHECK-NEXT: %[[QI:.*]] = arith.index_cast %[[Q]] : i32 to index
// CHECK-NEXT: %[[K:.*]] = arith.index_cast %[[QI]] : index to i64
// CHECK-NEXT: affine.store %[[K]], %arg1[%[[R]], %[[T]]] : memref<4x300xi64>
// CHECK-NEXT: }
// CHECK: memref.dealloc %[[KEYS]] : memref<2x300xf32>
// CHECK-NEXT: memref.dealloc %[[AT]] : memref<2x300xi32>
// CHECK-NOT: tm_tensor
