// Writing the state back at the end of an entry.
//
// A state member is the runtime's buffer B, read once as
// `%t = bufferization.to_tensor B restrict writable`: One-Shot Bufferize may
// then update %t in place (a cache write is an insert_slice into B), and
// every value it proves equal to %t, or a view of it, or an identity folded
// to it (`acc * 1.0`), lives in B. So B must change only through tensor ops
// that One-Shot Bufferize sees: the new value goes in with the tensor form,
// `%w = materialize_in_destination %new in %t`, which it bufferizes in B and
// orders against every other read of B's contents; the memref form that
// follows (`materialize_in_destination %w in B`) is then a copy of B into
// itself, which canonicalization removes. (The memref form alone would write
// B behind its back: a value it had placed in B, `let before = acc`, would be
// overwritten before it is read.)
//
// What One-Shot Bufferize cannot do is keep B's old contents alive for a read
// after that write: it resolves a read-after-write conflict by copying the
// write's destination, and the destination here must be B. The old contents
// are read after the write when an entry result shares B (`let before = acc;
// acc = acc + x; return before`), or when another state's new value does (a
// swap: `b = olda` after `a = ...`). So before writing, such a value is copied
// where it is defined, found by a may-alias walk over the lowered entry and
// the outlined functions it calls; the writes are ordered so that a state's
// buffer is written after every other new value that reads it, a cycle (a
// swap) copying one of them. A value this walk misses makes One-Shot
// Bufferize fail the build ("cannot avoid RaW conflict"), never read
// overwritten data.
#include <functional>

#include <mlir/Dialect/Bufferization/IR/Bufferization.h>
#include <mlir/Dialect/Func/IR/FuncOps.h>
#include <mlir/Dialect/SCF/IR/SCF.h>
#include <mlir/IR/BuiltinOps.h>

#include <llvm/ADT/DenseMap.h>
#include <llvm/ADT/DenseSet.h>
#include <llvm/ADT/SetVector.h>

#include "compiler/conversion/TensorBuilders.h"
#include "compiler/lower/LowerImpl.h"

namespace linnet::lower {

namespace {

bool isTensor(mlir::Value v) { return mlir::isa<mlir::TensorType>(v.getType()); }

// For each tensor value, the values whose buffer it may share once
// bufferized: `to_tensor` results and function arguments (the roots). An op
// may return an operand or a view of one (a slice, a reshape, a cast), so its
// results may share its operands' roots; reductions make new tensors;
// control flow and calls are followed through their yields and their
// callees' returns. An elementwise binary op returns one operand only when
// folding makes the other an identity (`acc * 1.0`, `x + 0`), so only when
// the other may be a constant once folded (`x - x` too): which values may be
// is tracked beside the roots, a sum with an operand that cannot never being
// one. Both grow to a fixed point over the function.
class MayAlias {
 public:
  using Roots = llvm::SmallSetVector<mlir::Value, 4>;

  explicit MayAlias(mlir::ModuleOp module) : module_(module) {}

  void analyze(mlir::func::FuncOp f) {
    if (!analyzed_.insert(f.getOperation()).second) return;
    for (mlir::BlockArgument a : f.getArguments())
      if (isTensor(a)) roots_[a].insert(a);
    bool changed = true;
    while (changed) {
      changed = false;
      f.walk([&](mlir::Operation* op) { changed |= transfer(op); });
    }
  }

  Roots rootsOf(mlir::Value v) const {
    auto it = roots_.find(v);
    return it == roots_.end() ? Roots() : it->second;
  }

 private:
  bool add(mlir::Value into, mlir::Value root) { return roots_[into].insert(root); }

  // `into` may share `from`'s buffers.
  bool merge(mlir::Value into, mlir::Value from) {
    if (!isTensor(into) || !isTensor(from)) return false;
    Roots from_ = rootsOf(from);  // copied: inserting `into` may move the map
    bool changed = false;
    Roots& to = roots_[into];
    for (mlir::Value r : from_) changed |= to.insert(r);
    return changed;
  }

