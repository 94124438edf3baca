// frontend/zero_phases.py (docs/frontend.md, loopopt-skip-inserted-zeros): a convolution over a
// zero-inserted input (ConvTranspose1d k4 stride 2 as torch-mlir lowers it: x written every 2nd
// element of a zero fill from 2 on) runs as 2 phase convolutions of 2 taps over x padded by one
// zero each side, into contiguous buffers; a run-time check (every weight finite, no bias -0)
// picks the phases' write-back or the original convolution, which the else branch keeps.
// MUTANT-N: skip (the lowering alone: --passes none)
// RUN: loopopt %s --target cpu --passes none --remarks -o - 2>%t.remarks | filecheck %s
// RUN: filecheck %s --check-prefix=REMARK < %t.remarks
func.func @up(%x: tensor<2x4x7xf32>, %w: tensor<3x4x4xf32>, %b: tensor<3xf32>) -> tensor<2x3x14xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2x4x17xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<2x4x17xf32>) -> tensor<2x4x17xf32>
  %z = tensor.insert_slice %x into %f[0, 0, 2] [2, 4, 7] [1, 1, 2] : tensor<2x4x7xf32> into tensor<2x4x17xf32>
  %eo = tensor.empty() : tensor<2x3x14xf32>
  %i = linalg.broadcast ins(%b : tensor<3xf32>) outs(%eo : tensor<2x3x14xf32>) dimensions = [0, 2]
  %y = linalg.conv_1d_ncw_fcw {dilations = dense<1> : vector<1xi64>, strides = dense<1> : vector<1xi64>}
      ins(%z, %w : tensor<2x4x17xf32>, tensor<3x4x4xf32>) outs(%i : tensor<2x3x14xf32>) -> tensor<2x3x14xf32>
  return %y : tensor<2x3x14xf32>
}

// REMARK: passed: [SKIP INSERTED ZEROS] the convolution over a zero-inserted input runs as phase convolutions: linalg.conv_1d_ncw_fcw at {{.*}}skip-inserted-zeros.mlir:{{[0-9]+}}:8: strides 2, 2 phase convolutions, 28 of 56 products per channel pair; the original runs where a weight is inf or NaN or an accumulator starts at -0

// the check: |w| < inf over the weights, then no bias element with the sign bit alone
// CHECK-DAG:  %[[SIGN:.*]] = arith.constant -2147483648 : i32
// CHECK-DAG:  %[[INF:.*]] = arith.constant 0x7F800000 : f32
// CHECK:      math.absf
// CHECK-NEXT: arith.cmpf olt, %{{.*}}, %[[INF]] : f32
// CHECK:      arith.bitcast %{{.*}} : f32 to i32
// CHECK-NEXT: arith.cmpi ne, %{{.*}}, %[[SIGN]] : i32
// CHECK:      %[[OK:.*]] = memref.load
// x padded: 9 elements, x at 1..7
// CHECK:      %[[XP:.*]] = memref.alloc() {{.*}} : memref<2x4x9xf32>
// CHECK:      affine.store %{{.*}}, %[[XP]][%{{.*}}, %{{.*}}, %{{.*}} + 1] : memref<2x4x9xf32>
// phase 0: outputs 0, 2, .., taps 0 and 2; phase 1: outputs 1, 3, .., taps 1 and 3
// CHECK:        %{{.*}} = affine.load %[[XP]][%{{.*}}, %{{.*}}, %{{.*}} + %{{.*}}] : memref<2x4x9xf32>
// CHECK-NEXT:   %{{.*}} = affine.load %arg1[%{{.*}}, %{{.*}}, %{{.*}} * 2] : memref<3x4x4xf32>
// CHECK:        %{{.*}} = affine.load %[[XP]][%{{.*}}, %{{.*}}, %{{.*}} + %{{.*}} + 1] : memref<2x4x9xf32>
// CHECK-NEXT:   %{{.*}} = affine.load %arg1[%{{.*}}, %{{.*}}, %{{.*}} * 2 + 1] : memref<3x4x4xf32>
// the branch: the write-back of both phases, strided, or the original over the zero-inserted input
// CHECK:      scf.if %[[OK]] {
// CHECK:        affine.store %{{.*}}, %{{.*}}[%{{.*}}, %{{.*}}, %{{.*}} * 2] : memref<2x3x14xf32>
// CHECK:        affine.store %{{.*}}, %{{.*}}[%{{.*}}, %{{.*}}, %{{.*}} * 2 + 1] : memref<2x3x14xf32>
// CHECK:      } else {
// CHECK:        memref.alloc() {{.*}} : memref<2x4x17xf32>
// CHECK:        affine.for %{{.*}} = 0 to 4 {
