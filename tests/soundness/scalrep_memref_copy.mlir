// CLASS 13: store-to-load forwarding through a memref of untraced origin (issue 22).
// A store through %x (an alias of %a or %b chosen at run time; run with %flag = 1: %x is %a, or
// the global @G in the private-callee kernels), then a memref.copy into the buffer, then a reload
// through %x. WRONG: forwarding the first store's value to the reload (the write in between
// may change the element: here it does). Kernels: select / scf.if result / private-function
// argument fed a select, each in straight-line code (_line) and in a loop body (_loop).
// KERNEL: sel_line [null, null, null, 1]
// KERNEL: sel_loop [null, null, null, 1]
// KERNEL: if_line [null, null, null, 1]
// KERNEL: if_loop [null, null, null, 1]
// KERNEL: arg_line [null, null, null, 1]
// KERNEL: arg_loop [null, null, null, 1]
memref.global "private" constant @nines : memref<8xf32> = dense<9.0>
memref.global "private" @G : memref<8xf32> = dense<0.0>
func.func private @fill(%m: memref<8xf32>) {
  %nine = arith.constant 9.0 : f32
  affine.for %j = 0 to 8 {
    affine.store %nine, %m[%j] : memref<8xf32>
  }
  return
}
func.func @sel_line(%a: memref<8xf32>, %b: memref<8xf32>, %out: memref<8xf32>, %flag: index) {
  %c0 = arith.constant 0 : index
  %one = arith.constant 1.0 : f32
  %nine = arith.constant 9.0 : f32
  %cond = arith.cmpi sgt, %flag, %c0 : index
  %x = arith.select %cond, %a, %b : memref<8xf32>
  affine.store %one, %x[0] : memref<8xf32>
  %src = memref.get_global @nines : memref<8xf32>
  memref.copy %src, %a : memref<8xf32> to memref<8xf32>
  %r = affine.load %x[0] : memref<8xf32>
  affine.store %r, %out[0] : memref<8xf32>
  return
}
func.func @sel_loop(%a: memref<8xf32>, %b: memref<8xf32>, %out: memref<8xf32>, %flag: index) {
  %c0 = arith.constant 0 : index
  %one = arith.constant 1.0 : f32
  %nine = arith.constant 9.0 : f32
  %cond = arith.cmpi sgt, %flag, %c0 : index
  %x = arith.select %cond, %a, %b : memref<8xf32>
  affine.for %i = 0 to 4 {
    %v = arith.index_cast %i : index to i32
    %f = arith.sitofp %v : i32 to f32
    affine.store %f, %x[%i] : memref<8xf32>
    %src = memref.get_global @nines : memref<8xf32>
    memref.copy %src, %a : memref<8xf32> to memref<8xf32>
    %r = affine.load %x[%i] : memref<8xf32>
    affine.store %r, %out[%i] : memref<8xf32>
  }
  return
}
func.func @if_line(%a: memref<8xf32>, %b: memref<8xf32>, %out: memref<8xf32>, %flag: index) {
  %c0 = arith.constant 0 : index
  %one = arith.constant 1.0 : f32
  %nine = arith.constant 9.0 : f32
  %cond = arith.cmpi sgt, %flag, %c0 : index
  %x = scf.if %cond -> (memref<8xf32>) {
    scf.yield %a : memref<8xf32>
  } else {
    scf.yield %b : memref<8xf32>
  }
  affine.store %one, %x[0] : memref<8xf32>
  %src = memref.get_global @nines : memref<8xf32>
  memref.copy %src, %a : memref<8xf32> to memref<8xf32>
  %r = affine.load %x[0] : memref<8xf32>
  affine.store %r, %out[0] : memref<8xf32>
  return
}
func.func @if_loop(%a: memref<8xf32>, %b: memref<8xf32>, %out: memref<8xf32>, %flag: index) {
  %c0 = arith.constant 0 : index
  %one = arith.constant 1.0 : f32
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
    %src = memref.get_global @nines : memref<8xf32>
    memref.copy %src, %a : memref<8xf32> to memref<8xf32>
    %r = affine.load %x[%i] : memref<8xf32>
    affine.store %r, %out[%i] : memref<8xf32>
  }
  return
}
func.func private @arg_line_callee(%x: memref<8xf32>, %out: memref<8xf32>, %flag: index) {
  %c0 = arith.constant 0 : index
  %one = arith.constant 1.0 : f32
  %nine = arith.constant 9.0 : f32
  %cond = arith.cmpi sgt, %flag, %c0 : index
  %g = memref.get_global @G : memref<8xf32>
  affine.store %one, %x[0] : memref<8xf32>
  %src = memref.get_global @nines : memref<8xf32>
  memref.copy %src, %g : memref<8xf32> to memref<8xf32>
  %r = affine.load %x[0] : memref<8xf32>
  affine.store %r, %out[0] : memref<8xf32>
  return
}
func.func @arg_line(%a: memref<8xf32>, %b: memref<8xf32>, %out: memref<8xf32>, %flag: index) {
  %c0 = arith.constant 0 : index
  %cond = arith.cmpi sgt, %flag, %c0 : index
  %g = memref.get_global @G : memref<8xf32>
  %x = arith.select %cond, %g, %b : memref<8xf32>
  func.call @arg_line_callee(%x, %out, %flag) : (memref<8xf32>, memref<8xf32>, index) -> ()
  return
}
func.func private @arg_loop_callee(%x: memref<8xf32>, %out: memref<8xf32>, %flag: index) {
  %c0 = arith.constant 0 : index
  %one = arith.constant 1.0 : f32
  %nine = arith.constant 9.0 : f32
  %cond = arith.cmpi sgt, %flag, %c0 : index
  %g = memref.get_global @G : memref<8xf32>
  affine.for %i = 0 to 4 {
    %v = arith.index_cast %i : index to i32
    %f = arith.sitofp %v : i32 to f32
    affine.store %f, %x[%i] : memref<8xf32>
    %src = memref.get_global @nines : memref<8xf32>
    memref.copy %src, %g : memref<8xf32> to memref<8xf32>
    %r = affine.load %x[%i] : memref<8xf32>
    affine.store %r, %out[%i] : memref<8xf32>
  }
  return
}
func.func @arg_loop(%a: memref<8xf32>, %b: memref<8xf32>, %out: memref<8xf32>, %flag: index) {
  %c0 = arith.constant 0 : index
  %cond = arith.cmpi sgt, %flag, %c0 : index
  %g = memref.get_global @G : memref<8xf32>
  %x = arith.select %cond, %g, %b : memref<8xf32>
  func.call @arg_loop_callee(%x, %out, %flag) : (memref<8xf32>, memref<8xf32>, index) -> ()
  return
}
