// CLASS 13: store-to-load forwarding with the store through a traced buffer %a and the write in
// between through %x, an untraced alias of %a (run with %flag = 1). WRONG: forwarding the store
// to %a into the reload of %a: the write through %x changes the element. Kinds of write: an
// affine.store, memref.store, an affine.for, an affine.vector_store, a memref.copy, an scf.if.
// KERNEL: affine_store_line [null, null, null, 1]
// KERNEL: memref_store_loop [null, null, null, 1]
// KERNEL: loop_line [null, null, null, 1]
// KERNEL: vector_store_loop [null, null, null, 1]
// KERNEL: copy_line [null, null, null, 1]
// KERNEL: scf_if_loop [null, null, null, 1]
memref.global "private" constant @nines : memref<8xf32> = dense<9.0>
func.func @affine_store_line(%a: memref<8xf32>, %b: memref<8xf32>, %out: memref<8xf32>, %flag: index) {
  %c0 = arith.constant 0 : index
  %one = arith.constant 1.0 : f32
  %nine = arith.constant 9.0 : f32
  %cond = arith.cmpi sgt, %flag, %c0 : index
  %x = arith.select %cond, %a, %b : memref<8xf32>
  affine.store %one, %a[0] : memref<8xf32>
  affine.store %nine, %x[0] : memref<8xf32>
  %r = affine.load %a[0] : memref<8xf32>
  affine.store %r, %out[0] : memref<8xf32>
  return
}
func.func @memref_store_loop(%a: memref<8xf32>, %b: memref<8xf32>, %out: memref<8xf32>, %flag: index) {
  %c0 = arith.constant 0 : index
  %nine = arith.constant 9.0 : f32
  %cond = arith.cmpi sgt, %flag, %c0 : index
  %x = arith.select %cond, %a, %b : memref<8xf32>
  affine.for %i = 0 to 4 {
    %v = arith.index_cast %i : index to i32
    %f = arith.sitofp %v : i32 to f32
    affine.store %f, %a[%i] : memref<8xf32>
    memref.store %nine, %x[%i] : memref<8xf32>
    %r = affine.load %a[%i] : memref<8xf32>
    affine.store %r, %out[%i] : memref<8xf32>
  }
  return
}
func.func @loop_line(%a: memref<8xf32>, %b: memref<8xf32>, %out: memref<8xf32>, %flag: index) {
  %c0 = arith.constant 0 : index
  %one = arith.constant 1.0 : f32
  %nine = arith.constant 9.0 : f32
  %cond = arith.cmpi sgt, %flag, %c0 : index
  %x = scf.if %cond -> (memref<8xf32>) {
    scf.yield %a : memref<8xf32>
  } else {
    scf.yield %b : memref<8xf32>
  }
  affine.store %one, %a[0] : memref<8xf32>
  affine.for %j = 0 to 8 {
    affine.store %nine, %x[%j] : memref<8xf32>
  }
  %r = affine.load %a[0] : memref<8xf32>
  affine.store %r, %out[0] : memref<8xf32>
  return
}
func.func @vector_store_loop(%a: memref<8xf32>, %b: memref<8xf32>, %out: memref<8xf32>, %flag: index) {
  %c0 = arith.constant 0 : index
  %nine = arith.constant 9.0 : f32
  %cond = arith.cmpi sgt, %flag, %c0 : index
  %x = arith.select %cond, %a, %b : memref<8xf32>
  affine.for %i = 0 to 4 {
    %v = arith.index_cast %i : index to i32
    %f = arith.sitofp %v : i32 to f32
    affine.store %f, %a[%i + 2] : memref<8xf32>
    %v9 = vector.broadcast %nine : f32 to vector<4xf32>
    affine.vector_store %v9, %x[%i] : memref<8xf32>, vector<4xf32>
    %r = affine.load %a[%i + 2] : memref<8xf32>
    affine.store %r, %out[%i] : memref<8xf32>
  }
  return
}
func.func @copy_line(%a: memref<8xf32>, %b: memref<8xf32>, %out: memref<8xf32>, %flag: index) {
  %c0 = arith.constant 0 : index
  %one = arith.constant 1.0 : f32
  %cond = arith.cmpi sgt, %flag, %c0 : index
  %x = arith.select %cond, %a, %b : memref<8xf32>
  affine.store %one, %a[0] : memref<8xf32>
  %src = memref.get_global @nines : memref<8xf32>
  memref.copy %src, %x : memref<8xf32> to memref<8xf32>
  %r = affine.load %a[0] : memref<8xf32>
  affine.store %r, %out[0] : memref<8xf32>
  return
}
func.func @scf_if_loop(%a: memref<8xf32>, %b: memref<8xf32>, %out: memref<8xf32>, %flag: index) {
  %c0 = arith.constant 0 : index
  %nine = arith.constant 9.0 : f32
  %cond = arith.cmpi sgt, %flag, %c0 : index
  %x = arith.select %cond, %a, %b : memref<8xf32>
  affine.for %i = 0 to 4 {
    %v = arith.index_cast %i : index to i32
    %f = arith.sitofp %v : i32 to f32
    affine.store %f, %a[%i] : memref<8xf32>
    scf.if %cond {
      affine.store %nine, %x[%i] : memref<8xf32>
    }
    %r = affine.load %a[%i] : memref<8xf32>
    affine.store %r, %out[%i] : memref<8xf32>
  }
  return
}
