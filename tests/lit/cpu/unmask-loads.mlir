// A 3x3 NCHW convolution whose output rows are 7 wide (a ResNet's last stage): the register tile
// runs each row as one vector<8> with lane 7 masked. Step `unmask-loads` reads the input's
// vectors whole through a 1-D view of the buffer and selects the masked lane away; the last
// image, whose last row's vector passes the buffer's end by one element, is split off and keeps
// its masked loads (docs/cpu_codegen.md section 58). A batch of one (@one_image) reads 8 of its 9
// vectors whole; the kernel's last column's passes the end in the last channel and keeps its
// mask, and named in --passes the step says why nothing is split.
// RUN: loopopt %s --target cpu --vector-bits 256 --remarks -o %t.mlir 2>&1 | filecheck %s --check-prefix=REMARK
// RUN: mlir-opt %t.mlir -o /dev/null
// RUN: %cat %t.mlir | filecheck %s
// RUN: loopopt %s --target cpu --vector-bits 256 --passes unit-loops,register-tile,unmask-loads --remarks -o /dev/null 2>&1 | filecheck %s --check-prefix=STOP
// REQUIRES: mlir-opt
// REMARK: [REGISTER TILING] 8 x 8 tile of the reduction in 8 vector accumulators (vector<8xf32>), each sum kept in order; its one vector covers all 7 columns, masked past them (in @k)
// REMARK: [UNMASK LOADS] 9 masked loads read whole vectors inside their buffers, the lanes past the mask selected away; the last iteration of the outermost loop split off, where the last vector passes the buffer's end (in @k)
// REMARK: [UNMASK LOADS] 8 masked loads read whole vectors inside their buffers, the lanes past the mask selected away (in @one_image)
// CHECK: #[[LIN:map[0-9]*]] = affine_map<(d0, d1, d2, d3) -> (d0 * 648 + d1 * 81 + d2 * 9 + d3)>
// CHECK-LABEL: func.func @k
// CHECK: %[[FLAT:.*]] = memref.collapse_shape %arg0 {{\[\[}}0, 1, 2, 3]] : memref<2x8x9x9xf32> into memref<1296xf32>
// CHECK: affine.for %{{.*}} = 0 to 1 {
// CHECK-NOT: vector.maskedload
// CHECK: %[[OFF:.*]] = affine.apply #[[LIN]](
// CHECK-NEXT: %[[WHOLE:.*]] = vector.load %[[FLAT]][%[[OFF]]] : memref<1296xf32>, vector<8xf32>
// CHECK-NEXT: arith.select %{{.*}}, %[[WHOLE]], %{{.*}} : vector<8xi1>, vector<8xf32>
// CHECK: affine.for %{{.*}} = 1 to 2 {
// CHECK-NOT: vector.load %[[FLAT]]
// CHECK: vector.maskedload %arg0
// CHECK-LABEL: func.func @one_image
// CHECK: memref.collapse_shape %arg0 {{\[\[}}0, 1, 2, 3]] : memref<1x8x9x9xf32> into memref<648xf32>
// CHECK-NOT: affine.for %{{.*}} = 1 to 2 {
// CHECK: vector.maskedload %arg0
// STOP: [STOP UNMASK LOADS] the outermost loop has no constant bounds of step 1 and two iterations or more (in @one_image)
memref.global "private" constant @w : memref<8x8x3x3xf32> = dense<0.5>
func.func @k(%x: memref<2x8x9x9xf32>, %y: memref<2x8x7x7xf32>) {
  %z = arith.constant 0.0 : f32
  %w = memref.get_global @w : memref<8x8x3x3xf32>
  affine.for %n = 0 to 2 {
    affine.for %f = 0 to 8 {
      affine.for %oh = 0 to 7 {
        affine.for %ow = 0 to 7 {
          %s = affine.for %ci = 0 to 8 iter_args(%a0 = %z) -> (f32) {
            %s1 = affine.for %kh = 0 to 3 iter_args(%a1 = %a0) -> (f32) {
              %s2 = affine.for %kw = 0 to 3 iter_args(%a2 = %a1) -> (f32) {
                %u = affine.load %x[%n, %ci, %oh + %kh, %ow + %kw] : memref<2x8x9x9xf32>
                %v = affine.load %w[%f, %ci, %kh, %kw] : memref<8x8x3x3xf32>
                %m = arith.mulf %u, %v : f32
                %q = arith.addf %a2, %m : f32
                affine.yield %q : f32
              }
              affine.yield %s2 : f32
            }
            affine.yield %s1 : f32
          }
          affine.store %s, %y[%n, %f, %oh, %ow] : memref<2x8x7x7xf32>
        }
      }
    }
  }
  return
}
func.func @one_image(%x: memref<1x8x9x9xf32>, %y: memref<1x8x7x7xf32>) {
  %z = arith.constant 0.0 : f32
  %w = memref.get_global @w1 : memref<8x8x3x3xf32>
  affine.for %n = 0 to 1 {
    affine.for %f = 0 to 8 {
      affine.for %oh = 0 to 7 {
        affine.for %ow = 0 to 7 {
          %s = affine.for %ci = 0 to 8 iter_args(%a0 = %z) -> (f32) {
            %s1 = affine.for %kh = 0 to 3 iter_args(%a1 = %a0) -> (f32) {
              %s2 = affine.for %kw = 0 to 3 iter_args(%a2 = %a1) -> (f32) {
                %u = affine.load %x[%n, %ci, %oh + %kh, %ow + %kw] : memref<1x8x9x9xf32>
                %v = affine.load %w[%f, %ci, %kh, %kw] : memref<8x8x3x3xf32>
                %m = arith.mulf %u, %v : f32
                %q = arith.addf %a2, %m : f32
                affine.yield %q : f32
              }
              affine.yield %s2 : f32
            }
            affine.yield %s1 : f32
          }
          affine.store %s, %y[%n, %f, %oh, %ow] : memref<1x8x7x7xf32>
        }
      }
    }
  }
  return
}
memref.global "private" constant @w1 : memref<8x8x3x3xf32> = dense<0.25>