  bool mayBeConstant(mlir::Value v) const { return constant_.contains(v); }
  bool markConstant(mlir::Value v) { return isTensor(v) && constant_.insert(v).second; }

  // `into` may be `from` itself: its buffers, and a constant if it is.
  bool flow(mlir::Value into, mlir::Value from) {
    bool changed = merge(into, from);
    if (mayBeConstant(from)) changed |= markConstant(into);
    return changed;
  }

  struct Summary {
    // Per result: the arguments it may share a buffer with, and other roots.
    std::vector<llvm::SmallVector<unsigned>> args;
    std::vector<Roots> others;
  };

  const Summary* summary(mlir::func::FuncOp callee) {
    mlir::Operation* key = callee.getOperation();
    if (auto it = summaries_.find(key); it != summaries_.end()) return &it->second;
    if (!inProgress_.insert(key).second) return nullptr;  // recursion: the caller assumes the worst
    analyze(callee);
    inProgress_.erase(key);
    Summary s;
    s.args.resize(callee.getNumResults());
    s.others.resize(callee.getNumResults());
    callee.walk([&](mlir::func::ReturnOp ret) {
      for (auto [k, v] : llvm::enumerate(ret.getOperands()))
        for (mlir::Value root : rootsOf(v)) {
          auto arg = mlir::dyn_cast<mlir::BlockArgument>(root);
          if (arg && arg.getOwner() == &callee.front()) s.args[k].push_back(arg.getArgNumber());
          else s.others[k].insert(root);
        }
    });
    return &summaries_.try_emplace(key, std::move(s)).first->second;
  }

  bool transfer(mlir::Operation* op) {
    bool changed = false;
    if (auto t = mlir::dyn_cast<mlir::bufferization::ToTensorOp>(op)) return add(t.getResult(), t.getResult());
    if (auto i = mlir::dyn_cast<mlir::scf::IfOp>(op)) {
      for (unsigned k = 0; k < i.getNumResults(); ++k) {
        changed |= flow(i.getResult(k), i.thenYield().getOperand(k));
        if (!i.getElseRegion().empty()) changed |= flow(i.getResult(k), i.elseYield().getOperand(k));
      }
      return changed;
    }
    if (auto f = mlir::dyn_cast<mlir::scf::ForOp>(op)) {
      auto yield = mlir::cast<mlir::scf::YieldOp>(f.getBody()->getTerminator());
      for (unsigned k = 0; k < f.getNumResults(); ++k)
        for (mlir::Value v : {mlir::Value(f.getRegionIterArgs()[k]), mlir::Value(f.getResult(k))}) {
          changed |= flow(v, f.getInitArgs()[k]);
          changed |= flow(v, yield.getOperand(k));
        }
      return changed;
    }
    if (auto w = mlir::dyn_cast<mlir::scf::WhileOp>(op)) {
      mlir::Block* before = w.getBeforeBody();
      mlir::Block* after = w.getAfterBody();
      for (unsigned k = 0; k < before->getNumArguments(); ++k) {
        changed |= flow(before->getArgument(k), w.getInits()[k]);
        changed |= flow(before->getArgument(k), w.getYieldOp().getOperand(k));
      }
      auto forwarded = w.getConditionOp().getArgs();
      for (unsigned k = 0; k < forwarded.size(); ++k) {
        if (k < after->getNumArguments()) changed |= flow(after->getArgument(k), forwarded[k]);
        changed |= flow(w.getResult(k), forwarded[k]);
      }
      return changed;
    }
    if (auto call = mlir::dyn_cast<mlir::func::CallOp>(op)) {
      auto callee = module_.lookupSymbol<mlir::func::FuncOp>(call.getCalleeAttr());
      const Summary* s = callee && !callee.isExternal() ? summary(callee) : nullptr;
      if (s) {
        for (unsigned k = 0; k < call.getNumResults() && k < s->args.size(); ++k) {
          if (!isTensor(call.getResult(k))) continue;
          for (unsigned a : s->args[k]) changed |= flow(call.getResult(k), call.getOperand(a));
          for (mlir::Value root : s->others[k]) changed |= add(call.getResult(k), root);
        }
        return changed;
      }
    }
    if (auto bin = emit::binaryOperands(op)) {
      mlir::Value r = op->getResult(0);
      bool cl = mayBeConstant(bin->lhs), cr = mayBeConstant(bin->rhs), same = bin->lhs == bin->rhs;
      if (cr || same) changed |= merge(r, bin->lhs);
      if (cl || same) changed |= merge(r, bin->rhs);
      bool constant = (cl && cr) || (bin->additive ? bin->subtract && same : cl || cr || same);
      if (constant) changed |= markConstant(r);
      return changed;
    }
    // Anything else may return any of its tensor operands, or a view of one,
    // or what its regions yield (a reduction none of them), and may be a
    // constant when one of them may or when it reads no tensor.
    llvm::SmallVector<mlir::Value> sources(op->getOperands().begin(), op->getOperands().end());
    for (mlir::Region& region : op->getRegions())
      for (mlir::Block& block : region)
        if (!block.empty() && block.back().hasTrait<mlir::OpTrait::IsTerminator>())
          sources.append(block.back().getOperands().begin(), block.back().getOperands().end());
    bool fresh = emit::resultIsFresh(op);
    bool constant = llvm::none_of(sources, isTensor) || llvm::any_of(sources, [&](mlir::Value v) {
                      return mayBeConstant(v);
                    });
    for (mlir::Value r : op->getResults()) {
      if (!fresh)
        for (mlir::Value v : sources) changed |= merge(r, v);
      if (constant) changed |= markConstant(r);
    }
    for (mlir::Region& region : op->getRegions())
      for (mlir::Block& block : region)
        for (mlir::BlockArgument a : block.getArguments())
          for (mlir::Value v : op->getOperands()) changed |= flow(a, v);
    return changed;
  }

