// The same siblings on trn1: sharing only an external tensor earns nothing under the seed's
// profit formula, so the pair is refused and both loops stay.
// RUN: loopopt %s --target trn1 --remarks 2>&1 | filecheck %s

func.func @siblings(%a: memref<64xf32>, %out: memref<64xf32>, %out2: memref<64xf32>) {
  affine.for %i = 0 to 64 {
    %x = affine.load %a[%i] : memref<64xf32>
    %y = arith.mulf %x, %x : f32
    affine.store %y, %out[%i] : memref<64xf32>
  }
  affine.for %i = 0 to 64 {
    %x = affine.load %a[%i] : memref<64xf32>
    %y = arith.addf %x, %x : f32
    affine.store %y, %out2[%i] : memref<64xf32>
  }
  return
}

// CHECK: {{.*}}.mlir:6:3: missed: [STOP FUSION] no fusion benefit: {{.*}}.mlir:6:3 and {{.*}}.mlir:11:3, level = 0, profit = 0 (in @siblings)
// CHECK-NEXT: analysis: numLoopsFused = 0

// CHECK-LABEL: func.func @siblings
// CHECK: affine.for
// CHECK: affine.store {{.*}} : memref<64xf32>
// CHECK-NEXT: }
// CHECK-NEXT: affine.for
// CHECK: affine.store {{.*}} : memref<64xf32>
// CHECK-NEXT: }
// CHECK-NEXT: return
