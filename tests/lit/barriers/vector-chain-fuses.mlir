// A chain vectorized as affine-super-vectorize emits it (step 8, vector<8xf32> at %i): each
// iteration of the consumer reads exactly the box the producer wrote, so it fuses and the
// intermediate becomes the vector value itself.
// RUN: loopopt %s --target cpu --vector-bits 256 --remarks 2>&1 | filecheck %s

func.func @vector_chain(%a: memref<64xf32>, %out: memref<64xf32>) {
  %one = arith.constant dense<1.0> : vector<8xf32>
  %t = memref.alloc() : memref<64xf32>
  affine.for %i = 0 to 64 step 8 {
    %v = affine.vector_load %a[%i] : memref<64xf32>, vector<8xf32>
    %w = arith.mulf %v, %v : vector<8xf32>
    affine.vector_store %w, %t[%i] : memref<64xf32>, vector<8xf32>
  }
  affine.for %i = 0 to 64 step 8 {
    %x = affine.vector_load %t[%i] : memref<64xf32>, vector<8xf32>
    %q = arith.addf %x, %one : vector<8xf32>
    affine.vector_store %q, %out[%i] : memref<64xf32>, vector<8xf32>
  }
  memref.dealloc %t : memref<64xf32>
  return
}

// CHECK: passed: [LOOP FUSION] , level = 0 fused {{.*}}.mlir:9:3 and {{.*}}.mlir:14:3 profit = 512 (in @vector_chain)
// CHECK-NEXT: passed: [CONTRACTION] memref.alloc at {{.*}}.mlir:8:8 replaced by its stored values; buffer removed (in @vector_chain)
// CHECK-NEXT: analysis: numLoopsFused = 1

// CHECK-LABEL: func.func @vector_chain
// CHECK-SAME: (%[[A:[a-z0-9_]+]]: memref<64xf32>, %[[OUT:[a-z0-9_]+]]: memref<64xf32>)
// CHECK-NEXT: %[[ONE:[a-z0-9_]+]] = arith.constant dense<1.0{{.*}}> : vector<8xf32>
// CHECK-NEXT: affine.for %[[I:[a-z0-9_]+]] = 0 to 64 step 8 {
// CHECK-NEXT: %[[V:[a-z0-9_]+]] = affine.vector_load %[[A]][%[[I]]] : memref<64xf32>, vector<8xf32>
// CHECK-NEXT: %[[W:[a-z0-9_]+]] = arith.mulf %[[V]], %[[V]] : vector<8xf32>
// CHECK-NEXT: %[[Q:[a-z0-9_]+]] = arith.addf %[[W]], %[[ONE]] : vector<8xf32>
// CHECK-NEXT: affine.vector_store %[[Q]], %[[OUT]][%[[I]]] : memref<64xf32>, vector<8xf32>
// CHECK-NEXT: }
// CHECK-NEXT: return
