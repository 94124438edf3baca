// ConvNeXt's LayerNorm over channels as the lowering leaves it (NCHW -> NHWC copy, the mean over the
// channels, the centred values, NHWC -> NCHW copy): fold-permuted-copies folds the first copy into
// its one consumer (the sums read the NCHW input through the permutation) and the copy back into its
// writers (the centred values are stored in NCHW directly); rows-in-lanes then runs 8 rows of w per
// vector, each channel one contiguous vector load (with --reassociate too). @early reads the NHWC
// buffer before the copy fills it: refused, with the read named.
// RUN: loopopt %s --target cpu --vector-bits 256 --reassociate --passes fold-permuted-copies,loop-order,rows-in-lanes --remarks -o %t.mlir 2>&1 | filecheck %s --check-prefix=REMARK
// RUN: mlir-opt %t.mlir -o /dev/null
// RUN: %cat %t.mlir | filecheck %s
// REQUIRES: mlir-opt
// REMARK: passed: [FOLD COPY] the copy of 1x16x4x8 into 1x4x8x16 by the permutation [0, 2, 3, 1] folded into its readers: 2 access(es) of the destination read the source through it; the copy and the 1x4x8x16 buffer erased (in @k)
// REMARK: passed: [FOLD COPY] the copy of 4x8x16 into 1x16x4x8 by the permutation [-, 2, 0, 1] folded into its writers: 1 access(es) of the source go to the destination through it; the copy and the 4x8x16 buffer erased (in @k)
// REMARK: missed: [STOP FOLD COPY] a read of the destination may run before the copy writes its element (in @early) [affine.load at {{.*}}]
// REMARK: passed: [ROWS IN LANES] 8 rows in the lanes of vector<8xf32>: 1 reduction loop(s) (arith.addf) with each row's order kept, columns contiguous along the rows read as one vector each; 1 row loop(s) jammed, the rows in order in each iteration (in @k)
// CHECK-LABEL: func.func @k
// CHECK-NOT: memref.alloc
// CHECK: affine.for %[[W:.*]] = 0 to 8 step 8
// CHECK: affine.for %[[C:.*]] = 0 to 16 step 8 iter_args
// CHECK: affine.vector_load %arg0[0, %[[C]], %{{.*}}, %[[W]]] : memref<1x16x4x8xf32>, vector<8xf32>
// CHECK: affine.store %{{.*}}, %arg1[0, %{{.*}}, %{{.*}}, %[[W]]] : memref<1x16x4x8xf32>
// CHECK-LABEL: func.func @early
// CHECK: memref.alloc() : memref<1x4x8x16xf32>
func.func @k(%x: memref<1x16x4x8xf32>, %o: memref<1x16x4x8xf32>) {
  %z = arith.constant 0.0 : f32
  %n = arith.constant 16.0 : f32
  %t = memref.alloc() : memref<1x4x8x16xf32>
  affine.for %b = 0 to 1 {
    affine.for %h = 0 to 4 {
      affine.for %w = 0 to 8 {
        affine.for %c = 0 to 16 {
          %v = affine.load %x[%b, %c, %h, %w] : memref<1x16x4x8xf32>
          affine.store %v, %t[%b, %h, %w, %c] : memref<1x4x8x16xf32>
        }
      }
    }
  }
  %y = memref.alloc() : memref<4x8x16xf32>
  affine.for %h = 0 to 4 {
    affine.for %w = 0 to 8 {
      %s = affine.for %c = 0 to 16 iter_args(%a = %z) -> (f32) {
        %v = affine.load %t[0, %h, %w, %c] : memref<1x4x8x16xf32>
        %b = arith.addf %a, %v : f32
        affine.yield %b : f32
      }
      %m = arith.divf %s, %n : f32
      affine.for %c = 0 to 16 {
        %v = affine.load %t[0, %h, %w, %c] : memref<1x4x8x16xf32>
        %d = arith.subf %v, %m : f32
        affine.store %d, %y[%h, %w, %c] : memref<4x8x16xf32>
      }
    }
  }
  affine.for %h = 0 to 4 {
    affine.for %w = 0 to 8 {
      affine.for %c = 0 to 16 {
        %v = affine.load %y[%h, %w, %c] : memref<4x8x16xf32>
        affine.store %v, %o[0, %c, %h, %w] : memref<1x16x4x8xf32>
      }
    }
  }
  memref.dealloc %t : memref<1x4x8x16xf32>
  memref.dealloc %y : memref<4x8x16xf32>
  return
}

func.func @early(%x: memref<1x16x4x8xf32>, %o: memref<1x16x4x8xf32>) {
  %z = arith.constant 0.0 : f32
  %n = arith.constant 16.0 : f32
  %t = memref.alloc() : memref<1x4x8x16xf32>
  %early = affine.load %t[0, 1, 2, 3] : memref<1x4x8x16xf32>
  affine.store %early, %x[0, 0, 0, 0] : memref<1x16x4x8xf32>
  affine.for %b = 0 to 1 {
    affine.for %h = 0 to 4 {
      affine.for %w = 0 to 8 {
        affine.for %c = 0 to 16 {
          %v = affine.load %x[%b, %c, %h, %w] : memref<1x16x4x8xf32>
          affine.store %v, %t[%b, %h, %w, %c] : memref<1x4x8x16xf32>
        }
      }
    }
  }
  %y = memref.alloc() : memref<4x8x16xf32>
  affine.for %h = 0 to 4 {
    affine.for %w = 0 to 8 {
      %s = affine.for %c = 0 to 16 iter_args(%a = %z) -> (f32) {
        %v = affine.load %t[0, %h, %w, %c] : memref<1x4x8x16xf32>
        %b = arith.addf %a, %v : f32
        affine.yield %b : f32
      }
      %m = arith.divf %s, %n : f32
      affine.for %c = 0 to 16 {
        %v = affine.load %t[0, %h, %w, %c] : memref<1x4x8x16xf32>
        %d = arith.subf %v, %m : f32
        affine.store %d, %y[%h, %w, %c] : memref<4x8x16xf32>
      }
    }
  }
  affine.for %h = 0 to 4 {
    affine.for %w = 0 to 8 {
      affine.for %c = 0 to 16 {
        %v = affine.load %y[%h, %w, %c] : memref<4x8x16xf32>
        affine.store %v, %o[0, %c, %h, %w] : memref<1x16x4x8xf32>
      }
    }
  }
  memref.dealloc %t : memref<1x4x8x16xf32>
  memref.dealloc %y : memref<4x8x16xf32>
  return
}
