// --passes tile=32: both loops of the 64x128 band are strip-mined by 32 and the tile loops are
// moved outside the point loops (normalised point loops, `tile + point` in the access maps).
// RUN: loopopt %s --passes tile=32 --remarks 2>&1 | filecheck %s

func.func @band(%a: memref<64x128xf32>, %out: memref<64x128xf32>) {
  affine.for %i = 0 to 64 {
    affine.for %j = 0 to 128 {
      %x = affine.load %a[%i, %j] : memref<64x128xf32>
      affine.store %x, %out[%i, %j] : memref<64x128xf32>
    }
  }
  return
}

// CHECK: {{.*}}.mlir:6:3: passed: [LOOP TILING] by 32 (in @band)
// CHECK-LABEL: func.func @band
// CHECK-SAME: (%[[A:[a-z0-9_]+]]: memref<64x128xf32>, %[[OUT:[a-z0-9_]+]]: memref<64x128xf32>)
// CHECK-NEXT: affine.for %[[TI:[a-z0-9_]+]] = 0 to 64 step 32 {
// CHECK-NEXT: affine.for %[[TJ:[a-z0-9_]+]] = 0 to 128 step 32 {
// CHECK-NEXT: affine.for %[[PI:[a-z0-9_]+]] = 0 to 32 {
// CHECK-NEXT: affine.for %[[PJ:[a-z0-9_]+]] = 0 to 32 {
// CHECK-NEXT: %[[X:[a-z0-9_]+]] = affine.load %[[A]][%[[PI]] + %[[TI]], %[[PJ]] + %[[TJ]]]
// CHECK-NEXT: affine.store %[[X]], %[[OUT]][%[[PI]] + %[[TI]], %[[PJ]] + %[[TJ]]]
// CHECK-NEXT: }
// CHECK-NEXT: }
// CHECK-NEXT: }
// CHECK-NEXT: }
// CHECK-NEXT: return
