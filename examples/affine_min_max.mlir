// affine.min / affine.max clamp subscripts at the edges (used by memref.load: they are not affine dims), and a windowed sum whose inner loop has max/min bounds.
#lo = affine_map<(d0) -> (0, d0 - 2)>
#hi = affine_map<(d0) -> (63, d0 + 2)>
#win_lo = affine_map<(d0) -> (0, d0 - 2)>
#win_hi = affine_map<(d0) -> (64, d0 + 3)>
func.func @affine_min_max(%a: memref<64xf32>, %clamped: memref<64xf32>, %window: memref<64xf32>) {
  %zero = arith.constant 0.0 : f32
  affine.for %i = 0 to 64 {
    %l = affine.max #lo(%i)
    %h = affine.min #hi(%i)
    %x = memref.load %a[%l] : memref<64xf32>
    %y = memref.load %a[%h] : memref<64xf32>
    %d = arith.subf %y, %x : f32
    affine.store %d, %clamped[%i] : memref<64xf32>
  }
  affine.for %i = 0 to 64 {
    %s = affine.for %j = max #win_lo(%i) to min #win_hi(%i) iter_args(%acc = %zero) -> (f32) {
      %x = affine.load %a[%j] : memref<64xf32>
      %n = arith.addf %acc, %x : f32
      affine.yield %n : f32
    }
    affine.store %s, %window[%i] : memref<64xf32>
  }
  return
}
