// Type construction, dtype classes, instantiation and the two printers
// (the user's spelling for diagnostics, the compact edge form for graphs).
#include "compiler/check/Type.h"

#include <fmt/format.h>

#include <algorithm>

namespace linnet::check {

std::string DType::str() const {
  if (generic) return generic->name.name;
  return std::string(ast::scalarTypeName(scalar));
}

bool isSigned(ast::ScalarType s) {
  using S = ast::ScalarType;
  return s == S::I8 || s == S::I16 || s == S::I32 || s == S::I64;
}

static bool scalarIsFloat(ast::ScalarType s) {
  using S = ast::ScalarType;
  return s == S::F16 || s == S::BF16 || s == S::F32 || s == S::F64;
}

bool isFloat(const DType& d) {
  if (d.generic) return d.generic->constraint == ast::GenericKind::Float;
  return scalarIsFloat(d.scalar);
}

bool isInteger(const DType& d) {
  if (d.generic) return d.generic->constraint == ast::GenericKind::Integer;
  return d.scalar != ast::ScalarType::Bool && !scalarIsFloat(d.scalar);
}

bool isBool(const DType& d) { return !d.generic && d.scalar == ast::ScalarType::Bool; }

bool isNumeric(const DType& d) {
  if (d.generic) {
    ast::GenericKind k = d.generic->constraint;
    return k == ast::GenericKind::Numeric || k == ast::GenericKind::Integer ||
           k == ast::GenericKind::Float;
  }
  return d.scalar != ast::ScalarType::Bool;
}

bool satisfies(const DType& d, ast::GenericKind constraint) {
  switch (constraint) {
    case ast::GenericKind::DType: return true;
    case ast::GenericKind::Numeric: return isNumeric(d);
    case ast::GenericKind::Integer: return isInteger(d);
    case ast::GenericKind::Float: return isFloat(d);
    case ast::GenericKind::Dim:
    case ast::GenericKind::Shape: return false;
  }
  return false;
}

shape::SymbolId symbolIdOf(const ast::GenericParam& generic) {
  // File and offset: unique per declaration, ordered as written.
  return (static_cast<shape::SymbolId>(generic.name.span.file) << 32) |
         static_cast<shape::SymbolId>(generic.name.span.begin);
}

shape::DimExpr dimSymbol(const ast::GenericParam& generic) {
  return shape::DimExpr::symbol(symbolIdOf(generic), generic.name.name);
}

shape::Pack packOf(const ast::GenericParam& generic) {
  return shape::Pack{symbolIdOf(generic), generic.name.name};
}

Type Type::unit() {
  Type t;
  t.kind_ = TypeKind::Unit;
  return t;
}

Type Type::tensor(shape::Shape shape, DType dtype) {
  Type t;
  t.kind_ = TypeKind::Tensor;
  t.shape_ = std::move(shape);
  t.dtype_ = dtype;
  return t;
}

Type Type::intLiteral(int64_t value) {
  Type t;
  t.kind_ = TypeKind::IntLiteral;
  t.intValue_ = value;
  t.intMax_ = value;
  t.dim_ = shape::DimExpr::constant(value);
  return t;
}

Type Type::intLiteralRange(int64_t lo, int64_t hi) {
  Type t = intLiteral(0);  // no one value: no dimension to compute with
  t.intValue_ = lo;
  t.intMax_ = hi;
  t.inexact_ = true;
  return t;
}

Type Type::floatLiteral(double magnitude) {
  Type t;
  t.kind_ = TypeKind::FloatLiteral;
  t.float_ = magnitude;
  return t;
}

Type Type::compileInt(shape::DimExpr value) {
  Type t;
  t.kind_ = TypeKind::CompileInt;
  t.dim_ = std::move(value);
  return t;
}

Type Type::none() {
  Type t;
  t.kind_ = TypeKind::None;
  return t;
}

Type Type::tuple(std::vector<Type> elements) {
  Type t;
  t.kind_ = TypeKind::Tuple;
  t.elements_ = std::move(elements);
  return t;
}

Type Type::optional(Type inner) {
  Type t;
  t.kind_ = TypeKind::Optional;
  t.elements_.push_back(std::move(inner));
  return t;
}

Type Type::block(std::shared_ptr<const BlockInstance> instance) {
  Type t;
  t.kind_ = TypeKind::Block;
  t.block_ = std::move(instance);
  return t;
}

Type Type::blockArray(std::shared_ptr<const BlockInstance> element, shape::DimExpr count) {
  Type t;
  t.kind_ = TypeKind::BlockArray;
  t.block_ = std::move(element);
  t.dim_ = std::move(count);
  return t;
}

Type Type::function(const Module* module, const ast::FunctionItem* item,
                    std::shared_ptr<const BlockInstance> owner) {
  Type t;
  t.kind_ = TypeKind::Function;
  t.module_ = module;
  t.function_ = item;
  t.block_ = std::move(owner);
  t.name_ = item->name.name;
  return t;
}

Type Type::prelude(std::string name) {
  Type t;
  t.kind_ = TypeKind::Function;
  t.name_ = std::move(name);
  return t;
}

Type Type::enumeration(const Module* module, const ast::EnumItem* item) {
  Type t;
  t.kind_ = TypeKind::Enum;
  t.module_ = module;
  t.enum_ = item;
  t.name_ = item->name.name;
  return t;
}

Type Type::structure(const Module* module, const ast::StructItem* item, Substitution args) {
  Type t;
  t.kind_ = TypeKind::Struct;
  t.module_ = module;
  t.struct_ = item;
  t.args_ = std::make_shared<const Substitution>(std::move(args));
  t.name_ = item->name.name;
  return t;
}

Type Type::module(const Module* module) {
  Type t;
  t.kind_ = TypeKind::Module;
  t.module_ = module;
  return t;
}

bool Type::hasPack() const {
  for (const shape::ShapeDim& d : shape_)
    if (std::holds_alternative<shape::Pack>(d)) return true;
  return false;
}

std::optional<size_t> Type::rank() const {
  if (kind_ != TypeKind::Tensor || hasPack()) return std::nullopt;
  return shape_.size();
}

Type Type::withDType(DType dtype) const {
  Type t = *this;
  t.dtype_ = dtype;
  return t;
}

Type Type::withShape(shape::Shape shape) const {
  Type t = *this;
  t.shape_ = std::move(shape);
  return t;
}

std::optional<std::pair<int64_t, int64_t>> integerValues(const Type& t) {
  if (t.kind() == TypeKind::IntLiteral) return t.intRange();
  if (t.kind() == TypeKind::CompileInt)
    if (auto c = t.compileValue().constantValue()) return std::pair{*c, *c};
  return std::nullopt;
}

double untypedMagnitude(const Type& t) {
  if (t.kind() == TypeKind::FloatLiteral) return t.floatMagnitude();
  auto v = integerValues(t);
  if (!v) return 0;
  return std::max(-static_cast<double>(v->first), static_cast<double>(v->second));
}

bool containsBlock(const Type& t) {
  if (t.kind() == TypeKind::Block || t.kind() == TypeKind::BlockArray) return true;
  for (const Type& e : t.elements())
    if (containsBlock(e)) return true;
  return false;
}

bool containsError(const Type& t) {
  if (t.isError()) return true;
  for (const Type& e : t.elements())
    if (containsError(e)) return true;
  return false;
}

static std::string shapeText(const shape::Shape& s) {
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) {
    if (i) out += ", ";
    out += shape::str(s[i]);
  }
  return out;
}

