// docs/cpu_codegen.md section 23: on cpu a parallel innermost loop joins the reduction loop that
// reads, in the same iteration, what it has just written, when the reduction stays vector: with
// --reassociate the sum of exponentials of a log-sum-exp row is one loop with exp (no buffer of
// exponentials, each row streamed twice: max, then exp + sum); without it the sum keeps its order,
// would run the exponentials one at a time, and the pair is refused with the guard's remark.
// RUN: loopopt %s --target cpu --vector-bits 256 --reassociate --passes fusion,contraction,scalar-replacement -o - | filecheck %s
// RUN: loopopt %s --target cpu --vector-bits 256 --passes fusion,contraction,scalar-replacement --remarks -o - 2>%t.remarks | filecheck %s --check-prefix=ORDERED
// RUN: filecheck %s --check-prefix=REMARK < %t.remarks
func.func @lse(%x: memref<8x100xf32>, %out: memref<8xf32>) {
  %ninf = arith.constant 0xFF800000 : f32
  %zero = arith.constant 0.0 : f32
  %mx = memref.alloc() : memref<8xf32>
  %e = memref.alloc() : memref<8x100xf32>
  %sum = memref.alloc() : memref<8xf32>
  affine.for %i = 0 to 8 {
    affine.store %ninf, %mx[%i] : memref<8xf32>
    affine.for %j = 0 to 100 {
      %v = affine.load %x[%i, %j] : memref<8x100xf32>
      %m = affine.load %mx[%i] : memref<8xf32>
      %m2 = arith.maximumf %m, %v : f32
      affine.store %m2, %mx[%i] : memref<8xf32>
    }
  }
  affine.for %i = 0 to 8 {
    affine.for %j = 0 to 100 {
      %v = affine.load %x[%i, %j] : memref<8x100xf32>
      %m = affine.load %mx[%i] : memref<8xf32>
      %d = arith.subf %v, %m : f32
      %ex = math.exp %d : f32
      affine.store %ex, %e[%i, %j] : memref<8x100xf32>
    }
  }
  affine.for %i = 0 to 8 {
    affine.store %zero, %sum[%i] : memref<8xf32>
  }
  affine.for %i = 0 to 8 {
    affine.for %j = 0 to 100 {
      %v = affine.load %e[%i, %j] : memref<8x100xf32>
      %s = affine.load %sum[%i] : memref<8xf32>
      %s2 = arith.addf %s, %v : f32
      affine.store %s2, %sum[%i] : memref<8xf32>
    }
  }
  affine.for %i = 0 to 8 {
    %s = affine.load %sum[%i] : memref<8xf32>
    %m = affine.load %mx[%i] : memref<8xf32>
    %l = math.log %s : f32
    %r = arith.addf %l, %m : f32
    affine.store %r, %out[%i] : memref<8xf32>
  }
  memref.dealloc %mx : memref<8xf32>
  memref.dealloc %e : memref<8x100xf32>
  memref.dealloc %sum : memref<8xf32>
  return
}

// CHECK-LABEL: func.func @lse
// CHECK-NOT: memref<8x100xf32> = memref.alloc
// CHECK: affine.for %[[I:.*]] = 0 to 8 {
// CHECK: affine.for %{{.*}} = 0 to 100 iter_args
// CHECK: arith.maximumf
// CHECK: %[[S:.*]] = affine.for %{{.*}} = 0 to 100 iter_args(%[[ACC:.*]] = %{{.*}}) -> (f32) {
// CHECK: %[[E:.*]] = math.exp
// CHECK-NEXT: %[[N:.*]] = arith.addf %[[ACC]], %[[E]] : f32
// CHECK-NEXT: affine.yield %[[N]] : f32
// CHECK: math.log %[[S]] : f32

// ORDERED-LABEL: func.func @lse
// ORDERED: math.exp
// ORDERED-NEXT: affine.store %{{.*}}, %{{.*}}[0, %{{.*}}] : memref<1x100xf32>
// ORDERED-NEXT: }
// ORDERED: affine.for %{{.*}} = 0 to 100 iter_args
// ORDERED: affine.load %{{.*}}[0, %{{.*}}] : memref<1x100xf32>

// REMARK: missed: [STOP FUSION] a parallel inner loop would join a loop-carried reduction: {{.*}}exp-joins-sum.mlir:25:5 and {{.*}}exp-joins-sum.mlir:37:5, level = 1
