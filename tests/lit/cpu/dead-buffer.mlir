// Issue 35: a buffer the function allocates, read only by its own update, is removed with its
// stores, loads and the pure ops between them (transforms/dead_carried.py `dead_buffer`, step
// `dead-carried`). @maxmid: a max over the middle dimension keeps its first index (torch's
// aten.max.dim) in %idx, updated in place inside the loop over the reduced dimension, and only the
// maximum is returned: %idx goes, with the compare and the index. @read: %idx is read after the
// loop: kept. @returned: %idx is returned: kept.
// RUN: loopopt %s --target cpu --vector-bits 256 --passes dead-carried --remarks -o - 2>%t.remarks | filecheck %s
// RUN: filecheck %s --check-prefix=REMARK < %t.remarks
func.func @maxmid(%X: memref<4x16x24xf32>, %M: memref<4x24xf32>) {
  %ninf = arith.constant 0xFF800000 : f32
  %c0 = arith.constant 0 : i64
  %idx = memref.alloc() : memref<4x24xi64>
  affine.for %b = 0 to 4 {
    affine.for %d = 0 to 24 {
      affine.store %ninf, %M[%b, %d] : memref<4x24xf32>
      affine.store %c0, %idx[%b, %d] : memref<4x24xi64>
    }
    affine.for %r = 0 to 16 {
      affine.for %d = 0 to 24 {
        %x = affine.load %X[%b, %r, %d] : memref<4x16x24xf32>
        %m = affine.load %M[%b, %d] : memref<4x24xf32>
        %i = affine.load %idx[%b, %d] : memref<4x24xi64>
        %rr = arith.index_cast %r : index to i64
        %nm = arith.maximumf %x, %m : f32
        %gt = arith.cmpf ogt, %x, %m : f32
        %ni = arith.select %gt, %rr, %i : i64
        affine.store %nm, %M[%b, %d] : memref<4x24xf32>
        affine.store %ni, %idx[%b, %d] : memref<4x24xi64>
      }
    }
  }
  memref.dealloc %idx : memref<4x24xi64>
  return
}

func.func @read(%X: memref<4x16x24xf32>, %M: memref<4x24xf32>, %O: memref<1xi64>) {
  %ninf = arith.constant 0xFF800000 : f32
  %c0 = arith.constant 0 : i64
  %idx = memref.alloc() : memref<4x24xi64>
  affine.for %b = 0 to 4 {
    affine.for %d = 0 to 24 {
      affine.store %ninf, %M[%b, %d] : memref<4x24xf32>
      affine.store %c0, %idx[%b, %d] : memref<4x24xi64>
    }
    affine.for %r = 0 to 16 {
      affine.for %d = 0 to 24 {
        %x = affine.load %X[%b, %r, %d] : memref<4x16x24xf32>
        %m = affine.load %M[%b, %d] : memref<4x24xf32>
        %i = affine.load %idx[%b, %d] : memref<4x24xi64>
        %rr = arith.index_cast %r : index to i64
        %nm = arith.maximumf %x, %m : f32
        %gt = arith.cmpf ogt, %x, %m : f32
        %ni = arith.select %gt, %rr, %i : i64
        affine.store %nm, %M[%b, %d] : memref<4x24xf32>
        affine.store %ni, %idx[%b, %d] : memref<4x24xi64>
      }
    }
  }
  %v = affine.load %idx[1, 5] : memref<4x24xi64>
  affine.store %v, %O[0] : memref<1xi64>
  memref.dealloc %idx : memref<4x24xi64>
  return
}

func.func @returned(%X: memref<4x16x24xf32>, %M: memref<4x24xf32>) -> memref<4x24xi64> {
  %ninf = arith.constant 0xFF800000 : f32
  %c0 = arith.constant 0 : i64
  %idx = memref.alloc() : memref<4x24xi64>
  affine.for %b = 0 to 4 {
    affine.for %d = 0 to 24 {
      affine.store %ninf, %M[%b, %d] : memref<4x24xf32>
      affine.store %c0, %idx[%b, %d] : memref<4x24xi64>
    }
    affine.for %r = 0 to 16 {
      affine.for %d = 0 to 24 {
        %x = affine.load %X[%b, %r, %d] : memref<4x16x24xf32>
        %m = affine.load %M[%b, %d] : memref<4x24xf32>
        %i = affine.load %idx[%b, %d] : memref<4x24xi64>
        %rr = arith.index_cast %r : index to i64
        %nm = arith.maximumf %x, %m : f32
        %gt = arith.cmpf ogt, %x, %m : f32
        %ni = arith.select %gt, %rr, %i : i64
        affine.store %nm, %M[%b, %d] : memref<4x24xf32>
        affine.store %ni, %idx[%b, %d] : memref<4x24xi64>
      }
    }
  }
  return %idx : memref<4x24xi64>
}

// CHECK-LABEL: func.func @maxmid
// CHECK-NOT: i64
// CHECK-NOT: arith.cmpf
// CHECK-NOT: arith.index_cast
// CHECK: arith.maximumf
// CHECK-NOT: arith.select
// CHECK-LABEL: func.func @read
// CHECK: memref.alloc() : memref<4x24xi64>
// CHECK: arith.select
// CHECK: affine.store %{{.*}}, %alloc[%{{.*}}, %{{.*}}] : memref<4x24xi64>
// CHECK-LABEL: func.func @returned
// CHECK: memref.alloc() : memref<4x24xi64>
// CHECK: arith.select
// CHECK: return %alloc : memref<4x24xi64>

// REMARK: dead-buffer.mlir:12:10: passed: [DEAD VALUE] a buffer read only by its own update is never used: removed (memref.alloc@12:10, 4 ops) (in @maxmid)
// REMARK-NOT: [DEAD VALUE]
