// A public function with two or more memref arguments gets one [ASSUMPTION] remark (its
// arguments are assumed not to alias); a function with one memref argument gets none.
// RUN: loopopt %s --target cpu --vector-bits 256 --remarks 2>&1 | filecheck %s

func.func @two(%a: memref<8xf32>, %b: memref<8xf32>, %n: index) {
  return
}

func.func @one(%a: memref<8xf32>, %n: index) {
  return
}

// CHECK: {{.*}}.mlir:5:1: analysis: [ASSUMPTION] the 2 memref arguments of public @two are assumed not to alias each other (in @two)
// CHECK-NOT: @one
// CHECK: analysis: numLoopsFused = 0

// MUTANT-N: skip (independent of the transforms)
