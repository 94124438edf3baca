// A buffer read through a folded reshape view (a 1x4x8 view of 4x8, as torch-mlir's batch-of-one
// tensors lower: index u * 4 + i) shrinks to the one row each iteration of %i owns; the shrunk
// index subtracts %i, and is simplified: u * 4, not u * 4 + i - i (left so, the index still names
// %i and product isolation found it moving with the loop: docs/cpu_codegen.md section 34).
// RUN: loopopt %s --target cpu --passes contraction --remarks -o - 2>%t.remarks | filecheck %s
// RUN: filecheck %s --check-prefix=REMARK < %t.remarks

func.func @k(%a: memref<4x8xf32>, %o: memref<4x8xf32>) {
  %t = memref.alloc() : memref<4x8xf32>
  %c2 = arith.constant 2.0 : f32
  affine.for %u = 0 to 1 {
    affine.for %i = 0 to 4 {
      affine.for %j = 0 to 8 {
        %x = affine.load %a[%i, %j] : memref<4x8xf32>
        %y = arith.mulf %x, %c2 : f32
        affine.store %y, %t[%u * 4 + %i, %j] : memref<4x8xf32>
      }
      affine.for %j = 0 to 8 {
        %x = affine.load %t[%u * 4 + %i, %j] : memref<4x8xf32>
        %y = arith.addf %x, %x : f32
        affine.store %y, %o[%i, %j] : memref<4x8xf32>
      }
    }
  }
  memref.dealloc %t : memref<4x8xf32>
  return
}

// REMARK: passed: [CONTRACTION] buffer at {{.*}}:9:8 shrunk from 4x8 to 1x8
// CHECK:      %[[T:.*]] = memref.alloc() : memref<1x8xf32>
// CHECK:      affine.store %{{.*}}, %[[T]][%[[U:arg[0-9]+]] * 4, %{{.*}}] : memref<1x8xf32>
// CHECK:      affine.load %[[T]][%[[U]] * 4, %{{.*}}] : memref<1x8xf32>
// CHECK-NOT:  - %arg
