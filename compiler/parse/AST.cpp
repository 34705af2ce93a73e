// The small functions declared in AST.h: names of the closed enums and the
// module's line table.
#include "compiler/parse/AST.h"

#include <algorithm>

namespace linnet::ast {

std::string_view scalarTypeName(ScalarType type) {
  switch (type) {
    case ScalarType::Bool: return "bool";
    case ScalarType::I8: return "i8";
    case ScalarType::I16: return "i16";
    case ScalarType::I32: return "i32";
    case ScalarType::I64: return "i64";
    case ScalarType::U8: return "u8";
    case ScalarType::U16: return "u16";
    case ScalarType::U32: return "u32";
    case ScalarType::U64: return "u64";
    case ScalarType::F16: return "f16";
    case ScalarType::BF16: return "bf16";
    case ScalarType::F32: return "f32";
    case ScalarType::F64: return "f64";
  }
  return "?";
}

std::optional<ScalarType> scalarTypeFromName(std::string_view name) {
  static constexpr ScalarType kAll[] = {
      ScalarType::Bool, ScalarType::I8,  ScalarType::I16, ScalarType::I32,  ScalarType::I64,
      ScalarType::U8,   ScalarType::U16, ScalarType::U32, ScalarType::U64,  ScalarType::F16,
      ScalarType::BF16, ScalarType::F32, ScalarType::F64};
  for (ScalarType type : kAll)
    if (scalarTypeName(type) == name) return type;
  return std::nullopt;
}

std::string_view unaryOpSpelling(UnaryOp op) {
  switch (op) {
    case UnaryOp::Not: return "!";
    case UnaryOp::Negate: return "-";
    case UnaryOp::Plus: return "+";
  }
  return "?";
}

std::string_view binaryOpSpelling(BinaryOp op) {
  switch (op) {
    case BinaryOp::Or: return "||";
    case BinaryOp::And: return "&&";
    case BinaryOp::Eq: return "==";
    case BinaryOp::Ne: return "!=";
    case BinaryOp::Lt: return "<";
    case BinaryOp::Le: return "<=";
    case BinaryOp::Gt: return ">";
    case BinaryOp::Ge: return ">=";
    case BinaryOp::BitOr: return "|";
    case BinaryOp::BitXor: return "^";
    case BinaryOp::BitAnd: return "&";
    case BinaryOp::Add: return "+";
    case BinaryOp::Sub: return "-";
    case BinaryOp::Mul: return "*";
    case BinaryOp::Div: return "/";
    case BinaryOp::Rem: return "%";
  }
  return "?";
}

int binaryOpPrecedence(BinaryOp op) {
  switch (op) {
    case BinaryOp::Or: return 1;
    case BinaryOp::And: return 2;
    case BinaryOp::Eq:
    case BinaryOp::Ne: return 3;
    case BinaryOp::Lt:
    case BinaryOp::Le:
    case BinaryOp::Gt:
    case BinaryOp::Ge: return 4;
    case BinaryOp::BitOr: return 5;
    case BinaryOp::BitXor: return 6;
    case BinaryOp::BitAnd: return 7;
    case BinaryOp::Add:
    case BinaryOp::Sub: return 8;
    case BinaryOp::Mul:
    case BinaryOp::Div:
    case BinaryOp::Rem: return 9;
  }
  return 0;
}

std::string_view reductionKindName(ReductionKind kind) {
  switch (kind) {
    case ReductionKind::Sum: return "sum";
    case ReductionKind::Prod: return "prod";
    case ReductionKind::Max: return "max";
    case ReductionKind::Min: return "min";
    case ReductionKind::Any: return "any";
    case ReductionKind::All: return "all";
  }
  return "?";
}

std::string_view genericKindName(GenericKind kind) {
  switch (kind) {
    case GenericKind::Dim: return "Dim";
    case GenericKind::Shape: return "Shape";
    case GenericKind::DType: return "DType";
    case GenericKind::Numeric: return "Numeric";
    case GenericKind::Integer: return "Integer";
    case GenericKind::Float: return "Float";
  }
  return "?";
}

std::string_view functionKindKeyword(FunctionKind kind) {
  switch (kind) {
    case FunctionKind::Fn: return "fn";
    case FunctionKind::Op: return "op";
    case FunctionKind::Entry: return "entry";
    case FunctionKind::Kernel: return "kernel";
  }
  return "?";
}

std::string_view memberKindKeyword(MemberKind kind) {
  switch (kind) {
    case MemberKind::Param: return "param";
    case MemberKind::Buffer: return "buffer";
    case MemberKind::State: return "state";
    case MemberKind::Sub: return "sub";
  }
  return "?";
}

std::string SourceModule::moduleName() const {
  std::string name;
  for (const Ident& segment : modulePath) {
    if (!name.empty()) name += '.';
    name += segment.name;
  }
  return name;
}

LineColumn SourceModule::lineColumn(uint32_t offset) const {
  if (lineStarts.empty()) return {1, offset + 1};
  auto line = std::upper_bound(lineStarts.begin(), lineStarts.end(), offset);
  uint32_t index = uint32_t(line - lineStarts.begin()) - 1;
  uint32_t start = lineStarts[index];
  // Columns count code points: continuation bytes do not start a column.
  auto first = std::lower_bound(continuationBytes.begin(), continuationBytes.end(), start);
  auto last = std::lower_bound(continuationBytes.begin(), continuationBytes.end(), offset);
  uint32_t continuations = uint32_t(last - first);
  return {index + 1, offset - start - continuations + 1};
}

}  // namespace linnet::ast
