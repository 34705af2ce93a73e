// Substitute: generic substitution by copying (see Substitute.h).
#include "compiler/manifest/Substitute.h"

namespace linnet::manifest {

namespace {

// A lone name written as a generic argument parses as a NamedType; in an
// expression position it means the same name as a value.
const ast::Expr* argAsExpr(const ast::GenericArg& arg, ast::Arena& arena) {
  if (arg.expr) return arg.expr;
  auto* named = ast::as<ast::NamedTypeNode>(arg.type);
  if (!named || named->path.size() != 1 || named->hasGenericArgs) return nullptr;
  auto* name = arena.make<ast::NameExpr>();
  name->name = named->path.front();
  name->span = named->span;
  return name;
}

const ast::Expr* substitute(const ast::Expr* expr, const Substitution& substitution,
                            ast::Arena& arena, bool operand) {
  if (!expr) return nullptr;
  if (auto* name = ast::as<ast::NameExpr>(expr)) {
    auto it = substitution.find(name->name.name);
    if (it == substitution.end()) return expr;
    const ast::Expr* replacement = argAsExpr(it->second, arena);
    if (!replacement) return expr;
    if (operand && (ast::isa<ast::BinaryExpr>(replacement) || ast::isa<ast::UnaryExpr>(replacement))) {
      auto* paren = arena.make<ast::ParenExpr>();
      paren->inner = const_cast<ast::Expr*>(replacement);
      paren->span = replacement->span;
      return paren;
    }
    return replacement;
  }
  if (auto* binary = ast::as<ast::BinaryExpr>(expr)) {
    auto* copy = arena.make<ast::BinaryExpr>(*binary);
    copy->lhs = const_cast<ast::Expr*>(substitute(binary->lhs, substitution, arena, true));
    copy->rhs = const_cast<ast::Expr*>(substitute(binary->rhs, substitution, arena, true));
    return copy;
  }
  if (auto* unary = ast::as<ast::UnaryExpr>(expr)) {
    auto* copy = arena.make<ast::UnaryExpr>(*unary);
    copy->operand = const_cast<ast::Expr*>(substitute(unary->operand, substitution, arena, true));
    return copy;
  }
  if (auto* paren = ast::as<ast::ParenExpr>(expr)) {
    auto* copy = arena.make<ast::ParenExpr>(*paren);
    copy->inner = const_cast<ast::Expr*>(substitute(paren->inner, substitution, arena, false));
    return copy;
  }
  if (auto* call = ast::as<ast::CallExpr>(expr)) {
    auto* copy = arena.make<ast::CallExpr>(*call);
    for (ast::Argument& arg : copy->args)
      arg.value = const_cast<ast::Expr*>(substitute(arg.value, substitution, arena, false));
    for (ast::GenericArg& arg : copy->genericArgs) arg = substituteArg(arg, substitution, arena);
    return copy;
  }
  // Other forms do not occur in dimensions; they are printed as written.
  return expr;
}

}  // namespace

const ast::Expr* substituteExpr(const ast::Expr* expr, const Substitution& substitution,
                                ast::Arena& arena) {
  return substitute(expr, substitution, arena, false);
}

ast::GenericArg substituteArg(const ast::GenericArg& arg, const Substitution& substitution,
                              ast::Arena& arena) {
  ast::GenericArg copy = arg;
  if (arg.expr) copy.expr = const_cast<ast::Expr*>(substituteExpr(arg.expr, substitution, arena));
  if (arg.type) {
    // A lone name may be a dimension generic bound to an expression.
    auto* named = ast::as<ast::NamedTypeNode>(arg.type);
    if (named && named->path.size() == 1 && !named->hasGenericArgs) {
      auto it = substitution.find(named->path.front().name);
      if (it != substitution.end()) return it->second;
    }
    copy.type = const_cast<ast::TypeNode*>(substituteType(arg.type, substitution, arena));
  }
  return copy;
}

const ast::TypeNode* substituteType(const ast::TypeNode* type, const Substitution& substitution,
                                    ast::Arena& arena) {
  if (!type) return nullptr;
  switch (type->kind) {
    case ast::TypeKind::Scalar:
      return type;
    case ast::TypeKind::Tensor: {
      auto* copy = arena.make<ast::TensorTypeNode>(*ast::as<ast::TensorTypeNode>(type));
      for (ast::ShapeElement& element : copy->shape)
        if (!element.isPack())
          element.dim = const_cast<ast::Expr*>(substituteExpr(element.dim, substitution, arena));
      copy->dtype = const_cast<ast::TypeNode*>(substituteType(copy->dtype, substitution, arena));
      return copy;
    }
    case ast::TypeKind::Tuple: {
      auto* copy = arena.make<ast::TupleTypeNode>(*ast::as<ast::TupleTypeNode>(type));
      for (ast::TypeNode*& element : copy->elements)
        element = const_cast<ast::TypeNode*>(substituteType(element, substitution, arena));
      return copy;
    }
    case ast::TypeKind::Array: {
      auto* copy = arena.make<ast::ArrayTypeNode>(*ast::as<ast::ArrayTypeNode>(type));
      copy->element = const_cast<ast::TypeNode*>(substituteType(copy->element, substitution, arena));
      copy->count = const_cast<ast::Expr*>(substituteExpr(copy->count, substitution, arena));
      return copy;
    }
    case ast::TypeKind::Named: {
      auto* named = ast::as<ast::NamedTypeNode>(type);
      if (named->path.size() == 1 && !named->hasGenericArgs) {
        auto it = substitution.find(named->path.front().name);
        if (it != substitution.end() && it->second.type) return it->second.type;
      }
      auto* copy = arena.make<ast::NamedTypeNode>(*named);
      for (ast::GenericArg& arg : copy->genericArgs) arg = substituteArg(arg, substitution, arena);
      return copy;
    }
    case ast::TypeKind::Optional: {
      auto* copy = arena.make<ast::OptionalTypeNode>(*ast::as<ast::OptionalTypeNode>(type));
      copy->inner = const_cast<ast::TypeNode*>(substituteType(copy->inner, substitution, arena));
      return copy;
    }
  }
  return type;
}

Substitution bindArguments(const std::vector<ast::GenericParam>& generics,
                           const std::vector<ast::GenericArg>& args, const Substitution& outer,
                           ast::Arena& arena) {
  Substitution result;
  for (size_t i = 0; i < generics.size(); ++i) {
    if (i < args.size()) {
      result[generics[i].name.name] = substituteArg(args[i], outer, arena);
    } else if (generics[i].defaultValue) {
      // Defaults are written in the child's own terms.
      result[generics[i].name.name] = substituteArg(*generics[i].defaultValue, result, arena);
    }
  }
  return result;
}

}  // namespace linnet::manifest
