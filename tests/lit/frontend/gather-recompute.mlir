// docs/cpu_codegen.md section 23: a loss's gather of its log-softmax (torch's nll_loss and
// cross_entropy: tensor.extract of the target's element) recomputes that element from the chain of
// elementwise producers (x - max - log(sum)) instead of reading the materialised log-softmax
// (frontend/gather_recompute.py); the log-softmax is then never written, and the row loop streams
// each row twice: its maximum, then exp and its sum in one vector loop (codegen/cpu/hooks.py:
// the exp joins the sum that reads it, a sum that may be reassociated). @kept: an extract that runs
// more often than its producer has points reads the materialised tensor, and says so.
// RUN: loopopt %s --target cpu --vector-bits 256 --remarks -o - 2>%t.remarks | filecheck %s
// RUN: filecheck %s --check-prefix=REMARK < %t.remarks
#map = affine_map<(d0, d1) -> (d0, d1)>
#map1 = affine_map<(d0, d1) -> (d0)>
#map2 = affine_map<(d0) -> (d0)>
#map3 = affine_map<(d0) -> ()>
func.func @nll(%x: tensor<4x40xf32>, %t: tensor<4xi64>) -> tensor<f32> {
  %ninf = arith.constant 0xFF800000 : f32
  %zero = arith.constant 0.0 : f32
  %c40 = arith.constant 40 : index
  %e4 = tensor.empty() : tensor<4xf32>
  %fm = linalg.fill ins(%ninf : f32) outs(%e4 : tensor<4xf32>) -> tensor<4xf32>
  %mx = linalg.generic {indexing_maps = [#map, #map1], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<4x40xf32>) outs(%fm : tensor<4xf32>) {
  ^bb0(%a: f32, %m: f32):
    %r = arith.maximumf %a, %m : f32
    linalg.yield %r : f32
  } -> tensor<4xf32>
  %e = tensor.empty() : tensor<4x40xf32>
  %sh = linalg.generic {indexing_maps = [#map, #map1, #map], iterator_types = ["parallel", "parallel"]}
      ins(%x, %mx : tensor<4x40xf32>, tensor<4xf32>) outs(%e : tensor<4x40xf32>) {
  ^bb0(%a: f32, %m: f32, %o: f32):
    %r = arith.subf %a, %m : f32
    linalg.yield %r : f32
  } -> tensor<4x40xf32>
  %ex = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]}
      ins(%sh : tensor<4x40xf32>) outs(%e : tensor<4x40xf32>) {
  ^bb0(%a: f32, %o: f32):
    %r = math.exp %a : f32
    linalg.yield %r : f32
  } -> tensor<4x40xf32>
  %fz = linalg.fill ins(%zero : f32) outs(%e4 : tensor<4xf32>) -> tensor<4xf32>
  %s = linalg.generic {indexing_maps = [#map, #map1], iterator_types = ["parallel", "reduction"]}
      ins(%ex : tensor<4x40xf32>) outs(%fz : tensor<4xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %r = arith.addf %a, %acc : f32
    linalg.yield %r : f32
  } -> tensor<4xf32>
  %lg = linalg.generic {indexing_maps = [#map2, #map2], iterator_types = ["parallel"]}
      ins(%s : tensor<4xf32>) outs(%e4 : tensor<4xf32>) {
  ^bb0(%a: f32, %o: f32):
    %r = math.log %a : f32
    linalg.yield %r : f32
  } -> tensor<4xf32>
  %lsm = linalg.generic {indexing_maps = [#map, #map1, #map], iterator_types = ["parallel", "parallel"]}
      ins(%sh, %lg : tensor<4x40xf32>, tensor<4xf32>) outs(%e : tensor<4x40xf32>) {
  ^bb0(%a: f32, %l: f32, %o: f32):
    %r = arith.subf %a, %l : f32
    linalg.yield %r : f32
  } -> tensor<4x40xf32>
  %picked = linalg.generic {indexing_maps = [#map2, #map2], iterator_types = ["parallel"]}
      ins(%t : tensor<4xi64>) outs(%e4 : tensor<4xf32>) {
  ^bb0(%ti: i64, %o: f32):
    %i = linalg.index 0 : index
    %k = arith.index_cast %ti : i64 to index
    %km = arith.remui %k, %c40 : index
    %g = tensor.extract %lsm[%i, %km] : tensor<4x40xf32>
    %n = arith.negf %g : f32
    linalg.yield %n : f32
  } -> tensor<4xf32>
  %e0 = tensor.empty() : tensor<f32>
  %f0 = linalg.fill ins(%zero : f32) outs(%e0 : tensor<f32>) -> tensor<f32>
  %loss = linalg.generic {indexing_maps = [#map2, #map3], iterator_types = ["reduction"]}
      ins(%picked : tensor<4xf32>) outs(%f0 : tensor<f32>) {
  ^bb0(%a: f32, %acc: f32):
    %r = arith.addf %a, %acc : f32
    linalg.yield %r : f32
  } -> tensor<f32>
  return %loss : tensor<f32>
}

#v = affine_map<(d0) -> (d0)>
#vv = affine_map<(d0, d1) -> (d0)>
#o = affine_map<(d0, d1) -> (d0, d1)>
func.func @kept(%x: tensor<4xf32>, %t: tensor<16xi64>) -> tensor<16x16xf32> {
  %c4 = arith.constant 4 : index
  %e = tensor.empty() : tensor<4xf32>
  %p = linalg.generic {indexing_maps = [#v, #v], iterator_types = ["parallel"]}
      ins(%x : tensor<4xf32>) outs(%e : tensor<4xf32>) {
  ^bb0(%a: f32, %o: f32):
    %y = math.exp %a : f32
    linalg.yield %y : f32
  } -> tensor<4xf32>
  %e1 = tensor.empty() : tensor<16x16xf32>
  %r = linalg.generic {indexing_maps = [#vv, #o], iterator_types = ["parallel", "parallel"]}
      ins(%t : tensor<16xi64>) outs(%e1 : tensor<16x16xf32>) {
  ^bb0(%ti: i64, %o: f32):
    %k = arith.index_cast %ti : i64 to index
    %km = arith.remui %k, %c4 : index
    %g = tensor.extract %p[%km] : tensor<4xf32>
    linalg.yield %g : f32
  } -> tensor<16x16xf32>
  return %r : tensor<16x16xf32>
}

// CHECK-LABEL: func.func @nll
// CHECK-NOT: memref.alloc(){{.*}}memref<4x40xf32>
// CHECK: affine.for %[[I:.*]] = 0 to 4 iter_args
// CHECK: affine.for %{{.*}} = 0 to 40 iter_args
// CHECK: arith.maximumf
// CHECK: affine.for %{{.*}} = 0 to 40 iter_args
// CHECK: affine.load %arg0[%[[I]], %{{.*}}] : memref<4x40xf32>
// CHECK: math.floor
// CHECK: arith.addf %{{.*}} fastmath<reassoc> : f32
// CHECK-NOT: affine.for
// CHECK: %[[K:.*]] = arith.remui
// CHECK-NEXT: memref.load %arg0[%[[I]], %[[K]]] : memref<4x40xf32>
// CHECK: math.log
// CHECK: arith.subf
// CHECK-NEXT: arith.negf
// CHECK-LABEL: func.func @kept
// CHECK: memref.alloc() {alignment = 64 : i64} : memref<4xf32>
// CHECK: memref.load %alloc[%{{.*}}] : memref<4xf32>

// REMARK: passed: [RECOMPUTE GATHER] the gathered element is recomputed from its elementwise producer: tensor.extract at {{.*}}gather-recompute.mlir:64:10 of linalg.generic at {{.*}}gather-recompute.mlir:52:10 (1 ops)
// REMARK: missed: [STOP RECOMPUTE GATHER] the gathered element is read from the materialised tensor: tensor.extract at {{.*}}gather-recompute.mlir:97:10 of linalg.generic at {{.*}}gather-recompute.mlir:85:8: it runs 256 times, more than the producer's 4 points
// REMARK: passed: [RECOMPUTE GATHER] {{.*}} of linalg.generic at {{.*}}gather-recompute.mlir:27:9 (1 ops)
// REMARK: passed: [RECOMPUTE GATHER] {{.*}} of linalg.generic at {{.*}}gather-recompute.mlir:46:9 (1 ops)
// REMARK-NOT: RECOMPUTE GATHER
// REMARK: [LOOP FUSION] , level = 1 fused {{.*}}gather-recompute.mlir:27:9 and {{.*}}gather-recompute.mlir:40:8
