// Issue 24, GEMMs: C[i, j] += A[i, k] * W[j, k] (a Linear layer on torch's weight layout) walks W
// across rows along j, the loop the register tiling runs in lanes: W is copied into a k x j buffer
// first (the copy's column walk tiled by transpose blocking), and the product is register tiled.
// RUN: loopopt %s --target cpu --vector-bits 256 --remarks 2>&1 | filecheck %s
// RUN: loopopt %s --target trn1 --remarks 2>&1 | filecheck %s --check-prefix=TRN1
func.func @linear(%A: memref<12x32xf32>, %W: memref<48x32xf32>, %C: memref<12x48xf32>) {
  affine.for %i = 0 to 12 {
    affine.for %j = 0 to 48 {
      affine.for %k = 0 to 32 {
        %a = affine.load %A[%i, %k] : memref<12x32xf32>
        %w = affine.load %W[%j, %k] : memref<48x32xf32>
        %c = affine.load %C[%i, %j] : memref<12x48xf32>
        %p = arith.mulf %a, %w : f32
        %s = arith.addf %c, %p : f32
        affine.store %s, %C[%i, %j] : memref<12x48xf32>
      }
    }
  }
  return
}

// CHECK: pack-operand.mlir:11:14: passed: [PACK] operand %arg1 copied before the product into a 32x48 buffer whose rows run along the lanes loop (in @linear)
// CHECK: passed: [BLOCK TRANSPOSE] 16 x 16 tiles
// CHECK: passed: [REGISTER TILING]
// CHECK: passed: [TRANSPOSE TILE] a 16 x 16 transposing copy in 8 x 8 tiles
// CHECK-LABEL: func.func @linear
// CHECK: %[[P:.*]] = memref.alloc() {alignment = 64 : i64} : memref<32x48xf32>
// CHECK: affine.vector_store %{{.*}}, %[[P]][%{{.*}}, %{{.*}}] : memref<32x48xf32>, vector<8xf32>
// CHECK: affine.vector_load %[[P]][%{{.*}}, %{{.*}}] : memref<32x48xf32>, vector<8xf32>
// CHECK: memref.dealloc %[[P]] : memref<32x48xf32>
// CHECK-NEXT: return

// TRN1-NOT: [PACK]
// TRN1-LABEL: func.func @linear
// TRN1-NOT: memref.alloc
