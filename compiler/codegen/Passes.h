// The passes of compiler/codegen (declared in Passes.td).
#pragma once

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"

namespace linnet::codegen {

#define GEN_PASS_DECL
#include "compiler/codegen/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "compiler/codegen/Passes.h.inc"

// Marks `op`, where it is a floating-point arith op, `contract`: the target
// machine may fuse it with a multiply (or add) also so marked
// (ContractReductionsPass.cpp).
void allowContract(mlir::Operation* op);

}  // namespace linnet::codegen
