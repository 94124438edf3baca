// A Linear(n, 1) whose bias is an argument (torch-mlir's scoring head): the tensor<1xf32> bias read
// at (0) bufferizes to a collapse_shape onto memref<f32> with no reassociation group; the fold
// re-indexes its one unit dim by 0 (it crashed on it: 'NoneType' object has no attribute 'compose').
// RUN: loopopt %s --target cpu 2>&1 | filecheck %s
func.func @head(%h: tensor<8x16xf32>, %w: tensor<16x1xf32>, %b: tensor<1xf32>) -> tensor<8x1xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<8x1xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<8x1xf32>) -> tensor<8x1xf32>
  %m = linalg.matmul ins(%h, %w : tensor<8x16xf32>, tensor<16x1xf32>) outs(%f : tensor<8x1xf32>) -> tensor<8x1xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (0)>, affine_map<(i, j) -> (i, j)>],
      iterator_types = ["parallel", "parallel"]} ins(%m, %b : tensor<8x1xf32>, tensor<1xf32>) outs(%e : tensor<8x1xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %s = arith.addf %x, %y : f32
    linalg.yield %s : f32
  } -> tensor<8x1xf32>
  return %r : tensor<8x1xf32>
}

// CHECK-LABEL: func.func @head(%arg0: memref<8x16xf32>, %arg1: memref<16x1xf32>, %arg2: memref<1xf32>, %arg3: memref<8x1xf32>)
// CHECK-NOT: memref.collapse_shape
// CHECK: affine.load %arg2[0] : memref<1xf32>
// CHECK-NOT: memref.collapse_shape
