// A loop that yields a value (a sum in iter_args) does not fuse with a neighbour that uses that
// value: the sum is known only after the first loop's last iteration (iter_args_fusion.py).
// Loops that carry iter_args and do not need each other's results fuse: fuse-iter-args.mlir.
// RUN: loopopt %s --target cpu --vector-bits 256 --remarks 2>&1 | filecheck %s

func.func @sum_then_scale(%a: memref<64xf32>, %out: memref<64xf32>) {
  %zero = arith.constant 0.0 : f32
  %sum = affine.for %i = 0 to 64 iter_args(%acc = %zero) -> (f32) {
    %x = affine.load %a[%i] : memref<64xf32>
    %n = arith.addf %acc, %x : f32
    affine.yield %n : f32
  }
  affine.for %i = 0 to 64 {
    %x = affine.load %a[%i] : memref<64xf32>
    %y = arith.divf %x, %sum : f32
    affine.store %y, %out[%i] : memref<64xf32>
  }
  return
}

// CHECK: {{.*}}.mlir:8:10: missed: [STOP FUSION] loop yields values (iter_args): {{.*}}.mlir:8:10 and {{.*}}.mlir:13:3, level = 0, profit = 256 (in @sum_then_scale) [arith.divf at {{.*}}.mlir:15:10 uses a result of the loop at {{.*}}.mlir:8:10, known only after its last iteration]
// CHECK-NEXT: analysis: numLoopsFused = 0

// CHECK-LABEL: func.func @sum_then_scale
// CHECK: %[[SUM:[a-z0-9_]+]] = affine.for {{.*}} iter_args
// CHECK: affine.yield
// CHECK-NEXT: }
// CHECK-NEXT: affine.for
// CHECK: arith.divf %{{.*}}, %[[SUM]]
