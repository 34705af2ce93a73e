// Flattening a structured value to its tensors and back: an outlined call's
// arguments and results, an `if` on data's value and what it assigns.
#include <fmt/format.h>

#include "compiler/lower/LowerImpl.h"

namespace linnet::lower {

bool structureKey(const Val& v, std::string& out) {
  switch (v.kind) {
    case Val::Kind::Tensor: {
      std::string t;
      llvm::raw_string_ostream os(t);
      os << v.value.getType();
      out += "t:" + os.str() + ";";
      return true;
    }
    case Val::Kind::Int: out += "i:" + v.dim.str() + ";"; return true;
    case Val::Kind::Float: out += fmt::format("f:{};", v.number); return true;
    case Val::Kind::Bool: out += v.flag ? "true;" : "false;"; return true;
    case Val::Kind::Unit: out += "unit;"; return true;
    case Val::Kind::None: out += "none;"; return true;
    case Val::Kind::Enum:
      if (v.isRuntimeEnum()) {
        out += fmt::format("e:{}:?(", static_cast<const void*>(v.enumItem));
        if (!structureKey(v.elements[0], out)) return false;
        out += ")";
        return true;
      }
      out += fmt::format("e:{}:{};", static_cast<const void*>(v.enumItem), v.variant);
      return true;
    case Val::Kind::Maybe: out += "?"; [[fallthrough]];
    case Val::Kind::Some:
    case Val::Kind::Tuple:
    case Val::Kind::Struct:
      out += "(";
      for (const Val& e : v.elements)
        if (!structureKey(e, out)) return false;
      out += ")";
      return true;
    case Val::Kind::Element:
    case Val::Kind::Block:
    case Val::Kind::BlockArray: return false;
  }
  return false;
}

void collectTensors(const Val& v, std::vector<mlir::Value>& out) {
  if (v.kind == Val::Kind::Tensor) out.push_back(v.value);
  for (const Val& e : v.elements) collectTensors(e, out);
}

bool forEachTensorLeaf(const Val& v, const std::function<bool(const Val&)>& leaf) {
  if (v.kind == Val::Kind::Tensor) return leaf(v);
  for (const Val& e : v.elements)
    if (!forEachTensorLeaf(e, leaf)) return false;
  return true;
}

Val refill(const Val& v, llvm::ArrayRef<mlir::Value> values, size_t& next) {
  Val out = v;
  if (v.kind == Val::Kind::Tensor) out.value = values[next++];
  for (Val& e : out.elements) e = refill(e, values, next);
  return out;
}

}  // namespace linnet::lower
