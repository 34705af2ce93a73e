// Implementation of Session.h.
//
// Descriptors for parameters and state are built once at create(): their
// buffers never move (the checkpoint's mapping, Weights' buffers and the
// state mapping are stable across moves of their owners, and the Impl lives
// behind a unique_ptr). Per call only the argument and result descriptors
// and the dim values are built.
#include "runtime/session/Session.h"

#include <chrono>

#include "runtime/artifact/ShapeMatch.h"
#include "runtime/checkpoint/Weights.h"
#include "runtime/session/MemRef.h"
#include "runtime/session/ValueChecks.h"
#include "runtime/support/MemoryPolicy.h"
#include "runtime/support/ShownName.h"

#include <fmt/ranges.h>

#include <algorithm>
#include <deque>
#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <set>

#include <unistd.h>

namespace linnet::rt {

namespace {

// What one call's results may take together, and why (for messages).
struct ResultLimit {
  std::size_t bytes = 0;
  std::string why;
};

ResultLimit resultLimit(const SessionOptions &options) {
  MemoryCeiling ceiling = memoryCeiling();
  // Each result is held twice while it is copied out: at a quarter, two
  // copies leave half of memory to the weights and the call's temporaries
  // (at a half, a result at the limit took all of it, and the kernel's
  // out-of-memory killer ended the process without a word).
  ResultLimit limit{ceiling.bytes / 4, fmt::format("a quarter of {}, {}, as each result is held twice while it is "
                                                   "copied out, beside the weights and the call's temporaries",
                                                   ceiling.what, formatByteCount(ceiling.bytes))};
  if (options.maxResultBytes != 0 && options.maxResultBytes < limit.bytes)
    limit = {options.maxResultBytes, "the session's cap, --max-result-bytes"};
  return limit;
}

// `limit` less the bytes of earlier results the caller keeps (keepResults).
ResultLimit lessKept(ResultLimit limit, std::size_t kept) {
  if (kept == 0)
    return limit;
  limit.bytes = kept < limit.bytes ? limit.bytes - kept : 0;
  limit.why += fmt::format(", less the {} of earlier calls' results kept for the output file", formatByteCount(kept));
  return limit;
}

// The call in flight, for the allocation failure handler's message: the
// generated code may fail from any of its threads, with no way back to the
// caller, so the handler reports and ends the process (docs/runtime.md,
// "Temporaries").
struct CallInFlight {
  std::string_view entry;
  const DimEnv *env = nullptr;
  std::string_view limitWhy;
};
std::atomic<const CallInFlight *> callInFlight{nullptr};

extern "C" [[noreturn]] void linnetAllocationFailed(std::uint64_t requested, std::uint64_t live,
                                                    std::uint64_t limit) {
  // Several threads may fail at once: one reports, the others wait for it.
  static std::atomic_flag reporting = ATOMIC_FLAG_INIT;
  if (reporting.test_and_set())
    for (;;)
      pause();
  const CallInFlight *call = callInFlight.load();
  std::string where = call ? fmt::format("entry `{}`", call->entry) : std::string("the generated code");
  if (call && call->env && !call->env->empty()) {
    std::vector<std::string> dims;
    for (const auto &[name, value] : *call->env)
      dims.push_back(fmt::format("{} = {}", name, value));
    where += fmt::format(" with {}", fmt::join(dims, ", "));
  }
  std::string held = live == 0 ? std::string() : fmt::format(" with {} already held by this call", formatByteCount(live));
  std::string why = call ? std::string(call->limitWhy) : std::string("the session's limit");
  const char *tool = program_invocation_short_name;
  std::string message;
  if (requested == std::numeric_limits<std::uint64_t>::max())
    message = fmt::format("{}: error: {}: its generated code needs a buffer whose size in bytes overflows 64 bits; the "
                          "process stops\n",
                          tool, where);
  else if (requested > limit || requested + live > limit)
    message = fmt::format("{}: error: {}: its generated code needs a buffer of {}{}, more than the {} a call may hold "
                          "({}); the process stops\n",
                          tool, where, formatByteCount(requested), held, formatByteCount(limit), why);
  else
    message = fmt::format("{}: error: {}: its generated code could not allocate a buffer of {}{} (malloc failed); the "
                          "process stops\n",
                          tool, where, formatByteCount(requested), held);
  std::fflush(stdout);
  std::fputs(message.c_str(), stderr);
  std::fflush(stderr);
  _exit(1);
}

} // namespace

struct Session::Impl {
  Artifact artifact;
  std::optional<Checkpoint> checkpoint;
  std::optional<Weights> weights;
  std::vector<std::unique_ptr<std::byte[]>> alignedCopies; // parameters realigned at load
  std::optional<StateBuffers> state;
  // One descriptor per parameter, then one per state buffer (slot order).
  std::vector<std::vector<std::int64_t>> fixedDescriptors;
  double lastNativeSeconds = 0;
  ResultLimit resultLimit;
  std::size_t keptResultBytes = 0; // keepResults
  std::string allocationLimitWhy;

