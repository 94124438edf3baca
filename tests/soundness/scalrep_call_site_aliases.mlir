// CLASS 13: store-to-load forwarding in a function whose memref argument is a global at run
// time, though no arith.select or scf.if is in sight: @poke_indirect's address is taken (an
// indirect call may pass anything: its arguments are untraced), and the public @poke_public is
// called inside the module with @G (its argument takes @G's key). Each stores 1 through %p,
// writes 9 to @G[0] and reloads %p[0]. WRONG: forwarding the 1 (the write changed %p[0]).
// KERNEL: indirect [null]
// KERNEL: public_call [null]
memref.global "private" @G : memref<4xf32> = dense<0.0>
func.func private @poke_indirect(%p: memref<4xf32>, %out: memref<4xf32>) {
  %c0 = arith.constant 0 : index
  %one = arith.constant 1.0 : f32
  %nine = arith.constant 9.0 : f32
  affine.store %one, %p[0] : memref<4xf32>
  %g = memref.get_global @G : memref<4xf32>
  memref.store %nine, %g[%c0] : memref<4xf32>
  %r = affine.load %p[0] : memref<4xf32>
  affine.store %r, %out[0] : memref<4xf32>
  return
}
func.func @poke_public(%p: memref<4xf32>, %out: memref<4xf32>) {
  %one = arith.constant 1.0 : f32
  %nine = arith.constant 9.0 : f32
  %g = memref.get_global @G : memref<4xf32>
  affine.for %i = 0 to 4 {
    affine.store %one, %p[%i] : memref<4xf32>
    affine.store %nine, %g[%i] : memref<4xf32>
    %r = affine.load %p[%i] : memref<4xf32>
    affine.store %r, %out[%i] : memref<4xf32>
  }
  return
}
func.func @indirect(%out: memref<4xf32>) {
  %fp = func.constant @poke_indirect : (memref<4xf32>, memref<4xf32>) -> ()
  %g = memref.get_global @G : memref<4xf32>
  func.call_indirect %fp(%g, %out) : (memref<4xf32>, memref<4xf32>) -> ()
  return
}
func.func @public_call(%out: memref<4xf32>) {
  %g = memref.get_global @G : memref<4xf32>
  func.call @poke_public(%g, %out) : (memref<4xf32>, memref<4xf32>) -> ()
  return
}
