// An op's `grad(y, dy) { ... }` clause (spec §7.2, §15.4). Only an `op` has
// one (E2125). The op must map plain tensors and scalars to one floating
// tensor or scalar, and have at least one floating tensor parameter: those
// are the parameters that get a gradient (integer tensors and scalars get
// none), so the clause is only meaningful when there is one (E2125). In the
// clause `y` is the op's result and `dy` the incoming gradient, both of the
// result type; the op's parameters are in scope; its `return` gives the
// gradient of each floating tensor parameter in order, one value or a tuple
// (E2101/E2202 through the ordinary return check, E2120 if it is missing).
#include <fmt/format.h>

#include "compiler/check/CheckerImpl.h"

namespace linnet::check {

// A parameter that gets a gradient: a tensor of rank at least one (a pack
// counts) whose dtype is a float, or a dtype generic bounded by `Float`.
static bool isFloatTensor(const Type& t) {
  return t.isTensor() && !t.shape().empty() && isFloat(t.dtype());
}

void Checker::checkGrad(const ast::FunctionItem& f, const Signature& sig) {
  const ast::GradClause& grad = *f.grad;
  Span keyword{grad.span.file, grad.span.begin, grad.span.begin + 4};
  if (f.function != ast::FunctionKind::Op) {
    std::string_view kind = ast::functionKindKeyword(f.function);
    diagnostics_.emit(DiagnosticKind::GradOnNonOp, keyword, f.name.name, kind)
        .label("a `grad` clause here")
        .secondary(f.keywordSpan, fmt::format("`{}` is declared with `{}`", f.name.name, kind))
        .help(fmt::format("declare it `op {}` to give it a gradient, or remove the clause",
                          f.name.name));
    return;
  }
  // Parts that could not be typed were reported already (or are not
  // checked yet): no second error.
  if (sig.result.isError()) return;
  for (const Type& p : sig.params)
    if (p.isError()) return;

  Span resultSpan = f.returnType ? f.returnType->span : f.name.span;
  if (!(sig.result.isTensor() && isFloat(sig.result.dtype()))) {
    diagnostics_.emit(DiagnosticKind::GradResultNotFloat, resultSpan, str(sig.result))
        .label(fmt::format("`{}` returns `{}`", f.name.name, str(sig.result)))
        .secondary(keyword, "the gradient clause is here")
        .help("a gradient flows back from one floating result; split the op into one op per "
              "result");
    return;
  }
  std::vector<Type> gradients;
  std::vector<std::string> names;
  for (size_t i = 0; i < f.params.size(); ++i) {
    const ast::Param& p = f.params[i];
    const Type& t = sig.params[i];
    if (!t.isTensor()) {
      diagnostics_.emit(DiagnosticKind::GradParamNotPlain, p.type ? p.type->span : p.span,
                        p.name.name, str(t))
          .label(fmt::format("`{}` is `{}`", p.name.name, str(t)))
          .secondary(keyword, "the gradient clause is here")
          .help(t.kind() == TypeKind::Optional
                    ? "a gradient needs every input present; write one op with the parameter "
                      "and one without, and choose between them with `match`"
                    : "pass tensors and scalars only, and build the other value outside the op");
      return;
    }
    if (isFloatTensor(t)) {
      gradients.push_back(t);
      names.push_back(fmt::format("`{}`", p.name.name));
    }
  }
  if (gradients.empty()) {
    diagnostics_.emit(DiagnosticKind::GradNothingToDifferentiate, f.name.span, f.name.name)
        .label("no parameter of this op is a floating tensor")
        .secondary(keyword, "the gradient clause is here")
        .help("only floating tensor parameters get gradients (integer tensors and scalars get "
              "none); remove the clause");
    return;
  }

  Type expected = gradients.size() == 1 ? gradients.front() : Type::tuple(gradients);
  scope_->out->gradient = expected;
  std::string list = names.size() == 1 ? "gradient of " : "gradients of ";
  for (size_t i = 0; i < names.size(); ++i)
    list += (i == 0 ? "" : i + 1 == names.size() ? " and " : ", ") + names[i];
  scope_->gradResult = &expected;
  scope_->gradResultDecl = keyword;
  scope_->gradResultLabel =
      fmt::format("this clause returns the {}: `{}`", list, str(expected));
  for (const ast::Ident* name : {&grad.result, &grad.gradient})
    scope_->locals[keyOf(name->span)] = LocalInfo{sig.result, false, name->span};
  checkStmts(grad.body);
  scope_->gradResult = nullptr;
  if (grad.body.empty() || grad.body.back()->kind != ast::StmtKind::Return) {
    Span closing{grad.span.file, grad.span.end - 1, grad.span.end};
    diagnostics_.emit(DiagnosticKind::GradWithoutReturn, closing, f.name.name)
        .label("the clause ends here without a `return`")
        .secondary(keyword, fmt::format("it must return the {}", list))
        .help("end the clause with `return` and one gradient per floating tensor parameter");
  }
}

}  // namespace linnet::check
