// Store-to-load forwarding (cpu scalar replacement) through a memref of untraced origin: %x is
// %a or %b, chosen at run time, so a write to %a in between (here a memref.store, then an
// affine.for that stores) may change what %x[0] holds and each reload stays. Through the traced
// %a with only %b written in between (distinct public arguments), the reload is forwarded.
// RUN: loopopt %s --target cpu --vector-bits 256 --passes scalrep --remarks 2>&1 | filecheck %s

func.func @untraced(%a: memref<8xf32>, %b: memref<8xf32>, %out: memref<8xf32>, %flag: i1) {
  %c0 = arith.constant 0 : index
  %one = arith.constant 1.0 : f32
  %nine = arith.constant 9.0 : f32
  %x = arith.select %flag, %a, %b : memref<8xf32>
  affine.store %one, %x[0] : memref<8xf32>
  memref.store %nine, %a[%c0] : memref<8xf32>
  %r = affine.load %x[0] : memref<8xf32>
  affine.store %r, %out[0] : memref<8xf32>
  affine.store %one, %x[1] : memref<8xf32>
  affine.for %j = 0 to 8 {
    affine.store %nine, %a[%j] : memref<8xf32>
  }
  %s = affine.load %x[1] : memref<8xf32>
  affine.store %s, %out[1] : memref<8xf32>
  return
}

func.func @traced(%a: memref<8xf32>, %b: memref<8xf32>, %out: memref<8xf32>) {
  %c0 = arith.constant 0 : index
  %one = arith.constant 1.0 : f32
  %nine = arith.constant 9.0 : f32
  affine.store %one, %a[0] : memref<8xf32>
  memref.store %nine, %b[%c0] : memref<8xf32>
  %r = affine.load %a[0] : memref<8xf32>
  affine.store %r, %out[0] : memref<8xf32>
  return
}

// CHECK-NOT: load replaced {{.*}}(in @untraced)
// CHECK: {{.*}}.mlir:31:8: passed: [SCALAR REPLACEMENT] load replaced by the value stored to the same address earlier in the block (in @traced)
// CHECK-NOT: load replaced

// CHECK-LABEL: func.func @untraced
// CHECK: %[[X:[a-z0-9_]+]] = arith.select
// CHECK-NEXT: affine.store %{{[a-z0-9_]+}}, %[[X]][0]
// CHECK-NEXT: memref.store
// CHECK-NEXT: %[[R:[a-z0-9_]+]] = affine.load %[[X]][0]
// CHECK-NEXT: affine.store %[[R]], %{{[a-z0-9_]+}}[0]
// CHECK-NEXT: affine.store %{{[a-z0-9_]+}}, %[[X]][1]
// CHECK-NEXT: affine.for
// CHECK-NEXT: affine.store
// CHECK-NEXT: }
// CHECK-NEXT: %[[S:[a-z0-9_]+]] = affine.load %[[X]][1]
// CHECK-NEXT: affine.store %[[S]], %{{[a-z0-9_]+}}[1]

// CHECK-LABEL: func.func @traced
// CHECK-SAME: (%[[A:[a-z0-9_]+]]: memref<8xf32>, %[[B:[a-z0-9_]+]]: memref<8xf32>, %[[OUT:[a-z0-9_]+]]: memref<8xf32>)
// CHECK: affine.store %[[ONE:[a-z0-9_]+]], %[[A]][0]
// CHECK-NEXT: memref.store
// CHECK-NEXT: affine.store %[[ONE]], %[[OUT]][0]
// CHECK-NEXT: return
