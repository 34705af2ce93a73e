// libFuzzer target for the artifact reader: the .lnpkg container
// (splitArtifact) and the manifest (parseManifest), on arbitrary bytes. The
// native code is never loaded (dlopen would run it). Accepted manifests are
// exercised further: every dim expression is evaluated with each name bound
// to a few values (overflow and division must be errors, never UB), and
// matchShapes runs on shapes built from those values, and so do the entries'
// `requires` relations. Rejected inputs must
// carry a message.
#include "runtime/artifact/ArtifactFile.h"
#include "runtime/artifact/Manifest.h"
#include "runtime/artifact/ShapeMatch.h"
#include "runtime/session/ValueChecks.h"

#include <cstddef>
#include <cstdint>
#include <span>

namespace {

void check(bool condition) {
  if (!condition)
    __builtin_trap();
}

void exercise(const linnet::rt::Manifest &manifest, std::int64_t value) {
  for (const linnet::rt::EntrySpec &entry : manifest.entries) {
    linnet::rt::DimEnv env = manifest.genericDims();
    for (const std::string &dim : entry.dims)
      env[dim] = value;
    std::vector<std::vector<std::int64_t>> shapes;
    for (const linnet::rt::ArgSpec &arg : entry.args) {
      std::vector<std::int64_t> shape;
      for (const linnet::rt::DimExpr &axis : arg.shape) {
        auto size = axis.evaluate(env);
        shape.push_back(size.ok() ? *size : value);
      }
      shapes.push_back(std::move(shape));
    }
    auto matched = linnet::rt::matchShapes(manifest, entry, shapes, {});
    check(matched.ok() || !matched.message().empty());
    for (const linnet::rt::ResultSpec &result : entry.results) {
      auto shape = linnet::rt::evaluateShape(result.shape, env, "result");
      check(shape.ok() || !shape.message().empty());
    }
    // Requirements: evaluated like the runtime does before a call; a failure
    // or an evaluation error must be a message, never UB.
    linnet::rt::Status required = linnet::rt::checkDimRequirements(entry, env);
    check(required.ok() || !required.message().empty());
    for (const linnet::rt::ValueCheck &rule : entry.checks) {
      check(rule.argIndex < entry.args.size() && entry.args[rule.argIndex].name == rule.arg);
      if (rule.max)
        (void)rule.max->evaluate(env);
    }
  }
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size) {
  std::span<const std::byte> bytes(reinterpret_cast<const std::byte *>(data), size);
  // The input as a whole artifact, and (for a denser search) as a manifest.
  auto contents = linnet::rt::splitArtifact(bytes, "<fuzz input>");
  std::string_view manifestText;
  if (contents.ok()) {
    check(contents->manifestJson.size() + contents->sharedObject.size() + 32 == size);
    manifestText = contents->manifestJson;
  } else {
    check(!contents.message().empty());
    manifestText = std::string_view(reinterpret_cast<const char *>(data), size);
  }
  auto manifest = linnet::rt::parseManifest(manifestText, "<fuzz input>");
  if (!manifest.ok()) {
    check(!manifest.message().empty());
    return 0;
  }
  for (std::int64_t value : {std::int64_t{0}, std::int64_t{1}, std::int64_t{7}, std::int64_t{1} << 31,
                             std::int64_t{-1}, INT64_MAX, INT64_MIN})
    exercise(*manifest, value);
  return 0;
}
