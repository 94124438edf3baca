// --remarks-json writes one JSON object per remark; the fusion remark carries the pass, kind,
// function, location and its args (profit, level, the loops).
// RUN: loopopt %s --target cpu --vector-bits 256 --remarks-json %t.json -o %t.mlir
// RUN: filecheck %s --input-file %t.json
// RUN: filecheck %s --input-file %t.mlir --check-prefix=IR

func.func @pair(%a: memref<64xf32>, %out: memref<64xf32>) {
  %t = memref.alloc() : memref<64xf32>
  affine.for %i = 0 to 64 {
    %x = affine.load %a[%i] : memref<64xf32>
    affine.store %x, %t[%i] : memref<64xf32>
  }
  affine.for %i = 0 to 64 {
    %x = affine.load %t[%i] : memref<64xf32>
    affine.store %x, %out[%i] : memref<64xf32>
  }
  return
}

// CHECK: {"args": {}, "function": "", "kind": "Analysis", "location": "", "message": "distanceThreshold = 8 SBSize = 2097152 PSUMSize = 0 enableLoopDistribution = 1 enableProfitableLoopFusion = 1", "pass_name": "driver"}
// CHECK-NEXT: {"args": {}, "function": "", "kind": "Analysis", "location": "", "message": "cpu code generation plans for 256-bit vectors (--vector-bits)", "pass_name": "driver"}
// CHECK-NEXT: "kind": "Analysis", {{.*}}"message": "[ASSUMPTION] the 2 memref arguments of public @pair are assumed not to alias each other", "pass_name": "driver"}
// CHECK-NEXT: {"args": {"code": "LOOP_FUSION", "hoisted": [], "level": 0, "loop1": "{{.*}}.mlir:9:3", "loop2": "{{.*}}.mlir:13:3", "loops": "{{.*}}.mlir:9:3 and {{.*}}.mlir:13:3", "profit": 512.0}, "function": "pair", "kind": "Passed", "location": "{{.*}}.mlir:9:3", "message": "[LOOP FUSION] , level = 0 fused {{.*}}.mlir:9:3 and {{.*}}.mlir:13:3 profit = 512", "pass_name": "fusion"}
// CHECK-NEXT: {"args": {"loads_forwarded": 1}, "function": "pair", "kind": "Passed", "location": "{{.*}}.mlir:8:8", "message": "[CONTRACTION] memref.alloc at {{.*}}.mlir:8:8 replaced by its stored values; buffer removed", "pass_name": "contraction"}
// CHECK-NEXT: {"args": {}, "function": "", "kind": "Analysis", "location": "", "message": "numLoopsFused = 1", "pass_name": "driver"}
// CHECK-EMPTY:

// IR-LABEL: func.func @pair
// IR-NEXT: affine.for
// IR-NEXT: affine.load
// IR-NEXT: affine.store
// IR-NEXT: }
// IR-NEXT: return
