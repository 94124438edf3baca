// `0 to %n` against `0 to %m`: the trip counts are not provably equal, refused.
// RUN: loopopt %s --target cpu --vector-bits 256 --remarks 2>&1 | filecheck %s

func.func @two_symbols(%a: memref<?xf32>, %out: memref<?xf32>, %n: index, %m: index) {
  %t = memref.alloc(%n) : memref<?xf32>
  affine.for %i = 0 to %n {
    %x = affine.load %a[%i] : memref<?xf32>
    affine.store %x, %t[%i] : memref<?xf32>
  }
  affine.for %i = 0 to %m {
    %x = affine.load %t[%i] : memref<?xf32>
    affine.store %x, %out[%i] : memref<?xf32>
  }
  return
}

// CHECK: {{.*}}.mlir:6:3: missed: [STOP FUSION] unmatched trip count: {{.*}}.mlir:6:3 and {{.*}}.mlir:10:3, level = 0, profit = 8192 (in @two_symbols){{$}}
// CHECK-NEXT: analysis: numLoopsFused = 0

// CHECK-LABEL: func.func @two_symbols
// CHECK-SAME: %[[N:[a-z0-9_]+]]: index, %[[M:[a-z0-9_]+]]: index)
// CHECK: affine.for %{{[a-z0-9_]+}} = 0 to %[[N]] {
// CHECK: affine.for %{{[a-z0-9_]+}} = 0 to %[[M]] {
