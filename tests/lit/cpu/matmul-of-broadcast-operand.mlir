// docs/cpu_codegen.md section 49: torch writes F.linear of a transposed 3-D input
// (nn.MultiheadAttention with batch_first=True) as W^T broadcast over the batch and a batched
// product. frontend/shared_operand.py makes it one matrix product of the batch's rows: no buffer
// of the batch's copies of the weight (64 x 32 x 48 here) is left, the product reads W itself.
// @left: a broadcast left operand stays batched, and says why.
// RUN: loopopt %s --target cpu --remarks -o %t.mlir 2>%t.remarks
// RUN: filecheck %s --check-prefix=REMARK < %t.remarks
// RUN: mlir-opt %t.mlir -o /dev/null
// RUN: %cat %t.mlir | filecheck %s
// REQUIRES: mlir-opt
// REMARK: passed: [SHARED OPERAND] a batched product of one broadcast matrix runs as one matrix product: linalg.batch_matmul at {{.*}}matmul-of-broadcast-operand.mlir:32:8: a batch of 64 over one 32x48xf32 matrix
// REMARK: missed: [STOP SHARED OPERAND] the broadcast operand is materialised: linalg.batch_matmul at {{.*}}matmul-of-broadcast-operand.mlir:45:8: its broadcast operand is the left one (the batch runs along the product's columns)
// CHECK-LABEL: func.func @linear
// CHECK-NOT: 64x32x48
// CHECK: affine.vector_load %arg1[{{.*}}] : memref<32x48xf32>, vector<
// CHECK: math.fma {{.*}} : vector<
// CHECK-LABEL: func.func @left
// CHECK: memref.alloc(){{.*}}: memref<4x3x8xf32>
#w = affine_map<(d0, d1, d2) -> (d1, d2)>
#id = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#bias = affine_map<(d0, d1, d2) -> (d2)>
func.func @linear(%x: tensor<64x8x32xf32>, %wt: tensor<32x48xf32>, %b: tensor<48xf32>) -> tensor<64x8x48xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<64x32x48xf32>
  %wb = linalg.generic {indexing_maps = [#w, #id], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%wt : tensor<32x48xf32>) outs(%e : tensor<64x32x48xf32>) {
  ^bb0(%in: f32, %o: f32):
    linalg.yield %in : f32
  } -> tensor<64x32x48xf32>
  %e2 = tensor.empty() : tensor<64x8x48xf32>
  %c = linalg.fill ins(%zero : f32) outs(%e2 : tensor<64x8x48xf32>) -> tensor<64x8x48xf32>
  %y = linalg.batch_matmul ins(%x, %wb : tensor<64x8x32xf32>, tensor<64x32x48xf32>) outs(%c : tensor<64x8x48xf32>) -> tensor<64x8x48xf32>
  %r = linalg.generic {indexing_maps = [#id, #bias, #id], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%y, %b : tensor<64x8x48xf32>, tensor<48xf32>) outs(%e2 : tensor<64x8x48xf32>) {
  ^bb0(%a: f32, %v: f32, %o: f32):
    %s = arith.addf %a, %v : f32
    linalg.yield %s : f32
  } -> tensor<64x8x48xf32>
  return %r : tensor<64x8x48xf32>
}

func.func @left(%w: tensor<3x8xf32>, %x: tensor<4x8x16xf32>, %c: tensor<4x3x16xf32>) -> tensor<4x3x16xf32> {
  %e = tensor.empty() : tensor<4x3x8xf32>
  %wb = linalg.broadcast ins(%w : tensor<3x8xf32>) outs(%e : tensor<4x3x8xf32>) dimensions = [0]
  %y = linalg.batch_matmul ins(%wb, %x : tensor<4x3x8xf32>, tensor<4x8x16xf32>) outs(%c : tensor<4x3x16xf32>) -> tensor<4x3x16xf32>
  return %y : tensor<4x3x16xf32>
}
