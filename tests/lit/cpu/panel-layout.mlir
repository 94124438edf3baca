// Issue 35, column panels of a local buffer: a transposed weight the function copies into a
// buffer (torch's Linear, as product isolation leaves it) is read by the register tile as B,
// B[k, j0 + c] for every k. With B larger than half the L2 (8 KiB given here) its 29 x 101
// elements are laid out in panels of the tile's 24 columns, 5 x 29 x 24, every access of the
// buffer rewritten: the copy stores and the tile loads [e floordiv 24, r, e mod 24] for [r, e]
// (the copy in vector tiles with its edges, section 32: 35 accesses).
// A vector read that would cross a panel (8 lanes from column 20) keeps the rows, and says why.
// RUN: loopopt %s --target cpu --vector-bits 256 --cache-sizes 1K,8K,16K --remarks -o %t.6.mlir 2> %t.6.remarks && %cat %t.6.remarks %t.6.mlir | filecheck %s --check-prefix=REMARK
// RUN: filecheck %s < %t.6.mlir
// RUN: mlir-opt %t.6.mlir > /dev/null
// REQUIRES: mlir-opt
func.func @panels(%X: memref<37x29xf32>, %W: memref<101x29xf32>, %C: memref<37x101xf32>) {
  %T = memref.alloc() : memref<29x101xf32>
  affine.for %a = 0 to 29 {
    affine.for %b = 0 to 101 {
      %w = affine.load %W[%b, %a] : memref<101x29xf32>
      affine.store %w, %T[%a, %b] : memref<29x101xf32>
    }
  }
  affine.for %i = 0 to 37 {
    affine.for %j = 0 to 101 {
      %c = affine.load %C[%i, %j] : memref<37x101xf32>
      %r = affine.for %q = 0 to 29 iter_args(%acc = %c) -> (f32) {
        %x = affine.load %X[%i, %q] : memref<37x29xf32>
        %t = affine.load %T[%q, %j] : memref<29x101xf32>
        %p = arith.mulf %x, %t : f32
        %s = arith.addf %acc, %p : f32
        affine.yield %s : f32
      }
      affine.store %r, %C[%i, %j] : memref<37x101xf32>
    }
  }
  memref.dealloc %T : memref<29x101xf32>
  return
}

func.func @crossing(%X: memref<37x29xf32>, %W: memref<101x29xf32>, %C: memref<37x101xf32>) {
  %T = memref.alloc() : memref<29x101xf32>
  affine.for %a = 0 to 29 {
    affine.for %b = 0 to 101 {
      %w = affine.load %W[%b, %a] : memref<101x29xf32>
      affine.store %w, %T[%a, %b] : memref<29x101xf32>
    }
  }
  affine.for %i = 0 to 37 {
    affine.for %j = 0 to 101 {
      %c = affine.load %C[%i, %j] : memref<37x101xf32>
      %r = affine.for %q = 0 to 29 iter_args(%acc = %c) -> (f32) {
        %x = affine.load %X[%i, %q] : memref<37x29xf32>
        %t = affine.load %T[%q, %j] : memref<29x101xf32>
        %p = arith.mulf %x, %t : f32
        %s = arith.addf %acc, %p : f32
        affine.yield %s : f32
      }
      affine.store %r, %C[%i, %j] : memref<37x101xf32>
    }
  }
  affine.for %r = 0 to 29 {
    %v = affine.vector_load %T[%r, 20] : memref<29x101xf32>, vector<8xf32>
    affine.vector_store %v, %C[%r, 0] : memref<37x101xf32>, vector<8xf32>
  }
  memref.dealloc %T : memref<29x101xf32>
  return
}

// REMARK: panel-layout.mlir:13:8: passed: [PANEL LAYOUT] the 29 x 101 buffer a register tile reads as B is laid out in panels of 24 columns (5x29x24): each tile's micro-panel is contiguous (35 accesses rewritten) (in @panels)
// REMARK-NEXT: panel-layout.mlir:38:8: missed: [STOP PANEL LAYOUT] a vector access may cross a panel (in @crossing) [affine.vector_load at {{.*}}panel-layout.mlir:59:10: 8 lanes from a column that may not be a multiple of them]

// CHECK-LABEL: func.func @panels
// CHECK: %[[P:.*]] = memref.alloc() {alignment = 64 : i64} : memref<5x29x24xf32>
// CHECK: affine.store %{{.*}}, %[[P]][%[[E:arg[0-9]+]] floordiv 24, %{{.*}}, %[[E]] mod 24] : memref<5x29x24xf32>
// CHECK: affine.vector_load %[[P]][%[[J:arg[0-9]+]] floordiv 24, %[[K:arg[0-9]+]], %[[J]] mod 24] : memref<5x29x24xf32>, vector<8xf32>
// CHECK-NEXT: affine.vector_load %[[P]][%[[J1:[0-9]+]] floordiv 24, %[[K]], %[[J1]] mod 24] : memref<5x29x24xf32>, vector<8xf32>
// CHECK: memref.dealloc %[[P]] : memref<5x29x24xf32>

// CHECK-LABEL: func.func @crossing
// CHECK: memref.alloc() : memref<29x101xf32>
// CHECK-NOT: floordiv 24
// CHECK: return
