// --trace prints the seed's log lines: printParams, one updateFPG line per scored pair, one
// [LOOP FUSION] line per popped pair (fused or not), the use -> def line and the stop reason of a
// negative-distance refusal, and numLoopsFused. L1 reads t[i + 1] (refused against L0); L2 reads
// t[i] and fuses with L0 across L1; L0-L1 is then re-scored with fewer live elements (504).
// RUN: loopopt %s --target cpu --vector-bits 256 --trace -o /dev/null 2>&1 | filecheck %s

func.func @explain(%a: memref<64xf32>, %out: memref<64xf32>, %out2: memref<64xf32>) {
  %t = memref.alloc() : memref<65xf32>
  affine.for %i = 0 to 64 {
    %x = affine.load %a[%i] : memref<64xf32>
    affine.store %x, %t[%i] : memref<65xf32>
  }
  affine.for %i = 0 to 64 {
    %x = affine.load %t[%i + 1] : memref<65xf32>
    affine.store %x, %out[%i] : memref<64xf32>
  }
  affine.for %i = 0 to 64 {
    %x = affine.load %t[%i] : memref<65xf32>
    affine.store %x, %out2[%i] : memref<64xf32>
  }
  return
}

// CHECK: distanceThreshold = 8 SBSize = 2097152 PSUMSize = 0 enableLoopDistribution = 1 enableProfitableLoopFusion = 1
// CHECK-NEXT: (LoopOpt::updateFPG) e -> {{.*}}.mlir:9:3 : weight = 512 and loop {{.*}}.mlir:13:3, weight = 512, distance = 1
// CHECK-NEXT: (LoopOpt::updateFPG) e -> {{.*}}.mlir:9:3 : weight = 512 and loop {{.*}}.mlir:17:3, weight = 512, distance = 2
// CHECK-NEXT: (LoopOpt::updateFPG) e -> {{.*}}.mlir:13:3 : weight = 512 and loop {{.*}}.mlir:17:3, weight = 512, distance = 1
// CHECK-NEXT: [LOOP FUSION] , level = 0 loops {{.*}}.mlir:9:3 and {{.*}}.mlir:13:3 profit = 512
// CHECK-NEXT: memref.alloc@8:8 : use -> def : (iteration groups: { [d = -1] }) RAW {{.*}}.mlir:11:5 -> {{.*}}.mlir:14:10
// CHECK-NEXT: [STOP FUSION] negative distance dep in def-use
// CHECK-NEXT: [LOOP FUSION] , level = 0 loops {{.*}}.mlir:9:3 and {{.*}}.mlir:17:3 profit = 512
// CHECK-NEXT: (LoopOpt::updateFPG) e -> {{.*}}.mlir:9:3 : weight = 504 and loop {{.*}}.mlir:13:3, weight = 504, distance = 1
// CHECK-NEXT: [LOOP FUSION] , level = 0 loops {{.*}}.mlir:9:3 and {{.*}}.mlir:13:3 profit = 504
// CHECK-NEXT: memref.alloc@8:8 : use -> def : (iteration groups: { [d = -1] }) RAW {{.*}}.mlir:11:5 -> {{.*}}.mlir:14:10
// CHECK-NEXT: [STOP FUSION] negative distance dep in def-use
// CHECK-NEXT: numLoopsFused = 1
// CHECK-EMPTY:
