// Loading an artifact (see Artifact.h).
#include "runtime/artifact/Artifact.h"

#include "runtime/artifact/ArtifactFile.h"
#include "runtime/checkpoint/MappedFile.h"

#include <cstring>

namespace linnet::rt {

namespace {

#if defined(__x86_64__)
constexpr std::string_view kHostArch = "x86_64";
#elif defined(__aarch64__)
constexpr std::string_view kHostArch = "aarch64";
#endif

// Whether this CPU has `feature` (LLVM's spelling); nullopt when the runtime
// cannot tell, in which case the feature is not checked.
std::optional<bool> cpuHas(std::string_view feature) {
#if defined(__x86_64__)
  __builtin_cpu_init();
#define LINNET_FEATURE(name)                                                                                           \
  if (feature == name)                                                                                                 \
    return __builtin_cpu_supports(name) != 0;
  LINNET_FEATURE("sse4.2")
  LINNET_FEATURE("avx")
  LINNET_FEATURE("avx2")
  LINNET_FEATURE("fma")
  LINNET_FEATURE("bmi2")
  LINNET_FEATURE("avx512f")
  LINNET_FEATURE("avx512bw")
  LINNET_FEATURE("avx512dq")
  LINNET_FEATURE("avx512vl")
  LINNET_FEATURE("avx512cd")
  LINNET_FEATURE("avx512vnni")
  LINNET_FEATURE("avx512bf16")
  // Every other instruction-set extension the compiler (GCC 12) can ask the
  // CPU about: an artifact built with `+avx512fp16` on a Sapphire Rapids
  // ran into SIGILL here. Features it cannot ask about (newer ones such as
  // `avxvnniint8`, and bookkeeping ones such as `64bit`) stay unchecked.
  LINNET_FEATURE("sse3")
  LINNET_FEATURE("ssse3")
  LINNET_FEATURE("sse4.1")
  LINNET_FEATURE("sse4a")
  LINNET_FEATURE("popcnt")
  LINNET_FEATURE("bmi")
  LINNET_FEATURE("lzcnt")
  LINNET_FEATURE("movbe")
  LINNET_FEATURE("adx")
  LINNET_FEATURE("aes")
  LINNET_FEATURE("pclmul")
  LINNET_FEATURE("sha")
  LINNET_FEATURE("rdrnd")
  LINNET_FEATURE("rdseed")
  LINNET_FEATURE("f16c")
  LINNET_FEATURE("fma4")
  LINNET_FEATURE("xop")
  LINNET_FEATURE("gfni")
  LINNET_FEATURE("vaes")
  LINNET_FEATURE("vpclmulqdq")
  LINNET_FEATURE("avxvnni")
  LINNET_FEATURE("avx512ifma")
  LINNET_FEATURE("avx512vbmi")
  LINNET_FEATURE("avx512vbmi2")
  LINNET_FEATURE("avx512vpopcntdq")
  LINNET_FEATURE("avx512bitalg")
  LINNET_FEATURE("avx512vp2intersect")
  LINNET_FEATURE("avx512fp16")
  LINNET_FEATURE("amx-tile")
  LINNET_FEATURE("amx-int8")
  LINNET_FEATURE("amx-bf16")
#undef LINNET_FEATURE
#endif
  (void)feature;
  return std::nullopt;
}

} // namespace

Status checkTargetRunsHere(const TargetSpec &target, std::string_view sourceName) {
  std::string_view triple = target.triple;
  std::string_view arch = triple.substr(0, triple.find('-'));
  if (arch != kHostArch)
    return makeError("{}: built for {} ({}), but this machine is {}", sourceName, arch, target.triple, kHostArch);
  std::string_view features = target.features;
  while (!features.empty()) {
    std::size_t comma = features.find(',');
    std::string_view item = features.substr(0, comma);
    features = comma == std::string_view::npos ? std::string_view() : features.substr(comma + 1);
    if (item.size() < 2 || item[0] != '+')
      continue;
    std::optional<bool> has = cpuHas(item.substr(1));
    if (has && !*has)
      return makeError("{}: built for CPU feature `{}`, which this machine lacks (cpu `{}`)", sourceName,
                       item.substr(1), target.cpu);
  }
  return Status::success();
}

Expected<Artifact> Artifact::open(const std::filesystem::path &path) {
  Expected<MappedFile> file = MappedFile::open(path);
  if (!file)
    return file.error();
  return load(file->bytes(), path.string());
}

Expected<Artifact> Artifact::load(std::span<const std::byte> image, std::string sourceName) {
  Expected<ArtifactContents> contents = splitArtifact(image, sourceName);
  if (!contents)
    return contents.error();
  Expected<Manifest> manifest = parseManifest(contents->manifestJson, sourceName);
  if (!manifest)
    return manifest.error();
  if (Status s = checkTargetRunsHere(manifest->target, sourceName); !s)
    return s.error();
  Expected<SharedObject> code = SharedObject::load(contents->sharedObject, sourceName);
  if (!code)
    return code.error();
  Artifact artifact;
  artifact.sourceName_ = std::move(sourceName);
  artifact.manifest_ = std::move(*manifest);
  artifact.code_ = std::move(*code);
  for (const EntrySpec &entry : artifact.manifest_.entries) {
    Expected<void *> address = artifact.code_.symbol(entry.symbol);
    if (!address)
      return makeError("{} (entry `{}`)", address.message(), entry.name);
    EntryFunction function;
    static_assert(sizeof function == sizeof(void *));
    std::memcpy(&function, &*address, sizeof function);
    artifact.functions_.push_back(function);
  }
  // All three or none: code from before the controls has none; part of them
  // is a malformed object.
  Expected<void *> limit = artifact.code_.symbol("linnet_allocation_limit");
  Expected<void *> live = artifact.code_.symbol("linnet_allocated_bytes");
  Expected<void *> handler = artifact.code_.symbol("linnet_allocation_failure");
  if (limit && live && handler)
    artifact.allocation_ = {static_cast<std::int64_t *>(*limit), static_cast<std::int64_t *>(*live),
                            static_cast<void **>(*handler)};
  else if (limit || live || handler)
    return makeError("{}: the native code defines only some of the allocation controls (docs/abi.md)",
                     artifact.sourceName_);
  return artifact;
}

} // namespace linnet::rt
