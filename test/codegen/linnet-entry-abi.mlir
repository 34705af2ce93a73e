// linnet-entry-abi wraps each entry's C interface in the slot-array symbol
// of docs/abi.md and makes every other definition internal.
// RUN: %linnet-opt %s -linnet-entry-abi | FileCheck %s

// CHECK-LABEL: llvm.func internal @f(
// CHECK-NOT: linnet.entry
llvm.func @f(%n: i64, %d: !llvm.ptr) -> !llvm.ptr attributes {linnet.entry = "fwd"} {
  llvm.return %d : !llvm.ptr
}
// CHECK-LABEL: llvm.func internal @_mlir_ciface_f(
llvm.func @_mlir_ciface_f(%res: !llvm.ptr, %n: i64, %d: !llvm.ptr) attributes {linnet.entry = "fwd"} {
  llvm.return
}
// CHECK: llvm.func @malloc(i64) -> !llvm.ptr
llvm.func @malloc(i64) -> !llvm.ptr

// Slot 0 is the result block, slot 1 holds a pointer to the dim, slot 2 a
// descriptor pointer.
// CHECK-LABEL: llvm.func @linnet_entry_fwd(
// CHECK-SAME: %[[SLOTS:.*]]: !llvm.ptr)
// CHECK: %[[S0:.*]] = llvm.getelementptr %[[SLOTS]][0] : (!llvm.ptr) -> !llvm.ptr, !llvm.ptr
// CHECK: %[[P0:.*]] = llvm.load %[[S0]] : !llvm.ptr -> !llvm.ptr
// CHECK: %[[S1:.*]] = llvm.getelementptr %[[SLOTS]][1] : (!llvm.ptr) -> !llvm.ptr, !llvm.ptr
// CHECK: %[[P1:.*]] = llvm.load %[[S1]] : !llvm.ptr -> !llvm.ptr
// CHECK: %[[N:.*]] = llvm.load %[[P1]] : !llvm.ptr -> i64
// CHECK: %[[S2:.*]] = llvm.getelementptr %[[SLOTS]][2] : (!llvm.ptr) -> !llvm.ptr, !llvm.ptr
// CHECK: %[[P2:.*]] = llvm.load %[[S2]] : !llvm.ptr -> !llvm.ptr
// CHECK: llvm.call @_mlir_ciface_f(%[[P0]], %[[N]], %[[P2]])
