// Section 25: exp's scaling by 2^n (codegen/cpu/math/math_approx.py, Ops.scale). A 512-bit plan
// (AVX-512) scales by one llvm.intr.ldexp, which LLVM widens to vscalefps; the 256-bit plan
// (AVX2, no such instruction) keeps the exponent bits built in two halves. Both round once: the
// same bits (tests/test_cpu_math.py). tanh's exp is scaled alike.
// RUN: loopopt %s --target cpu --vector-bits 256 --passes math-approx -o - | filecheck %s --check-prefix=AVX2
// RUN: loopopt %s --target cpu --vector-bits 512 --passes math-approx -o - | filecheck %s --check-prefix=AVX512
// RUN: loopopt %s --target cpu --vector-bits 512 --passes math-approx -o %t.mlir && mlir-opt %t.mlir -o /dev/null
// REQUIRES: mlir-opt
func.func @act(%x: memref<256xf32>, %out: memref<2x256xf32>) {
  affine.for %i = 0 to 256 {
    %v = affine.load %x[%i] : memref<256xf32>
    %e = math.exp %v : f32
    %t = math.tanh %v : f32
    affine.store %e, %out[0, %i] : memref<2x256xf32>
    affine.store %t, %out[1, %i] : memref<2x256xf32>
  }
  return
}

// AVX2-LABEL: func.func @act
// AVX2-NOT: llvm.intr.ldexp
// AVX2: math.floor
// AVX2: arith.fptosi
// AVX2-NEXT: arith.shrsi
// AVX2-NEXT: arith.subi
// AVX2: arith.shli
// AVX2: arith.shli
// AVX2: arith.mulf
// AVX2-NEXT: arith.mulf
// AVX2-NOT: llvm.intr.ldexp
// AVX2: return

// AVX512-LABEL: func.func @act
// AVX512-NOT: arith.shrsi
// AVX512: %[[N:.*]] = math.floor
// AVX512: %[[P:.*]] = arith.addf
// AVX512-NEXT: %[[NI:.*]] = arith.fptosi %[[N]] : f32 to i32
// AVX512-NEXT: %[[E:.*]] = llvm.intr.ldexp(%[[P]], %[[NI]]) : (f32, i32) -> f32
// AVX512-NOT: arith.shrsi
// AVX512: math.floor
// AVX512: arith.fptosi
// AVX512-NEXT: llvm.intr.ldexp
// AVX512-NOT: arith.shrsi
// AVX512: return
