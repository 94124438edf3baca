// A call with unknown effects between two loops that touch only buffers the function allocates
// and never lets escape (MLIR's loop-fusion-3.mlir, a call without memref operands): the call
// cannot reach them, so it stays where it is and the loops fuse (fusion_legality.private_buffer).
// A loop that touches an argument still stops at the call: refuse-ops-between-loops.mlir.
// RUN: loopopt %s --target cpu --vector-bits 256 --passes fusion --remarks 2>&1 | filecheck %s

func.func private @some_function()
func.func @call_between(%arg0: memref<16xf32>) {
  %A = memref.alloc() : memref<16xf32>
  %cst_1 = arith.constant 1.000000e+00 : f32
  affine.for %i = 0 to 16 {
    %a = affine.load %arg0[%i] : memref<16xf32>
    affine.store %a, %A[%i] : memref<16xf32>
  }
  call @some_function() : () -> ()
  %B = memref.alloc() : memref<16xf32>
  affine.for %i = 0 to 16 {
    %a = affine.load %A[%i] : memref<16xf32>
    %b = arith.addf %cst_1, %a : f32
    affine.store %b, %B[%i] : memref<16xf32>
  }
  return
}

// CHECK: {{.*}}.mlir:11:3: passed: [LOOP FUSION] , level = 0 fused {{.*}}.mlir:11:3 and {{.*}}.mlir:17:3 profit = 128 (in @call_between)
// CHECK-NEXT: analysis: numLoopsFused = 1

// %B's alloc moved above the fused loop (the second loop needs it); the call stays after it.
// CHECK-LABEL: func.func @call_between
// CHECK: %[[A:[a-z0-9_]+]] = memref.alloc()
// CHECK-NEXT: arith.constant
// CHECK-NEXT: %[[B:[a-z0-9_]+]] = memref.alloc()
// CHECK-NEXT: affine.for %[[I:[a-z0-9_]+]] = 0 to 16 {
// CHECK-NEXT: affine.load %{{.*}}[%[[I]]]
// CHECK-NEXT: affine.store %{{.*}}, %[[A]][%[[I]]]
// CHECK-NEXT: affine.load %[[A]][%[[I]]]
// CHECK-NEXT: arith.addf
// CHECK-NEXT: affine.store %{{.*}}, %[[B]][%[[I]]]
// CHECK-NEXT: }
// CHECK-NEXT: call @some_function()
// CHECK-NEXT: return
