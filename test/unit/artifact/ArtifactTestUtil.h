// Helpers for the artifact and session tests: the manifest that matches the
// hand-written entries of fake_entries.c, the bytes of that shared object
// (built by CMake; its path comes in as LINNET_FAKE_ENTRIES_SO), a checkpoint
// holding `bias`. Temporary directories are the runtime tests' TempDir.
#pragma once

#include "runtime/session/HostTensor.h"
#include "test/unit/runtime/TestFiles.h"  // TempDir

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <string>
#include <vector>

// Expects `needle` in the message `text` (printed when it is not there).
#define EXPECT_HAS(text, needle)                                                                                       \
  do {                                                                                                                 \
    std::string message_ = (text);                                                                                     \
    EXPECT_NE(message_.find(needle), std::string::npos) << message_;                                                   \
  } while (0)

namespace linnet::rt::test {


// The manifest for fake_entries.c (entries add, accumulate, pick, iota,
// poke, wrong_shape).
nlohmann::json fakeManifest();
// The fake shared object's bytes.
std::string fakeSharedObject();
// Writes `dir`/fake.lnpkg from `manifest` and the fake shared object.
std::filesystem::path writeFakeArtifact(const TempDir &dir, const nlohmann::json &manifest,
                                        std::string_view name = "fake.lnpkg");
// Writes `dir`/ckpt/model.safetensors with bias = [1, 2, 3, 4] (f32).
std::filesystem::path writeFakeCheckpoint(const TempDir &dir);

HostTensor f32Tensor(std::vector<std::int64_t> shape, std::vector<float> values);
HostTensor i32Tensor(std::vector<std::int64_t> shape, std::vector<std::int32_t> values);
HostTensor i64Scalar(std::int64_t value);
std::vector<float> floats(const HostTensor &tensor);

} // namespace linnet::rt::test

namespace linnet::rt::test {
// `manifest` with `edit` applied.
template <typename F> nlohmann::json edited(nlohmann::json manifest, F edit) {
  edit(manifest);
  return manifest;
}
} // namespace linnet::rt::test