// `Name<A, [*S], T>` for an item with generics bound by `args`.
static std::string genericText(const std::string& name,
                               const std::vector<ast::GenericParam>& generics,
                               const Substitution& args) {
  std::string out = name;
  if (generics.empty()) return out;
  out += "<";
  for (size_t i = 0; i < generics.size(); ++i) {
    if (i) out += ", ";
    const ast::GenericParam& g = generics[i];
    shape::SymbolId id = symbolIdOf(g);
    if (g.isPack) {
      auto it = args.shapes.packs.find(id);
      out += it == args.shapes.packs.end() ? "?" : "[" + shapeText(it->second) + "]";
    } else if (g.constraint == ast::GenericKind::Dim) {
      auto it = args.shapes.dims.find(id);
      out += it == args.shapes.dims.end() ? "?" : it->second.str();
    } else {
      auto it = args.dtypes.find(&g);
      out += it == args.dtypes.end() ? "?" : it->second.str();
    }
  }
  return out + ">";
}

std::string str(const BlockInstance& instance) {
  return genericText(instance.block->name.name, instance.block->generics, instance.args);
}

std::string str(const Type& t) {
  switch (t.kind()) {
    case TypeKind::Error: return "{error}";
    case TypeKind::Unit: return "()";
    case TypeKind::Tensor:
      if (t.shape().empty()) return t.dtype().str();
      return fmt::format("Tensor[{}; {}]", shapeText(t.shape()), t.dtype().str());
    case TypeKind::IntLiteral: return "integer literal";
    case TypeKind::FloatLiteral: return "float literal";
    // No backticks of its own: messages quote the whole type.
    case TypeKind::CompileInt: return fmt::format("compile-time integer {}", t.compileValue().str());
    case TypeKind::None: return "none";
    case TypeKind::Tuple: {
      std::string out = "(";
      for (size_t i = 0; i < t.elements().size(); ++i) {
        if (i) out += ", ";
        out += str(t.elements()[i]);
      }
      return out + ")";
    }
    case TypeKind::Optional: return str(t.optionalInner()) + "?";
    case TypeKind::Block: return str(*t.blockInstance());
    case TypeKind::BlockArray:
      return fmt::format("[{}; {}]", str(*t.blockInstance()), t.arrayCount().str());
    case TypeKind::Function: return fmt::format("fn {}", t.preludeName());
    case TypeKind::Module: return fmt::format("module {}", t.module()->name);
    case TypeKind::Enum: return t.enumItem()->name.name;
    case TypeKind::Struct:
      return genericText(t.structItem()->name.name, t.structItem()->generics, t.structArgs());
  }
  return "{error}";
}

