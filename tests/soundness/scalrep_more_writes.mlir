// CLASS 13: store-to-load forwarding through a memref of untraced origin (issue 22), more kinds
// of write between the store through %x (an alias of %a when %flag = 1) and the reload through
// %x: a store in an affine.if, an scf.while and an scf.for, a vector.store and a
// vector.transfer_write, a store through a subview of %a, and a private callee whose argument
// receives an scf.if result. WRONG: forwarding the first store's value to the reload.
// KERNEL: affine_if [null, null, null, 1]
// KERNEL: scf_while [null, null, null, 1]
// KERNEL: scf_for_loop [null, null, null, 1]
// KERNEL: vector_dialect_store [null, null, null, 1]
// KERNEL: transfer_write_loop [null, null, null, 1]
// KERNEL: subview_store [null, null, null, 1]
// KERNEL: arg_from_if [null, null, null, 1]
func.func @affine_if(%a: memref<8xf32>, %b: memref<8xf32>, %out: memref<8xf32>, %flag: index) {
  %c0 = arith.constant 0 : index
  %one = arith.constant 1.0 : f32
  %nine = arith.constant 9.0 : f32
  %cond = arith.cmpi sgt, %flag, %c0 : index
  %x = arith.select %cond, %a, %b : memref<8xf32>
  affine.store %one, %x[0] : memref<8xf32>
  affine.if affine_set<(d0) : (d0 - 1 >= 0)>(%flag) {
    affine.store %nine, %a[0] : memref<8xf32>
  }
  %r = affine.load %x[0] : memref<8xf32>
  affine.store %r, %out[0] : memref<8xf32>
  return
}
func.func @scf_while(%a: memref<8xf32>, %b: memref<8xf32>, %out: memref<8xf32>, %flag: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %one = arith.constant 1.0 : f32
  %nine = arith.constant 9.0 : f32
  %cond = arith.cmpi sgt, %flag, %c0 : index
  %x = arith.select %cond, %a, %b : memref<8xf32>
  affine.store %one, %x[0] : memref<8xf32>
  %w = scf.while (%k = %c0) : (index) -> index {
    %c = arith.cmpi slt, %k, %c3 : index
    scf.condition(%c) %k : index
  } do {
  ^bb0(%k: index):
    memref.store %nine, %a[%c0] : memref<8xf32>
    %k1 = arith.addi %k, %c1 : index
    scf.yield %k1 : index
  }
  %r = affine.load %x[0] : memref<8xf32>
  affine.store %r, %out[0] : memref<8xf32>
  return
}
func.func @scf_for_loop(%a: memref<8xf32>, %b: memref<8xf32>, %out: memref<8xf32>, %flag: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %nine = arith.constant 9.0 : f32
  %cond = arith.cmpi sgt, %flag, %c0 : index
  %x = scf.if %cond -> (memref<8xf32>) {
    scf.yield %a : memref<8xf32>
  } else {
    scf.yield %b : memref<8xf32>
  }
  affine.for %i = 0 to 4 {
    %v = arith.index_cast %i : index to i32
    %f = arith.sitofp %v : i32 to f32
    affine.store %f, %x[%i] : memref<8xf32>
    scf.for %j = %c0 to %c8 step %c1 {
      memref.store %nine, %a[%j] : memref<8xf32>
    }
    %r = affine.load %x[%i] : memref<8xf32>
    affine.store %r, %out[%i] : memref<8xf32>
  }
  return
}
func.func @vector_dialect_store(%a: memref<8xf32>, %b: memref<8xf32>, %out: memref<8xf32>, %flag: index) {
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %one = arith.constant 1.0 : f32
  %nine = arith.constant 9.0 : f32
  %cond = arith.cmpi sgt, %flag, %c0 : index
  %x = arith.select %cond, %a, %b : memref<8xf32>
  affine.store %one, %x[5] : memref<8xf32>
  %v9 = vector.broadcast %nine : f32 to vector<4xf32>
  vector.store %v9, %a[%c4] : memref<8xf32>, vector<4xf32>
  %r = affine.load %x[5] : memref<8xf32>
  affine.store %r, %out[0] : memref<8xf32>
  return
}
func.func @transfer_write_loop(%a: memref<8xf32>, %b: memref<8xf32>, %out: memref<8xf32>, %flag: index) {
  %c0 = arith.constant 0 : index
  %nine = arith.constant 9.0 : f32
  %cond = arith.cmpi sgt, %flag, %c0 : index
  %x = arith.select %cond, %a, %b : memref<8xf32>
  affine.for %i = 0 to 4 {
    %v = arith.index_cast %i : index to i32
    %f = arith.sitofp %v : i32 to f32
    affine.store %f, %x[%i] : memref<8xf32>
    %v9 = vector.broadcast %nine : f32 to vector<4xf32>
    vector.transfer_write %v9, %a[%i] {in_bounds = [true]} : vector<4xf32>, memref<8xf32>
    %r = affine.load %x[%i] : memref<8xf32>
    affine.store %r, %out[%i] : memref<8xf32>
  }
  return
}
func.func @subview_store(%a: memref<8xf32>, %b: memref<8xf32>, %out: memref<8xf32>, %flag: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %one = arith.constant 1.0 : f32
  %nine = arith.constant 9.0 : f32
  %cond = arith.cmpi sgt, %flag, %c0 : index
  %x = arith.select %cond, %a, %b : memref<8xf32>
  affine.store %one, %x[3] : memref<8xf32>
  %s = memref.subview %a[2] [4] [1] : memref<8xf32> to memref<4xf32, strided<[1], offset: 2>>
  memref.store %nine, %s[%c1] : memref<4xf32, strided<[1], offset: 2>>
  %r = affine.load %x[3] : memref<8xf32>
  affine.store %r, %out[0] : memref<8xf32>
  return
}
memref.global "private" @H : memref<8xf32> = dense<0.0>
func.func private @from_if_callee(%x: memref<8xf32>, %out: memref<8xf32>) {
  %nine = arith.constant 9.0 : f32
  %h = memref.get_global @H : memref<8xf32>
  affine.for %i = 0 to 4 {
    %v = arith.index_cast %i : index to i32
    %f = arith.sitofp %v : i32 to f32
    affine.store %f, %x[%i] : memref<8xf32>
    affine.for %j = 0 to 8 {
      affine.store %nine, %h[%j] : memref<8xf32>
    }
    %r = affine.load %x[%i] : memref<8xf32>
    affine.store %r, %out[%i] : memref<8xf32>
  }
  return
}
func.func @arg_from_if(%a: memref<8xf32>, %b: memref<8xf32>, %out: memref<8xf32>, %flag: index) {
  %c0 = arith.constant 0 : index
  %cond = arith.cmpi sgt, %flag, %c0 : index
  %h = memref.get_global @H : memref<8xf32>
  %x = scf.if %cond -> (memref<8xf32>) {
    scf.yield %h : memref<8xf32>
  } else {
    scf.yield %b : memref<8xf32>
  }
  func.call @from_if_callee(%x, %out) : (memref<8xf32>, memref<8xf32>) -> ()
  return
}
