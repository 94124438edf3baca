// PolyBench gesummv (N=32): y = alpha * A x + beta * B x, with alpha and beta passed as f32 arguments.
func.func @polybench_gesummv(%alpha: f32, %beta: f32, %A: memref<32x32xf32>, %B: memref<32x32xf32>, %tmp: memref<32xf32>, %x: memref<32xf32>, %y: memref<32xf32>) {
  %zero = arith.constant 0.0 : f32
  affine.for %i = 0 to 32 {
    affine.store %zero, %tmp[%i] : memref<32xf32>
    affine.store %zero, %y[%i] : memref<32xf32>
    affine.for %j = 0 to 32 {
      %a = affine.load %A[%i, %j] : memref<32x32xf32>
      %xj = affine.load %x[%j] : memref<32xf32>
      %t = affine.load %tmp[%i] : memref<32xf32>
      %ax = arith.mulf %a, %xj : f32
      %tn = arith.addf %ax, %t : f32
      affine.store %tn, %tmp[%i] : memref<32xf32>
      %b = affine.load %B[%i, %j] : memref<32x32xf32>
      %yi = affine.load %y[%i] : memref<32xf32>
      %bx = arith.mulf %b, %xj : f32
      %yn = arith.addf %bx, %yi : f32
      affine.store %yn, %y[%i] : memref<32xf32>
    }
    %t = affine.load %tmp[%i] : memref<32xf32>
    %yi = affine.load %y[%i] : memref<32xf32>
    %at = arith.mulf %alpha, %t : f32
    %by = arith.mulf %beta, %yi : f32
    %r = arith.addf %at, %by : f32
    affine.store %r, %y[%i] : memref<32xf32>
  }
  return
}
