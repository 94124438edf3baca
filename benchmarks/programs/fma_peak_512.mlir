// fma_peak_512: 10 independent vector<16xf32> accumulators, each acc = fma(acc, b, c) 524288 times: the core's
// FMA throughput at 512-bit vectors through the same lowering (no dependence between the 10 chains
// hides the FMA latency; |b| < 1 keeps every value finite and normal). FLOPs: 2 * 16 * 10 * 524288, counted.
// bench.tags: peak
func.func @fma_peak_512(%a: memref<192xf32>, %out: memref<160xf32>) {
  %b = affine.vector_load %a[160] : memref<192xf32>, vector<16xf32>
  %c = affine.vector_load %a[176] : memref<192xf32>, vector<16xf32>
  %i0 = affine.vector_load %a[0] : memref<192xf32>, vector<16xf32>
  %i1 = affine.vector_load %a[16] : memref<192xf32>, vector<16xf32>
  %i2 = affine.vector_load %a[32] : memref<192xf32>, vector<16xf32>
  %i3 = affine.vector_load %a[48] : memref<192xf32>, vector<16xf32>
  %i4 = affine.vector_load %a[64] : memref<192xf32>, vector<16xf32>
  %i5 = affine.vector_load %a[80] : memref<192xf32>, vector<16xf32>
  %i6 = affine.vector_load %a[96] : memref<192xf32>, vector<16xf32>
  %i7 = affine.vector_load %a[112] : memref<192xf32>, vector<16xf32>
  %i8 = affine.vector_load %a[128] : memref<192xf32>, vector<16xf32>
  %i9 = affine.vector_load %a[144] : memref<192xf32>, vector<16xf32>
  %r:10 = affine.for %t = 0 to 524288 iter_args(%x0 = %i0, %x1 = %i1, %x2 = %i2, %x3 = %i3, %x4 = %i4, %x5 = %i5, %x6 = %i6, %x7 = %i7, %x8 = %i8, %x9 = %i9) -> (vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>) {
    %y0 = vector.fma %x0, %b, %c : vector<16xf32>
    %y1 = vector.fma %x1, %b, %c : vector<16xf32>
    %y2 = vector.fma %x2, %b, %c : vector<16xf32>
    %y3 = vector.fma %x3, %b, %c : vector<16xf32>
    %y4 = vector.fma %x4, %b, %c : vector<16xf32>
    %y5 = vector.fma %x5, %b, %c : vector<16xf32>
    %y6 = vector.fma %x6, %b, %c : vector<16xf32>
    %y7 = vector.fma %x7, %b, %c : vector<16xf32>
    %y8 = vector.fma %x8, %b, %c : vector<16xf32>
    %y9 = vector.fma %x9, %b, %c : vector<16xf32>
    affine.yield %y0, %y1, %y2, %y3, %y4, %y5, %y6, %y7, %y8, %y9 : vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>
  }
  affine.vector_store %r#0, %out[0] : memref<160xf32>, vector<16xf32>
  affine.vector_store %r#1, %out[16] : memref<160xf32>, vector<16xf32>
  affine.vector_store %r#2, %out[32] : memref<160xf32>, vector<16xf32>
  affine.vector_store %r#3, %out[48] : memref<160xf32>, vector<16xf32>
  affine.vector_store %r#4, %out[64] : memref<160xf32>, vector<16xf32>
  affine.vector_store %r#5, %out[80] : memref<160xf32>, vector<16xf32>
  affine.vector_store %r#6, %out[96] : memref<160xf32>, vector<16xf32>
  affine.vector_store %r#7, %out[112] : memref<160xf32>, vector<16xf32>
  affine.vector_store %r#8, %out[128] : memref<160xf32>, vector<16xf32>
  affine.vector_store %r#9, %out[144] : memref<160xf32>, vector<16xf32>
  return
}
