// Issue 35: the run-time checks torch-mlir leaves in loops (batch-norm's divisor, a gather's index)
// run first, in a loop of their own with the loop's bounds, when the check rule allows it
// (codegen/cpu/checks_first.py, analysis/checks.py). @divisor: its condition cannot trap, so the
// conditions of every iteration are one conjunction (an andi reduction, which vectorizes) and the
// checks run, in order, only when it is false; the loop itself keeps no check. @gather: the second
// condition loads X at an index only the first check keeps inside X, so the checks run first in
// order, without lanes. @seen: the loop writes its output before the check: an aborting run would
// lose those writes, so the check stays.
// RUN: loopopt %s --target cpu --vector-bits 256 --passes checks-first --remarks -o - 2>%t.remarks | filecheck %s
// RUN: filecheck %s --check-prefix=REMARK < %t.remarks
// RUN: loopopt %s --target cpu --vector-bits 256 -o %t.mlir && mlir-opt %t.mlir -o /dev/null
// REQUIRES: mlir-opt
func.func @divisor(%V: memref<64xf32>, %T: memref<64xf32>) {
  %z = arith.constant 0.0 : f32
  %one = arith.constant 1.0 : f32
  %t = memref.alloc() : memref<64xf32>
  affine.for %i = 0 to 64 {
    %v = affine.load %V[%i] : memref<64xf32>
    %s = math.sqrt %v : f32
    %c = arith.cmpf one, %s, %z : f32
    cf.assert %c, "unimplemented: tensor with zero element"
    %r = arith.divf %one, %s : f32
    affine.store %r, %t[%i] : memref<64xf32>
  }
  %r = affine.load %t[3] : memref<64xf32>
  affine.store %r, %T[0] : memref<64xf32>
  memref.dealloc %t : memref<64xf32>
  return
}

func.func @gather(%I: memref<8xi64>, %X: memref<16xf32>, %O: memref<8xf32>) {
  %c16 = arith.constant 16 : i64
  %z = arith.constant 0.0 : f32
  %t = memref.alloc() : memref<8xf32>
  affine.for %i = 0 to 8 {
    %n = affine.load %I[%i] : memref<8xi64>
    %lt = arith.cmpi ult, %n, %c16 : i64
    cf.assert %lt, "index out of range"
    %j = arith.index_cast %n : i64 to index
    %x = memref.load %X[%j] : memref<16xf32>
    %pos = arith.cmpf oge, %x, %z : f32
    cf.assert %pos, "negative entry"
    affine.store %x, %t[%i] : memref<8xf32>
  }
  %r = affine.load %t[3] : memref<8xf32>
  affine.store %r, %O[0] : memref<8xf32>
  memref.dealloc %t : memref<8xf32>
  return
}

func.func @seen(%A: memref<8xf32>, %O: memref<8xf32>) {
  %z = arith.constant 0.0 : f32
  affine.for %i = 0 to 8 {
    %a = affine.load %A[%i] : memref<8xf32>
    affine.store %a, %O[%i] : memref<8xf32>
    %c = arith.cmpf one, %a, %z : f32
    cf.assert %c, "zero"
  }
  return
}

// CHECK-LABEL: func.func @divisor
// CHECK: %[[TRUE:.*]] = arith.constant true
// CHECK-NEXT: %[[OK:.*]] = affine.for %[[I:.*]] = 0 to 64 iter_args(%[[ACC:.*]] = %[[TRUE]]) -> (i1) {
// CHECK-NEXT: affine.load
// CHECK-NEXT: math.sqrt
// CHECK-NEXT: %[[C:.*]] = arith.cmpf one
// CHECK-NEXT: %[[AND:.*]] = arith.andi %[[ACC]], %[[C]] : i1
// CHECK-NEXT: affine.yield %[[AND]] : i1
// CHECK: %[[BAD:.*]] = arith.xori %[[OK]], %{{.*}} : i1
// CHECK-NEXT: scf.if %[[BAD]] {
// CHECK-NEXT: affine.for
// CHECK-NEXT: affine.load
// CHECK-NEXT: math.sqrt
// CHECK-NEXT: arith.cmpf one
// CHECK-NEXT: cf.assert %{{.*}}, "unimplemented: tensor with zero element"
// CHECK-NEXT: }
// CHECK-NEXT: }
// CHECK-NEXT: affine.for
// CHECK-NOT: cf.assert
// CHECK: arith.divf
// CHECK-LABEL: func.func @gather
// CHECK-NOT: scf.if
// CHECK: affine.for
// CHECK: cf.assert %{{.*}}, "index out of range"
// CHECK: memref.load
// CHECK: cf.assert %{{.*}}, "negative entry"
// CHECK-NEXT: }
// CHECK-NEXT: affine.for
// CHECK-NOT: cf.assert
// CHECK: memref.load
// CHECK-LABEL: func.func @seen
// CHECK: affine.store
// CHECK-NEXT: arith.cmpf
// CHECK-NEXT: cf.assert

// REMARK: checks-first.mlir:17:3: passed: [CHECKS FIRST] the loop's run-time checks run first, in a loop of their own: 1 check, a conjunction of the conditions in vector lanes, the checks in order when it is false (in @divisor)
// REMARK: checks-first.mlir:35:3: passed: [CHECKS FIRST] the loop's run-time checks run first, in a loop of their own: 2 checks, the checks in order (a condition may trap: not run ahead) (in @gather)
// REMARK: checks-first.mlir:53:3: missed: [STOP CHECKS FIRST] the loop's run-time checks stay in it (in @seen) [the check "zero" at {{.*}}checks-first.mlir:57:5 would run before affine.store at {{.*}}checks-first.mlir:55:5 writes memory seen after an abort]
