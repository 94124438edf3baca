// An integer division by an argument may trap when it is 0; out of a loop that may run zero
// times it could trap where the program never divided. The addi next to it still moves.
// RUN: loopopt %s --target cpu --vector-bits 256 --remarks 2>&1 | filecheck %s

func.func @div(%out: memref<?xi32>, %n: index, %p: i32, %q: i32) {
  affine.for %i = 0 to %n {
    %d = arith.divsi %p, %q : i32
    %s = arith.addi %p, %q : i32
    %r = arith.addi %d, %s : i32
    affine.store %r, %out[%i] : memref<?xi32>
  }
  return
}

// CHECK: {{.*}}.mlir:7:10: missed: [LICM] not hoisted: loop may run zero times and arith.divsi may divide by zero (in @div)
// CHECK-NEXT: {{.*}}.mlir:8:10: passed: [LICM] Moving inst arith.addi to a new insertion point (in @div)
// CHECK-NEXT: analysis: numLoopsFused = 0

// CHECK-LABEL: func.func @div
// CHECK-SAME: (%[[OUT:[a-z0-9_]+]]: memref<?xi32>, %[[N:[a-z0-9_]+]]: index, %[[P:[a-z0-9_]+]]: i32, %[[Q:[a-z0-9_]+]]: i32)
// CHECK-NEXT: %[[S:[a-z0-9_]+]] = arith.addi %[[P]], %[[Q]] : i32
// CHECK-NEXT: affine.for %[[I:[a-z0-9_]+]] = 0 to %[[N]] {
// CHECK-NEXT: %[[D:[a-z0-9_]+]] = arith.divsi %[[P]], %[[Q]] : i32
// CHECK-NEXT: %[[R:[a-z0-9_]+]] = arith.addi %[[D]], %[[S]] : i32
// CHECK-NEXT: affine.store %[[R]], %[[OUT]][%[[I]]]
