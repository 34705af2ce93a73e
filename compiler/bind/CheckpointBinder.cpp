// CheckpointBinder: see CheckpointBinder.h for the steps.
#include "compiler/bind/CheckpointBinder.h"

#include <algorithm>
#include <map>
#include <set>
#include <variant>

#include "compiler/bind/BindingFiles.h"
#include "compiler/bind/ConfigConstants.h"
#include "compiler/bind/GenericValues.h"
#include "compiler/parse/ASTPrinter.h"
#include "runtime/support/DType.h"

namespace linnet::bind {

uint64_t scalarSize(ast::ScalarType type) {
  using ast::ScalarType;
  switch (type) {
    case ScalarType::Bool: case ScalarType::I8: case ScalarType::U8: return 1;
    case ScalarType::I16: case ScalarType::U16: case ScalarType::F16: case ScalarType::BF16: return 2;
    case ScalarType::I32: case ScalarType::U32: case ScalarType::F32: return 4;
    case ScalarType::I64: case ScalarType::U64: case ScalarType::F64: return 8;
  }
  return 1;
}

namespace {

// How far past the end of a counted array to look for a gap in its numbering.
constexpr int64_t kGapProbe = 64;

std::optional<ast::ScalarType> scalarOf(rt::DType dtype) {
  return ast::scalarTypeFromName(rt::dtypeName(dtype));
}

// `layers[*].a[*].w` with {3, 1} -> `layers.3.a.1.w`
std::string concretePath(const std::string& manifestPath, const std::vector<int64_t>& indices) {
  std::string out;
  size_t next = 0;
  for (size_t i = 0; i < manifestPath.size(); ++i) {
    if (manifestPath.compare(i, 3, "[*]") == 0 && next < indices.size()) {
      out += "." + std::to_string(indices[next++]);
      i += 2;
    } else {
      out.push_back(manifestPath[i]);
    }
  }
  return out;
}

// Sub-blocks nested deeper than this are a cycle or a hostile program (as
// in the manifest, which stops at the same depth).
constexpr size_t kMaxDepth = 64;

// The checker's type of a parameter, buffer or state member, in the root
// block's generics: what binding evaluates, never the AST.
struct MemberType {
  check::Type type;                    // without the outer `?`; Error when unchecked
  std::vector<shape::DimExpr> repeat;  // array lengths, outermost first
};

// Every member below `block`, keyed by its manifest path. `args` takes the
// block's generics to the root's (empty for the root itself).
void collectMemberTypes(const check::CheckedProgram& checked, const ast::BlockItem& block,
                        const check::Substitution& args, const std::string& prefix,
                        const std::vector<shape::DimExpr>& repeat, size_t depth,
                        std::map<std::string, MemberType>& out) {
  const check::CheckedBlock* typed = checked.blockOf(&block);
  if (!typed || depth > kMaxDepth) return;
  for (const ast::Item* item : block.body) {
    auto* member = ast::as<ast::MemberItem>(item);
    if (!member) continue;
    auto it = typed->members.find(member);
    if (it == typed->members.end()) continue;
    check::Type type = check::instantiate(it->second, args);
    if (type.kind() == check::TypeKind::Optional) type = type.optionalInner();
    if (member->member != ast::MemberKind::Sub) {
      out[prefix + member->name.name] = MemberType{type, repeat};
      continue;
    }
    std::vector<shape::DimExpr> childRepeat = repeat;
    std::string childPrefix = prefix + member->name.name;
    if (type.kind() == check::TypeKind::BlockArray) {
      childRepeat.push_back(type.arrayCount());
      childPrefix += "[*]";
    } else if (type.kind() != check::TypeKind::Block) {
      continue;
    }
    // The instance's arguments are in the root's generics already:
    // instantiate() carried them through `args`.
    const check::BlockInstance& instance = *type.blockInstance();
    collectMemberTypes(checked, *instance.block, instance.args, childPrefix + ".", childRepeat, depth + 1, out);
  }
}

// The checked type of each manifest entry, in the manifest's order.
std::vector<MemberType> memberTypes(const check::CheckedProgram& checked, const manifest::BlockManifest& manifest) {
  std::map<std::string, MemberType> byPath;
  collectMemberTypes(checked, *manifest.block.block, {}, "", {}, 0, byPath);
  std::vector<MemberType> out;
  for (const manifest::ManifestEntry& entry : manifest.entries) {
    auto it = byPath.find(entry.path);
    out.push_back(it != byPath.end() ? it->second : MemberType{});
  }
  return out;
}

// value = a * var + b: a dimension with one unbound generic, linearly.
struct Linear {
  shape::Atom var;
  int64_t a = 0;
  int64_t b = 0;
};

// `dim` with the bound generics replaced by their values, when what remains
// is linear in one symbol (`3 * H`, `H + 1`, `2 * (H - 1)`). `H / 2` is not:
// both 2e and 2e + 1 give the extent e.
std::optional<Linear> linearIn(const shape::DimExpr& dim, const shape::Values& values) {
  shape::Bindings known;
  for (const auto& [id, value] : values.dims) known.dims[id] = shape::DimExpr::constant(value);
  shape::DimExpr rest = shape::instantiate(dim, known);
  if (rest.overflowed() || rest.terms().size() != 1) return std::nullopt;
  const shape::Term& term = rest.terms().front();
  if (term.monomial.size() != 1 || term.monomial.front().power != 1) return std::nullopt;
  const shape::Atom& var = term.monomial.front().atom;
  if (var.kind() != shape::AtomKind::Symbol) return std::nullopt;
  return Linear{var, term.coefficient, rest.constantTerm()};
}

// Each extent as the binder reports it: -1 where it cannot be evaluated.
// `known` tells whether every extent is >= 0.
std::vector<int64_t> concreteShape(const check::Type& tensor, const shape::Values& values, bool& known) {
  std::vector<int64_t> shape;
  known = true;
  for (std::optional<int64_t> extent : evaluateShape(tensor, values)) {
    known = known && extent && *extent >= 0;
    shape.push_back(extent.value_or(-1));
  }
  return shape;
}

// As Linnet spells the type: a scalar is its dtype (`f32`, not `Tensor[; f32]`).
std::string describeShape(const std::vector<int64_t>& shape, std::string_view dtype) {
  if (shape.empty()) return std::string(dtype);
  std::string out = "Tensor[";
  for (size_t i = 0; i < shape.size(); ++i) out += (i ? ", " : "") + std::to_string(shape[i]);
  return out + "; " + std::string(dtype) + "]";
}

std::string fileOf(const rt::Checkpoint& checkpoint, const rt::TensorView* view) {
  for (const rt::SafeTensorsFile& file : checkpoint.files())
    for (const rt::TensorView& candidate : file.tensors())
      if (&candidate == view) return file.sourceName();
  return checkpoint.directory().string();
}

class Binder {
 public:
  Binder(const BindInputs& inputs, DiagnosticEmitter& diagnostics)
      : inputs_(inputs), manifest_(*inputs.manifest), checkpoint_(*inputs.checkpoint),
        block_(*manifest_.block.block), blockName_(manifest_.block.qualifiedName()),
        diagnostics_(diagnostics), typedBlock_(inputs.checked->blockOf(&block_)),
        types_(memberTypes(*inputs.checked, manifest_)) {}

