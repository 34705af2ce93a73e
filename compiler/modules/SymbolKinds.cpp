// SymbolKinds: what a symbol is called in messages, and the E1208 rules —
// which kinds of symbol can never stand where a value, a type, a dtype or a
// generic argument is written. Only what is certain from names alone is
// rejected here; everything that needs types is the checker's.
#include "compiler/modules/Names.h"
#include "compiler/modules/Scopes.h"

namespace linnet::modules {

namespace {

bool isDtypeGeneric(const ast::GenericParam& generic) {
  switch (generic.constraint) {
    case ast::GenericKind::Dim:
    case ast::GenericKind::Shape: return false;
    case ast::GenericKind::DType:
    case ast::GenericKind::Numeric:
    case ast::GenericKind::Integer:
    case ast::GenericKind::Float: return true;
  }
  return false;
}

PreludeKind preludeKind(const Symbol& symbol) {
  PreludeKind kind = PreludeKind::Function;
  isPreludeName(symbol.name, &kind);
  return kind;
}

}  // namespace

std::string describeSymbol(const Symbol& symbol) {
  switch (symbol.kind) {
    case SymbolKind::Item:
      switch (symbol.item->kind) {
        case ast::ItemKind::Const: return "a constant";
        case ast::ItemKind::TypeAlias: return "a type alias";
        case ast::ItemKind::Struct: return "a struct";
        case ast::ItemKind::Enum: return "an enum";
        case ast::ItemKind::Block: return "a block";
        case ast::ItemKind::Member: return "a block member";
        case ast::ItemKind::Function:
          switch (static_cast<const ast::FunctionItem*>(symbol.item)->function) {
            case ast::FunctionKind::Fn: return "a function";
            case ast::FunctionKind::Op: return "an op";
            case ast::FunctionKind::Entry: return "an entry";
            case ast::FunctionKind::Kernel: return "a kernel";
          }
      }
      return "an item";
    case SymbolKind::Member:
      return std::string("a `") +
             std::string(ast::memberKindKeyword(static_cast<const ast::MemberItem*>(symbol.item)->member)) +
             "` member";
    case SymbolKind::Module: return "a module";
    case SymbolKind::Generic:
      if (symbol.generic->isPack || symbol.generic->constraint == ast::GenericKind::Shape)
        return "a shape pack";
      return isDtypeGeneric(*symbol.generic) ? "a dtype generic parameter"
                                             : "a dimension generic parameter";
    case SymbolKind::Param: return "a parameter";
    case SymbolKind::Local: return "a local";
    case SymbolKind::IndexVariable: return "an index";
    case SymbolKind::GradName: return "a gradient name";
    case SymbolKind::KernelResult: return "a kernel result";
    case SymbolKind::KernelBuiltin: return "a kernel builtin";
    case SymbolKind::EnumVariant: return "an enum variant";
    case SymbolKind::Prelude:
      switch (preludeKind(symbol)) {
        case PreludeKind::ScalarType: return "a scalar type";
        case PreludeKind::TensorType: return "the tensor type";
        case PreludeKind::Constraint: return "a generic constraint";
        case PreludeKind::Function: return "a prelude function";
      }
      return "a prelude name";
    case SymbolKind::Unresolved: return "an unresolved name";
  }
  return "a name";
}

bool fitsValueUse(const Symbol& symbol, ValueUse use, std::string_view* expected) {
  *expected = "a value";
  switch (symbol.kind) {
    case SymbolKind::Item:
      switch (symbol.item->kind) {
        case ast::ItemKind::Const:
        case ast::ItemKind::Function:
        case ast::ItemKind::Member: return true;
        case ast::ItemKind::Block: return false;
        // Struct construction calls the name; an alias may name a struct.
        case ast::ItemKind::Struct:
        case ast::ItemKind::TypeAlias: return use != ValueUse::Value;
        // `E.A` is the only way to write a variant.
        case ast::ItemKind::Enum: return use == ValueUse::MemberBase;
      }
      return true;
    case SymbolKind::Module: return use == ValueUse::MemberBase;
    case SymbolKind::Generic:
      return !symbol.generic->isPack && symbol.generic->constraint == ast::GenericKind::Dim;
    case SymbolKind::Prelude: return preludeKind(symbol) == PreludeKind::Function;
    case SymbolKind::Member:
    case SymbolKind::Param:
    case SymbolKind::Local:
    case SymbolKind::IndexVariable:
    case SymbolKind::GradName:
    case SymbolKind::KernelResult:
    case SymbolKind::KernelBuiltin:
    case SymbolKind::EnumVariant:
    case SymbolKind::Unresolved: return true;
  }
  return true;
}

bool fitsTypeUse(const Symbol& symbol, TypeUse use, std::string_view* expected) {
  if (use == TypeUse::GenericArg) {
    // A generic argument is a dimension, a shape or a dtype (spec §3): never
    // a function, block, struct, enum or module.
    *expected = "a type or compile-time value";
    switch (symbol.kind) {
      case SymbolKind::Item:
        switch (symbol.item->kind) {
          case ast::ItemKind::Const:
          case ast::ItemKind::TypeAlias:
          case ast::ItemKind::Member: return true;
          case ast::ItemKind::Struct:
          case ast::ItemKind::Enum:
          case ast::ItemKind::Block:
          case ast::ItemKind::Function: return false;
        }
        return true;
      case SymbolKind::Module: return false;
      case SymbolKind::Prelude: return preludeKind(symbol) != PreludeKind::Function;
      case SymbolKind::Member:
      case SymbolKind::Generic:
      case SymbolKind::Param:
      case SymbolKind::Local:
      case SymbolKind::IndexVariable:
      case SymbolKind::GradName:
      case SymbolKind::KernelResult:
      case SymbolKind::KernelBuiltin:
      case SymbolKind::EnumVariant:
      case SymbolKind::Unresolved: return true;
    }
    return true;
  }
  *expected = use == TypeUse::DType ? "a dtype" : "a type";
  switch (symbol.kind) {
    case SymbolKind::Item:
      switch (symbol.item->kind) {
        case ast::ItemKind::TypeAlias: return true;
        case ast::ItemKind::Struct:
        case ast::ItemKind::Enum:
        case ast::ItemKind::Block: return use == TypeUse::Type;
        case ast::ItemKind::Const:
        case ast::ItemKind::Function:
        case ast::ItemKind::Member: return false;
      }
      return true;
    case SymbolKind::Generic:
      return !symbol.generic->isPack && isDtypeGeneric(*symbol.generic);
    case SymbolKind::Prelude:
      switch (preludeKind(symbol)) {
        case PreludeKind::ScalarType:
        case PreludeKind::Constraint: return true;
        case PreludeKind::TensorType: return use == TypeUse::Type;
        case PreludeKind::Function: return false;
      }
      return true;
    case SymbolKind::Unresolved: return true;
    case SymbolKind::Module:
    case SymbolKind::Member:
    case SymbolKind::Param:
    case SymbolKind::Local:
    case SymbolKind::IndexVariable:
    case SymbolKind::GradName:
    case SymbolKind::KernelResult:
    case SymbolKind::KernelBuiltin:
    case SymbolKind::EnumVariant: return false;
  }
  return true;
}

}  // namespace linnet::modules
