// On trn1 both loops walk only dim 1 (row 0 fixed): the loop to fuse does not access the
// partition dim, refused. On cpu (no partitions) the same pair fuses.
// RUN: loopopt %s --target trn1 --remarks 2>&1 | filecheck %s --check-prefix=TRN1
// RUN: loopopt %s --target cpu --vector-bits 256 --remarks 2>&1 | filecheck %s --check-prefix=CPU

func.func @row0(%a: memref<4x64xf32>, %out: memref<4x64xf32>) {
  %t = memref.alloc() : memref<4x64xf32>
  affine.for %j = 0 to 64 {
    %x = affine.load %a[0, %j] : memref<4x64xf32>
    affine.store %x, %t[0, %j] : memref<4x64xf32>
  }
  affine.for %j = 0 to 64 {
    %x = affine.load %t[0, %j] : memref<4x64xf32>
    affine.store %x, %out[0, %j] : memref<4x64xf32>
  }
  return
}

// TRN1: {{.*}}.mlir:8:3: missed: [STOP FUSION] loop to be fused doesn't access partition dim: {{.*}}.mlir:8:3 and {{.*}}.mlir:12:3, level = 0, profit = 512 (in @row0) [loop at {{.*}}:8:3]
// TRN1-NEXT: analysis: numLoopsFused = 0
// TRN1-LABEL: func.func @row0
// TRN1: memref.alloc
// TRN1-COUNT-2: affine.for

// CPU: passed: [LOOP FUSION] , level = 0 fused {{.*}}.mlir:8:3 and {{.*}}.mlir:12:3 profit = 512 (in @row0)
// CPU-LABEL: func.func @row0
// CPU-SAME: (%[[A:[a-z0-9_]+]]: memref<4x64xf32>, %[[OUT:[a-z0-9_]+]]: memref<4x64xf32>)
// CPU-NEXT: affine.for %[[J:[a-z0-9_]+]] = 0 to 64 {
// CPU-NEXT: %[[X:[a-z0-9_]+]] = affine.load %[[A]][0, %[[J]]]
// CPU-NEXT: affine.store %[[X]], %[[OUT]][0, %[[J]]]
// CPU-NEXT: }
// CPU-NEXT: return
