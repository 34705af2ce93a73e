// linnet-select-buffers: a select between two buffers (what canonicalization
// makes of an `scf.if` choosing between a bf16 constant and an argument)
// becomes an `scf.if`, so that arith-emulate-unsupported-floats, run after
// it, does not wrap the memrefs in `arith.extf`; a select of values is left
// alone. The second run checks the emulation now verifies.
// RUN: %linnet-opt %s -linnet-select-buffers | FileCheck %s
// RUN: %linnet-opt %s -linnet-select-buffers -arith-emulate-unsupported-floats="source-types=bf16 target-type=f32" | FileCheck %s --check-prefix=EMULATED

memref.global "private" constant @quarter : memref<bf16> = dense<2.500000e-01>

// CHECK-LABEL: func.func @choose
// CHECK: %[[C:.*]] = memref.get_global @quarter : memref<bf16>
// CHECK: %[[R:.*]] = scf.if %{{.*}} -> (memref<bf16>) {
// CHECK-NEXT: scf.yield %[[C]] : memref<bf16>
// CHECK-NEXT: } else {
// CHECK-NEXT: scf.yield %arg0 : memref<bf16>
// CHECK: return %[[R]]
// EMULATED-LABEL: func.func @choose
// EMULATED-NOT: arith.extf
// EMULATED: scf.if
func.func @choose(%arg0: memref<bf16>, %c: i1) -> memref<bf16> {
  %0 = memref.get_global @quarter : memref<bf16>
  %1 = arith.select %c, %0, %arg0 : memref<bf16>
  return %1 : memref<bf16>
}

// CHECK-LABEL: func.func @values
// CHECK: arith.select %{{.*}} : bf16
// CHECK-NOT: scf.if
func.func @values(%a: bf16, %b: bf16, %c: i1) -> bf16 {
  %0 = arith.select %c, %a, %b : bf16
  return %0 : bf16
}
