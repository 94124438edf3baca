// loopopt regression: fuzz (issue 35's rows in lanes): a reduction's load addressed by the row loop's counter through `mod` a symbol was planned as if its address were the same in every lane, and the strip builder found no scalar form for the counter ([INTERNAL] rows-in-lanes rolled back); such an address now refuses the plan by name
// options: --target=cpu --loop-opt-distance-threshold=2 --enable-loop-distribution=true --enable-profitable-loop-fusion=false --enable-licm=true
// func: kernel
// sizes: arg2=1 arg3=5
// seed: 1722462058
module {
  func.func @kernel(%out0: memref<10x7xf32>, %out4: memref<7xf32>, %n0: index, %n1: index) {
    %cst0 = arith.constant 0.0 : f32
    %t3 = memref.alloc() : memref<10x7xf32>
    affine.for %i1_0 = 0 to 10 {
      affine.for %i1_1 = 0 to 7 {
        %v2 = affine.load %out4[%i1_1] : memref<7xf32>
        affine.store %v2, %t3[%i1_0, %i1_1] : memref<10x7xf32>
      }
    }
    %cv4 = memref.cast %t3 : memref<10x7xf32> to memref<?x7xf32>
    affine.for %i3_0 = 0 to 10 {
      %red3 = affine.for %i3_1 = 0 to %n0 iter_args(%acc3 = %cst0) -> (f32) {
        %v4 = affine.load %cv4[%i3_0, %i3_1] : memref<?x7xf32>
        %q6 = affine.apply affine_map<(d0)[s0] -> ((d0 + 1) mod s0)>(%i3_0)[%n1]
        %v5 = affine.load %out0[%q6, %i3_1] : memref<10x7xf32>
        %v7 = arith.addf %v4, %v5 : f32
        %v8 = arith.addf %acc3, %v7 : f32
        affine.yield %v8 : f32
      }
      affine.store %red3, %cv4[%i3_0, 1] : memref<?x7xf32>
    }
    return
  }
}
