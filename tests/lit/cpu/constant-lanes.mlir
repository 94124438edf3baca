// A 3x3 convolution of 2 channels into 8 built in an NCHW buffer and copied into its NHWC result (a
// torch graph `conv(x).permute(0, 2, 3, 1)`, a channels_last result the kernel writes itself):
// fold-result-copies folds the copy into its writers before fusion (the result built in NHWC),
// constant-lanes lays the weight out with its output channels last, loop-order moves the output
// channels around the reduction and register-tile takes them as its lanes (docs/cpu_codegen.md
// section 50). Before: the lanes refused, the convolution one output at a time.
// RUN: loopopt %s --target cpu --vector-bits 256 --reassociate --passes fold-result-copies,constant-lanes,loop-order,register-tile --remarks -o %t.mlir 2>&1 | filecheck %s --check-prefix=REMARK
// RUN: mlir-opt %t.mlir -o /dev/null
// RUN: %cat %t.mlir | filecheck %s
// REQUIRES: mlir-opt
// REMARK: passed: [FOLD COPY] the copy of 1x8x6x6 into 1x6x6x8 by the permutation [-, 2, 3, 1] folded into its writers: 1 access(es) of the source go to the destination through it; the copy and the 1x8x6x6 buffer erased (in @k)
// REMARK: passed: [CONSTANT LANES] @w (8x2x3x3) laid out with its dimension 0 last as @w_lanes0 (2x3x3x8): its loads move by one element along the loop at {{.*}}, which gives the register tile's lanes (in @k)
// REMARK: passed: [LOOP ORDER] {{.*}}: lanes along the loop at {{.*}}
// REMARK: passed: [REGISTER TILING] {{.*}} x 8 tile of the reduction
// CHECK: memref.global "private" constant @w_lanes0 : memref<2x3x3x8xf32>
// CHECK-LABEL: func.func @k
// CHECK-NOT: memref.alloc
// CHECK: affine.vector_load %{{.*}} : memref<2x3x3x8xf32>, vector<8xf32>
// CHECK: affine.vector_store %{{.*}}, %arg1[0, %{{.*}}, %{{.*}}, %{{.*}}] : memref<1x6x6x8xf32>, vector<8xf32>
module {
  memref.global "private" constant @w : memref<8x2x3x3xf32> = dense_resource<w_blob>
  func.func @k(%x: memref<1x2x8x8xf32>, %y: memref<1x6x6x8xf32>) {
    %z = arith.constant 0.0 : f32
    %w = memref.get_global @w : memref<8x2x3x3xf32>
    %t = memref.alloc() : memref<1x8x6x6xf32>
    affine.for %co = 0 to 8 {
      affine.for %oh = 0 to 6 {
        affine.for %ow = 0 to 6 {
          %s = affine.for %ci = 0 to 2 iter_args(%a0 = %z) -> (f32) {
            %s1 = affine.for %kh = 0 to 3 iter_args(%a1 = %a0) -> (f32) {
              %s2 = affine.for %kw = 0 to 3 iter_args(%a2 = %a1) -> (f32) {
                %u = affine.load %x[0, %ci, %oh + %kh, %ow + %kw] : memref<1x2x8x8xf32>
                %v = affine.load %w[%co, %ci, %kh, %kw] : memref<8x2x3x3xf32>
                %m = arith.mulf %u, %v : f32
                %n = arith.addf %a2, %m : f32
                affine.yield %n : f32
              }
              affine.yield %s2 : f32
            }
            affine.yield %s1 : f32
          }
          affine.store %s, %t[0, %co, %oh, %ow] : memref<1x8x6x6xf32>
        }
      }
    }
    affine.for %a = 0 to 8 {
      affine.for %b = 0 to 6 {
        affine.for %c = 0 to 6 {
          %v = affine.load %t[0, %a, %b, %c] : memref<1x8x6x6xf32>
          affine.store %v, %y[0, %b, %c, %a] : memref<1x6x6x8xf32>
        }
      }
    }
    memref.dealloc %t : memref<1x8x6x6xf32>
    return
  }
}
{-#
  dialect_resources: {
    builtin: {
      w_blob: "0x0400000069F0B03E9155523F0C2FA93EDBCDA6BF67C5673F358BE43EC47509BF28C4143F3CA9BA3E8998963EC3D5E83C62F50B3F41883CBFDED126BE58D8F6BEFC4D193FA6B3223DE4BC95BE272B48BFB4AE83BEC866053CD31B8DBEE2A3A53F58DC803FB0832DC030CBF1BF75F732BE5729D8BE3BC55A3EA4895E3EAC8A0740B2568EBF7255C1BEC5BC0240548E253F85BE293FEC9503BF21F4D2BFE17B2B3EC742DF3DDF199DBFF1E72EBFA38B93BD3EDB71BFC441C9BD9B8CC33DE0C2113D559C01BFE0FF173F8423643F3B46A43E897751BF904D3B3F605E00BFAC10613F543089BF861A6A3F1D5CA4BC01D79FBF6EB7A0BE5A9A5D3D4EAB8B3EAE707BBF66BE8DBFE35F4C3ECEF9EEBE6228713EDF6F423F770BD3BF293F823E3BC19C3F705598BE8B914FBF0D93403FBEC3813E9858653F1DC0B0BE39ACBDBF534DE1BD9643E4BE9F7B463FB047463EABBFD0BF1BFB98BF0040623F15052E3FFDE623BFC67789BA3822E43EB1D2EF3E6951603F1652833E5C35C2BDBC8784BE9522873FFF0D10C0A9FB0DBE1E2B073DD671B6BF8C66AA3E5ABA26BF2FC95C3F369B00BEA04D2B3F11039C3F590FC43E432F60BF31D5C1BFE46EE03F29EDE3BDCB4530BF21B8133E550144BEFF255A3F47F80A3DEF45613CB2EE36BF3B6BF03EBF5584BFBB772A3F6210C33FE928C3BFB3D61DC0C4EB1D3FC21023404E1E80BFCC16A0BFABC6163F883957BFE38A01BF743CB2BE4A31083FCB83CFBEA9468E3E22C534BE5E3C58BF44C0A3BE644D73BFAA7BD53BD9DA8FBFF6E38BBFBA7DBA3FB2D759BD5FC85CBD"
    }
  }
#-}
