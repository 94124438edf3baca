// --print-analysis lists the loops with their trip counts (symbolic ones as expressions), the
// memory locations and the distances between sibling loops.
// RUN: loopopt %s --target cpu --vector-bits 256 --print-analysis -o /dev/null 2>&1 | filecheck %s

func.func @f(%a: memref<?xf32>, %out: memref<?xf32>, %n: index) {
  %t = memref.alloc(%n) : memref<?xf32>
  affine.for %i = 0 to %n {
    %x = affine.load %a[%i] : memref<?xf32>
    affine.store %x, %t[%i] : memref<?xf32>
  }
  affine.for %i = 0 to %n {
    %x = affine.load %t[%i] : memref<?xf32>
    affine.store %x, %out[%i] : memref<?xf32>
  }
  return
}

// CHECK: func @f
// CHECK-NEXT: loops:
// CHECK-NEXT: {{.*}}.mlir:7:3  level 0  iv i0  trip count [] -> [(0)] : p0 < 0; [] -> [(p0)] : p0 >= 0  perfect True
// CHECK-NEXT: {{.*}}.mlir:11:3  level 0  iv i1  trip count [] -> [(0)] : p0 < 0; [] -> [(p0)] : p0 >= 0  perfect True
// CHECK-NEXT: memory locations:
// CHECK-NEXT: memref.alloc@6:8 placed {{.*}} elem 4 B  liveN 1024
// CHECK-NEXT: external
// CHECK-NEXT: external
// CHECK-NEXT: dependences between sibling loops (distance along the fused axis):
// CHECK-NEXT: {{.*}}.mlir:9:5 -> {{.*}}.mlir:12:10  WR  [p0] -> { [d = 0] : p0 > 0 }

// MUTANT-N: skip (independent of the transforms)
