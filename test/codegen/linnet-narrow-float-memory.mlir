// linnet-narrow-float-memory: masked loads and stores and selects of
// bf16/f16 vectors move i16 lanes (LLVM would scalarize or promote them
// through f32 conversions); f32 ones are left alone.
// RUN: %linnet-opt %s -linnet-narrow-float-memory | FileCheck %s

// CHECK-LABEL: llvm.func @copy_bf16
// CHECK: %[[PASS:.*]] = llvm.bitcast %{{.*}} : vector<16xbf16> to vector<16xi16>
// CHECK: %[[BITS:.*]] = llvm.intr.masked.load %{{.*}}, %{{.*}}, %[[PASS]] {alignment = 2 : i32} : (!llvm.ptr, vector<16xi1>, vector<16xi16>) -> vector<16xi16>
// CHECK: %[[V:.*]] = llvm.bitcast %[[BITS]] : vector<16xi16> to vector<16xbf16>
// CHECK: %[[OUT:.*]] = llvm.bitcast %[[V]] : vector<16xbf16> to vector<16xi16>
// CHECK: llvm.intr.masked.store %[[OUT]], %{{.*}}, %{{.*}} {alignment = 2 : i32} : vector<16xi16>, vector<16xi1> into !llvm.ptr
llvm.func @copy_bf16(%src: !llvm.ptr, %dst: !llvm.ptr, %mask: vector<16xi1>) {
  %zero = llvm.mlir.constant(dense<0.0> : vector<16xbf16>) : vector<16xbf16>
  %v = llvm.intr.masked.load %src, %mask, %zero {alignment = 2 : i32} : (!llvm.ptr, vector<16xi1>, vector<16xbf16>) -> vector<16xbf16>
  llvm.intr.masked.store %v, %dst, %mask {alignment = 2 : i32} : vector<16xbf16>, vector<16xi1> into !llvm.ptr
  llvm.return
}

// CHECK-LABEL: llvm.func @select_f16
// CHECK: %[[A:.*]] = llvm.bitcast %{{.*}} : vector<8xf16> to vector<8xi16>
// CHECK: %[[B:.*]] = llvm.bitcast %{{.*}} : vector<8xf16> to vector<8xi16>
// CHECK: %[[S:.*]] = llvm.select %{{.*}}, %[[A]], %[[B]] : vector<8xi1>, vector<8xi16>
// CHECK: llvm.bitcast %[[S]] : vector<8xi16> to vector<8xf16>
llvm.func @select_f16(%c: vector<8xi1>, %a: vector<8xf16>, %b: vector<8xf16>) -> vector<8xf16> {
  %r = llvm.select %c, %a, %b : vector<8xi1>, vector<8xf16>
  llvm.return %r : vector<8xf16>
}

// CHECK-LABEL: llvm.func @copy_f32
// CHECK-NOT: llvm.bitcast
llvm.func @copy_f32(%src: !llvm.ptr, %dst: !llvm.ptr, %mask: vector<16xi1>) {
  %zero = llvm.mlir.constant(dense<0.0> : vector<16xf32>) : vector<16xf32>
  %v = llvm.intr.masked.load %src, %mask, %zero {alignment = 4 : i32} : (!llvm.ptr, vector<16xi1>, vector<16xf32>) -> vector<16xf32>
  llvm.intr.masked.store %v, %dst, %mask {alignment = 4 : i32} : vector<16xf32>, vector<16xi1> into !llvm.ptr
  llvm.return
}
