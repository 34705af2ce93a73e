// A session: one loaded artifact bound to a checkpoint, with its state,
// ready to run entries (the runtime's counterpart of IREE's session).
//
// create() takes ownership of the Artifact and the Checkpoint, binds every
// manifest parameter to the checkpoint tensor named by its `tensor` field
// (shape must match exactly; a float tensor of another float dtype is
// converted once, within a budget; data the entry would see unaligned is
// copied to aligned memory), and allocates the manifest's `state` zeroed
// (within a budget). A parameter without a `tensor` name, or parameters with
// no checkpoint given, are errors here, not at call time.
//
// call() runs one entry: it checks the argument names and dtypes, matches
// shapes and binds dims (ShapeMatch.h), runs the manifest's value checks
// (ValueChecks.h) and evaluates the result shapes and their byte sizes
// (overflow-checked, each and their sum within the result limit, see
// SessionOptions::maxResultBytes); only when all of that
// passes does it build the slots array of docs/abi.md and call the native
// code, so a call that fails a check leaves the state untouched. The
// results are copied into owned HostTensors through their descriptors'
// strides, and every `allocated` pointer the callee returned is released
// with free() (each distinct pointer once), also when a result is rejected.
//
// Ownership: the Session owns the artifact (code), the checkpoint (mapping),
// converted weights and state; the caller keeps its argument tensors, which
// the native code reads but must not write. Move-only. Not synchronised: one
// call at a time.
#pragma once

#include "runtime/artifact/Artifact.h"
#include "runtime/artifact/DimExpr.h"
#include "runtime/checkpoint/Checkpoint.h"
#include "runtime/session/HostTensor.h"
#include "runtime/state/StateBuffers.h"
#include "runtime/support/Status.h"

#include <cstddef>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace linnet::rt {

struct SessionOptions {
  // Most bytes the manifest's state may take (the mapping is lazy: untouched
  // pages cost nothing, but the budget bounds what a manifest may ask for).
  std::size_t maxStateBytes = std::size_t{64} << 30;
  // Most bytes of parameters converted to another float dtype at load.
  std::size_t maxConvertedBytes = std::size_t{64} << 30;
  // Most bytes one call's results may take together, checked before the
  // call from the result shapes (docs/runtime.md, "Result sizes"). Never
  // more than a quarter of memoryCeiling() (MemoryPolicy.h), because each
  // result is held twice while it is copied out, beside the weights and the
  // call's temporaries; 0 means that bound alone.
  std::size_t maxResultBytes = 0;
  // Most bytes a call's generated code may hold at once (its temporaries and
  // results), checked by the code at each allocation (docs/runtime.md,
  // "Temporaries"). Never more than memoryCeiling(); 0 means that bound.
  std::size_t maxCallBytes = 0;
};

// An entry's arguments by name.
using ArgMap = std::map<std::string, HostTensor, std::less<>>;

class Session {
public:
  // `checkpoint` may be empty only if the manifest has no parameters.
  static Expected<Session> create(Artifact artifact, std::optional<Checkpoint> checkpoint,
                                  const SessionOptions &options = {});

  Session(Session &&) noexcept;
  Session &operator=(Session &&) noexcept;
  Session(const Session &) = delete;
  Session &operator=(const Session &) = delete;
  ~Session();

  const Artifact &artifact() const;
  const Manifest &manifest() const;

  // Runs `entry` with `args`; `binds` give the entry's dims that no
  // argument fixes (and may restate integer generics). Returns the result
  // parts in manifest order (empty for an entry without results).
  Expected<std::vector<HostTensor>> call(std::string_view entry, const ArgMap &args, const DimEnv &binds = {});
  // The same, of one variant of an entry the caller chose (one of
  // manifest().entries): the command line's, where an argument given as
  // `none` and one left out run different variants.
  Expected<std::vector<HostTensor>> call(const EntrySpec &variant, const ArgMap &args, const DimEnv &binds = {});

  // Everything call() checks, without running: the call's dims and generics.
  Expected<DimEnv> check(std::string_view entry, const ArgMap &args, const DimEnv &binds = {}) const;

  // Seconds the last successful call spent inside the generated code (the
  // rest of its time is the runtime's: checks, descriptors, result copies).
  double lastCallNativeSeconds() const;

  StateBuffers &state();
  const StateBuffers &state() const;

  // Bytes of earlier calls' results the caller keeps (linnet-run --calls
  // --out writes them at the end): taken from what the next calls' results
  // may take, so that the kept results cannot grow past memory.
  void keepResults(std::size_t bytes);

private:
  // call(): of the variant `chosen`, or (null) of the one the arguments fit.
  Expected<std::vector<HostTensor>> callEntry(std::string_view entry, const EntrySpec *chosen, const ArgMap &args,
                                              const DimEnv &binds);
  struct Impl;
  explicit Session(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

} // namespace linnet::rt
