// linnet-checked-allocations: a dynamically sized buffer's byte count is
// multiplied out with every product's high word checked (all ones on
// overflow) and checked against the limit before the alloc; the generic
// allocation functions it defines count bytes, refuse what is over the
// limit or a null malloc through the runtime's handler, and take the size
// back on free. A static buffer needs no size check.
// RUN: %linnet-opt %s -linnet-checked-allocations | FileCheck %s
// RUN: %linnet-opt %s -linnet-checked-allocations -finalize-memref-to-llvm="use-generic-functions" | FileCheck %s --check-prefix=LLVM

// CHECK-DAG: llvm.mlir.global external @linnet_allocation_failure() {{.*}} : !llvm.ptr
// CHECK-DAG: llvm.mlir.global external @linnet_allocated_bytes() {{.*}} : i64
// CHECK-DAG: llvm.mlir.global external @linnet_allocation_limit() {{.*}} : i64
// CHECK-DAG: %{{.*}} = llvm.mlir.constant(9223372036854775807 : i64) : i64

// CHECK-LABEL: func.func @dynamic(
// CHECK-SAME: %[[N:.*]]: index, %[[M:.*]]: index)
// CHECK: %[[N64:.*]] = arith.index_castui %[[N]] : index to i64
// CHECK: %[[L1:.*]], %[[H1:.*]] = arith.mului_extended %{{.*}}, %[[N64]] : i64
// CHECK: arith.cmpi ne, %[[H1]]
// CHECK: %[[L2:.*]], %[[H2:.*]] = arith.mului_extended %[[L1]], %{{.*}} : i64
// CHECK: %[[M64:.*]] = arith.index_castui %[[M]] : index to i64
// CHECK: %[[L3:.*]], %[[H3:.*]] = arith.mului_extended %[[L2]], %[[M64]] : i64
// CHECK: %[[OVF:.*]] = arith.ori
// CHECK: %[[BYTES:.*]] = arith.select %[[OVF]], %{{.*}}, %[[L3]] : i64
// CHECK: llvm.call @linnet_check_allocation_size(%[[BYTES]])
// CHECK-NEXT: memref.alloc(%[[N]], %[[M]])
func.func @dynamic(%n: index, %m: index) -> memref<?x4x?xf32> {
  %a = memref.alloc(%n, %m) {alignment = 64 : i64} : memref<?x4x?xf32>
  return %a : memref<?x4x?xf32>
}

// CHECK-LABEL: func.func @static(
// CHECK-NOT: linnet_check_allocation_size
// CHECK: memref.alloc()
func.func @static() {
  %a = memref.alloc() : memref<8x16xbf16>
  memref.dealloc %a : memref<8x16xbf16>
  return
}

// The allocation: over the limit (alone or with what the call holds), or a
// null malloc, fails through the handler; else the usable size is counted.
// CHECK-LABEL: llvm.func @linnet_allocation_failed(
// CHECK: %[[H:.*]] = llvm.load %{{.*}} : !llvm.ptr -> !llvm.ptr
// CHECK: llvm.call %[[H]](
// CHECK: llvm.call @abort()
// CHECK-LABEL: llvm.func @_mlir_memref_to_llvm_alloc(
// CHECK: %[[LIMIT:.*]] = llvm.load %{{.*}} atomic monotonic
// CHECK: %[[BEFORE:.*]] = llvm.atomicrmw add %{{.*}}, %arg0 monotonic
// CHECK: llvm.icmp "ugt" %arg0, %[[LIMIT]]
// CHECK: llvm.cond_br %{{.*}}, ^[[FAIL:.*]], ^
// CHECK: %[[P:.*]] = llvm.call @malloc(
// CHECK: llvm.icmp "eq" %[[P]]
// CHECK: llvm.call @malloc_usable_size(%[[P]])
// CHECK: ^[[FAIL]]:
// CHECK: llvm.atomicrmw sub %{{.*}}, %arg0
// CHECK: llvm.call @linnet_allocation_failed(%arg0, %[[BEFORE]], %[[LIMIT]])
// CHECK-LABEL: llvm.func @_mlir_memref_to_llvm_free(
// CHECK: llvm.call @malloc_usable_size
// CHECK: llvm.atomicrmw sub
// CHECK: llvm.call @free

// Every buffer goes through them.
// LLVM-LABEL: func.func @dynamic(
// LLVM: llvm.call @linnet_check_allocation_size
// LLVM: llvm.call @_mlir_memref_to_llvm_alloc
// LLVM-LABEL: func.func @static(
// LLVM: llvm.call @_mlir_memref_to_llvm_alloc
// LLVM: llvm.call @_mlir_memref_to_llvm_free
// LLVM-NOT: llvm.call @malloc(
// LLVM-LABEL: llvm.func @linnet_allocation_failed(
