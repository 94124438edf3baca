// docs/cpu_codegen.md section 41: torch-mlir's norms (GroupNorm, InstanceNorm, LayerNorm) compute
// their mean and variance in f64 through a copy of the input widened by arith.extf, which both
// statistics read. frontend/cast_recompute.py casts the input again in each reader instead: no f64
// buffer is left, and each statistic loop reads the f32 input and widens it itself (the same exact
// cast on the same value: bit for bit). @kept: a reader that runs more iterations than the copy has
// elements (a product reading each element 8 times) keeps the materialised copy, and says why.
// RUN: loopopt %s --target cpu --remarks -o %t.mlir 2>%t.remarks
// RUN: filecheck %s --check-prefix=REMARK < %t.remarks
// RUN: mlir-opt %t.mlir -o /dev/null
// RUN: %cat %t.mlir | filecheck %s
// REQUIRES: mlir-opt
// REMARK: passed: [RECOMPUTE CAST] a widening copy is cast again in each reader, not materialised: the f32 -> f64 copy at {{.*}}recompute-casts.mlir:30:8 in its 2 reader(s)
// REMARK: missed: [STOP RECOMPUTE CAST] the widened copy is materialised: the f32 -> f64 copy at {{.*}}recompute-casts.mlir:81:8: linalg.generic at {{.*}}recompute-casts.mlir:88:8 runs 512 iterations, more than the copy's 64 elements
// CHECK-LABEL: func.func @variance
// CHECK-NOT: 256xf64
// CHECK: affine.load %arg0
// CHECK-NEXT: arith.extf {{.*}} : f32 to f64
// CHECK: arith.divf
// CHECK: affine.load %arg0
// CHECK-NEXT: arith.extf {{.*}} : f32 to f64
// CHECK-NEXT: arith.subf
// CHECK-LABEL: func.func @kept
// CHECK: memref.alloc(){{.*}}: memref<8x8xf64>
#map = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
func.func @variance(%x: tensor<4x256xf32>) -> tensor<4xf32> {
  %zero = arith.constant 0.0 : f64
  %n = arith.constant 256.0 : f64
  %e = tensor.empty() : tensor<4x256xf64>
  %w = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<4x256xf32>) outs(%e : tensor<4x256xf64>) {
  ^bb0(%a: f32, %o: f64):
    %r = arith.extf %a : f32 to f64
    linalg.yield %r : f64
  } -> tensor<4x256xf64>
  %e4 = tensor.empty() : tensor<4xf64>
  %z = linalg.fill ins(%zero : f64) outs(%e4 : tensor<4xf64>) -> tensor<4xf64>
  %s = linalg.generic {indexing_maps = [#map, #row], iterator_types = ["parallel", "reduction"]}
      ins(%w : tensor<4x256xf64>) outs(%z : tensor<4xf64>) {
  ^bb0(%a: f64, %acc: f64):
    %r = arith.addf %a, %acc : f64
    linalg.yield %r : f64
  } -> tensor<4xf64>
  %m = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]}
      ins(%s : tensor<4xf64>) outs(%e4 : tensor<4xf64>) {
  ^bb0(%a: f64, %o: f64):
    %r = arith.divf %a, %n : f64
    linalg.yield %r : f64
  } -> tensor<4xf64>
  %d = linalg.generic {indexing_maps = [#map, #row, #map], iterator_types = ["parallel", "parallel"]}
      ins(%w, %m : tensor<4x256xf64>, tensor<4xf64>) outs(%e : tensor<4x256xf64>) {
  ^bb0(%a: f64, %b: f64, %o: f64):
    %r = arith.subf %a, %b : f64
    %q = arith.mulf %r, %r : f64
    linalg.yield %q : f64
  } -> tensor<4x256xf64>
  %z2 = linalg.fill ins(%zero : f64) outs(%e4 : tensor<4xf64>) -> tensor<4xf64>
  %v = linalg.generic {indexing_maps = [#map, #row], iterator_types = ["parallel", "reduction"]}
      ins(%d : tensor<4x256xf64>) outs(%z2 : tensor<4xf64>) {
  ^bb0(%a: f64, %acc: f64):
    %r = arith.addf %a, %acc : f64
    linalg.yield %r : f64
  } -> tensor<4xf64>
  %ef = tensor.empty() : tensor<4xf32>
  %out = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]}
      ins(%v : tensor<4xf64>) outs(%ef : tensor<4xf32>) {
  ^bb0(%a: f64, %o: f32):
    %r = arith.divf %a, %n : f64
    %t = arith.truncf %r : f64 to f32
    linalg.yield %t : f32
  } -> tensor<4xf32>
  return %out : tensor<4xf32>
}

#a = affine_map<(d0, d1, d2) -> (d0, d2)>
#b = affine_map<(d0, d1, d2) -> (d2, d1)>
#c = affine_map<(d0, d1, d2) -> (d0, d1)>
func.func @kept(%x: tensor<8x8xf32>, %y: tensor<8x8xf64>) -> tensor<8x8xf64> {
  %zero = arith.constant 0.0 : f64
  %e = tensor.empty() : tensor<8x8xf64>
  %w = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<8x8xf32>) outs(%e : tensor<8x8xf64>) {
  ^bb0(%a: f32, %o: f64):
    %r = arith.extf %a : f32 to f64
    linalg.yield %r : f64
  } -> tensor<8x8xf64>
  %z = linalg.fill ins(%zero : f64) outs(%e : tensor<8x8xf64>) -> tensor<8x8xf64>
  %p = linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%w, %y : tensor<8x8xf64>, tensor<8x8xf64>) outs(%z : tensor<8x8xf64>) {
  ^bb0(%a: f64, %b: f64, %acc: f64):
    %q = arith.mulf %a, %b : f64
    %r = arith.addf %q, %acc : f64
    linalg.yield %r : f64
  } -> tensor<8x8xf64>
  return %p : tensor<8x8xf64>
}
