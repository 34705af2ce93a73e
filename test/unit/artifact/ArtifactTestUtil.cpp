// Implementation of ArtifactTestUtil.h.
#include "ArtifactTestUtil.h"

#include "runtime/artifact/ArtifactFile.h"
#include "runtime/io/SafeTensorsWriter.h"

#include <gtest/gtest.h>

#include <fstream>
#include <random>
#include <sstream>

namespace linnet::rt::test {

nlohmann::json fakeManifest() {
  return nlohmann::json::parse(R"({
    "format": "linnet-artifact", "version": 1,
    "target": {"kind": "cpu", "triple": "x86_64-unknown-linux-gnu", "cpu": "generic", "features": ""},
    "source": {"package": "fake", "block": "Model", "hash": "00"},
    "generics": {"K": 4, "T": "f32"},
    "parameters": [{"path": "bias", "tensor": "bias", "dtype": "f32", "shape": [4]}],
    "state": [{"path": "acc", "dtype": "f32", "shape": [4]}],
    "entries": [
      {"name": "add", "symbol": "linnet_entry_add", "dims": ["N"],
       "args": [{"name": "x", "dtype": "f32", "shape": ["N", "K"]}],
       "results": [{"dtype": "f32", "shape": ["N", "K"]}], "state": "none"},
      {"name": "accumulate", "symbol": "linnet_entry_accumulate", "dims": [],
       "args": [{"name": "v", "dtype": "f32", "shape": ["K"]}],
       "results": [{"dtype": "f32", "shape": ["K"]}, {"dtype": "i64", "shape": []}], "state": "write"},
      {"name": "pick", "symbol": "linnet_entry_pick", "dims": ["B", "S"],
       "args": [{"name": "tokens", "dtype": "i32", "shape": ["B", "S"]},
                {"name": "pos", "dtype": "i64", "shape": []}],
       "results": [{"dtype": "i32", "shape": ["B"]}], "state": "read",
       "checks": [{"arg": "tokens", "kind": "range", "min": "0", "max": "K"},
                  {"arg": "pos", "kind": "range", "min": "0", "max": "K - S + 1"}],
       "requires": [{"lhs": "S", "relation": ">", "rhs": "0", "why": "`where` clause"},
                    {"lhs": "S - 1", "relation": "<", "rhs": "K", "why": "index `S - 1` at fake.linnet:3:5"}]},
      {"name": "iota", "symbol": "linnet_entry_iota", "dims": ["Steps"],
       "args": [{"name": "start", "dtype": "f32", "shape": []}],
       "results": [{"dtype": "f32", "shape": ["Steps * 2"]}], "state": "none"},
      {"name": "poke", "symbol": "linnet_entry_poke", "args": [], "results": [], "state": "write"},
      {"name": "wrong_shape", "symbol": "linnet_entry_wrong_shape", "args": [],
       "results": [{"dtype": "f32", "shape": ["2"]}], "state": "none"}
    ]
  })");
}

std::string fakeSharedObject() {
  std::ifstream in(LINNET_FAKE_ENTRIES_SO, std::ios::binary);
  EXPECT_TRUE(in.good()) << "cannot read " << LINNET_FAKE_ENTRIES_SO;
  std::stringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

std::filesystem::path writeFakeArtifact(const TempDir &dir, const nlohmann::json &manifest, std::string_view name) {
  std::filesystem::path path = dir / name;
  Status status = writeArtifact(path.string(), manifest.dump(), fakeSharedObject());
  EXPECT_TRUE(status.ok()) << status.message();
  return path;
}

std::filesystem::path writeFakeCheckpoint(const TempDir &dir) {
  std::filesystem::path ckpt = dir / "ckpt";
  std::filesystem::create_directories(ckpt);
  HostTensor bias = f32Tensor({4}, {1, 2, 3, 4});
  NamedTensor named[] = {{"bias", &bias}};
  Status status = writeSafeTensors(ckpt / "model.safetensors", named);
  EXPECT_TRUE(status.ok()) << status.message();
  return ckpt;
}

HostTensor f32Tensor(std::vector<std::int64_t> shape, std::vector<float> values) {
  std::vector<std::byte> bytes(values.size() * 4);
  if (!values.empty()) std::memcpy(bytes.data(), values.data(), bytes.size());  // empty: data() may be null
  return HostTensor::fromBytes(DType::F32, std::move(shape), std::move(bytes)).value();
}

HostTensor i32Tensor(std::vector<std::int64_t> shape, std::vector<std::int32_t> values) {
  std::vector<std::byte> bytes(values.size() * 4);
  if (!values.empty()) std::memcpy(bytes.data(), values.data(), bytes.size());  // empty: data() may be null
  return HostTensor::fromBytes(DType::I32, std::move(shape), std::move(bytes)).value();
}

HostTensor i64Scalar(std::int64_t value) {
  std::vector<std::byte> bytes(8);
  std::memcpy(bytes.data(), &value, 8);
  return HostTensor::fromBytes(DType::I64, {}, std::move(bytes)).value();
}

std::vector<float> floats(const HostTensor &tensor) {
  std::vector<float> out;
  for (std::int64_t i = 0; i < tensor.elementCount(); ++i)
    out.push_back(static_cast<float>(tensor.elementAsDouble(i)));
  return out;
}

} // namespace linnet::rt::test