  explicit Impl(Artifact a) : artifact(std::move(a)) {}
};

Session::Session(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Session::Session(Session &&) noexcept = default;
Session &Session::operator=(Session &&) noexcept = default;
Session::~Session() = default;

const Artifact &Session::artifact() const { return impl_->artifact; }
const Manifest &Session::manifest() const { return impl_->artifact.manifest(); }
double Session::lastCallNativeSeconds() const { return impl_->lastNativeSeconds; }

StateBuffers &Session::state() { return *impl_->state; }
const StateBuffers &Session::state() const { return *impl_->state; }

// The build bound the model with config.json values (rope theta, norm
// epsilon, head counts, ...) the tensors do not show: a checkpoint that
// says otherwise about one of the keys its binding read would run with the
// wrong numbers, silently. `linnet build` against it refuses or rebinds it.
static Status checkConfig(const ConfigRecord &record, const Checkpoint &checkpoint, const std::string &source) {
  if (!checkpoint.hasConfig() || !checkpoint.config().is_object())
    return makeError("{}: the checkpoint has no config.json, but the artifact was built against one: its values "
                     "cannot be compared (rope theta, norm epsilon, head counts)",
                     source);
  // A null value is an absent key (transformers reads both as its default).
  const nlohmann::json &config = checkpoint.config();
  auto here = [&](const std::string &key) -> const nlohmann::json * {
    auto it = config.find(key);
    return it == config.end() || it->is_null() ? nullptr : &*it;
  };
  // The checkpoint's value as written, shortened (a 5 MB `hidden_act`).
  auto shown = [](const nlohmann::json *value) {
    return value ? shownName(value->dump(-1, ' ', false, nlohmann::json::error_handler_t::replace))
                 : std::string("absent");
  };
  std::vector<std::string> differences;
  // JSON compares 4.0 equal to 4, but a key the build read as an integer
  // (a head count) refuses `4.0` at build: so does the run.
  auto differ = [](const nlohmann::json &now, const nlohmann::json &built) {
    return now != built || (built.is_number_integer() && !now.is_number_integer());
  };
  auto compare = [&](const std::string &key, const nlohmann::json *built) {
    const nlohmann::json *now = here(key);
    if ((now == nullptr) != (built == nullptr) || (now && differ(*now, *built)))
      differences.push_back(fmt::format("`{}` is {} (the build's: {})", key, shown(now), shown(built)));
  };
  for (const auto &[key, value] : record.values)
    compare(key, value.is_null() ? nullptr : &value);
  for (const std::string &key : record.absent)
    compare(key, nullptr);
  if (differences.empty())
    return Status::success();
  return makeError("{}: the checkpoint's config.json differs from the one the artifact was built against: {}; "
                   "rebuild it against this checkpoint (`linnet build --checkpoint {}`)",
                   source, fmt::join(differences, ", "), checkpoint.directory().string());
}

Expected<Session> Session::create(Artifact artifact, std::optional<Checkpoint> checkpoint,
                                  const SessionOptions &options) {
  auto impl = std::make_unique<Impl>(std::move(artifact));
  impl->checkpoint = std::move(checkpoint);
  impl->resultLimit = resultLimit(options);
  if (const Artifact::AllocationControl &control = impl->artifact.allocationControl(); control.limit) {
    MemoryCeiling ceiling = memoryCeiling();
    if (options.maxCallBytes != 0 && options.maxCallBytes < ceiling.bytes)
      ceiling = {options.maxCallBytes, "the session's cap, --max-call-bytes"};
    impl->allocationLimitWhy = ceiling.what;
    __atomic_store_n(control.limit, static_cast<std::int64_t>(std::min<std::size_t>(
                                        ceiling.bytes, std::numeric_limits<std::int64_t>::max())),
                     __ATOMIC_RELAXED);
    void (*handler)(std::uint64_t, std::uint64_t, std::uint64_t) = &linnetAllocationFailed;
    static_assert(sizeof handler == sizeof(void *));
    std::memcpy(control.handler, &handler, sizeof handler);
  }
  const Manifest &manifest = impl->artifact.manifest();
  const std::string &source = impl->artifact.sourceName();

  // Parameters: bind by the manifest's tensor names.
  if (!manifest.parameters.empty() && !impl->checkpoint)
    return makeError("{}: the model has {} parameters but no checkpoint was given", source,
                     manifest.parameters.size());
  if (manifest.config && impl->checkpoint)
    if (Status s = checkConfig(*manifest.config, *impl->checkpoint, source); !s)
      return s.error();
  std::vector<WeightRequest> requests;
  std::set<std::string_view> bound; // the checkpoint tensors the parameters name
  for (const ParameterSpec &param : manifest.parameters) {
    if (!param.tensor)
      return makeError("{}: parameter `{}` names no checkpoint tensor (the artifact was built without a checkpoint)",
                       source, param.path);
    Expected<const TensorView *> tensor = impl->checkpoint->get(*param.tensor);
    if (!tensor)
      return makeError("{}: parameter `{}`: {}", source, param.path, tensor.message());
    if ((*tensor)->shape != param.shape)
      return makeError("{}: parameter `{}`: checkpoint tensor `{}` has shape [{}], the artifact expects [{}]", source,
                       param.path, *param.tensor, fmt::join((*tensor)->shape, ", "), fmt::join(param.shape, ", "));
    // The dtype the build bound: the parameter's, or the one it converts
    // from (`stored`). Another would be converted silently where the
    // compiler's binder refuses it (E5106).
    DType expected = param.stored.value_or(param.dtype);
    if ((*tensor)->dtype != expected)
      return makeError("{}: parameter `{}`: checkpoint tensor `{}` is {}, the artifact was built for a checkpoint "
                       "storing it as {}; rebuild the artifact against this checkpoint",
                       source, param.path, *param.tensor, dtypeName((*tensor)->dtype), dtypeName(expected));
    requests.push_back({param.path, *tensor, param.dtype});
    bound.insert(*param.tensor);
  }
  // A tensor bound to no parameter, as the compiler's binder refuses it
  // (E5104): the artifact was built against a checkpoint without it, e.g.
  // with an optional parameter or sub-block absent that this checkpoint
  // has. Running would silently ignore it.
  if (!manifest.parameters.empty()) {
    for (const TensorView *tensor : impl->checkpoint->tensors())
      if (!bound.count(tensor->name))
        return makeError("{}: the checkpoint's tensor `{}` is bound to no parameter of the artifact, which was built "
                         "against a checkpoint without it (an optional parameter or sub-block it lacked?); rebuild "
                         "the artifact against this checkpoint",
                         source, tensor->name);
  }
  Expected<Weights> weights = Weights::load(requests, options.maxConvertedBytes);
  if (!weights)
    return makeError("{}: {}", source, weights.message());
  impl->weights = std::move(*weights);
  for (const WeightView &view : impl->weights->views()) {
    const std::byte *data = view.data;
    std::size_t align = dtypeSize(view.dtype);
    if (view.byteSize != 0 && reinterpret_cast<std::uintptr_t>(data) % align != 0) {
      auto copy = std::make_unique<std::byte[]>(view.byteSize);
      std::memcpy(copy.get(), data, view.byteSize);
      data = copy.get();
      impl->alignedCopies.push_back(std::move(copy));
    }
    impl->fixedDescriptors.push_back(makeMemRef(data, view.shape));
  }

  // State: zeroed buffers.
  Expected<StateBuffers> state = StateBuffers::allocate(manifest.state, options.maxStateBytes);
  if (!state)
    return makeError("{}: {}", source, state.message());
  impl->state = std::move(*state);
  for (std::size_t i = 0; i < impl->state->size(); ++i) {
    StateView view = impl->state->view(i);
    impl->fixedDescriptors.push_back(makeMemRef(view.data, view.shape));
  }
  return Session(std::move(impl));
}

namespace {

struct PreparedCall {
  const EntrySpec *entry = nullptr;
  std::size_t entryIndex = 0;
  std::vector<const HostTensor *> args; // in entry order
  std::deque<HostTensor> defaults;      // the defaults taken, which `args` points at
  DimEnv env;
  std::vector<std::vector<std::int64_t>> resultShapes;
};

// "x: f32[2, 3], k: f32[]", for messages.
std::string describeArgs(const ArgMap &args) {
  std::vector<std::string> parts;
  for (const auto &[name, value] : args)
    parts.push_back(fmt::format("{}: {}[{}]", name, dtypeName(value.dtype()), fmt::join(value.shape(), ", ")));
  return parts.empty() ? std::string("none") : fmt::format("{}", fmt::join(parts, ", "));
}

// "f32[N, N] = [100000, 100000] with N = 100000", for messages.
std::string describeResult(const ResultSpec &result, std::span<const std::int64_t> shape, const DimEnv &env) {
  std::string text = fmt::format("{}{}", dtypeName(result.dtype), formatShapeExprs(result.shape));
  std::vector<std::string> names;
  for (const DimExpr &axis : result.shape)
    for (const std::string &name : axis.names())
      if (std::find(names.begin(), names.end(), name) == names.end())
        names.push_back(name);
  if (names.empty())
    return text;
  std::vector<std::string> values;
  for (const std::string &name : names)
    if (auto it = env.find(name); it != env.end())
      values.push_back(fmt::format("{} = {}", name, it->second));
  return fmt::format("{} = [{}] with {}", text, fmt::join(shape, ", "), fmt::join(values, ", "));
}

// The results' byte sizes, before anything runs: each computed in int64 (the
// generated code computes its allocation sizes so) with overflow checks, and
// each and their sum within `limit`.
Status checkResultSizes(const EntrySpec &entry, std::span<const std::vector<std::int64_t>> shapes, const DimEnv &env,
                        const ResultLimit &limit) {
  std::vector<std::size_t> sizes;
  std::size_t total = 0;
  for (std::size_t r = 0; r < entry.results.size(); ++r) {
    const ResultSpec &result = entry.results[r];
    std::int64_t bytes = static_cast<std::int64_t>(dtypeSize(result.dtype));
    bool overflow = false;
    for (std::int64_t dim : shapes[r])
      overflow = overflow || __builtin_mul_overflow(bytes, dim, &bytes);
    if (overflow)
      return makeError("entry `{}` result {} is {}: its size in bytes overflows int64; nothing was run", entry.name,
                       r, describeResult(result, shapes[r], env));
    auto size = static_cast<std::size_t>(bytes);
    if (size > limit.bytes)
      return makeError("entry `{}` result {} is {}: {}, more than the {} all results of a call may take ({}); "
                       "nothing was run",
                       entry.name, r, describeResult(result, shapes[r], env), formatByteCount(size),
                       formatByteCount(limit.bytes), limit.why);
    sizes.push_back(size);
    total += size; // each is at most limit.bytes <= SIZE_MAX / 2 ...
    if (total > limit.bytes) { // ... so checking here keeps the sum from overflowing
      std::vector<std::string> parts;
      for (std::size_t i = 0; i <= r; ++i)
        parts.push_back(fmt::format("result {}: {} bytes", i, sizes[i]));
      std::set<std::string> names;
      for (const ResultSpec &spec : entry.results)
        for (const DimExpr &axis : spec.shape)
          for (const std::string &name : axis.names())
            names.insert(name);
      std::vector<std::string> dims;
      for (const std::string &name : names)
        if (auto it = env.find(name); it != env.end())
          dims.push_back(fmt::format("{} = {}", name, it->second));
      return makeError("entry `{}`'s results take {} together ({}){}, more than the {} they may take ({}); "
                       "nothing was run",
                       entry.name, formatByteCount(total), fmt::join(parts, ", "),
                       dims.empty() ? std::string() : fmt::format(" with {}", fmt::join(dims, ", ")),
                       formatByteCount(limit.bytes), limit.why);
    }
  }
  return Status::success();
}

Expected<PreparedCall> prepare(const Manifest &manifest, std::string_view entryName, const ArgMap &args,
                               const DimEnv &binds, const ResultLimit &limit, const EntrySpec *chosen = nullptr) {
  PreparedCall call;
  call.entry = chosen ? chosen : manifest.findEntry(entryName);
  if (std::vector<const EntrySpec *> variants = manifest.findVariants(entryName); !chosen && variants.size() > 1) {
    // The variant that takes exactly the given arguments, with their dtypes
    // and ranks; an argument left out that a variant computes from its
    // default runs such a variant.
    auto fits = [&](const EntrySpec &variant) {
      if (!fitsLeftOutDefaults(variants, variant, [&](const std::string &name) { return !args.count(name); }))
        return false;
      std::size_t given = 0;
      for (const ArgSpec &spec : variant.args) {
        auto it = args.find(spec.name);
        if (it == args.end() && spec.defaultValue)
          continue;
        if (it == args.end() || it->second.dtype() != spec.dtype || it->second.shape().size() != spec.shape.size())
          return false;
        ++given;
      }
      return given == args.size();
    };
    auto match = std::find_if(variants.begin(), variants.end(), [&](const EntrySpec *v) { return fits(*v); });
    if (match == variants.end())
      return makeError("entry `{}` has no variant for these arguments ({}); it was compiled for {}",
                       shownName(entryName), describeArgs(args), formatVariants(variants));
    call.entry = *match;
  }
  if (!call.entry) {
    std::vector<std::string_view> names;
    for (const EntrySpec &entry : manifest.entries)
      if (std::find(names.begin(), names.end(), entry.name) == names.end())
        names.push_back(entry.name);
    return makeError("the artifact has no entry `{}` (entries: {})", shownName(entryName),
                     names.empty() ? std::string("none") : fmt::format("{}", fmt::join(names, ", ")));
  }
  const EntrySpec &entry = *call.entry;
  call.entryIndex = static_cast<std::size_t>(call.entry - manifest.entries.data());
  for (const auto &[name, value] : args)
    if (!entry.findArg(name))
      return makeError("entry `{}` has no argument `{}`", entry.name, shownName(name));
  std::vector<std::vector<std::int64_t>> shapes;
  for (const ArgSpec &spec : entry.args) {
    auto it = args.find(spec.name);
    if (it == args.end() && spec.defaultValue) {
      call.defaults.push_back(HostTensor::scalar(spec.dtype, *spec.defaultValue));
      call.args.push_back(&call.defaults.back());
      shapes.push_back({});
      continue;
    }
    if (it == args.end())
      return makeError("missing argument `{}` ({}{})", spec.name, dtypeName(spec.dtype),
                       formatShapeExprs(spec.shape));
    if (it->second.dtype() != spec.dtype)
      return makeError("argument `{}` is {} but entry `{}` takes {}", spec.name, dtypeName(it->second.dtype()),
                       entry.name, dtypeName(spec.dtype));
    call.args.push_back(&it->second);
    shapes.push_back(it->second.shape());
  }
  Expected<DimEnv> env = matchShapes(manifest, entry, shapes, binds);
  if (!env)
    return env.error();
  call.env = std::move(*env);
  if (Status s = checkDimRequirements(entry, call.env); !s)
    return s.error();
  if (Status s = checkArgumentValues(entry, call.args, call.env); !s)
    return s.error();
  for (std::size_t r = 0; r < entry.results.size(); ++r) {
    Expected<std::vector<std::int64_t>> shape =
        evaluateShape(entry.results[r].shape, call.env, fmt::format("result {}", r));
    if (!shape)
      return shape.error();
    call.resultShapes.push_back(std::move(*shape));
  }
  if (Status s = checkResultSizes(entry, call.resultShapes, call.env, limit); !s)
    return s.error();
  return call;
}

} // namespace

Expected<DimEnv> Session::check(std::string_view entry, const ArgMap &args, const DimEnv &binds) const {
  Expected<PreparedCall> call =
      prepare(manifest(), entry, args, binds, lessKept(impl_->resultLimit, impl_->keptResultBytes));
  if (!call)
    return call.error();
  return std::move(call->env);
}

Expected<std::vector<HostTensor>> Session::call(std::string_view entryName, const ArgMap &args,
                                                const DimEnv &binds) {
  return callEntry(entryName, nullptr, args, binds);
}

Expected<std::vector<HostTensor>> Session::call(const EntrySpec &variant, const ArgMap &args, const DimEnv &binds) {
  return callEntry(variant.name, &variant, args, binds);
}

void Session::keepResults(std::size_t bytes) { impl_->keptResultBytes += bytes; }

Expected<std::vector<HostTensor>> Session::callEntry(std::string_view entryName, const EntrySpec *chosen,
                                                     const ArgMap &args, const DimEnv &binds) {
  Expected<PreparedCall> prepared =
      prepare(manifest(), entryName, args, binds, lessKept(impl_->resultLimit, impl_->keptResultBytes), chosen);
  if (!prepared)
    return prepared.error();
  const EntrySpec &entry = *prepared->entry;

  // Result block: consecutive descriptors, zeroed so a callee that fails to
  // fill one leaves null pointers rather than garbage.
  std::vector<std::size_t> resultOffsets;
  std::size_t resultWords = 0;
  for (const ResultSpec &result : entry.results) {
    resultOffsets.push_back(resultWords);
    resultWords += memrefWords(result.shape.size());
  }
  std::vector<std::int64_t> resultBlock(resultWords, 0);

  std::vector<std::int64_t> dimValues;
  for (const std::string &dim : entry.dims)
    dimValues.push_back(prepared->env.at(dim));

  std::vector<std::vector<std::int64_t>> argDescriptors;
  for (const HostTensor *arg : prepared->args)
    argDescriptors.push_back(makeMemRef(arg->bytes().data(), arg->shape()));

  std::vector<void *> slots;
  if (!entry.results.empty())
    slots.push_back(resultBlock.data());
  for (std::int64_t &value : dimValues)
    slots.push_back(&value);
  for (std::vector<std::int64_t> &descriptor : impl_->fixedDescriptors)
    slots.push_back(descriptor.data());
  for (std::vector<std::int64_t> &descriptor : argDescriptors)
    slots.push_back(descriptor.data());

  // The live-byte count starts from nothing: the previous call's results
  // were freed by the runtime, which the generated code does not see.
  const Artifact::AllocationControl &control = impl_->artifact.allocationControl();
  CallInFlight inFlight{entry.name, &prepared->env, impl_->allocationLimitWhy};
  if (control.live) {
    __atomic_store_n(control.live, 0, __ATOMIC_RELAXED);
    callInFlight.store(&inFlight);
  }
  auto nativeStart = std::chrono::steady_clock::now();
  impl_->artifact.entryFunction(prepared->entryIndex)(slots.data());
  callInFlight.store(nullptr);
  impl_->lastNativeSeconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - nativeStart).count();

  // Take ownership of every result before anything can fail.
  std::vector<HostTensor> results;
  std::set<void *> toFree;
  std::optional<Error> failure;
  for (std::size_t r = 0; r < entry.results.size(); ++r) {
    MemRefView view = readMemRef(resultBlock.data() + resultOffsets[r], entry.results[r].shape.size());
    if (view.allocated)
      toFree.insert(view.allocated);
    if (failure)
      continue;
    Expected<HostTensor> copy = copyMemRef(view, entry.results[r].dtype, prepared->resultShapes[r]);
    if (!copy)
      failure = makeError("entry `{}` result {}: {}", entry.name, r, copy.message());
    else
      results.push_back(std::move(*copy));
  }
  for (void *pointer : toFree)
    std::free(pointer);
  if (failure)
    return *failure;
  return results;
}

} // namespace linnet::rt