  std::optional<BoundModel> run();

 private:
  bool resolveTemplates();
  std::string tensorNameFor(size_t entry, const std::vector<int64_t>& indices) const;
  // checkpoint tensor name -> (note, help)
  std::map<std::string, std::pair<std::string, std::string>> elementsPastTheEnd() const;
  bool checkElementKeys();
  void solveArrayLengths();
  void solveDimensions();
  void solveDTypes();
  void applyConfigAndDefaults();
  void checkConstants();
  void recordConfigRead(const ConfigConstants& constants);
  bool checkAllSolved();
  bool enumerate(size_t entry, std::vector<std::vector<int64_t>>& out);
  void bindTensors(BoundModel& model);
  void sizeState(BoundModel& model);

  void bindGeneric(const std::string& name, BoundValue value, std::string source) {
    model_.generics[name] = value;
    sources_[name] = std::move(source);
  }
  bool isBound(const std::string& name) const { return model_.generics.count(name) != 0; }
  // A generic that generics.json names; reports the file's mistake otherwise.
  const ast::GenericParam* genericNamedInFile(const std::string& name) {
    const ast::GenericParam* g = generic(name);
    if (!g) {
      diagnostics_.emit(DiagnosticKind::BindingFileInvalid, Span{}, "generics.json",
                        "`" + name + "` is not a generic of `" + blockName_ + "`");
      ok_ = false;
    }
    return g;
  }
  const ast::GenericParam* generic(const std::string& name) const {
    for (const ast::GenericParam& g : block_.generics)
      if (g.name.name == name) return &g;
    return nullptr;
  }
  // The root generic a symbol of the checked types stands for.
  const ast::GenericParam* generic(const shape::Atom& symbol) const {
    if (symbol.kind() != shape::AtomKind::Symbol) return nullptr;
    for (const ast::GenericParam& g : block_.generics)
      if (check::symbolIdOf(g) == symbol.id()) return &g;
    return nullptr;
  }
  // A dtype generic of the root block (not one a sub-block left unbound).
  const ast::GenericParam* generic(const check::DType& dtype) const {
    for (const ast::GenericParam& g : block_.generics)
      if (&g == dtype.generic) return &g;
    return nullptr;
  }
  shape::Values values() const { return dimValues(block_, model_.generics); }

