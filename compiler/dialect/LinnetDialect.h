// The `linnet` dialect (docs/dialect.md): the dialect class and the kind
// enums (BinaryKind, UnaryKind, ReductionKind) with their attributes. The
// ops are in LinnetOps.h.
#pragma once

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/DialectImplementation.h"

#include "compiler/dialect/LinnetDialect.h.inc"
#include "compiler/dialect/LinnetEnums.h.inc"

#define GET_ATTRDEF_CLASSES
#include "compiler/dialect/LinnetAttrs.h.inc"
