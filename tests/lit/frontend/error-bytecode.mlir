// MLIR bytecode (here torch-mlir 20261001's, MLIR 24) is refused in one line that says to pass text.
// MUTANT-N: skip (the lowering alone: no `loopopt %s` line)
// RUN: not loopopt-lower %S/Inputs/softmax_torch_mlir24.mlirbc 2>&1 | filecheck %s

// CHECK: {{.*}}softmax_torch_mlir24.mlirbc: error: input is MLIR bytecode; loopopt reads MLIR text{{.*}}
// CHECK-NOT: {{.}}
