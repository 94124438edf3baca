// The consumer loads vector<8xf32> at %t[i + 4]: elements i+4..i+11, half of them written by the
// NEXT producer iteration. As points (8k vs 8k + 4) the accesses never meet; as boxes they do,
// so the pair is refused with a negative distance.
// RUN: loopopt %s --target cpu --vector-bits 256 --remarks 2>&1 | filecheck %s

func.func @vector_overlap(%a: memref<64xf32>, %out: memref<64xf32>) {
  %t = memref.alloc() : memref<72xf32>
  affine.for %i = 0 to 64 step 8 {
    %v = affine.vector_load %a[%i] : memref<64xf32>, vector<8xf32>
    affine.vector_store %v, %t[%i] : memref<72xf32>, vector<8xf32>
  }
  affine.for %i = 0 to 64 step 8 {
    %x = affine.vector_load %t[%i + 4] : memref<72xf32>, vector<8xf32>
    affine.vector_store %x, %out[%i] : memref<64xf32>, vector<8xf32>
  }
  return
}

// CHECK: {{.*}}.mlir:8:3: missed: [STOP FUSION] negative distance dep in def-use: {{.*}}.mlir:8:3 and {{.*}}.mlir:12:3, level = 0, profit = 480 (in @vector_overlap) [RAW on memref.alloc ({{.*}}:7:8), distances { [d] : -1 <= d <= 0 }]
// CHECK-NEXT: analysis: numLoopsFused = 0

// CHECK-LABEL: func.func @vector_overlap
// CHECK: %[[T:[a-z0-9_]+]] = memref.alloc() : memref<72xf32>
// CHECK-NEXT: affine.for %[[I:[a-z0-9_]+]] = 0 to 64 step 8 {
// CHECK-NEXT: affine.vector_load
// CHECK-NEXT: affine.vector_store %{{[a-z0-9_]+}}, %[[T]][%[[I]]]
// CHECK-NEXT: }
// CHECK-NEXT: affine.for %[[J:[a-z0-9_]+]] = 0 to 64 step 8 {
// CHECK-NEXT: affine.vector_load %[[T]][%[[J]] + 4]
