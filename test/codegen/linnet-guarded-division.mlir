// linnet-linalg-to-parallel-loops vectorizes an integer division only where
// no lane can trap, masked-off lanes (zero padding) included: a divisor that
// is a constant other than 0 (and -1 under a signed MIN), or the total
// division's guarded divisor (convert-linnet-to-linalg: `select(y == 0, 1, y)`,
// signed also `or (x == MIN and y == -1)`). Other divisions stay scalar.
// RUN: %linnet-opt %s -linnet-linalg-to-parallel-loops=vector-length=16 -canonicalize | FileCheck %s

#id = affine_map<(d0) -> (d0)>

// CHECK-LABEL: func @guarded_signed
// CHECK: vector.create_mask
// CHECK: arith.divsi %{{.*}}, %{{.*}} : vector<16xi32>
func.func @guarded_signed(%a: memref<?xi32>, %b: memref<?xi32>, %c: memref<?xi32>) {
  %zero = arith.constant 0 : i32
  %one = arith.constant 1 : i32
  %min = arith.constant -2147483648 : i32
  %minus1 = arith.constant -1 : i32
  linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel"]}
      ins(%a, %b : memref<?xi32>, memref<?xi32>) outs(%c : memref<?xi32>) {
  ^bb0(%x: i32, %y: i32, %o: i32):
    %z = arith.cmpi eq, %y, %zero : i32
    %xm = arith.cmpi eq, %x, %min : i32
    %ym = arith.cmpi eq, %y, %minus1 : i32
    %ov = arith.andi %xm, %ym : i1
    %bad = arith.ori %z, %ov : i1
    %d = arith.select %bad, %one, %y : i32
    %q = arith.divsi %x, %d : i32
    %r = arith.select %z, %minus1, %q : i32
    linalg.yield %r : i32
  }
  return
}

// CHECK-LABEL: func @guarded_unsigned
// CHECK: arith.remui %{{.*}}, %{{.*}} : vector<16xi16>
func.func @guarded_unsigned(%a: memref<40xi16>, %b: memref<40xi16>, %c: memref<40xi16>) {
  %zero = arith.constant 0 : i16
  %one = arith.constant 1 : i16
  linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel"]}
      ins(%a, %b : memref<40xi16>, memref<40xi16>) outs(%c : memref<40xi16>) {
  ^bb0(%x: i16, %y: i16, %o: i16):
    %z = arith.cmpi eq, %y, %zero : i16
    %d = arith.select %z, %one, %y : i16
    %r = arith.remui %x, %d : i16
    %s = arith.select %z, %x, %r : i16
    linalg.yield %s : i16
  }
  return
}

// A constant divisor (7) cannot trap: vectors (LLVM multiplies instead).
// CHECK-LABEL: func @by_constant
// CHECK: arith.divsi %{{.*}}, %{{.*}} : vector<16xi32>
func.func @by_constant(%a: memref<?xi32>, %c: memref<?xi32>) {
  %seven = arith.constant 7 : i32
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%a : memref<?xi32>) outs(%c : memref<?xi32>) {
  ^bb0(%x: i32, %o: i32):
    %q = arith.divsi %x, %seven : i32
    linalg.yield %q : i32
  }
  return
}

// A signed division guarded against 0 only: MIN / -1 would trap. Scalar.
// CHECK-LABEL: func @zero_guard_only
// CHECK-NOT: vector.
// CHECK: arith.divsi {{.*}} : i32
func.func @zero_guard_only(%a: memref<?xi32>, %b: memref<?xi32>, %c: memref<?xi32>) {
  %zero = arith.constant 0 : i32
  %one = arith.constant 1 : i32
  linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel"]}
      ins(%a, %b : memref<?xi32>, memref<?xi32>) outs(%c : memref<?xi32>) {
  ^bb0(%x: i32, %y: i32, %o: i32):
    %z = arith.cmpi eq, %y, %zero : i32
    %d = arith.select %z, %one, %y : i32
    %q = arith.divsi %x, %d : i32
    linalg.yield %q : i32
  }
  return
}

// A constant -1 divisor under a dividend that may be MIN: scalar.
// CHECK-LABEL: func @by_minus_one
// CHECK-NOT: vector.
// CHECK: arith.divsi {{.*}} : i32
func.func @by_minus_one(%a: memref<?xi32>, %c: memref<?xi32>) {
  %minus1 = arith.constant -1 : i32
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%a : memref<?xi32>) outs(%c : memref<?xi32>) {
  ^bb0(%x: i32, %o: i32):
    %q = arith.divsi %x, %minus1 : i32
    linalg.yield %q : i32
  }
  return
}
