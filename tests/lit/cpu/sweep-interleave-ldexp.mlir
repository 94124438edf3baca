// Section 83: a 512-bit plan scales exp's 2^n by llvm.intr.ldexp (section 25), whose MLIR form takes a
// scalar exponent only. sweep-vectors writes that op on its vectors as LLVM's own ldexp intrinsic on
// vectors (llvm.call_intrinsic "llvm.ldexp.v16f32.v16i32": vscalefps on AVX-512, the same bits as the
// scalar op LLVM widens), so a long chain of exp interleaves as section 74's chains do; before, the
// op kept the loop from sweep-vectors (one vector per iteration under LLVM's vectorizer).
// RUN: loopopt %s --target cpu --vector-bits 512 --approximate-math --remarks -o %t.mlir 2>&1 | filecheck %s --check-prefix=REMARK
// RUN: filecheck %s < %t.mlir
// RUN: mlir-opt %t.mlir -o /dev/null
// REQUIRES: mlir-opt
func.func @act(%n: index, %A: memref<?xf32>, %B: memref<?xf32>) {
  affine.for %i = 0 to %n {
    %x = affine.load %A[%i] : memref<?xf32>
    %e = math.exp %x : f32
    affine.store %e, %B[%i] : memref<?xf32>
  }
  return
}

// REMARK: sweep-interleave-ldexp.mlir:11:3: passed: [SWEEP VECTORS] vectors of 16 in blocks of 4, interleaved op by op: a chain of 16 ops overlapped 4 times; ends peeled (in @act)
// CHECK-LABEL: func.func @act
// CHECK-NOT: llvm.intr.ldexp
// CHECK: vector.maskedstore
// CHECK: scf.for
// CHECK-COUNT-4: vector.load %arg1[%{{.*}}] : memref<?xf32>, vector<16xf32>
// CHECK: %[[N0:.*]] = arith.fptosi %{{.*}} : vector<16xf32> to vector<16xi32>
// CHECK-NEXT: %[[N1:.*]] = arith.fptosi %{{.*}} : vector<16xf32> to vector<16xi32>
// CHECK-NEXT: %[[N2:.*]] = arith.fptosi %{{.*}} : vector<16xf32> to vector<16xi32>
// CHECK-NEXT: %[[N3:.*]] = arith.fptosi %{{.*}} : vector<16xf32> to vector<16xi32>
// CHECK-NEXT: llvm.call_intrinsic "llvm.ldexp.v16f32.v16i32"(%{{.*}}, %[[N0]]) : (vector<16xf32>, vector<16xi32>) -> vector<16xf32>
// CHECK-NEXT: llvm.call_intrinsic "llvm.ldexp.v16f32.v16i32"(%{{.*}}, %[[N1]]) : (vector<16xf32>, vector<16xi32>) -> vector<16xf32>
// CHECK-NEXT: llvm.call_intrinsic "llvm.ldexp.v16f32.v16i32"(%{{.*}}, %[[N2]]) : (vector<16xf32>, vector<16xi32>) -> vector<16xf32>
// CHECK-NEXT: llvm.call_intrinsic "llvm.ldexp.v16f32.v16i32"(%{{.*}}, %[[N3]]) : (vector<16xf32>, vector<16xi32>) -> vector<16xf32>
// CHECK-COUNT-4: vector.store %{{.*}}, %arg2[%{{.*}}] : memref<?xf32>, vector<16xf32>
// CHECK: scf.for
// CHECK: llvm.call_intrinsic "llvm.ldexp.v16f32.v16i32"
// CHECK: vector.maskedstore
// CHECK-NOT: llvm.intr.ldexp
