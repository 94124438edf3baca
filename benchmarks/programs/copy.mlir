// copy: out = in over 32M f32 (128 MiB each way); measures the machine's memory bandwidth through the same lowering
// bench.tags: bandwidth
func.func @copy(%in: memref<33554432xf32>, %out: memref<33554432xf32>) {
  affine.for %i = 0 to 33554432 {
    %v = affine.load %in[%i] : memref<33554432xf32>
    affine.store %v, %out[%i] : memref<33554432xf32>
  }
  return
}