std::string compactStr(const Type& t) {
  if (t.kind() == TypeKind::Tensor) {
    if (t.shape().empty()) return t.dtype().str();
    return fmt::format("{}[{}]", t.dtype().str(), shapeText(t.shape()));
  }
  if (t.kind() == TypeKind::Tuple) {
    std::string out = "(";
    for (size_t i = 0; i < t.elements().size(); ++i) {
      if (i) out += ", ";
      out += compactStr(t.elements()[i]);
    }
    return out + ")";
  }
  if (t.kind() == TypeKind::Optional) return compactStr(t.optionalInner()) + "?";
  return str(t);
}

DType instantiate(const DType& d, const Substitution& s) {
  if (!d.generic) return d;
  auto it = s.dtypes.find(d.generic);
  return it == s.dtypes.end() ? d : it->second;
}

static std::shared_ptr<const BlockInstance> instantiate(
    const std::shared_ptr<const BlockInstance>& b, const Substitution& s) {
  if (!b || s.empty()) return b;
  auto out = std::make_shared<BlockInstance>(*b);
  for (auto& [id, dim] : out->args.shapes.dims) dim = shape::instantiate(dim, s.shapes);
  for (auto& [id, pack] : out->args.shapes.packs) pack = shape::instantiate(pack, s.shapes);
  for (auto& [g, d] : out->args.dtypes) d = instantiate(d, s);
  return out;
}

Type instantiate(const Type& t, const Substitution& s) {
  if (s.empty()) return t;
  switch (t.kind()) {
    case TypeKind::Error:
    case TypeKind::Unit:
    case TypeKind::IntLiteral:
    case TypeKind::FloatLiteral:
    case TypeKind::None:
    case TypeKind::Module:
    case TypeKind::Enum:
      return t;
    case TypeKind::Tensor:
      return Type::tensor(shape::instantiate(t.shape(), s.shapes), instantiate(t.dtype(), s));
    case TypeKind::CompileInt:
      return Type::compileInt(shape::instantiate(t.compileValue(), s.shapes));
    case TypeKind::Tuple: {
      std::vector<Type> elements;
      for (const Type& e : t.elements()) elements.push_back(instantiate(e, s));
      return Type::tuple(std::move(elements));
    }
    case TypeKind::Optional: return Type::optional(instantiate(t.optionalInner(), s));
    case TypeKind::Block: return Type::block(instantiate(t.blockInstance(), s));
    case TypeKind::BlockArray:
      return Type::blockArray(instantiate(t.blockInstance(), s),
                              shape::instantiate(t.arrayCount(), s.shapes));
    case TypeKind::Struct: {
      Substitution args = t.structArgs();
      for (auto& [id, dim] : args.shapes.dims) dim = shape::instantiate(dim, s.shapes);
      for (auto& [id, pack] : args.shapes.packs) pack = shape::instantiate(pack, s.shapes);
      for (auto& [g, d] : args.dtypes) d = instantiate(d, s);
      return Type::structure(t.module(), t.structItem(), std::move(args));
    }
    case TypeKind::Function:
      if (!t.functionItem()) return t;
      return Type::function(t.module(), t.functionItem(), instantiate(t.blockInstance(), s));
  }
  return t;
}

}  // namespace linnet::check