  mlir::ModuleOp module_;
  llvm::DenseMap<mlir::Value, Roots> roots_;
  llvm::DenseSet<mlir::Value> constant_;  // values that may fold to a constant
  llvm::DenseSet<mlir::Operation*> analyzed_;
  llvm::DenseSet<mlir::Operation*> inProgress_;
  std::map<mlir::Operation*, Summary> summaries_;  // a map: pointers to its entries stay valid
};

}  // namespace

void writeBackState(mlir::OpBuilder& b, mlir::Location at, mlir::func::FuncOp fn, llvm::ArrayRef<StateWrite> writes,
                    llvm::MutableArrayRef<mlir::Value> results) {
  if (writes.empty()) return;
  MayAlias alias(fn->getParentOfType<mlir::ModuleOp>());
  alias.analyze(fn);
  // The written states whose buffer `v` may share.
  auto sharedWith = [&](mlir::Value v) {
    llvm::SmallVector<size_t> out;
    if (!isTensor(v)) return out;
    MayAlias::Roots roots = alias.rootsOf(v);
    for (size_t i = 0; i < writes.size(); ++i)
      if (roots.contains(writes[i].initial)) out.push_back(i);
    return out;
  };
  // A copy of `v` taken where `v` is defined, before anything later writes
  // in place the buffer it may share.
  llvm::DenseMap<mlir::Value, mlir::Value> copies;
  auto copyOf = [&](mlir::Value v) {
    auto it = copies.find(v);
    if (it != copies.end()) return it->second;
    mlir::OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointAfterValue(v);
    mlir::Value c = b.create<mlir::bufferization::AllocTensorOp>(v.getLoc(), mlir::cast<mlir::RankedTensorType>(v.getType()),
                                                                 mlir::ValueRange{}, v);
    copies[v] = c;
    return c;
  };

  // Results are read after every write: one that may share a written
  // state's buffer is copied, unless it is that state's new value and shares
  // no other: it then becomes the write's result, which is the buffer after
  // the write (One-Shot Bufferize cannot tell that a new value that is the
  // old one in some branch, `if c { acc } else { acc + x }`, still holds
  // what was written).
  std::vector<std::optional<size_t>> resultIsWrite(results.size());
  for (auto [k, r] : llvm::enumerate(results)) {
    llvm::SmallVector<size_t> shared = sharedWith(r);
    if (shared.empty()) continue;
    if (shared.size() == 1 && r == writes[shared[0]].now) resultIsWrite[k] = shared[0];
    else r = copyOf(r);
  }

  // Each state is written once no other pending write still reads its old
  // contents; a cycle (a swap) copies one new value first.
  size_t n = writes.size();
  std::vector<mlir::Value> source(n);
  std::vector<llvm::SmallVector<size_t>> reads(n);
  for (size_t k = 0; k < n; ++k) {
    source[k] = writes[k].now;
    // A new value choosing, by an `if` on data, between values one of which
    // is itself such a choice, or a loop's result, that may be the state's
    // old value (`s = if c { x } else { if d { s } else { x } }`; a loop
    // writing the state, then `if c { x } else { a.m(x) }` with a method
    // writing it again) cannot be written back in place ("cannot avoid RaW
    // conflict", whether canonicalization has made the inner choice an
    // `arith.select` or not): the inner value is copied where the outer
    // choice yields it. One level of choice (`if c { x } else { s }`) is
    // resolved as it is.
    std::function<void(mlir::Value, int)> separateInnerChoices = [&](mlir::Value v, int depth) {
      auto choice = v.getDefiningOp<mlir::scf::IfOp>();
      if (!choice || depth > 16) return;
      unsigned r = mlir::cast<mlir::OpResult>(v).getResultNumber();
      for (mlir::Region* region : {&choice.getThenRegion(), &choice.getElseRegion()}) {
        if (region->empty()) continue;
        mlir::Operation* yield = region->front().getTerminator();
        mlir::Value inner = yield->getOperand(r);
        bool merged = inner.getDefiningOp<mlir::scf::IfOp>() || inner.getDefiningOp<mlir::scf::ForOp>() ||
                      inner.getDefiningOp<mlir::scf::WhileOp>();
        // That may be any state's old value or an argument (`s = if !c { if
        // c { t } else { y } } else { x }` reads the state `t`).
        if (!merged || alias.rootsOf(inner).empty()) continue;
        separateInnerChoices(inner, depth + 1);
        mlir::OpBuilder::InsertionGuard guard(b);
        b.setInsertionPoint(yield);
        yield->setOperand(r, conversion::freshCopy(b, inner.getLoc(), inner));
      }
    };
    separateInnerChoices(source[k], 0);
    for (size_t i : sharedWith(source[k]))
      if (i != k) reads[k].push_back(i);
  }
  std::vector<bool> done(n, false);
  std::vector<size_t> order;
  while (order.size() < n) {
    std::optional<size_t> next;
    for (size_t k = 0; k < n && !next; ++k) {
      if (done[k]) continue;
      bool readLater = false;
      for (size_t j = 0; j < n && !readLater; ++j)
        readLater = j != k && !done[j] && llvm::is_contained(reads[j], k);
      if (!readLater) next = k;
    }
    if (!next) {
      for (size_t j = 0; j < n; ++j)
        if (!done[j] && !reads[j].empty()) {
          source[j] = copyOf(source[j]);
          reads[j].clear();
          break;
        }
      continue;
    }
    done[*next] = true;
    order.push_back(*next);
  }
  std::vector<mlir::Value> written(n);
  for (size_t k : order) {
    auto inPlace = b.create<mlir::bufferization::MaterializeInDestinationOp>(at, source[k], writes[k].initial);
    auto write = b.create<mlir::bufferization::MaterializeInDestinationOp>(at, inPlace.getResult(), writes[k].buffer);
    write.setWritable(true);
    written[k] = inPlace.getResult();
  }
  for (auto [k, r] : llvm::enumerate(results))
    if (resultIsWrite[k]) r = written[*resultIsWrite[k]];
}

}  // namespace linnet::lower
