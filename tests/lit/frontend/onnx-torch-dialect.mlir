// ONNX as iree-import-onnx imports it (torch.operator "onnx.Gemm", ...; onnx_mlp_small.mlir):
// recognised as kind onnx, lowered in-process by the torch-mlir passes bundled in
// iree-base-compiler (torch-onnx-to-torch-backend-pipeline, then
// torch-backend-to-linalg-on-tensors-backend-pipeline), then the linalg lowering.
// MUTANT-N: skip (the lowering alone: no `loopopt %s` line)
// RUN: loopopt-lower %S/../../../benchmarks/models/blocks/onnx_mlp_small.mlir --report 2>&1 | filecheck %s

// CHECK: lowering: torch-onnx-to-torch-backend-pipeline: {{.*}}torch.operator -
// CHECK: lowering: torch-backend-to-linalg-on-tensors-backend-pipeline: {{.*}}linalg.matmul +2
// CHECK-LABEL: func.func @onnx_mlp_small(%arg0: memref<8x16xf32>, %arg1: memref<8x16xf32>)
// CHECK-NOT:     torch
// CHECK:         math.exp
// CHECK:         affine.store %{{.*}}, %arg1[%{{.*}}, %{{.*}}] : memref<8x16xf32>
// CHECK:         return