  const BindInputs& inputs_;
  const manifest::BlockManifest& manifest_;
  const rt::Checkpoint& checkpoint_;
  const ast::BlockItem& block_;
  std::string blockName_;
  DiagnosticEmitter& diagnostics_;
  const check::CheckedBlock* typedBlock_;  // null only for a block the checker did not reach
  std::vector<MemberType> types_;          // per manifest entry
  BindingFiles files_;
  std::vector<const PathTemplate*> templates_;  // per manifest entry; null: the path itself
  std::vector<const std::vector<ElementBinding>*> elements_;  // per manifest entry; null: none
  BoundModel model_;
  std::map<std::string, std::string> sources_;  // generic -> where its value came from
  std::set<std::string> countedToAGap_;         // array lengths whose count stopped at a gap
  bool ok_ = true;
};

bool Binder::resolveTemplates() {
  std::optional<BindingFiles> files = readBindingFiles(inputs_.packageDir, diagnostics_);
  if (!files) return false;
  files_ = std::move(*files);
  std::set<std::string> used, usedElements;
  for (const manifest::ManifestEntry& entry : manifest_.entries) {
    std::string normalized = normalizeManifestPath(entry.path);
    auto it = files_.paths.find(normalized);
    templates_.push_back(it == files_.paths.end() ? nullptr : &it->second);
    if (it != files_.paths.end()) used.insert(it->first);
    auto el = files_.elements.find(normalized);
    elements_.push_back(el == files_.elements.end() ? nullptr : &el->second);
    if (el != files_.elements.end()) usedElements.insert(el->first);
  }
  bool ok = true;
  auto unknown = [&](const std::string& key) {
    diagnostics_.emit(DiagnosticKind::BindingUnknownPath, Span{}, "bindings.json", key, blockName_)
        .help("parameter paths are listed by `linnet inspect --parameters`");
    ok = false;
  };
  for (const auto& [normalized, path] : files_.paths)
    if (!used.count(normalized)) unknown(path.key);
  for (const auto& [normalized, list] : files_.elements)
    if (!usedElements.count(normalized))
      for (const ElementBinding& element : list) unknown(element.key);
  return ok;
}

std::string Binder::tensorNameFor(size_t entry, const std::vector<int64_t>& indices) const {
  if (const std::vector<ElementBinding>* list = elements_[entry])
    for (const ElementBinding& element : *list)
      if (element.indices == indices) return element.tensor;
  if (const PathTemplate* path = templates_[entry]) return instantiateTensorName(*path, indices);
  return concretePath(manifest_.entries[entry].path, indices);
}

// A key naming one element must name one that exists at the bound lengths.
bool Binder::checkElementKeys() {
  bool ok = true;
  shape::Values values = this->values();
  for (size_t i = 0; i < manifest_.entries.size(); ++i) {
    if (!elements_[i]) continue;
    const std::vector<shape::DimExpr>& repeat = types_[i].repeat;
    for (const ElementBinding& element : *elements_[i]) {
      for (size_t level = 0; level < element.indices.size() && level < repeat.size(); ++level) {
        std::optional<int64_t> length = evaluateDim(repeat[level], values);
        if (!length || element.indices[level] < *length) continue;
        diagnostics_.emit(DiagnosticKind::BindingUnknownPath, Span{}, "bindings.json", element.key, blockName_)
            .note("at this binding the array has " + std::to_string(*length) +
                  (*length == 1 ? " element" : " elements") + ", so index " + std::to_string(element.indices[level]) +
                  " is past its end");
        ok = false;
        break;
      }
    }
  }
  return ok;
}

// The path up to the `[*]` of array level `level` (0: the outermost).
static std::string arrayPrefix(const std::string& path, size_t level) {
  size_t at = path.find("[*]");
  for (size_t l = 0; l < level && at != std::string::npos; ++l) at = path.find("[*]", at + 3);
  return path.substr(0, at);
}

// An array whose length is a lone unbound generic gets the number of
// consecutive indices, from 0, at which the checkpoint holds any tensor of it.
// An inner array (`sub groups: [Group<N>; G]` with `sub leaves: [Leaf; N]`
// inside) is counted under index 0 of the arrays around it, outermost first.
void Binder::solveArrayLengths() {
  for (size_t i = 0; i < manifest_.entries.size(); ++i) {
    const manifest::ManifestEntry& entry = manifest_.entries[i];
    if (entry.kind == ast::MemberKind::State) continue;
    for (size_t level = 0; level < types_[i].repeat.size(); ++level) {
      std::optional<shape::Atom> length = types_[i].repeat[level].asAtom();
      const ast::GenericParam* g = length ? generic(*length) : nullptr;
      if (!g || isBound(g->name.name)) continue;
      // The first tensor the checkpoint holds at index `at` of this array,
      // over every non-state entry of it; "" when none.
      std::string prefix = arrayPrefix(entry.path, level);
      auto tensorAt = [&](int64_t at) -> std::string {
        for (size_t j = 0; j < manifest_.entries.size(); ++j) {
          const manifest::ManifestEntry& other = manifest_.entries[j];
          if (other.kind == ast::MemberKind::State || other.repeat.size() <= level) continue;
          if (arrayPrefix(other.path, level) != prefix) continue;
          std::vector<int64_t> indices(other.repeat.size(), 0);
          indices[level] = at;
          std::string name = tensorNameFor(j, indices);
          if (checkpoint_.find(name)) return name;
        }
        return "";
      };
      int64_t count = 0;
      while (count < kMaxArrayLength && !tensorAt(count).empty()) ++count;
      // A gap in the numbering (layers 0, 1, 2, 4) ends the count at the gap;
      // say so, as the tensors past it are what the user will look for.
      std::string past;
      for (int64_t probe = count + 1; probe <= count + kGapProbe && probe < kMaxArrayLength && past.empty(); ++probe)
        past = tensorAt(probe);
      std::string source = "the number of `" + prefix + "` elements in the checkpoint";
      if (!past.empty()) {
        source = "the checkpoint's `" + prefix + "` elements 0 to " + std::to_string(count - 1) + " (index " +
                 std::to_string(count) + " is missing, though `" + past + "` exists)";
        countedToAGap_.insert(g->name.name);
      }
      bindGeneric(g->name.name, BoundValue{count, std::nullopt}, source);
    }
  }
}

// Repeatedly: a dimension of the checked type with one unbound generic,
// linearly, is solved from the bound tensor's extent.
void Binder::solveDimensions() {
  bool progress = true;
  while (progress) {
    progress = false;
    for (size_t i = 0; i < manifest_.entries.size(); ++i) {
      const manifest::ManifestEntry& entry = manifest_.entries[i];
      const check::Type& type = types_[i].type;
      if (entry.kind == ast::MemberKind::State || !type.isTensor()) continue;
      std::vector<int64_t> first(entry.repeat.size(), 0);
      std::string tensorName = tensorNameFor(i, first);
      const rt::TensorView* tensor = checkpoint_.find(tensorName);
      if (!tensor || tensor->shape.size() != type.shape().size()) continue;
      for (size_t d = 0; d < type.shape().size(); ++d) {
        const auto* dim = std::get_if<shape::DimExpr>(&type.shape()[d]);
        if (!dim) continue;
        std::optional<Linear> linear = linearIn(*dim, values());
        const ast::GenericParam* g = linear ? generic(linear->var) : nullptr;
        if (!g || g->constraint != ast::GenericKind::Dim || isBound(g->name.name)) continue;
        int64_t extent = tensor->shape[d];
        int64_t numerator = 0;
        if (__builtin_sub_overflow(extent, linear->b, &numerator)) continue;
        if (numerator % linear->a != 0 || numerator / linear->a < 0) continue;  // reported by the shape check
        bindGeneric(g->name.name, BoundValue{numerator / linear->a, std::nullopt},
                    "dimension " + std::to_string(d) + " of `" + tensorName + "`");
        progress = true;
      }
    }
  }
}

// A dtype generic takes the dtype of the first bound tensor declared with it.
void Binder::solveDTypes() {
  for (size_t i = 0; i < manifest_.entries.size(); ++i) {
    const manifest::ManifestEntry& entry = manifest_.entries[i];
    const check::Type& type = types_[i].type;
    const ast::GenericParam* g = type.isTensor() ? generic(type.dtype()) : nullptr;
    if (entry.kind == ast::MemberKind::State || !g || isBound(g->name.name)) continue;
    std::vector<int64_t> first(entry.repeat.size(), 0);
    std::string tensorName = tensorNameFor(i, first);
    const rt::TensorView* tensor = checkpoint_.find(tensorName);
    if (!tensor) continue;
    std::optional<ast::ScalarType> dtype = scalarOf(tensor->dtype);
    if (!dtype) continue;
    bindGeneric(g->name.name, BoundValue{std::nullopt, dtype}, "the dtype of `" + tensorName + "`");
  }
}

// config.json values (checked against what the tensors said), then defaults
// from generics.json, then the generics' declared defaults.
void Binder::applyConfigAndDefaults() {
  const nlohmann::json& config = checkpoint_.config();
  auto parse = [&](const ast::GenericParam& g, const std::string& text) -> std::optional<BoundValue> {
    if (g.constraint == ast::GenericKind::Dim) {
      std::optional<int64_t> number = parseRootDim(text);
      if (!number) return std::nullopt;
      return BoundValue{*number, std::nullopt};
    }
    // Hugging Face writes torch dtype names in config.json.
    static const std::map<std::string, std::string> torchNames = {
        {"bfloat16", "bf16"}, {"float16", "f16"}, {"float32", "f32"}, {"float64", "f64"},
        {"float", "f32"}, {"half", "f16"}};
    auto torch = torchNames.find(text);
    auto dtype = ast::scalarTypeFromName(torch != torchNames.end() ? torch->second : text);
    if (!dtype || !dtypeViolation(g.constraint, *dtype).empty()) return std::nullopt;
    return BoundValue{std::nullopt, dtype};
  };
  for (const auto& [name, key] : files_.configKeys) {
    const ast::GenericParam* g = genericNamedInFile(name);
    if (!g) continue;
    if (!config.is_object() || !config.contains(key)) continue;
    const nlohmann::json& raw = config[key];
    // null is transformers' "the class default" (MistralConfig writes
    // `"head_dim": null` for hidden_size / heads): as if absent, so the
    // value comes from the tensors or a default.
    if (raw.is_null()) continue;
    // A dim is a JSON integer (a digit string is as malformed as `3.0`); a
    // dtype is a string (`"bfloat16"`).
    bool dim = !g->isPack && g->constraint == ast::GenericKind::Dim;
    std::string text = raw.is_number_integer() ? raw.dump() : raw.is_string() && !dim ? raw.get<std::string>() : "";
    std::optional<BoundValue> value = parse(*g, text);
    if (!value) {
      diagnostics_.emit(DiagnosticKind::CheckpointUnreadable, Span{},
                        "config.json `" + key + "` is `" + raw.dump() + "`, which is not a value for `" +
                            name + ": " + std::string(ast::genericKindName(g->constraint)) + "`");
      ok_ = false;
      continue;
    }
    if (!isBound(name)) {
      bindGeneric(name, *value, "config.json `" + key + "`");
      continue;
    }
    const BoundValue& have = model_.generics[name];
    if (sources_[name] == "--bind" || have.text() == value->text()) continue;
    diagnostics_.emit(DiagnosticKind::GenericConflict, Span{}, name, blockName_, have.text(),
                      sources_[name], value->text(), "config.json `" + key + "`");
    ok_ = false;
  }
  // What config.json fixed may make more tensor dimensions solvable
  // (`[Inner / Shards, H]` once Shards is known), and so may each default:
  // tensors win over defaults wherever they can decide.
  solveDimensions();
  for (const auto& [name, text] : files_.defaults) {
    const ast::GenericParam* g = genericNamedInFile(name);
    if (!g) continue;
    if (isBound(name)) continue;
    std::optional<BoundValue> value = parse(*g, text);
    if (!value) {
      diagnostics_.emit(DiagnosticKind::BindingFileInvalid, Span{}, "generics.json",
                        "`" + text + "` is not a value for `" + name + "`");
      ok_ = false;
      continue;
    }
    bindGeneric(name, *value, "the default in generics.json");
    solveDimensions();
  }
  // The declared defaults as the checker read them; one may use the
  // generics before it (`Inner: Dim = 4 * H`).
  if (!typedBlock_) return;
  const check::Substitution& defaults = typedBlock_->defaults;
  for (const ast::GenericParam& g : block_.generics) {
    if (isBound(g.name.name)) continue;
    if (auto d = defaults.dtypes.find(&g); d != defaults.dtypes.end()) {
      if (auto dtype = evaluateDType(d->second, model_.generics))
        bindGeneric(g.name.name, BoundValue{std::nullopt, dtype}, "its declared default");
    } else if (auto dim = defaults.shapes.dims.find(check::symbolIdOf(g)); dim != defaults.shapes.dims.end()) {
      if (auto value = evaluateDim(dim->second, values())) {
        bindGeneric(g.name.name, BoundValue{value, std::nullopt}, "its declared default");
        solveDimensions();
      }
    }
  }
}

// Values of config.json the model fixes in its source; reported with the
// generics' problems, all at once.
void Binder::checkConstants() {
  std::optional<ConfigConstants> constants = readConfigConstants(inputs_.packageDir, diagnostics_);
  if (!constants) {
    ok_ = false;
    return;
  }
  if (inputs_.program && !checkConfigConstants(*constants, *inputs_.program, checkpoint_.config(), diagnostics_,
                                                   [&](const std::string& name) { return checkpoint_.find(name) != nullptr; }))
    ok_ = false;
  recordConfigRead(*constants);
  if (!inputs_.program) return;
  std::optional<std::vector<BoundConstant>> values =
      resolveConfigValues(*constants, *inputs_.program, checkpoint_.config(), diagnostics_);
  if (values) model_.constants = std::move(*values);
  else ok_ = false;
}

// The config.json keys this binding read, as they are here: a checkpoint
// whose config.json says otherwise about one of them needs another build
// (the runtime compares; docs/abi.md, `config`).
void Binder::recordConfigRead(const ConfigConstants& constants) {
  const nlohmann::json& config = checkpoint_.config();
  if (!config.is_object()) return;
  std::set<std::string> keys = configKeysRead(constants);
  for (const auto& [generic, key] : files_.configKeys) keys.insert(key);
  nlohmann::json values = nlohmann::json::object();
  nlohmann::json absent = nlohmann::json::array();
  for (const std::string& key : keys) {
    if (config.contains(key)) values[key] = config[key];
    else absent.push_back(key);
  }
  model_.config = {{"values", values}, {"absent", absent}};
}

bool Binder::checkAllSolved() {
  bool ok = true;
  for (const ast::GenericParam& g : block_.generics) {
    if (isBound(g.name.name)) {
      const BoundValue& value = model_.generics[g.name.name];
      if (value.dtype && sources_[g.name.name] != "--bind") {
        std::string why = dtypeViolation(g.constraint, *value.dtype);
        if (!why.empty()) {
          diagnostics_.emit(DiagnosticKind::InvalidBindingValue, Span{}, g.name.name,
                            ast::genericKindName(g.constraint), value.text(),
                            why + " (from " + sources_[g.name.name] + ")");
          ok = false;
        }
      }
      continue;
    }
    auto emitted = diagnostics_.emit(DiagnosticKind::GenericUnsolved, g.name.span, g.name.name, blockName_);
    emitted.label("declared here");
    // Where generics.json maps it, what was missing is the key: say so, and
    // whether the whole config.json was (a checkpoint of weights alone).
    auto mapped = files_.configKeys.find(g.name.name);
    if (mapped != files_.configKeys.end() && !checkpoint_.config().is_object()) {
      emitted.note("the checkpoint has no config.json, where the package's generics.json reads it from `" +
                   mapped->second + "`");
      emitted.help("add the model's config.json to the checkpoint directory, or bind it with `--bind " +
                   g.name.name + "=VALUE`");
    } else if (mapped != files_.configKeys.end()) {
      emitted.note("config.json has no `" + mapped->second + "`, which the package's generics.json reads it from");
      emitted.help("bind it with `--bind " + g.name.name + "=VALUE`");
    } else {
      emitted.help("bind it with `--bind " + g.name.name + "=VALUE`, or map it to a config.json key in the "
                   "package's generics.json");
    }
    ok = false;
  }
  return ok;
}

// Every concrete index tuple of `entry`'s arrays.
bool Binder::enumerate(size_t entry, std::vector<std::vector<int64_t>>& out) {
  const manifest::ManifestEntry& e = manifest_.entries[entry];
  std::vector<int64_t> lengths;
  int64_t total = 1;
  shape::Values values = this->values();
  for (size_t level = 0; level < e.repeat.size(); ++level) {
    const ast::Expr* length = e.repeat[level];  // as written, for the messages
    const std::vector<shape::DimExpr>& checked = types_[entry].repeat;
    std::optional<int64_t> value =
        level < checked.size() ? evaluateDim(checked[level], values) : std::nullopt;
    if (!value || *value < 0 || *value > kMaxArrayLength) {
      diagnostics_.emit(DiagnosticKind::InvalidBindingValue, Span{}, ast::printExpr(length), "Dim",
                        value ? std::to_string(*value) : "?",
                        "an array length must be between 0 and " + std::to_string(kMaxArrayLength));
      return false;
    }
    lengths.push_back(*value);
    total *= *value;
    if (total > kMaxConcretePaths) {
      diagnostics_.emit(DiagnosticKind::InvalidBindingValue, Span{}, ast::printExpr(length), "Dim",
                        std::to_string(*value),
                        "`" + e.path + "` would have more than " + std::to_string(kMaxConcretePaths) +
                            " elements");
      return false;
    }
  }
  std::vector<int64_t> indices(lengths.size(), 0);
  if (total == 0) return true;
  while (true) {
    out.push_back(indices);
    size_t level = lengths.size();
    while (level > 0) {
      --level;
      if (++indices[level] < lengths[level]) break;
      indices[level] = 0;
      if (level == 0) return true;
    }
    if (lengths.empty()) return true;
  }
}

// The concrete path of the optional sub `entry` sits in, at `indices`.
std::string optionalSubKey(const manifest::ManifestEntry& entry, const std::vector<int64_t>& indices) {
  size_t levels = 0;
  for (size_t p = entry.optionalSub.find("[*]"); p != std::string::npos; p = entry.optionalSub.find("[*]", p + 3))
    ++levels;
  return concretePath(entry.optionalSub, std::vector<int64_t>(indices.begin(), indices.begin() + levels));
}

void Binder::bindTensors(BoundModel& model) {
  std::set<const rt::TensorView*> used;
  // An optional sub is present only if every non-optional parameter inside it
  // is; one that is partly there is an error, reported once.
  struct SubPresence { std::vector<std::string> present, missing; bool reported = false; };
  std::map<std::string, SubPresence> subs;
  for (size_t i = 0; i < manifest_.entries.size(); ++i) {
    const manifest::ManifestEntry& entry = manifest_.entries[i];
    std::vector<std::vector<int64_t>> all;
    if (entry.kind == ast::MemberKind::State || entry.optionalSub.empty() || !enumerate(i, all)) continue;
    for (const std::vector<int64_t>& indices : all) {
      SubPresence& sub = subs[optionalSubKey(entry, indices)];
      std::string tensorName = tensorNameFor(i, indices);
      if (checkpoint_.find(tensorName)) sub.present.push_back(tensorName);
      else if (!entry.ownOptional) sub.missing.push_back(tensorName);
    }
  }
  for (size_t i = 0; i < manifest_.entries.size(); ++i) {
    const manifest::ManifestEntry& entry = manifest_.entries[i];
    if (entry.kind == ast::MemberKind::State) continue;
    const check::Type& type = types_[i].type;
    std::vector<std::vector<int64_t>> all;
    if (!type.isTensor() || !enumerate(i, all)) {
      ok_ = false;
      continue;
    }
    bool shapeKnown = false;
    std::vector<int64_t> shape = concreteShape(type, values(), shapeKnown);
    std::optional<ast::ScalarType> dtype = evaluateDType(type.dtype(), model_.generics);
    std::string declared = ast::printType(entry.type);  // as written, generics substituted
    std::string expected = describeShape(shape, dtype ? ast::scalarTypeName(*dtype) : "?");
    const ast::GenericParam* dtypeParam = generic(type.dtype());
    std::string dtypeGeneric = dtypeParam ? dtypeParam->name.name : "";
    bool dtypeOverridden = !dtypeGeneric.empty() && sources_[dtypeGeneric] == "--bind";
    for (const std::vector<int64_t>& indices : all) {
      std::string path = concretePath(entry.path, indices);
      std::string tensorName = tensorNameFor(i, indices);
      const rt::TensorView* tensor = checkpoint_.find(tensorName);
      if (!entry.optionalSub.empty()) {
        std::string key = optionalSubKey(entry, indices);
        SubPresence& sub = subs[key];
        if (!sub.present.empty() && !sub.missing.empty()) {
          if (tensor) used.insert(tensor);  // reported as part of the sub, not as unexpected
          if (!sub.reported) {
            diagnostics_.emit(DiagnosticKind::PartialOptionalSub, Span{}, key, sub.present.front(),
                              sub.missing.front())
                .note("tensors of it present: " + std::to_string(sub.present.size()) +
                      "; required tensors missing: " + std::to_string(sub.missing.size()))
                .help("an optional sub is bound only when every non-optional parameter in it is");
            sub.reported = true;
            ok_ = false;
          }
          continue;
        }
        if (sub.present.empty()) tensor = nullptr;  // the whole sub is absent
      }
      if (!tensor) {
        if (!entry.optional) {
          diagnostics_.emit(DiagnosticKind::MissingTensor, Span{}, path, tensorName)
              .secondary(entry.member->name.span, "declared here")
              .note("expected " + declared + " = " + expected);
          ok_ = false;
        } else {
          model.tensors.push_back({path, tensorName, nullptr, shape, dtype.value_or(ast::ScalarType::F32), &entry});
        }
        continue;
      }
      used.insert(tensor);
      std::string actualDType(rt::dtypeName(tensor->dtype));
      bool good = true;
      if (!shapeKnown || tensor->shape != shape) {
        diagnostics_.emit(DiagnosticKind::TensorShapeMismatch, Span{}, path, declared + " = " + expected,
                          tensorName, describeShape(tensor->shape, actualDType))
            .secondary(entry.member->name.span, "declared here")
            .note("`" + tensorName + "` is in " + fileOf(checkpoint_, tensor));
        good = false;
      }
      std::optional<ast::ScalarType> fileDType = scalarOf(tensor->dtype);
      bool dtypeMatches = dtype && fileDType && *dtype == *fileDType;
      // An overridden float dtype converts at load; anything else must match.
      bool convertible = dtypeOverridden && dtype && fileDType && rt::isFloatingPoint(tensor->dtype) &&
                         dtypeViolation(ast::GenericKind::Float, *dtype).empty();
      if (!dtypeMatches && !convertible) {
        auto d = diagnostics_.emit(DiagnosticKind::TensorDTypeMismatch, Span{}, path,
                                   dtype ? std::string(ast::scalarTypeName(*dtype)) : declared, tensorName,
                                   actualDType);
        d.secondary(entry.member->name.span, "declared here");
        // Where the model's dtype came from: with one odd tensor first, every
        // other tensor is reported, and this names the odd one.
        if (auto source = sources_.find(dtypeGeneric); !dtypeGeneric.empty() && source != sources_.end() && dtype)
          d.note("`" + dtypeGeneric + "` is `" + std::string(ast::scalarTypeName(*dtype)) + "` from " + source->second);
        d.help(dtypeGeneric.empty() ? "the declared dtype must match the file"
                                    : "`--bind " + dtypeGeneric + "=" + actualDType +
                                          "` binds the model to the file's dtype");
        good = false;
      }
      if (!good) {
        ok_ = false;
        continue;
      }
      model.tensors.push_back({path, tensorName, tensor, shape, *dtype, &entry});
      model.weightBytes += static_cast<uint64_t>(tensor->elementCount) * scalarSize(*dtype);
    }
  }
  std::optional<std::map<std::string, std::pair<std::string, std::string>>> pastEnd;
  for (const rt::TensorView* tensor : checkpoint_.tensors()) {
    if (used.count(tensor)) continue;
    if (!pastEnd) pastEnd = elementsPastTheEnd();
    auto d = diagnostics_.emit(DiagnosticKind::UnexpectedTensor, Span{}, tensor->name, blockName_);
    d.note("it is in " + fileOf(checkpoint_, tensor));
    if (auto past = pastEnd->find(tensor->name); past != pastEnd->end())
      d.note(past->second.first).help(past->second.second);
    else
      d.help("map it to a parameter path in the package's bindings.json");
    ok_ = false;
  }
}

// The tensor names of the elements just past each array's end (under index
// 0 of the arrays around it), each with a note saying so: a checkpoint with
// a gap in its numbering, or more elements than --bind or config.json says.
std::map<std::string, std::pair<std::string, std::string>> Binder::elementsPastTheEnd() const {
  std::map<std::string, std::pair<std::string, std::string>> out;
  shape::Values values = this->values();
  for (size_t j = 0; j < manifest_.entries.size(); ++j) {
    const manifest::ManifestEntry& entry = manifest_.entries[j];
    if (entry.kind == ast::MemberKind::State) continue;
    const std::vector<shape::DimExpr>& repeat = types_[j].repeat;
    for (size_t level = 0; level < repeat.size(); ++level) {
      std::optional<int64_t> length = evaluateDim(repeat[level], values);
      if (!length) continue;
      std::string tail = " of `" + arrayPrefix(entry.path, level) + "`, which has " + std::to_string(*length) +
                         (*length == 1 ? " element" : " elements");
      std::string help = "the array's length and the checkpoint's elements must agree";
      if (std::optional<shape::Atom> atom = repeat[level].asAtom())
        if (const ast::GenericParam* g = generic(*atom))
          if (auto source = sources_.find(g->name.name); source != sources_.end()) {
            tail += "; `" + g->name.name + "` is " + std::to_string(*length) + " from " + source->second;
            help = countedToAGap_.count(g->name.name)
                       ? "number the checkpoint's elements 0, 1, 2, ... without a gap"
                       : "bind `" + g->name.name + "` to the checkpoint's number of elements";
          }
      for (int64_t probe = *length; probe < *length + kGapProbe && probe < kMaxArrayLength; ++probe) {
        std::vector<int64_t> indices(repeat.size(), 0);
        indices[level] = probe;
        out.emplace(tensorNameFor(j, indices), std::pair("it would be element " + std::to_string(probe) + tail, help));
      }
    }
  }
  return out;
}

void Binder::sizeState(BoundModel& model) {
  for (size_t i = 0; i < manifest_.entries.size(); ++i) {
    const manifest::ManifestEntry& entry = manifest_.entries[i];
    if (entry.kind != ast::MemberKind::State) continue;
    const check::Type& type = types_[i].type;
    std::vector<std::vector<int64_t>> all;
    if (!type.isTensor() || !enumerate(i, all)) {
      ok_ = false;
      continue;
    }
    bool shapeKnown = false;
    std::vector<int64_t> shape = concreteShape(type, values(), shapeKnown);
    uint64_t elements = 1;
    bool overflow = !shapeKnown;
    for (int64_t extent : shape)
      overflow = overflow || __builtin_mul_overflow(elements, static_cast<uint64_t>(extent), &elements);
    std::optional<ast::ScalarType> dtype = evaluateDType(type.dtype(), model_.generics);
    uint64_t bytes = 0;
    if (overflow || !dtype || __builtin_mul_overflow(elements, scalarSize(*dtype), &bytes)) {
      diagnostics_.emit(DiagnosticKind::StateTooLarge, Span{}, blockName_ + "." + entry.path,
                        "more than 2^64", "2^64");
      ok_ = false;
      continue;
    }
    for (const std::vector<int64_t>& indices : all) {
      model.state.push_back({concretePath(entry.path, indices), shape, *dtype, bytes, &entry});
      if (__builtin_add_overflow(model.stateBytes, bytes, &model.stateBytes)) {
        diagnostics_.emit(DiagnosticKind::StateTooLarge, Span{}, blockName_, "more than 2^64", "2^64");
        ok_ = false;
        return;
      }
    }
  }
}

std::optional<BoundModel> Binder::run() {
  if (!resolveTemplates()) return std::nullopt;
  for (const auto& [name, value] : inputs_.overrides) bindGeneric(name, value, "--bind");
  solveArrayLengths();
  solveDimensions();
  solveDTypes();
  applyConfigAndDefaults();
  checkConstants();
  if (!ok_ || !checkAllSolved()) return std::nullopt;
  if (!checkElementKeys()) return std::nullopt;
  if (typedBlock_ && !checkWhereClauses(*typedBlock_, blockName_, model_.generics, diagnostics_))
    return std::nullopt;
  if (inputs_.checked &&
      !checkRequirements(*inputs_.checked, block_, blockName_, model_.generics, diagnostics_))
    return std::nullopt;
  BoundModel model;
  model.generics = model_.generics;
  model.constants = model_.constants;
  model.config = model_.config;
  bindTensors(model);
  sizeState(model);
  if (!ok_) return std::nullopt;
  return model;
}

}  // namespace

std::optional<BoundModel> bindCheckpoint(const BindInputs& inputs, DiagnosticEmitter& diagnostics) {
  return Binder(inputs, diagnostics).run();
}

}  // namespace linnet::bind
