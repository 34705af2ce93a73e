// Outlining: a method called on an element of a block array (`layer.forward(x)`
// inside `static for layer in layers`) is lowered once, as a private function
// taking that element's parameters (and the entry's dims and the call's
// tensors) as arguments, and called once per element with its own
// parameters. So a 32-layer model compiles one layer body, not 32 copies.
//
// One function serves every call with the same callee, generic arguments,
// block and argument structure (tensor types, compile-time values); the
// first call lowers it. What the body returns may mix tensors and structure:
// its tensors become the function's results and the structure is kept as a
// template that each call site fills with the call's results.
#include <fmt/format.h>

#include <mlir/Dialect/Func/IR/FuncOps.h>

#include "compiler/lower/LowerImpl.h"

namespace linnet::lower {

namespace {

bool isArrayElement(const std::string& path) {
  size_t dot = path.rfind('.');
  if (dot == std::string::npos || dot + 1 >= path.size()) return false;
  return std::all_of(path.begin() + dot + 1, path.end(), ::isdigit);
}

}  // namespace

bool Lowerer::shouldOutline(const std::optional<Val>& receiver) const {
  return receiver && receiver->kind == Val::Kind::Block && isArrayElement(receiver->path) && !notation_;
}

std::optional<Result> Lowerer::callOutlined(const ast::FunctionItem& f, Frame& callee,
                                            const Val& receiver, std::vector<Val> args, Span at) {
  // ---- the key ----
  std::string key = fmt::format("{}|{}|", static_cast<const void*>(&f), static_cast<const void*>(receiver.block));
  std::vector<std::pair<shape::SymbolId, std::string>> dims;
  for (const auto& [id, d] : callee.subst.shapes.dims) dims.emplace_back(id, d.str());
  std::sort(dims.begin(), dims.end());
  for (const auto& [id, d] : dims) key += fmt::format("{}={};", id, d);
  for (const auto& [g, d] : callee.subst.dtypes) key += fmt::format("{}:{};", static_cast<const void*>(g), d.str());
  for (const auto& [id, s] : callee.subst.shapes.packs) key += fmt::format("{}={};", id, shape::str(s));
  for (const Val& a : args)
    if (!structureKey(a, key)) return std::nullopt;  // not outlinable: the caller inlines
  // The function takes the entry's dims: entries with other dims get their own.
  for (const auto& [id, v] : entryDims_) key += fmt::format("d{};", id);

  // The element's own parameters, by their path below the element.
  std::string prefix = receiver.path + ".";
  auto relative = [&](const std::vector<TensorSlot>& slots) {
    std::vector<std::string> out;
    for (const TensorSlot& s : slots)
      if (s.path.rfind(prefix, 0) == 0) out.push_back(s.path.substr(prefix.size()));
    return out;
  };
  std::vector<std::string> params = relative(inputs_.parameters);
  std::vector<std::string> state = relative(stateSlots_);
  for (const std::string& p : params)
    if (!parameterArgs_.count(prefix + p)) return std::nullopt;
  for (const std::string& p : state)
    if (!state_.count(prefix + p)) return std::nullopt;
  for (const std::string& p : params) key += p + ",";
  key += "|";
  for (const std::string& p : state) key += p + ",";

  std::vector<mlir::Value> tensorArgs;
  for (const Val& a : args) collectTensors(a, tensorArgs);

  auto it = outlined_.find(key);
  if (it == outlined_.end()) {
    // ---- lower the body once, into a new private function ----
    Outlined o;
    o.name = fmt::format("{}_{}_{}", receiver.block->name.name, f.name.name, outlined_.size());
    std::vector<mlir::Type> inputs;
    std::vector<shape::SymbolId> dimIds;
    for (const auto& [id, v] : entryDims_) {
      dimIds.push_back(id);
      inputs.push_back(builder_.getIndexType());
    }
    std::vector<mlir::Type> paramTypes;
    for (const std::string& p : params) paramTypes.push_back(parameterArgs_.at(prefix + p).getType());
    for (const std::string& p : state) paramTypes.push_back(state_.at(prefix + p).getType());
    inputs.insert(inputs.end(), paramTypes.begin(), paramTypes.end());
    for (mlir::Value v : tensorArgs) inputs.push_back(v.getType());

    mlir::OpBuilder::InsertPoint site = builder_.saveInsertionPoint();
    mlir::ModuleOp module = site.getBlock()->getParentOp()->getParentOfType<mlir::ModuleOp>();
    builder_.setInsertionPointToEnd(module.getBody());
    auto fn = builder_.create<mlir::func::FuncOp>(loc(f.name.span), o.name,
                                                  builder_.getFunctionType(inputs, {}));
    fn.setPrivate();
    mlir::Block* body = fn.addEntryBlock();
    builder_.setInsertionPointToStart(body);
    // Inside, the element's parameters and the entry's dims are the new arguments.
    std::map<shape::SymbolId, mlir::Value> savedDims = entryDims_;
    std::map<std::string, mlir::Value> savedParams = parameterArgs_, savedState = state_;
    unsigned arg = 0;
    for (shape::SymbolId id : dimIds) entryDims_[id] = body->getArgument(arg++);
    for (const std::string& p : params) parameterArgs_[prefix + p] = body->getArgument(arg++);
    // Only the element's own state exists inside: a loop in the body carries
    // every state tensor it sees, and the rest are values of the caller.
    state_.clear();
    for (const std::string& p : state) state_[prefix + p] = body->getArgument(arg++);
    size_t next = 0;
    llvm::SmallVector<mlir::Value> inner;
    for (unsigned i = arg; i < body->getNumArguments(); ++i) inner.push_back(body->getArgument(i));
    for (Val& a : args) a = refill(a, inner, next);
    Result result;
    {
      FrameGuard guard(*this, callee);
      callee.params = args;
      if (lowerBody(f.body)) result = callee.returned ? *callee.returned : Val::of(Val::Kind::Unit);
    }
    // The element's state the body wrote: extra results the caller takes.
    std::vector<mlir::Value> stateAfter;
    unsigned firstState = static_cast<unsigned>(dimIds.size() + params.size());
    for (size_t i = 0; i < state.size(); ++i) {
      mlir::Value now = state_.at(prefix + state[i]);
      o.stateWritten.push_back(now != body->getArgument(firstState + static_cast<unsigned>(i)));
      if (o.stateWritten.back()) stateAfter.push_back(now);
    }
    entryDims_ = savedDims;
    parameterArgs_ = savedParams;
    state_ = savedState;
    if (result) {
      std::vector<mlir::Value> returned;
      collectTensors(*result, returned);
      returned.insert(returned.end(), stateAfter.begin(), stateAfter.end());
      std::vector<mlir::Value> results;
      for (mlir::Value v : returned) {
        auto known = std::find(results.begin(), results.end(), v);
        o.resultOf.push_back(static_cast<unsigned>(known - results.begin()));
        if (known == results.end()) results.push_back(v);
      }
      std::vector<mlir::Type> resultTypes;
      for (mlir::Value v : results) resultTypes.push_back(v.getType());
      builder_.create<mlir::func::ReturnOp>(loc(f.name.span), results);
      fn.setType(builder_.getFunctionType(inputs, resultTypes));
      o.result = *result;
    }
    builder_.restoreInsertionPoint(site);
    if (!result) return Result();
    o.dims = dimIds;
    it = outlined_.emplace(key, std::move(o)).first;
  }

  // ---- the call, with this element's parameters ----
  const Outlined& o = it->second;
  std::vector<mlir::Value> operands;
  for (shape::SymbolId id : o.dims) operands.push_back(entryDims_.at(id));
  for (const std::string& p : params) operands.push_back(parameterArgs_.at(prefix + p));
  for (const std::string& p : state) operands.push_back(state_.at(prefix + p));
  operands.insert(operands.end(), tensorArgs.begin(), tensorArgs.end());
  auto fn = mlir::SymbolTable::lookupNearestSymbolFrom<mlir::func::FuncOp>(
      builder_.getInsertionBlock()->getParentOp(), builder_.getStringAttr(o.name));
  auto call = builder_.create<mlir::func::CallOp>(loc(at), o.name, fn.getResultTypes(), operands);
  size_t next = 0;
  llvm::SmallVector<mlir::Value> values;
  for (unsigned r : o.resultOf) values.push_back(call.getResult(r));
  Val result = refill(o.result, values, next);
  for (size_t i = 0; i < state.size(); ++i)
    if (o.stateWritten[i]) state_[prefix + state[i]] = values[next++];
  return result;
}

}  // namespace linnet::lower
