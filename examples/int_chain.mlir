// Integer elementwise chain on i32 (addi, muli, andi, shrsi) through a placed intermediate of 2-byte elements (i16 truncation).
func.func @int_chain(%a: memref<32xi32>, %b: memref<32xi32>, %out: memref<32xi32>) {
  %c3 = arith.constant 3 : i32
  %mask = arith.constant 255 : i32
  %c1 = arith.constant 1 : i32
  %t = memref.alloc() : memref<32xi16>
  affine.for %i = 0 to 32 {
    %x = affine.load %a[%i] : memref<32xi32>
    %y = affine.load %b[%i] : memref<32xi32>
    %s = arith.addi %x, %y : i32
    %m = arith.muli %s, %c3 : i32
    %k = arith.andi %m, %mask : i32
    %h = arith.trunci %k : i32 to i16
    affine.store %h, %t[%i] : memref<32xi16>
  }
  affine.for %i = 0 to 32 {
    %h = affine.load %t[%i] : memref<32xi16>
    %k = arith.extsi %h : i16 to i32
    %r = arith.shrsi %k, %c1 : i32
    %x = affine.load %a[%i] : memref<32xi32>
    %o = arith.subi %r, %x : i32
    affine.store %o, %out[%i] : memref<32xi32>
  }
  memref.dealloc %t : memref<32xi16>
  return
}
