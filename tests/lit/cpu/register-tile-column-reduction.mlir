// docs/cpu_codegen.md section 29, "What was fixed after". @col: the reduction loop %k reads %WT
// down a column and the loop around it (%i) reads %A and writes %C down a column: the register
// tile's lanes are refused and so is LLVM's vectorizer on %k, so the tile is not refused as "no
// gain" but planned as scalar copies (each sum in order), its remark naming the column access.
// (%C is stored transposed, so that no order of %j and %i walks every access contiguously: loop
// order leaves the band, section 32; %a is used twice, a * b * a, so operand packing leaves it.)
// @unit: %k walks dimension 1 of a 16x40x1 buffer, the next element in memory (the unit last
// dimension is skipped): as for a 16x40 weight read along its rows, operand packing copies it
// into a 40x16 buffer (section 32) and the tile runs its lanes along %j.
// RUN: loopopt %s --target cpu --vector-bits 256 --reassociate --remarks -o %t 2>&1 | filecheck %s --check-prefix=REM
// RUN: filecheck %s --input-file %t
// REM: passed: [PACK] operand %arg1 copied before the product into a 40x16 buffer whose rows run along the lanes loop (in @unit)
// REM-NOT: [LOOP ORDER]
// REM: passed: [REGISTER TILING] {{[0-9]+}} x {{[0-9]+}} tile of the reduction in {{[0-9]+}} accumulators (scalar f32), each sum kept in order{{.*}}; scalar copies: LLVM cannot vectorize the reduction loop either (affine.load at {{.*}}:30:14 moves by [1, 0] elements per iteration); lanes refused: affine.load at {{.*}}:29:14 moves by [1, 0] elements per iteration (in @col)
// REM: passed: [REGISTER TILING] 6 x 16 tile of the reduction in 12 vector accumulators (vector<8xf32>){{.*}}(in @unit)
// REM: missed: [STOP VECTORIZE] an access is not contiguous along the loop (in @col)
// REM-NOT: [PACK] {{.*}}(in @col)

// CHECK-LABEL: func.func @col
// CHECK-NOT: vector
// CHECK: affine.for %{{.*}} = 0 to 37 iter_args({{.*}}) -> (f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32)
// CHECK-NOT: vector
// CHECK-LABEL: func.func @unit
func.func @col(%A: memref<13x37xf32>, %WT: memref<37x29xf32>, %C: memref<29x13xf32>) {
  %z = arith.constant 0.0 : f32
  affine.for %j = 0 to 29 {
    affine.for %i = 0 to 13 {
      %r = affine.for %k = 0 to 37 iter_args(%acc = %z) -> (f32) {
        %a = affine.load %A[%i, %k] : memref<13x37xf32>
        %b = affine.load %WT[%k, %j] : memref<37x29xf32>
        %p = arith.mulf %a, %b : f32
        %q = arith.mulf %p, %a : f32
        %s = arith.addf %acc, %q : f32
        affine.yield %s : f32
      }
      affine.store %r, %C[%j, %i] : memref<29x13xf32>
    }
  }
  return
}

func.func @unit(%X: memref<6x40xf32>, %W: memref<16x40x1xf32>, %C: memref<6x16xf32>) {
  %z = arith.constant 0.0 : f32
  affine.for %i = 0 to 6 {
    affine.for %j = 0 to 16 {
      %r = affine.for %k = 0 to 40 iter_args(%acc = %z) -> (f32) {
        %a = affine.load %X[%i, %k] : memref<6x40xf32>
        %b = affine.load %W[%j, %k, 0] : memref<16x40x1xf32>
        %p = arith.mulf %a, %b : f32
        %s = arith.addf %acc, %p : f32
        affine.yield %s : f32
      }
      affine.store %r, %C[%i, %j] : memref<6x16xf32>
    }
  }
  return
}
