// The inputs are never written: an op that updates its input tensor in place (outs(%a)) writes
// into the out-parameter, and the consumer reads it back from there; %arg0 is only loaded.
// MUTANT-N: skip (the lowering alone: no `loopopt %s` line)
// RUN: loopopt-lower %s | filecheck %s

#map = affine_map<(d0) -> (d0)>
func.func @inplace(%a: tensor<8xf32>) -> tensor<8xf32> {
  %0 = linalg.generic {indexing_maps = [#map], iterator_types = ["parallel"]} outs(%a : tensor<8xf32>) {
  ^bb0(%x: f32):
    %y = arith.addf %x, %x : f32
    linalg.yield %y : f32
  } -> tensor<8xf32>
  %e = tensor.empty() : tensor<8xf32>
  %1 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel"]} ins(%0 : tensor<8xf32>) outs(%e : tensor<8xf32>) {
  ^bb0(%x: f32, %o: f32):
    %y = arith.mulf %x, %x : f32
    linalg.yield %y : f32
  } -> tensor<8xf32>
  return %1 : tensor<8xf32>
}

// CHECK-LABEL: func.func @inplace(%arg0: memref<8xf32>, %arg1: memref<8xf32>)
// CHECK-NOT:     affine.store %{{.*}}, %arg0
// CHECK:         affine.load %arg0[%{{.*}}] : memref<8xf32>
// CHECK:         affine.store %{{.*}}, %arg1[%{{.*}}] : memref<8xf32>
// CHECK-NOT:     affine.store %{{.*}}, %arg0
// CHECK:         affine.load %arg1[%{{.*}}] : memref<8xf32>
// CHECK:         affine.store %{{.*}}, %arg1[%{{.*}}] : memref<8xf32>
// CHECK-NOT:     affine.store %{{.*}}, %arg0
// CHECK:         return

// An update of a reshaped input (torch's `y = x.clone(); y.view(-1)[3:7] = x[0, :4]; y * 3`, the
// clone folded away by torch-mlir): a new tensor in value semantics, written in place into the
// caller's %arg0 before the arguments were marked not writable (loopopt-read-only-inputs). Now
// the 32 elements are copied into a temporary first and only the copy is updated.
func.func @insert_into_reshape(%arg0: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %cst = arith.constant 3.000000e+00 : f32
  %row = tensor.extract_slice %arg0[0, 0] [1, 8] [1, 1] : tensor<4x8xf32> to tensor<1x8xf32>
  %flat_row = tensor.collapse_shape %row [[0, 1]] : tensor<1x8xf32> into tensor<8xf32>
  %head = tensor.extract_slice %flat_row[0] [4] [1] : tensor<8xf32> to tensor<4xf32>
  %flat = tensor.collapse_shape %arg0 [[0, 1]] : tensor<4x8xf32> into tensor<32xf32>
  %ins = tensor.insert_slice %head into %flat[3] [4] [1] : tensor<4xf32> into tensor<32xf32>
  %y = tensor.expand_shape %ins [[0, 1]] output_shape [4, 8] : tensor<32xf32> into tensor<4x8xf32>
  %e = tensor.empty() : tensor<4x8xf32>
  %0 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>],
                       iterator_types = ["parallel", "parallel"]} ins(%y : tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %m = arith.mulf %in, %cst : f32
    linalg.yield %m : f32
  } -> tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// CHECK-LABEL: func.func @insert_into_reshape(%arg0: memref<4x8xf32>, %arg1: memref<4x8xf32>)
// CHECK-NOT:     affine.store %{{.*}}, %arg0
// CHECK:         %[[COPY:.*]] = memref.alloc() {{.*}} : memref<32xf32>
// CHECK:         affine.load %arg0[%{{.*}} floordiv 8, %{{.*}} mod 8] : memref<4x8xf32>
// CHECK:         affine.store %{{.*}}, %[[COPY]][%{{.*}}] : memref<32xf32>
// CHECK-NOT:     affine.store %{{.*}}, %arg0
// CHECK:         affine.load %arg0[0, %{{.*}}] : memref<4x8xf32>
// CHECK-NEXT:    affine.store %{{.*}}, %[[COPY]][%{{.*}} + 3] : memref<32xf32>
// CHECK-NOT:     affine.store %{{.*}}, %arg0
// CHECK:         return
