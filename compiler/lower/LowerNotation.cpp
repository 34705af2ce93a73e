// Index notation (`let c[m, n] = sum<f32>[k] a[m, k] * b[k, n]`, spec §6) to
// one `linnet.notation`: the outputs, then the reduction indices, are its
// loop dims (a pack index `*s` stands for as many dims as its pack has at
// this instantiation); a tensor read at index variables or compile-time
// integers is an input with an affine map; any other subscript (a gather,
// `table[ids[s], h]`) reads with `tensor.extract` inside the body. The body
// is scalar arithmetic on elements. Extents come from the types of the
// tensors each index subscripts (the checker proved they agree).
#include <fmt/format.h>

#include <set>

#include <mlir/Dialect/Arith/IR/Arith.h>
#include <mlir/Dialect/SCF/IR/SCF.h>
#include <mlir/Dialect/Tensor/IR/Tensor.h>

#include "compiler/lower/LowerImpl.h"
#include "compiler/parse/ASTWalk.h"

namespace linnet::lower {

namespace {

const ast::Expr* skipParens(const ast::Expr* e) {
  while (auto* p = ast::as<ast::ParenExpr>(e)) e = p->inner;
  return e;
}

ReduceKind reduceKind(ast::ReductionKind k) {
  switch (k) {
    case ast::ReductionKind::Sum: return ReduceKind::Sum;
    case ast::ReductionKind::Prod: return ReduceKind::Prod;
    case ast::ReductionKind::Max: return ReduceKind::Max;
    case ast::ReductionKind::Min: return ReduceKind::Min;
    case ast::ReductionKind::Any: return ReduceKind::Any;
    case ast::ReductionKind::All: return ReduceKind::All;
  }
  return ReduceKind::Sum;
}

}  // namespace

// The extents of every index variable in `value`, from the tensors it
// subscripts (a pack index has one per axis of its pack).
bool Lowerer::indexDomains(const ast::Expr* value, std::map<SpanKey, std::vector<shape::DimExpr>>& domains) {
  const Module& m = module();
  bool failed = false;
  ast::forEachExpr(value, [&](const ast::Expr* x) {
    auto* access = ast::as<ast::IndexExpr>(x);
    if (!access || failed) return;
    check::Type bt = typeOf(access->base);
    if (!bt.isTensor()) return;
    size_t rank = bt.shape().size();
    size_t packs = 0;
    for (const ast::IndexComponent& c : access->components)
      if (c.kind == ast::IndexComponentKind::Pack) ++packs;
    if (packs > 1 || access->components.size() - packs > rank) return;
    size_t axis = 0;
    for (const ast::IndexComponent& c : access->components) {
      size_t width = c.kind == ast::IndexComponentKind::Pack ? rank - (access->components.size() - 1) : 1;
      const Symbol* sym = nullptr;
      if (c.kind == ast::IndexComponentKind::Pack) sym = m.symbolOf(c.pack);
      else if (auto* n = c.value ? ast::as<ast::NameExpr>(skipParens(c.value)) : nullptr) sym = m.symbolOf(n->name);
      if (sym && sym->kind == SymbolKind::IndexVariable && !domains.count(keyOf(sym->declSpan))) {
        std::vector<shape::DimExpr> extents;
        for (size_t k = 0; k < width; ++k) {
          auto d = dimOfShape(bt.shape()[axis + k], c.span);
          if (!d) {
            failed = true;
            return;
          }
          extents.push_back(*d);
        }
        domains[keyOf(sym->declSpan)] = extents;
      }
      axis += width;
    }
  });
  return !failed;
}

Result Lowerer::lowerComprehension(const ast::LetComprehensionStmt* s) {
  // In a function called in a notation body: computed once before that
  // notation where it uses no per-element value (as lowerExpr does for a
  // whole tensor), else in the body, a tensor per element.
  if (notation_ && !usesPerElementValues(s->value, &s->outputs))
    return outsideNotation([&] { return lowerComprehension(s); });
  if (notation_) return tensorsInNotationBody([&] { return lowerComprehension(s); });
  std::map<SpanKey, std::vector<shape::DimExpr>> domains;
  if (!indexDomains(s->value, domains)) return std::nullopt;
  std::vector<NotationOutput> outputs;
  for (const ast::IndexOutput& o : s->outputs) {
    // A declaring identifier is its own declaration.
    const Symbol* sym = module().symbolOf(o.name);
    SpanKey key = keyOf(sym ? sym->declSpan : o.name.span);
    auto it = domains.find(key);
    if (it == domains.end())
      return unsupported(o.name.span, fmt::format("the index `{}`, which subscripts no tensor,", o.name.name));
    outputs.push_back({key, it->second});
  }
  return lowerNotation(outputs, s->value, domains, s->name.span);
}

// Whether `v` is defined in `block` or in an op nested there.
static bool definedIn(mlir::Value v, mlir::Block* block) {
  for (mlir::Block* b = v ? v.getParentBlock() : nullptr; b;) {
    if (b == block) return true;
    mlir::Operation* parent = b->getParentOp();
    b = parent ? parent->getBlock() : nullptr;
  }
  return false;
}

static bool definedIn(const Val& v, mlir::Block* block) {
  if (definedIn(v.value, block)) return true;
  return llvm::any_of(v.elements, [&](const Val& part) { return definedIn(part, block); });
}

// Whether `op` or an op nested in it uses a value defined in `block` or in an
// op nested there.
static bool usesValuesOf(mlir::Operation* op, mlir::Block* block) {
  bool found = false;
  op->walk([&](mlir::Operation* nested) {
    for (mlir::Value v : nested->getOperands())
      if (definedIn(v, block)) {
        found = true;
        return mlir::WalkResult::interrupt();
      }
    return mlir::WalkResult::advance();
  });
  return found;
}

Result Lowerer::lowerReduction(const ast::ReductionExpr* r) {
  std::map<SpanKey, std::vector<shape::DimExpr>> domains;
  std::vector<NotationOutput> outputs;
  if (notation_) {
    // Inside notation: a separate notation over the enclosing indices the
    // reduction uses, read back at those indices.
    NotationState& outer = *notation_;
    std::set<SpanKey> used;
    bool perElementIndex = false;  // over a per-element value or index
    const Module& m = module();
    ast::forEachExpr(r->body, [&](const ast::Expr* x) {
      auto note = [&](const Symbol* sym) {
        if (namesPerElementValue(sym)) perElementIndex = true;
        if (!sym || sym->kind != SymbolKind::IndexVariable) return;
        if (outer.dims.count(keyOf(sym->declSpan))) used.insert(keyOf(sym->declSpan));
        if (outer.scalarIndices.count(keyOf(sym->declSpan))) perElementIndex = true;
      };
      if (auto* n = ast::as<ast::NameExpr>(x)) note(m.symbolOf(n->name));
      if (auto* a = ast::as<ast::IndexExpr>(x))
        for (const ast::IndexComponent& c : a->components)
          if (c.kind == ast::IndexComponentKind::Pack) note(m.symbolOf(c.pack));
    });
    // Over a value the enclosing body computes per element, or inside a
    // reduction already reduced per element, over its index.
    if (perElementIndex) return lowerReductionPerElement(r);
    // In the enclosing loop order.
    std::vector<std::pair<unsigned, SpanKey>> order;
    // (A pack index of an empty pack has no loop dimension: it goes first.)
    for (const SpanKey& k : used)
      order.push_back({outer.dims.at(k).empty() ? 0u : outer.dims.at(k).front(), k});
    std::sort(order.begin(), order.end());
    std::vector<mlir::AffineExpr> exprs;
    for (const auto& [first, key] : order) {
      std::vector<shape::DimExpr> ext;
      for (unsigned d : outer.dims.at(key)) {
        ext.push_back(*outer.extents[d]);
        exprs.push_back(builder_.getAffineDimExpr(d));
      }
      outputs.push_back({key, ext});
      domains[key] = ext;
    }
    if (!indexDomains(r, domains)) return std::nullopt;
    Result inner = outsideNotation([&] { return lowerNotation(outputs, r, domains, r->span); });
    if (!inner) return std::nullopt;
    // The reduction is computed before the enclosing notation; a value the
    // enclosing body computes per element (a parameter of a function called
    // there) does not exist there: it is reduced inside the body instead.
    if (mlir::Operation* op = inner->value.getDefiningOp(); op && usesValuesOf(op, outer.body)) {
      op->erase();
      return lowerReductionPerElement(r);
    }
    auto arg = addNotationInput(inner->value, mlir::AffineMap::get(outer.loopCount, 0, exprs, &context_));
    if (!arg) return std::nullopt;
    return Val::element(*arg, check::Type::scalar(inner->type.dtype()));
  }
  if (!indexDomains(r, domains)) return std::nullopt;
  auto v = lowerNotation(outputs, r, domains, r->span);
  return v;
}

bool Lowerer::namesPerElementValue(const Symbol* sym) {
  if (!notation_ || !sym || (sym->kind != SymbolKind::Param && sym->kind != SymbolKind::Local)) return false;
  const Frame& f = frame();
  auto perElement = [&](const Val& v) { return v.kind == Val::Kind::Element || definedIn(v, notation_->body); };
  if (sym->kind == SymbolKind::Local) {
    // A local declared inside the expression being asked about has no value
    // yet: what it is computed from is walked instead.
    auto it = f.locals.find(keyOf(sym->declSpan));
    return it != f.locals.end() && perElement(it->second);
  }
  if (!f.item) return false;
  for (size_t i = 0; i < f.item->params.size() && i < f.params.size(); ++i)
    if (&f.item->params[i] == sym->param) return perElement(f.params[i]);
  return false;
}

bool Lowerer::usesPerElementValues(const ast::Expr* e, const std::vector<ast::IndexOutput>* declared) {
  const Module& m = module();
  // The index variables `e` declares (its own reductions') are its own.
  std::set<SpanKey> own;
  if (declared)
    for (const ast::IndexOutput& o : *declared) {
      const Symbol* sym = m.symbolOf(o.name);
      own.insert(keyOf(sym ? sym->declSpan : o.name.span));
    }
  ast::forEachExpr(e, [&](const ast::Expr* x) {
    if (auto* r = ast::as<ast::ReductionExpr>(x))
      for (const ast::Ident& i : r->indices) {
        const Symbol* sym = m.symbolOf(i);
        own.insert(keyOf(sym ? sym->declSpan : i.span));
      }
  });
  bool uses = false;
  ast::forEachExpr(e, [&](const ast::Expr* x) {
    auto note = [&](const Symbol* sym) {
      if (!sym || uses) return;
      if (sym->kind == SymbolKind::IndexVariable) uses = !own.count(keyOf(sym->declSpan));
      else uses = namesPerElementValue(sym);
    };
    if (auto* n = ast::as<ast::NameExpr>(x)) note(m.symbolOf(n->name));
    if (auto* a = ast::as<ast::IndexExpr>(x))
      for (const ast::IndexComponent& c : a->components)
        if (c.kind == ast::IndexComponentKind::Pack) note(m.symbolOf(c.pack));
  });
  return uses;
}

// A reduction inside a notation body over a value that body computes per
// element (a parameter of a function called there), or over the index of
// such a reduction: reduced in the body, one element at a time, by an
// `scf.for` per axis of its indices carrying the accumulator. Scalar code,
// and the body runs once per element of the enclosing notation; a reduction
// that can be computed before the notation is (lowerReduction).
Result Lowerer::lowerReductionPerElement(const ast::ReductionExpr* r) {
  NotationState& n = *notation_;
  const Module& m = module();
  mlir::Location at = loc(r->span);
  check::Type t = typeOf(r);
  auto dt = t.isTensor() ? concreteDType(t.dtype(), r->span) : std::nullopt;
  if (!dt) return unsupported(r->span, "this reduction");
  std::map<SpanKey, std::vector<shape::DimExpr>> domains;
  if (!indexDomains(r, domains)) return std::nullopt;
  struct Axis {
    SpanKey key;
    mlir::Value extent;
  };
  std::vector<Axis> axes;
  for (const ast::Ident& i : r->indices) {
    const Symbol* sym = m.symbolOf(i);
    SpanKey key = keyOf(sym ? sym->declSpan : i.span);
    auto it = domains.find(key);
    if (it == domains.end())
      return unsupported(i.span, fmt::format("the index `{}`, which subscripts no tensor,", i.name));
    for (const shape::DimExpr& d : it->second) {
      auto extent = outsideNotation([&] { return dimValue(d, i.span); });
      if (!extent) return std::nullopt;
      axes.push_back({key, *extent});
    }
  }
  bool isUnsigned = isUnsignedScalar(*dt);
  ReduceKind kind = reduceKind(r->reduction);
  mlir::Value zero = builder_.create<mlir::arith::ConstantIndexOp>(at, 0);
  mlir::Value one = builder_.create<mlir::arith::ConstantIndexOp>(at, 1);
  mlir::Value acc = emit::scalarReductionIdentity(builder_, at, kind, elementType(*dt), isUnsigned);
  std::vector<mlir::scf::ForOp> loops;
  for (const Axis& a : axes) {
    auto loop = builder_.create<mlir::scf::ForOp>(at, zero, a.extent, one, mlir::ValueRange{acc});
    loops.push_back(loop);
    builder_.setInsertionPointToStart(loop.getBody());
    acc = loop.getRegionIterArgs().front();
    n.scalarIndices[a.key].push_back(loop.getInductionVar());
  }
  auto v = lowerExpr(r->body);
  std::optional<mlir::Value> element = v ? asElement(*v, *dt, r->body->span) : std::nullopt;
  for (const Axis& a : axes) n.scalarIndices.erase(a.key);
  if (!element) {
    builder_.setInsertionPointAfter(loops.front());
    loops.front().erase();
    return std::nullopt;
  }
  mlir::Value next = emit::scalarReductionCombine(builder_, at, kind, acc, *element, isUnsigned);
  for (size_t i = loops.size(); i-- > 0;) {
    builder_.setInsertionPointToEnd(loops[i].getBody());
    builder_.create<mlir::scf::YieldOp>(at, next);
    next = loops[i].getResult(0);
  }
  builder_.setInsertionPointAfter(loops.front());
  return Val::element(next, check::Type::scalar(t.dtype()));
}

Result Lowerer::lowerNotation(const std::vector<NotationOutput>& outputs, const ast::Expr* valueExpr,
                              const std::map<SpanKey, std::vector<shape::DimExpr>>& domains, Span where) {
  const Module& m = module();
  NotationState n;
  std::vector<shape::DimExpr> extents;
  for (const NotationOutput& o : outputs) {
    std::vector<unsigned> dims;
    for (const shape::DimExpr& d : o.extents) {
      dims.push_back(unsigned(extents.size()));
      extents.push_back(d);
    }
    n.dims[o.key] = dims;
  }
  auto addIndex = [&](const ast::Ident& ident) -> bool {
    const Symbol* sym = m.symbolOf(ident);
    SpanKey key = keyOf(sym ? sym->declSpan : ident.span);
    auto it = domains.find(key);
    if (it == domains.end()) {
      unsupported(ident.span, fmt::format("the index `{}`, which subscripts no tensor,", ident.name));
      return false;
    }
    std::vector<unsigned> dims;
    for (const shape::DimExpr& d : it->second) {
      dims.push_back(unsigned(extents.size()));
      extents.push_back(d);
    }
    n.dims[key] = dims;
    return true;
  };
  std::vector<int64_t> outputDims;
  for (unsigned i = 0; i < extents.size(); ++i) outputDims.push_back(i);
  // The reduction: one kind (and accumulator), nested reductions of it merged.
  const ast::Expr* value = skipParens(valueExpr);
  ReduceKind reduction = ReduceKind::None;
  const ast::Expr* typed = value;
  if (auto* r = ast::as<ast::ReductionExpr>(value)) {
    reduction = reduceKind(r->reduction);
    typed = r;
    while (auto* red = ast::as<ast::ReductionExpr>(value)) {
      if (reduceKind(red->reduction) != reduction || (red != typed && red->accumulator)) break;
      for (const ast::Ident& i : red->indices)
        if (!addIndex(i)) return std::nullopt;
      value = skipParens(red->body);
    }
  }

  check::Type elementTy = typeOf(typed);
  std::optional<ast::ScalarType> yieldDType;
  if (elementTy.isTensor()) yieldDType = concreteDType(elementTy.dtype(), valueExpr->span);
  // A value of untyped literals only (`if x[n] < 0.0 { -1 } else { 1 }`):
  // the output takes the dtype the checker gives the binding, i64 or f64.
  else if (elementTy.kind() == check::TypeKind::IntLiteral) yieldDType = ast::ScalarType::I64;
  else if (elementTy.kind() == check::TypeKind::FloatLiteral) yieldDType = ast::ScalarType::F64;
  if (!yieldDType) return unsupported(valueExpr->span, "this index-notation value");

  // ---- the result type and the loop extents ----
  shape::Shape resultShape;
  for (int64_t d : outputDims) resultShape.push_back(extents[d]);
  check::Type resultType = check::Type::tensor(resultShape, check::DType::of(*yieldDType));
  auto rt = tensorType(resultType, where);
  if (!rt) return std::nullopt;
  std::vector<int64_t> staticExtents;
  std::vector<mlir::Value> dynamicExtents;
  for (const shape::DimExpr& d : extents) {
    if (auto c = d.constantValue()) {
      staticExtents.push_back(*c);
      continue;
    }
    staticExtents.push_back(mlir::ShapedType::kDynamic);
    auto v = dimValue(d, where);
    if (!v) return std::nullopt;
    dynamicExtents.push_back(*v);
  }

  // ---- the body, built in a detached block ----
  auto block = std::make_unique<mlir::Block>();
  mlir::Location at = loc(where);
  for (size_t i = 0; i < extents.size(); ++i) block->addArgument(builder_.getIndexType(), at);
  n.body = block.get();
  n.loopCount = unsigned(extents.size());
  n.extents.assign(extents.begin(), extents.end());
  n.outer = builder_.saveInsertionPoint();
  NotationState* enclosing = notation_;
  notation_ = &n;
  builder_.setInsertionPointToEnd(block.get());
  Result body = lowerNotationValue(value, n);
  std::optional<mlir::Value> element = body ? asElement(*body, *yieldDType, valueExpr->span) : std::nullopt;
  if (element) emit::yield(builder_, at, *element);
  notation_ = enclosing;
  builder_.restoreInsertionPoint(n.outer);
  if (!element) return std::nullopt;
  mlir::Value result = emit::notation(builder_, at, *rt, n.inputs, dynamicExtents, staticExtents,
                                      n.maps, outputDims, reduction, block.release(),
                                      isUnsignedScalar(*yieldDType));
  return Val::tensor(result, resultType);
}

Result Lowerer::lowerNotationValue(const ast::Expr* e, NotationState& n) { return lowerExpr(e); }

std::optional<mlir::Value> Lowerer::addNotationInput(mlir::Value tensor, mlir::AffineMap map) {
  NotationState& n = *notation_;
  for (size_t i = 0; i < n.inputs.size(); ++i)
    if (n.inputs[i] == tensor && n.maps[i] == map) return n.body->getArgument(n.loopCount + i);
  n.inputs.push_back(tensor);
  n.maps.push_back(map);
  auto type = mlir::cast<mlir::RankedTensorType>(tensor.getType());
  return n.body->addArgument(type.getElementType(), tensor.getLoc());
}

Result Lowerer::lowerAccess(const ast::IndexExpr* e) {
  NotationState& n = *notation_;
  const Module& m = module();
  // The tensor indexed: computed before the notation, or in its body where
  // it uses what the body computes per element (lowerExpr).
  Result base = usesPerElementValues(e->base) ? lowerExpr(e->base)
                                              : outsideNotation([&] { return lowerExpr(e->base); });
  if (!base) return std::nullopt;
  if (base->kind != Val::Kind::Tensor) return unsupported(e->base->span, "indexing this value in index notation");
  check::Type bt = base->type;
  size_t rank = bt.shape().size();
  check::Type elementType = check::Type::scalar(bt.dtype());
  // Each component: the loop dims of an index variable, or an index value.
  std::vector<mlir::AffineExpr> exprs;
  // A tensor the body computes per element is read there, not an input.
  bool affine = !definedIn(*base, n.body);
  struct Part {
    std::vector<unsigned> dims;
    std::vector<mlir::Value> scalarIndices;  // of a reduction reduced per element
    const ast::Expr* value = nullptr;
  };
  std::vector<Part> parts;
  for (const ast::IndexComponent& c : e->components) {
    Part p;
    const Symbol* sym = nullptr;
    if (c.kind == ast::IndexComponentKind::Pack) sym = m.symbolOf(c.pack);
    else if (c.kind == ast::IndexComponentKind::Expr) {
      if (auto* nm = ast::as<ast::NameExpr>(skipParens(c.value))) sym = m.symbolOf(nm->name);
    } else {
      return unsupported(c.span, "a slice or `...` in index notation");
    }
    if (sym && sym->kind == SymbolKind::IndexVariable && n.scalarIndices.count(keyOf(sym->declSpan))) {
      p.scalarIndices = n.scalarIndices.at(keyOf(sym->declSpan));
      affine = false;
    } else if (sym && sym->kind == SymbolKind::IndexVariable) {
      auto it = n.dims.find(keyOf(sym->declSpan));
      if (it == n.dims.end()) return unsupported(c.span, "this index variable");
      p.dims = it->second;
      for (unsigned d : p.dims) exprs.push_back(builder_.getAffineDimExpr(d));
    } else {
      p.value = c.value;
      affine = false;
    }
    parts.push_back(p);
  }
  if (affine) {
    if (exprs.size() != rank) return unsupported(e->span, "this access");
    auto map = mlir::AffineMap::get(n.loopCount, 0, exprs, &context_);
    auto arg = addNotationInput(base->value, map);
    if (!arg) return std::nullopt;
    return Val::element(*arg, elementType);
  }
  // A gather: indices computed in the body, the tensor read with extract.
  // Subscripts read from data are clamped into their axis, and an axis
  // empty at run time reads zero (LowerIndexBounds.cpp).
  std::vector<mlir::Value> indices;
  mlir::Location at = loc(e->span);
  mlir::Value empty;
  for (const Part& p : parts) {
    for (unsigned d : p.dims) indices.push_back(n.body->getArgument(d));
    indices.insert(indices.end(), p.scalarIndices.begin(), p.scalarIndices.end());
    if (!p.value) continue;
    auto v = lowerExpr(p.value);
    if (!v) return std::nullopt;
    if (v->kind == Val::Kind::Int) {
      auto idx = dimValue(v->dim, p.value->span);
      if (!idx) return std::nullopt;
      indices.push_back(*idx);
      continue;
    }
    check::Type vt = typeOf(p.value);
    auto dt = vt.isTensor() ? concreteDType(vt.dtype(), p.value->span) : std::nullopt;
    auto el = dt ? asElement(*v, *dt, p.value->span) : std::nullopt;
    if (!el) return unsupported(p.value->span, "this subscript");
    if (indices.size() >= rank) return unsupported(e->span, "this access");
    mlir::Value index = emit::subscriptIndex(builder_, at, *el, isUnsignedScalar(*dt));
    int64_t axis = static_cast<int64_t>(indices.size());
    indices.push_back(clampIndex(at, index, base->value, axis));
    mlir::Value axisEmpty = isEmptyAxis(at, base->value, axis);
    empty = empty ? builder_.createOrFold<mlir::arith::OrIOp>(at, empty, axisEmpty) : axisEmpty;
  }
  if (indices.size() != rank) return unsupported(e->span, "this access");
  mlir::Type elType = mlir::cast<mlir::RankedTensorType>(base->value.getType()).getElementType();
  auto read = [&]() -> mlir::Value {
    return builder_.create<mlir::tensor::ExtractOp>(at, base->value, indices);
  };
  auto zero = [&]() -> mlir::Value {
    return builder_.create<mlir::arith::ConstantOp>(at, elType, builder_.getZeroAttr(elType));
  };
  mlir::Value x = empty ? unlessEmpty(at, empty, elType, read, zero) : read();
  return Val::element(x, elementType);
}

namespace {

// True when every op of `region` may run whether or not its branch is
// taken: no integer division or remainder (a zero divisor traps), nothing
// with memory effects but reads (tensor.extract's subscripts are clamped,
// LowerIndexBounds.cpp).
bool speculatable(mlir::Region& region) {
  bool safe = true;
  region.walk([&](mlir::Operation* op) {
    if (mlir::isa<mlir::arith::DivSIOp, mlir::arith::DivUIOp, mlir::arith::RemSIOp, mlir::arith::RemUIOp,
                  mlir::arith::CeilDivSIOp, mlir::arith::CeilDivUIOp, mlir::arith::FloorDivSIOp>(op)) {
      safe = false;
      return mlir::WalkResult::interrupt();
    }
    llvm::StringRef dialect = op->getDialect() ? op->getDialect()->getNamespace() : "";
    bool known = dialect == "arith" || dialect == "math" || mlir::isa<mlir::tensor::ExtractOp>(op) ||
                 mlir::isa<mlir::tensor::DimOp>(op) || mlir::isa<mlir::scf::IfOp, mlir::scf::YieldOp>(op);
    if (!known) {
      safe = false;
      return mlir::WalkResult::interrupt();
    }
    return mlir::WalkResult::advance();
  });
  return safe;
}

}  // namespace

Result Lowerer::lowerNotationChoice(mlir::Value cond, Span span, const check::Type& type, const RuntimeArm& then,
                                    const RuntimeArm& otherwise) {
  mlir::Location at = loc(span);
  // An enum-valued choice picks its variant's index, an i32 element.
  const ast::EnumItem* enumItem = type.kind() == check::TypeKind::Enum ? type.enumItem() : nullptr;
  check::Type t = enumItem ? scalarTypeOf(ast::ScalarType::I32) : computedLiteralType(type);
  if (!enumItem && (type.kind() == check::TypeKind::Tuple || type.kind() == check::TypeKind::Struct ||
                    type.kind() == check::TypeKind::Optional))
    return lowerNotationStructuredChoice(cond, span, type, then, otherwise);
  auto dt = t.isTensor() && t.isScalar() ? concreteDType(t.dtype(), span) : std::nullopt;
  if (!dt) return unsupported(span, "this choice in index notation");
  auto made = [&](mlir::Value x) {
    Val v = Val::element(x, check::Type::scalar(t.dtype()));
    return enumItem ? Val::runtimeEnum(enumItem, v) : v;
  };
  mlir::Type elType = elementType(*dt);
  auto op = builder_.create<mlir::scf::IfOp>(at, mlir::TypeRange{elType}, cond, /*withElseRegion=*/true);
  for (mlir::Region* r : {&op.getThenRegion(), &op.getElseRegion()}) {
    if (r->empty()) builder_.createBlock(r);
    mlir::OpBuilder::InsertionGuard guard(builder_);
    builder_.setInsertionPointToStart(&r->front());
    const RuntimeArm& arm = r == &op.getThenRegion() ? then : otherwise;
    // Each arm binds its own names (a match arm's pattern).
    std::map<SpanKey, Val> localsBefore = frame().locals;
    auto v = arm.lower();
    frame().locals = std::move(localsBefore);
    if (!v) return std::nullopt;
    auto el = enumItem && v->kind == Val::Kind::Enum ? enumIndex(*v, arm.span) : asElement(*v, *dt, arm.span);
    if (!el) return std::nullopt;
    builder_.create<mlir::scf::YieldOp>(at, *el);
  }
  builder_.setInsertionPointAfter(op);
  if (!speculatable(op.getThenRegion()) || !speculatable(op.getElseRegion())) return made(op.getResult(0));
  // Both branches are safe to compute: a select keeps the body vectorizable.
  mlir::Value picked[2];
  for (int k = 0; k < 2; ++k) {
    mlir::Block& block = (k == 0 ? op.getThenRegion() : op.getElseRegion()).front();
    auto yield = mlir::cast<mlir::scf::YieldOp>(block.getTerminator());
    picked[k] = yield.getOperand(0);
    while (&block.front() != yield.getOperation()) block.front().moveBefore(op);
  }
  mlir::Value result = builder_.create<mlir::arith::SelectOp>(at, cond, picked[0], picked[1]);
  op.erase();
  return made(result);
}

std::optional<mlir::Value> Lowerer::asElement(const Val& v, ast::ScalarType d, Span at) {
  // A number is made an element of `d` directly.
  if (v.kind != Val::Kind::Element && v.kind != Val::Kind::Tensor) return asTensor(v, scalarTypeOf(d), at);
  std::optional<mlir::Value> element;
  if (v.kind == Val::Kind::Element) element = v.value;
  else if (!v.type.isScalar()) return unsupported(at, "a whole tensor inside index notation");
  else if (definedIn(v.value, notation_->body))  // computed in the body (a scan's value there)
    element = builder_.create<mlir::tensor::ExtractOp>(loc(at), v.value, mlir::ValueRange{}).getResult();
  else element = addNotationInput(v.value, mlir::AffineMap::get(notation_->loopCount, 0, {}, &context_));
  mlir::Type want = elementType(d);
  if (!element || element->getType() == want) return element;
  // Another dtype: an untyped value computed at run time (an `if` of
  // literals, i64 or f64), or a loop's carried scalar, given the type its
  // context has.
  auto from = v.type.isTensor() ? concreteDType(v.type.dtype(), at) : std::nullopt;
  return emit::scalarCast(builder_, loc(at), *element, want, from && isUnsignedScalar(*from), isUnsignedScalar(d));
}

}  // namespace linnet::lower
