// docs/cpu_codegen.md section 30. @outer: C = A . WT, WT[k, j] = W[j, k] copied in the function,
// the product's loops columns (%j) outside rows (%i): %i, directly around the reduction, walks
// %A and %C by a whole row, so the register tile's lanes would be refused; `loop-order` moves %j
// (every access contiguous or invariant along it) directly around the reduction, and the tile
// takes vectors along %j, rows along %i. @skewed: each sum starts from C[i + 1, j - 1], written
// by iteration (j - 1, i + 1), which would run after (j, i) with %i outside: the reorder is
// refused and `--passes loop-order` names the dependence.
// RUN: loopopt %s --target cpu --vector-bits 256 --remarks -o %t 2>&1 | filecheck %s --check-prefix=REM
// RUN: filecheck %s --input-file %t
// RUN: loopopt %s --target cpu --vector-bits 256 --passes loop-order --remarks -o %t.order 2>&1 | filecheck %s --check-prefix=ORDER
// RUN: filecheck %s --input-file %t.order --check-prefix=ORDER-IR
// REM: passed: [LOOP ORDER] 1:0: lanes along the loop at {{.*}}:37:3, which walks every access of the reduction nest contiguously or not at all (was: the loop around the reduction, lanes refused: affine.load at {{.*}}:46:14 moves by [1, 0] elements per iteration) (in @outer)
// REM-NOT: [LOOP ORDER] {{.*}}(in @skewed)
// REM: passed: [REGISTER TILING] 6 x 16 tile of the reduction in 12 vector accumulators (vector<8xf32>), each sum kept in order; the 13 columns the whole tiles leave over in one step of 2 vectors (in @outer)
// ORDER: passed: [LOOP ORDER] 1:0: lanes along the loop at {{.*}}:43:3{{.*}}(in @outer)
// ORDER: missed: [STOP LOOP ORDER] lanes along the loop at {{.*}}:67:3: the order would reverse a dependence (in @skewed) [it would reverse a RAW dependence on %arg2 from affine.store at {{.*}}:77:7 to affine.load at {{.*}}:69:12, e.g. iteration

// CHECK-LABEL: func.func @outer
// CHECK: affine.for %[[I:.*]] = 0 to 12 step 6 {
// CHECK: affine.for %[[J:.*]] = 0 to 16 step 16 {
// CHECK: affine.for %{{.*}} = 0 to 37 iter_args({{.*}}) -> (vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>)
// CHECK: affine.vector_load %{{.*}}[%{{.*}}, %[[J]]] : memref<37x29xf32>, vector<8xf32>
// CHECK: affine.vector_store %{{.*}}, %{{.*}}[%[[I]], %[[J]]] : memref<13x29xf32>, vector<8xf32>
// CHECK-LABEL: func.func @skewed

// ORDER-IR-LABEL: func.func @outer
// ORDER-IR: affine.for %[[I:.*]] = 0 to 13 {
// ORDER-IR-NEXT: affine.for %[[J:.*]] = 0 to 29 {
// ORDER-IR-NEXT: affine.for %{{.*}} = 0 to 37 iter_args
// ORDER-IR: affine.store %{{.*}}, %{{.*}}[%[[I]], %[[J]]] : memref<13x29xf32>
// ORDER-IR-LABEL: func.func @skewed
// ORDER-IR: affine.for %[[J:.*]] = 1 to 29 {
// ORDER-IR-NEXT: affine.for %[[I:.*]] = 0 to 12 {
func.func @outer(%A: memref<13x37xf32>, %W: memref<29x37xf32>, %C: memref<13x29xf32>, %S: memref<37x29xf32>) {
  %z = arith.constant 0.0 : f32
  %WT = memref.alloc() {alignment = 64 : i64} : memref<37x29xf32>
  affine.for %j = 0 to 29 {
    affine.for %kk = 0 to 37 {
      %w = affine.load %W[%j, %kk] : memref<29x37xf32>
      affine.store %w, %WT[%kk, %j] : memref<37x29xf32>
    }
  }
  affine.for %j = 0 to 29 {
    affine.for %i = 0 to 13 {
      %r = affine.for %kk = 0 to 37 iter_args(%acc = %z) -> (f32) {
        %a = affine.load %A[%i, %kk] : memref<13x37xf32>
        %b = affine.load %WT[%kk, %j] : memref<37x29xf32>
        %p = arith.mulf %a, %b : f32
        %s = arith.addf %acc, %p : f32
        affine.yield %s : f32
      }
      affine.store %r, %C[%i, %j] : memref<13x29xf32>
    }
  }
  affine.for %kk = 0 to 37 {
    affine.for %j = 0 to 29 {
      %t = affine.load %WT[%kk, %j] : memref<37x29xf32>
      %t2 = arith.mulf %t, %t : f32
      affine.store %t2, %S[%kk, %j] : memref<37x29xf32>
    }
  }
  memref.dealloc %WT : memref<37x29xf32>
  return
}

func.func @skewed(%A: memref<13x37xf32>, %WT: memref<37x29xf32>, %C: memref<13x29xf32>) {
  affine.for %j = 1 to 29 {
    affine.for %i = 0 to 12 {
      %c = affine.load %C[%i + 1, %j - 1] : memref<13x29xf32>
      %r = affine.for %kk = 0 to 37 iter_args(%acc = %c) -> (f32) {
        %a = affine.load %A[%i, %kk] : memref<13x37xf32>
        %b = affine.load %WT[%kk, %j] : memref<37x29xf32>
        %p = arith.mulf %a, %b : f32
        %s = arith.addf %acc, %p : f32
        affine.yield %s : f32
      }
      affine.store %r, %C[%i, %j] : memref<13x29xf32>
    }
  }
  return
}

