// docs/cpu_codegen.md section 57: an eval-mode BatchNorm's scale 1 / sqrt(var + eps) carries the
// check `sqrt(var + eps) != 0` (cf.assert), which keeps its order with the convolution's stores
// into the output; the BatchNorm and the ReLU then ran as a pass of their own over the
// convolution's result. The variance is a constant: frontend/constant_checks.py computes the
// condition at compile time and erases the check, fusion puts the epilogue in the convolution's
// nest, and the register tile applies it to the accumulators before the one store (@conv_bn_relu).
// @kept: a variance of -1e-5 makes sqrt(var + eps) 0 at channel 3: the check stays, and says why.
// RUN: loopopt %s --target cpu --remarks -o %t.mlir 2>%t.remarks
// RUN: filecheck %s --check-prefix=REMARK < %t.remarks
// RUN: mlir-opt %t.mlir -o /dev/null
// RUN: %cat %t.mlir | filecheck %s
// REQUIRES: mlir-opt
// REMARK: passed: [CONSTANT CHECK] the run-time check holds at every element of constant data: decided at compile time: the check "unimplemented: tensor with zero element" at {{.*}}constant-checks.mlir:63:5 holds at all 8 elements
// REMARK: missed: [STOP CONSTANT CHECK] the run-time check stays: the check "unimplemented: tensor with zero element" at {{.*}}constant-checks.mlir:114:5: false at 1 of 8 elements (the first at flat index 3)
// CHECK-LABEL: func.func @conv_bn_relu
// CHECK-NOT: cf.assert
// CHECK: affine.for
// CHECK: math.fma
// CHECK: affine.yield
// CHECK-NEXT: }
// CHECK: arith.subf
// CHECK: arith.mulf
// CHECK: arith.addf
// CHECK: arith.cmpf ugt
// CHECK: arith.select
// CHECK: affine.vector_store {{.*}}, %arg2
// CHECK-NOT: affine.load %arg2
// CHECK-LABEL: func.func @kept
// CHECK: cf.assert {{.*}}"unimplemented: tensor with zero element"
#map = affine_map<(d0) -> (d0)>
#map1 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#map2 = affine_map<(d0, d1, d2) -> (d1, 0)>
func.func @conv_bn_relu(%arg0: tensor<2x8x32xf32>, %w: tensor<8x8x3xf32>) -> tensor<2x8x32xf32> {
  %cst = arith.constant 0.000000e+00 : f32
  %cst_0 = arith.constant 1.000000e+00 : f32
  %beta = arith.constant dense<[0.1, -0.2, 0.3, -0.4, 0.5, -0.6, 0.7, -0.8]> : tensor<8xf32>
  %gamma = arith.constant dense<[1.1, 0.9, 1.2, 0.8, 1.3, 0.7, 1.4, 0.6]> : tensor<8xf32>
  %eps = arith.constant 1.000000e-05 : f64
  %var = arith.constant dense<[1.0, 0.5, 2.0, 0.25, 1.5, 0.75, 3.0, 0.1]> : tensor<8xf32>
  %mean = arith.constant dense<[0.01, 0.02, -0.03, 0.04, -0.05, 0.06, -0.07, 0.08]> : tensor<8xf32>
  %padded = tensor.pad %arg0 low[0, 0, 1] high[0, 0, 1] {
  ^bb0(%i: index, %j: index, %k: index):
    tensor.yield %cst : f32
  } : tensor<2x8x32xf32> to tensor<2x8x34xf32>
  %0 = tensor.empty() : tensor<2x8x32xf32>
  %1 = linalg.fill ins(%cst : f32) outs(%0 : tensor<2x8x32xf32>) -> tensor<2x8x32xf32>
  %2 = linalg.conv_1d_ncw_fcw {dilations = dense<1> : vector<1xi64>, strides = dense<1> : vector<1xi64>} ins(%padded, %w : tensor<2x8x34xf32>, tensor<8x8x3xf32>) outs(%1 : tensor<2x8x32xf32>) -> tensor<2x8x32xf32>
  %3 = tensor.empty() : tensor<8xf32>
  %4 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel"]} ins(%var : tensor<8xf32>) outs(%3 : tensor<8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %12 = arith.truncf %eps : f64 to f32
    %13 = arith.addf %in, %12 : f32
    linalg.yield %13 : f32
  } -> tensor<8xf32>
  %5 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel"]} ins(%4 : tensor<8xf32>) outs(%3 : tensor<8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %12 = math.sqrt %in : f32
    linalg.yield %12 : f32
  } -> tensor<8xf32>
  %6 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel"]} ins(%5 : tensor<8xf32>) outs(%3 : tensor<8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %12 = arith.cmpf one, %in, %cst : f32
    cf.assert %12, "unimplemented: tensor with zero element"
    %13 = arith.divf %cst_0, %in : f32
    linalg.yield %13 : f32
  } -> tensor<8xf32>
  %em = tensor.expand_shape %mean [[0, 1]] output_shape [8, 1] : tensor<8xf32> into tensor<8x1xf32>
  %es = tensor.expand_shape %6 [[0, 1]] output_shape [8, 1] : tensor<8xf32> into tensor<8x1xf32>
  %eg = tensor.expand_shape %gamma [[0, 1]] output_shape [8, 1] : tensor<8xf32> into tensor<8x1xf32>
  %eb = tensor.expand_shape %beta [[0, 1]] output_shape [8, 1] : tensor<8xf32> into tensor<8x1xf32>
  %7 = linalg.generic {indexing_maps = [#map1, #map2, #map2, #map2, #map2, #map1], iterator_types = ["parallel", "parallel", "parallel"]} ins(%2, %em, %es, %eg, %eb : tensor<2x8x32xf32>, tensor<8x1xf32>, tensor<8x1xf32>, tensor<8x1xf32>, tensor<8x1xf32>) outs(%0 : tensor<2x8x32xf32>) {
  ^bb0(%in: f32, %m: f32, %s: f32, %g: f32, %b: f32, %out: f32):
    %12 = arith.subf %in, %m : f32
    %13 = arith.mulf %12, %s : f32
    %14 = arith.mulf %13, %g : f32
    %15 = arith.addf %14, %b : f32
    %16 = arith.cmpf ugt, %15, %cst : f32
    %17 = arith.select %16, %15, %cst : f32
    linalg.yield %17 : f32
  } -> tensor<2x8x32xf32>
  return %7 : tensor<2x8x32xf32>
}
// -----
func.func @kept(%arg0: tensor<2x8x32xf32>, %w: tensor<8x8x3xf32>) -> tensor<2x8x32xf32> {
  %cst = arith.constant 0.000000e+00 : f32
  %cst_0 = arith.constant 1.000000e+00 : f32
  %beta = arith.constant dense<[0.1, -0.2, 0.3, -0.4, 0.5, -0.6, 0.7, -0.8]> : tensor<8xf32>
  %gamma = arith.constant dense<[1.1, 0.9, 1.2, 0.8, 1.3, 0.7, 1.4, 0.6]> : tensor<8xf32>
  %eps = arith.constant 1.000000e-05 : f64
  %var = arith.constant dense<[1.0, 0.5, 2.0, -1.0e-05, 1.5, 0.75, 3.0, 0.1]> : tensor<8xf32>
  %mean = arith.constant dense<[0.01, 0.02, -0.03, 0.04, -0.05, 0.06, -0.07, 0.08]> : tensor<8xf32>
  %padded = tensor.pad %arg0 low[0, 0, 1] high[0, 0, 1] {
  ^bb0(%i: index, %j: index, %k: index):
    tensor.yield %cst : f32
  } : tensor<2x8x32xf32> to tensor<2x8x34xf32>
  %0 = tensor.empty() : tensor<2x8x32xf32>
  %1 = linalg.fill ins(%cst : f32) outs(%0 : tensor<2x8x32xf32>) -> tensor<2x8x32xf32>
  %2 = linalg.conv_1d_ncw_fcw {dilations = dense<1> : vector<1xi64>, strides = dense<1> : vector<1xi64>} ins(%padded, %w : tensor<2x8x34xf32>, tensor<8x8x3xf32>) outs(%1 : tensor<2x8x32xf32>) -> tensor<2x8x32xf32>
  %3 = tensor.empty() : tensor<8xf32>
  %4 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel"]} ins(%var : tensor<8xf32>) outs(%3 : tensor<8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %12 = arith.truncf %eps : f64 to f32
    %13 = arith.addf %in, %12 : f32
    linalg.yield %13 : f32
  } -> tensor<8xf32>
  %5 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel"]} ins(%4 : tensor<8xf32>) outs(%3 : tensor<8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %12 = math.sqrt %in : f32
    linalg.yield %12 : f32
  } -> tensor<8xf32>
  %6 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel"]} ins(%5 : tensor<8xf32>) outs(%3 : tensor<8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %12 = arith.cmpf one, %in, %cst : f32
    cf.assert %12, "unimplemented: tensor with zero element"
    %13 = arith.divf %cst_0, %in : f32
    linalg.yield %13 : f32
  } -> tensor<8xf32>
  %em = tensor.expand_shape %mean [[0, 1]] output_shape [8, 1] : tensor<8xf32> into tensor<8x1xf32>
  %es = tensor.expand_shape %6 [[0, 1]] output_shape [8, 1] : tensor<8xf32> into tensor<8x1xf32>
  %eg = tensor.expand_shape %gamma [[0, 1]] output_shape [8, 1] : tensor<8xf32> into tensor<8x1xf32>
  %eb = tensor.expand_shape %beta [[0, 1]] output_shape [8, 1] : tensor<8xf32> into tensor<8x1xf32>
  %7 = linalg.generic {indexing_maps = [#map1, #map2, #map2, #map2, #map2, #map1], iterator_types = ["parallel", "parallel", "parallel"]} ins(%2, %em, %es, %eg, %eb : tensor<2x8x32xf32>, tensor<8x1xf32>, tensor<8x1xf32>, tensor<8x1xf32>, tensor<8x1xf32>) outs(%0 : tensor<2x8x32xf32>) {
  ^bb0(%in: f32, %m: f32, %s: f32, %g: f32, %b: f32, %out: f32):
    %12 = arith.subf %in, %m : f32
    %13 = arith.mulf %12, %s : f32
    %14 = arith.mulf %13, %g : f32
    %15 = arith.addf %14, %b : f32
    %16 = arith.cmpf ugt, %15, %cst : f32
    %17 = arith.select %16, %15, %cst : f32
    linalg.yield %17 : f32
  } -> tensor<2x8x32xf32>
  return %7 : tensor<2x8x32xf32>
}
