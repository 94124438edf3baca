// Bad input: one line `file:line:col: error: ...` on stderr, exit 1, nothing on stdout.
// MUTANT-N: skip
// RUN: not loopopt %s 2>&1 | filecheck %s

func.func @broken(%a: memref<8xf32>) {
  %x = affine.load %a[%undefined] : memref<8xf32>
  return
}

// CHECK: {{.*}}error-parse.mlir:6:{{[0-9]+}}: error: use of undeclared SSA value name
// CHECK-NOT: Traceback
// CHECK-NOT: module
