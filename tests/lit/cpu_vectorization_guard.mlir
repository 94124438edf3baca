// Issue 12, cpu cost model: the row loops of a softmax fuse, but the parallel exp loop is not
// fused into the sum loop (a loop-carried reduction into an accumulator at a loop-invariant
// address): it would lose vectorization. The Neuron targets keep the seed's decision.
// RUN: loopopt %s --target cpu --vector-bits 256 --exact-math false --remarks 2>&1 | filecheck %s
// RUN: loopopt %s --target trn1 --remarks 2>&1 | filecheck %s --check-prefix=TRN1
func.func @softmax(%x: memref<16x64xf32>, %out: memref<16x64xf32>) {
  %ninf = arith.constant 0xFF800000 : f32
  %zero = arith.constant 0.0 : f32
  %mx = memref.alloc() : memref<16xf32>
  %e = memref.alloc() : memref<16x64xf32>
  %sum = memref.alloc() : memref<16xf32>
  affine.for %i = 0 to 16 {
    affine.store %ninf, %mx[%i] : memref<16xf32>
    affine.for %j = 0 to 64 {
      %v = affine.load %x[%i, %j] : memref<16x64xf32>
      %m = affine.load %mx[%i] : memref<16xf32>
      %m2 = arith.maximumf %m, %v : f32
      affine.store %m2, %mx[%i] : memref<16xf32>
    }
  }
  affine.for %i = 0 to 16 {
    affine.for %j = 0 to 64 {
      %v = affine.load %x[%i, %j] : memref<16x64xf32>
      %m = affine.load %mx[%i] : memref<16xf32>
      %d = arith.subf %v, %m : f32
      %ex = math.exp %d : f32
      affine.store %ex, %e[%i, %j] : memref<16x64xf32>
    }
  }
  affine.for %i = 0 to 16 {
    affine.store %zero, %sum[%i] : memref<16xf32>
    affine.for %j = 0 to 64 {
      %v = affine.load %e[%i, %j] : memref<16x64xf32>
      %s = affine.load %sum[%i] : memref<16xf32>
      %s2 = arith.addf %s, %v : f32
      affine.store %s2, %sum[%i] : memref<16xf32>
    }
  }
  affine.for %i = 0 to 16 {
    affine.for %j = 0 to 64 {
      %v = affine.load %e[%i, %j] : memref<16x64xf32>
      %s = affine.load %sum[%i] : memref<16xf32>
      %r = arith.divf %v, %s : f32
      affine.store %r, %out[%i, %j] : memref<16x64xf32>
    }
  }
  memref.dealloc %mx : memref<16xf32>
  memref.dealloc %e : memref<16x64xf32>
  memref.dealloc %sum : memref<16xf32>
  return
}

// CHECK: passed: [LOOP FUSION] , level = 0 fused {{.*}}.mlir:30:3 and {{.*}}.mlir:39:3
// CHECK: passed: [LOOP FUSION] , level = 0 fused {{.*}}.mlir:21:3 and {{.*}}.mlir:30:3
// CHECK: passed: [LOOP FUSION] , level = 0 fused {{.*}}.mlir:12:3 and {{.*}}.mlir:21:3
// CHECK: missed: [STOP FUSION] a parallel inner loop would join a loop-carried reduction{{.*}} (in @softmax) [the loop at {{.*}}.mlir:22:5 is parallel; the loop at {{.*}}.mlir:32:5 is sequential (reduction into memref.alloc at {{.*}}.mlir:11:10 across iterations)]
// CHECK-NOT: passed: [LOOP FUSION]
// CHECK: analysis: numLoopsFused = 3

// CHECK-LABEL: func.func @softmax
// The exp loop stays parallel beside the max loop; since issue 35 the rows run 8 at a time, the
// sum over each row's exponentials in vector lanes (rows-in-lanes), its loop of its own.
// CHECK: affine.for %[[I:[a-z0-9_]+]] = 0 to 16 step 8 {
// CHECK: affine.for %{{.*}} = 0 to 64 iter_args
// CHECK: arith.maximumf
// CHECK: }
// CHECK: affine.for %{{.*}} = 0 to 64 {
// CHECK-NEXT: affine.load
// CHECK-NEXT: arith.subf
// CHECK-NEXT: math.exp
// CHECK-NEXT: affine.store
// CHECK-NEXT: }
// CHECK: affine.for %{{.*}} = 0 to 64 step 8 iter_args(%[[ACC:[a-z0-9_]+]] = {{.*}}) -> (vector<8xf32>) {
// CHECK: arith.addf %[[ACC]]
// CHECK: affine.yield
// CHECK-NEXT: }
// CHECK: affine.for %{{.*}} = 0 to 64 {
// CHECK: arith.divf
// CHECK: }
// CHECK-NEXT: }
// CHECK-NEXT: }
// CHECK-NEXT: memref.dealloc

// TRN1-NOT: would join a loop-carried reduction
// TRN1: numLoopsFused
