// linnet-guided-schedule: after convert-scf-to-openmp, every omp.wsloop
// without a schedule gets schedule(guided), so a thread that finishes its
// share early takes chunks from the rest instead of waiting at the barrier.
// RUN: %linnet-opt %s -convert-scf-to-openmp -linnet-guided-schedule | FileCheck %s

// CHECK-LABEL: func @rows
// CHECK: omp.parallel
// CHECK: omp.wsloop schedule(guided)
func.func @rows(%out: memref<64x16xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %c64 = arith.constant 64 : index
  %one = arith.constant 1.0 : f32
  scf.parallel (%i) = (%c0) to (%c64) step (%c1) {
    scf.for %j = %c0 to %c16 step %c1 {
      memref.store %one, %out[%i, %j] : memref<64x16xf32>
    }
    scf.reduce
  }
  return
}

// A loop that already has a schedule keeps it.
// CHECK-LABEL: func @chosen
// CHECK: omp.wsloop schedule(static)
func.func @chosen(%out: memref<64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %one = arith.constant 1.0 : f32
  omp.parallel {
    omp.wsloop schedule(static) {
      omp.loop_nest (%i) : index = (%c0) to (%c64) step (%c1) {
        memref.store %one, %out[%i] : memref<64xf32>
        omp.yield
      }
      omp.terminator
    }
    omp.terminator
  }
  return
}
