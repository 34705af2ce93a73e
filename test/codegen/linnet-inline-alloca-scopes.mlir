// linnet-inline-alloca-scopes: convert-scf-to-openmp wraps each parallel
// body in a memref.alloca_scope, which convert-scf-to-cf cannot lower around
// loops. Each scope is replaced by its body; one whose body allocates on the
// stack keeps its allocas per trip between stacksave and stackrestore.
// RUN: %linnet-opt %s -linnet-inline-alloca-scopes | FileCheck %s
// RUN: %linnet-opt %s -linnet-inline-alloca-scopes -convert-scf-to-cf | FileCheck %s --check-prefix=CF

func.func private @exp(f64) -> f64

// A call (f64 libm math) keeps canonicalization from inlining the scope.
// CHECK-LABEL: func @calls
// CHECK-NOT: memref.alloca_scope
// CHECK-NOT: llvm.intr.stacksave
// CHECK: scf.for
// CHECK: func.call @exp
// CF-LABEL: func @calls
// CF-NOT: memref.alloca_scope
// CF: cf.br
func.func @calls(%x: memref<8xf64>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  memref.alloca_scope {
    scf.for %i = %c0 to %c8 step %c1 {
      %v = memref.load %x[%i] : memref<8xf64>
      %e = func.call @exp(%v) : (f64) -> f64
      memref.store %e, %x[%i] : memref<8xf64>
    }
  }
  return
}

// CHECK-LABEL: func @allocates
// CHECK-NOT: memref.alloca_scope
// CHECK: %[[SAVED:.*]] = llvm.intr.stacksave : !llvm.ptr
// CHECK: memref.alloca() : memref<4xf64>
// CHECK: llvm.intr.stackrestore %[[SAVED]] : !llvm.ptr
func.func @allocates(%x: memref<8xf64>) {
  %c0 = arith.constant 0 : index
  memref.alloca_scope {
    %buf = memref.alloca() : memref<4xf64>
    %v = memref.load %x[%c0] : memref<8xf64>
    memref.store %v, %buf[%c0] : memref<4xf64>
  }
  return
}
