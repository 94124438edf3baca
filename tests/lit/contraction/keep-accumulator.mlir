// A one-element accumulator: each iteration loads %t[0] before storing it, so the load cannot
// take a stored value of its own iteration, and every iteration touches the same element, so
// the buffer cannot shrink either. It is kept, and the remark gives both reasons.
// RUN: loopopt %s --target cpu --vector-bits 256 --remarks 2>&1 | filecheck %s

func.func @accumulate(%a: memref<64xf32>, %out: memref<64xf32>) {
  %t = memref.alloc() : memref<1xf32>
  affine.for %i = 0 to 64 {
    %x = affine.load %t[0] : memref<1xf32>
    %v = affine.load %a[%i] : memref<64xf32>
    %y = arith.addf %x, %v : f32
    affine.store %y, %t[0] : memref<1xf32>
    affine.store %y, %out[%i] : memref<64xf32>
  }
  return
}

// CHECK: {{.*}}.mlir:7:8: missed: [CONTRACTION] kept memref<1xf32> at {{.*}}.mlir:7:8: not forwarded (the load at {{.*}}.mlir:9:10 is not preceded by a store in its block); not shrunk (iterations of the loop at {{.*}}.mlir:8:3 share elements) (in @accumulate)
// On cpu, scalar replacement then carries the accumulator in a register (iter_args): one load
// before the loop, one store after it (dead here: nothing reads %t afterwards).
// CHECK-NEXT: {{.*}}.mlir:9:10: passed: [SCALAR REPLACEMENT] accumulator at a loop-invariant address promoted to iter_args (in @accumulate)
// Nothing reads %t after the loop: the store of the final value is dead.
// CHECK-NEXT: passed: [DEAD STORE] store removed: nothing that runs after it reads what it writes (in @accumulate)

// CHECK-LABEL: func.func @accumulate
// CHECK-NEXT: %[[T:[a-z0-9_]+]] = memref.alloc() : memref<1xf32>
// CHECK-NEXT: %[[INIT:[a-z0-9_]+]] = affine.load %[[T]][0]
// CHECK-NEXT: %[[R:[a-z0-9_]+]] = affine.for %{{[a-z0-9_]+}} = 0 to 64 iter_args(%[[ACC:[a-z0-9_]+]] = %[[INIT]]) -> (f32) {
// CHECK: arith.addf %[[ACC]]
// CHECK: affine.yield
// CHECK-NEXT: }
// CHECK-NEXT: return
