// Tests for runtime/checkpoint/SafeTensors.h: well-formed files of every
// dtype parse into correct views (from a file and from memory), and every
// kind of malformed file is rejected with a message naming the file and,
// where there is one, the tensor.
#include "runtime/checkpoint/SafeTensors.h"

#include "TestFiles.h"

#include <gtest/gtest.h>

#include <cstring>
#include <initializer_list>
#include <span>
#include <string>

namespace linnet::rt {
namespace {

using test::Bytes;
using test::TempDir;
using test::TestTensor;

constexpr const char *kSource = "test.safetensors";

std::span<const std::byte> asSpan(const Bytes &bytes) { return {bytes.data(), bytes.size()}; }

// The error message of parsing `bytes`, or a marker if it parsed.
std::string parseError(const Bytes &bytes) {
  Expected<SafeTensorsFile> file = SafeTensorsFile::parse(asSpan(bytes), kSource);
  return file.ok() ? "<parsed successfully>" : file.message();
}

// Checks the message contains each fragment (and always the source name).
void expectMentions(const std::string &message, std::initializer_list<std::string_view> fragments) {
  EXPECT_NE(message.find(kSource), std::string::npos) << "no file name in: " << message;
  for (std::string_view fragment : fragments)
    EXPECT_NE(message.find(fragment), std::string::npos)
        << "expected \"" << fragment << "\" in: " << message;
}

// A file with one tensor "w" whose header entry is `entry`, over 16 data bytes.
Bytes oneEntry(std::string_view entry) {
  return test::buildRaw(std::string("{\"w\":") + std::string(entry) + "}", test::sequenceBytes(16));
}

void expectTensorError(std::string_view entry, std::initializer_list<std::string_view> fragments) {
  SCOPED_TRACE(std::string(entry));
  std::string message = parseError(oneEntry(entry));
  expectMentions(message, {"tensor \"w\""});
  expectMentions(message, fragments);
}

// ---- Well-formed files --------------------------------------------------

struct DTypeCase {
  const char *formatName;
  DType dtype;
};

constexpr DTypeCase kSupportedDTypes[] = {
    {"BOOL", DType::Bool}, {"U8", DType::U8},     {"I8", DType::I8},   {"I16", DType::I16},
    {"F16", DType::F16},   {"BF16", DType::BF16}, {"I32", DType::I32}, {"F32", DType::F32},
    {"F64", DType::F64},   {"I64", DType::I64},   {"U16", DType::U16}, {"U32", DType::U32},
    {"U64", DType::U64},
    // FP8 weights are their bytes; std.quant decodes them.
    {"F8_E4M3", DType::U8},
};

std::vector<TestTensor> oneTensorPerDType() {
  std::vector<TestTensor> tensors;
  std::uint8_t first = 0;
  for (const DTypeCase &c : kSupportedDTypes) {
    std::size_t bytes = 2 * 3 * dtypeSize(c.dtype);
    tensors.push_back({std::string("t_") + c.formatName,
                       c.formatName,
                       {2, 3},
                       test::sequenceBytes(bytes, first)});
    first = static_cast<std::uint8_t>(first + bytes);
  }
  return tensors;
}

void checkOneTensorPerDType(const SafeTensorsFile &file) {
  std::vector<TestTensor> expected = oneTensorPerDType();
  ASSERT_EQ(file.tensors().size(), expected.size());
  for (std::size_t i = 1; i < file.tensors().size(); ++i)
    EXPECT_LT(file.tensors()[i - 1].name, file.tensors()[i].name) << "not sorted";
  for (std::size_t i = 0; i < expected.size(); ++i) {
    const TensorView *view = file.find(expected[i].name);
    ASSERT_NE(view, nullptr) << expected[i].name;
    EXPECT_EQ(view->name, expected[i].name);
    EXPECT_EQ(view->dtype, kSupportedDTypes[i].dtype) << expected[i].name;
    EXPECT_EQ(view->shape, (std::vector<std::int64_t>{2, 3}));
    EXPECT_EQ(view->elementCount, 6);
    ASSERT_EQ(view->byteSize, expected[i].data.size());
    EXPECT_EQ(std::memcmp(view->data, expected[i].data.data(), view->byteSize), 0);
    // The view points into the data region, not into a copy.
    EXPECT_EQ(view->data, file.dataRegion().data() + view->dataOffset);
  }
}

TEST(SafeTensorsTest, ParsesEveryDTypeFromMemory) {
  Bytes image = test::buildSafeTensors(oneTensorPerDType());
  Expected<SafeTensorsFile> file = SafeTensorsFile::parse(asSpan(image), kSource);
  ASSERT_TRUE(file.ok()) << file.message();
  EXPECT_EQ(file->sourceName(), kSource);
  checkOneTensorPerDType(*file);
}

TEST(SafeTensorsTest, ParsesEveryDTypeFromFile) {
  TempDir dir;
  test::writeFile(dir / "all.safetensors", test::buildSafeTensors(oneTensorPerDType()));
  Expected<SafeTensorsFile> file = SafeTensorsFile::open(dir / "all.safetensors");
  ASSERT_TRUE(file.ok()) << file.message();
  checkOneTensorPerDType(*file);

  // Moving the file object keeps the views (they point into the mapping).
  SafeTensorsFile moved = std::move(*file);
  checkOneTensorPerDType(moved);
}

TEST(SafeTensorsTest, ReadsValuesThroughUnalignedViews) {
  float values[] = {1.5f, -2.25f, 1e-3f};
  Bytes data(sizeof values);
  std::memcpy(data.data(), values, sizeof values);
  // An odd-length header (no padding) leaves the data unaligned.
  std::string header = R"({"v":{"dtype":"F32","shape":[3],"data_offsets":[0,12]}})";
  Bytes image = test::buildRaw(header, data);
  Expected<SafeTensorsFile> file = SafeTensorsFile::parse(asSpan(image), kSource);
  ASSERT_TRUE(file.ok()) << file.message();
  const TensorView *view = file->find("v");
  ASSERT_NE(view, nullptr);
  float readBack[3];
  std::memcpy(readBack, view->data, sizeof readBack);
  EXPECT_EQ(readBack[0], 1.5f);
  EXPECT_EQ(readBack[1], -2.25f);
  EXPECT_EQ(readBack[2], 1e-3f);
}

TEST(SafeTensorsTest, ScalarsEmptyTensorsAndMetadata) {
  Bytes image = test::buildSafeTensors({{"scalar", "F64", {}, test::sequenceBytes(8)},
                                        {"empty", "F32", {0, 4}, {}},
                                        {"row", "U8", {1, 5}, test::sequenceBytes(5)}},
                                       {{"format", "pt"}, {"note", "made by a test"}});
  Expected<SafeTensorsFile> file = SafeTensorsFile::parse(asSpan(image), kSource);
  ASSERT_TRUE(file.ok()) << file.message();
  EXPECT_EQ(file->metadata().at("format"), "pt");
  EXPECT_EQ(file->metadata().at("note"), "made by a test");
  EXPECT_EQ(file->find("__metadata__"), nullptr);

  const TensorView *scalar = file->find("scalar");
  ASSERT_NE(scalar, nullptr);
  EXPECT_TRUE(scalar->shape.empty());
  EXPECT_EQ(scalar->elementCount, 1);
  EXPECT_EQ(scalar->byteSize, 8u);

  const TensorView *empty = file->find("empty");
  ASSERT_NE(empty, nullptr);
  EXPECT_EQ(empty->elementCount, 0);
  EXPECT_EQ(empty->byteSize, 0u);
  EXPECT_TRUE(empty->bytes().empty());
  EXPECT_EQ(file->find("missing"), nullptr);
}

TEST(SafeTensorsTest, EmptyHeaderObjectIsAFileWithoutTensors) {
  Expected<SafeTensorsFile> file = SafeTensorsFile::parse(asSpan(test::buildRaw("{}  ")), kSource);
  ASSERT_TRUE(file.ok()) << file.message();
  EXPECT_TRUE(file->tensors().empty());
  EXPECT_EQ(file->headerSize(), 4u);
}

TEST(SafeTensorsTest, ToleratesHolesAndTrailingBytes) {
  // Bytes [4, 8) and [16, 32) belong to no tensor; the format forbids that,
  // but the reader accepts it on purpose (see SafeTensors.cpp).
  std::string header = R"({"a":{"dtype":"I32","shape":[1],"data_offsets":[0,4]},)"
                       R"("b":{"dtype":"I32","shape":[2],"data_offsets":[8,16]}})";
  Expected<SafeTensorsFile> file =
      SafeTensorsFile::parse(asSpan(test::buildRaw(header, test::sequenceBytes(32))), kSource);
  ASSERT_TRUE(file.ok()) << file.message();
  EXPECT_EQ(file->find("b")->dataOffset, 8u);
}

TEST(SafeTensorsTest, EmptyTensorInsideAnotherIsNotAnOverlap) {
  std::string header = R"({"a":{"dtype":"U8","shape":[8],"data_offsets":[0,8]},)"
                       R"("z":{"dtype":"U8","shape":[0],"data_offsets":[4,4]}})";
  Expected<SafeTensorsFile> file =
      SafeTensorsFile::parse(asSpan(test::buildRaw(header, test::sequenceBytes(8))), kSource);
  EXPECT_TRUE(file.ok()) << file.message();
}

// ---- Malformed framing ---------------------------------------------------

TEST(SafeTensorsErrorTest, EmptyAndTooShortFiles) {
  expectMentions(parseError({}), {"0 bytes", "too short"});
  expectMentions(parseError(test::sequenceBytes(7)), {"7 bytes", "too short"});

  TempDir dir;
  test::writeFile(dir / "empty.safetensors", Bytes{});
  Expected<SafeTensorsFile> file = SafeTensorsFile::open(dir / "empty.safetensors");
  ASSERT_FALSE(file.ok());
  EXPECT_NE(file.message().find("empty.safetensors"), std::string::npos) << file.message();
  EXPECT_NE(file.message().find("too short"), std::string::npos) << file.message();
}

TEST(SafeTensorsErrorTest, MissingFile) {
  TempDir dir;
  Expected<SafeTensorsFile> file = SafeTensorsFile::open(dir / "nope.safetensors");
  ASSERT_FALSE(file.ok());
  EXPECT_NE(file.message().find("nope.safetensors"), std::string::npos) << file.message();
}

TEST(SafeTensorsErrorTest, TruncatedHeader) {
  // The length field promises 100 header bytes; only 19 follow.
  expectMentions(parseError(test::buildRaw("{\"a\": 1234567890123", {}, 100)),
                 {"header length 100", "19 bytes", "truncated"});
  // A full file cut short inside the header.
  Bytes image = test::buildSafeTensors({{"w", "F32", {4}, test::sequenceBytes(16)}});
  image.resize(20);
  expectMentions(parseError(image), {"exceeds", "truncated"});
}

TEST(SafeTensorsErrorTest, HugeHeaderLength) {
  expectMentions(parseError(test::buildRaw("{}", {}, 0xFFFF'FFFF'FFFF'FFFFull)),
                 {"18446744073709551615", "limit"});
  expectMentions(parseError(test::buildRaw("{}", {}, 100'000'001)), {"limit"});
  expectMentions(parseError(test::buildRaw("{}", {}, 1ull << 62)), {"limit"});
}

TEST(SafeTensorsErrorTest, TruncatedData) {
  Bytes image = test::buildSafeTensors({{"w", "F32", {4}, test::sequenceBytes(16)}});
  image.resize(image.size() - 1);
  expectMentions(parseError(image), {"tensor \"w\"", "past the end of the data region"});
}

TEST(SafeTensorsErrorTest, BadJson) {
  expectMentions(parseError(test::buildRaw("")), {"header", "invalid JSON"});
  expectMentions(parseError(test::buildRaw("{\"w\": ")), {"header", "invalid JSON"});
  expectMentions(parseError(test::buildRaw("{\"w\": {}} trailing")), {"invalid JSON"});
  expectMentions(parseError(test::buildRaw("{'w': 1}")), {"invalid JSON"});
  expectMentions(parseError(test::buildRaw("{\"\xff\": 1}")), {"invalid JSON"});
  expectMentions(parseError(test::buildRaw(std::string("{\"a\"\0:1}", 8))), {"invalid JSON"});
  expectMentions(parseError(test::buildRaw("{} // comment")), {"invalid JSON"});
}

TEST(SafeTensorsErrorTest, HeaderMustBeAnObject) {
  expectMentions(parseError(test::buildRaw("[1, 2]")), {"header", "object", "array"});
  expectMentions(parseError(test::buildRaw("42")), {"header", "object"});
  expectMentions(parseError(test::buildRaw("null")), {"header", "object"});
}

TEST(SafeTensorsErrorTest, DuplicateTensorName) {
  std::string entry = R"({"dtype":"U8","shape":[1],"data_offsets":[0,1]})";
  expectMentions(parseError(test::buildRaw("{\"w\":" + entry + ",\"w\":" + entry + "}",
                                           test::sequenceBytes(1))),
                 {"duplicate key \"w\""});
}

TEST(SafeTensorsErrorTest, BadMetadata) {
  expectMentions(parseError(test::buildRaw(R"({"__metadata__": [1]})")),
                 {"__metadata__", "object"});
  expectMentions(parseError(test::buildRaw(R"({"__metadata__": {"format": 1}})")),
                 {"__metadata__", "\"format\"", "string"});
  expectMentions(parseError(test::buildRaw(R"({"__metadata__": {"a": {"b": "c"}}})")),
                 {"__metadata__", "\"a\"", "string"});
}

// ---- Malformed tensor entries ---------------------------------------------

TEST(SafeTensorsErrorTest, EntryShape) {
  expectTensorError("[]", {"must be an object"});
  expectTensorError("7", {"must be an object"});
  expectTensorError(R"({"shape":[4],"data_offsets":[0,16]})", {"missing field \"dtype\""});
  expectTensorError(R"({"dtype":"F32","data_offsets":[0,16]})", {"missing field \"shape\""});
  expectTensorError(R"({"dtype":"F32","shape":[4]})", {"missing field \"data_offsets\""});
  expectTensorError(R"({"dtype":"F32","shape":[4],"data_offsets":[0,16],"extra":1})",
                    {"unexpected field \"extra\""});
}

TEST(SafeTensorsErrorTest, UnknownDTypes) {
  expectTensorError(R"({"dtype":"F8_E5M2","shape":[4],"data_offsets":[0,4]})",
                    {"dtype F8_E5M2 is not supported"});
  expectTensorError(R"({"dtype":"F8_E4M3FNUZ","shape":[4],"data_offsets":[0,4]})",
                    {"unknown dtype \"F8_E4M3FNUZ\""});
  expectTensorError(R"({"dtype":"float32","shape":[4],"data_offsets":[0,16]})",
                    {"unknown dtype \"float32\""});
  expectTensorError(R"({"dtype":"f32","shape":[4],"data_offsets":[0,16]})", {"unknown dtype"});
  expectTensorError(R"({"dtype":"","shape":[4],"data_offsets":[0,16]})", {"unknown dtype"});
  expectTensorError(R"({"dtype":4,"shape":[4],"data_offsets":[0,16]})", {"must be a string"});
}

TEST(SafeTensorsErrorTest, BadShapes) {
  expectTensorError(R"({"dtype":"U8","shape":[-1],"data_offsets":[0,1]})",
                    {"dimension 0", "negative"});
  expectTensorError(R"({"dtype":"U8","shape":[2,-4],"data_offsets":[0,1]})",
                    {"dimension 1", "negative"});
  expectTensorError(R"({"dtype":"U8","shape":[1.5],"data_offsets":[0,1]})",
                    {"dimension 0", "not an integer"});
  expectTensorError(R"({"dtype":"U8","shape":[2.0],"data_offsets":[0,2]})", {"not an integer"});
  // Past 2^64 - 1 it is too large (it said "not an integer").
  expectTensorError(R"({"dtype":"U8","shape":[1e30],"data_offsets":[0,1]})", {"is past 2^64 - 1"});
  expectTensorError(R"({"dtype":"U8","shape":[1],"data_offsets":[0,18446744073709551616]})",
                    {"data_offsets end: 1.8446744073709552e+19 is past 2^64 - 1"});
  expectTensorError(R"({"dtype":"U8","shape":["4"],"data_offsets":[0,4]})", {"not a number"});
  expectTensorError(R"({"dtype":"U8","shape":[null],"data_offsets":[0,4]})", {"not a number"});
  expectTensorError(R"({"dtype":"U8","shape":4,"data_offsets":[0,4]})",
                    {"\"shape\" must be an array"});
  expectTensorError(R"({"dtype":"U8","shape":[1,1,1,1,1,1,1,1,1],"data_offsets":[0,1]})",
                    {"rank 9"});
  // Eight dimensions is the limit, and is fine.
  EXPECT_EQ(parseError(oneEntry(R"({"dtype":"U8","shape":[1,1,1,1,1,1,1,1],)"
                                R"("data_offsets":[0,1]})")),
            "<parsed successfully>");
}

TEST(SafeTensorsErrorTest, OverflowingShapes) {
  expectTensorError(R"({"dtype":"U8","shape":[4294967296,4294967296,16],"data_offsets":[0,1]})",
                    {"overflows"});
  expectTensorError(R"({"dtype":"U8","shape":[18446744073709551615],"data_offsets":[0,1]})",
                    {"too large"});
  // A zero later on does not excuse an overflowing prefix.
  expectTensorError(R"({"dtype":"U8","shape":[4294967296,4294967296,0],"data_offsets":[0,0]})",
                    {"overflows"});
  // Elements fit in int64 but their bytes do not.
  expectTensorError(R"({"dtype":"F64","shape":[4611686018427387904],"data_offsets":[0,8]})",
                    {"byte size", "overflows"});
  // Just past uint64: nlohmann reads it as a float, which is too large, not
  // a fraction.
  expectTensorError(R"({"dtype":"U8","shape":[18446744073709551616],"data_offsets":[0,1]})",
                    {"is past 2^64 - 1"});
}

TEST(SafeTensorsErrorTest, BadOffsets) {
  expectTensorError(R"({"dtype":"U8","shape":[4],"data_offsets":[0,4,8]})",
                    {"\"data_offsets\" must be an array [begin, end]"});
  expectTensorError(R"({"dtype":"U8","shape":[4],"data_offsets":[4]})", {"[begin, end]"});
  expectTensorError(R"({"dtype":"U8","shape":[4],"data_offsets":{"begin":0}})", {"[begin, end]"});
  expectTensorError(R"({"dtype":"U8","shape":[4],"data_offsets":[-4,0]})", {"begin", "negative"});
  expectTensorError(R"({"dtype":"U8","shape":[4],"data_offsets":[0,4.0]})",
                    {"end", "not an integer"});
  expectTensorError(R"({"dtype":"U8","shape":[4],"data_offsets":[8,4]})",
                    {"begin 8 is after end 4"});
  expectTensorError(R"({"dtype":"U8","shape":[4],"data_offsets":[14,18]})",
                    {"end 18", "past the end of the data region (16 bytes)"});
  expectTensorError(
      R"({"dtype":"U8","shape":[4],"data_offsets":[18446744073709551612,18446744073709551615]})",
      {"past the end"});
}

TEST(SafeTensorsErrorTest, ByteCountMismatch) {
  expectTensorError(R"({"dtype":"F32","shape":[2,2],"data_offsets":[0,12]})",
                    {"span 12 bytes", "needs 16 bytes"});
  expectTensorError(R"({"dtype":"I16","shape":[3],"data_offsets":[0,8]})",
                    {"span 8 bytes", "needs 6 bytes"});
  expectTensorError(R"({"dtype":"BOOL","shape":[0],"data_offsets":[0,1]})",
                    {"span 1 bytes", "needs 0 bytes"});
}

TEST(SafeTensorsErrorTest, OverlappingTensors) {
  std::string partial = R"({"a":{"dtype":"U8","shape":[8],"data_offsets":[0,8]},)"
                        R"("b":{"dtype":"U8","shape":[8],"data_offsets":[4,12]}})";
  expectMentions(parseError(test::buildRaw(partial, test::sequenceBytes(16))),
                 {"tensor \"b\"", "overlap", "tensor \"a\""});
  std::string same = R"({"a":{"dtype":"I32","shape":[2],"data_offsets":[0,8]},)"
                     R"("b":{"dtype":"U8","shape":[8],"data_offsets":[0,8]}})";
  expectMentions(parseError(test::buildRaw(same, test::sequenceBytes(16))), {"overlap"});
  // b lies inside a, which started first; c starts after b ends but is
  // still inside a.
  std::string nested = R"({"a":{"dtype":"U8","shape":[12],"data_offsets":[0,12]},)"
                       R"("b":{"dtype":"U8","shape":[2],"data_offsets":[0,2]},)"
                       R"("c":{"dtype":"U8","shape":[2],"data_offsets":[6,8]}})";
  expectMentions(parseError(test::buildRaw(nested, test::sequenceBytes(16))), {"overlap"});
}

TEST(SafeTensorsErrorTest, ErrorsFromFilesNameThePath) {
  TempDir dir;
  test::writeFile(dir / "bad.safetensors",
                  oneEntry(R"({"dtype":"F32","shape":[2,2],"data_offsets":[0,12]})"));
  Expected<SafeTensorsFile> file = SafeTensorsFile::open(dir / "bad.safetensors");
  ASSERT_FALSE(file.ok());
  EXPECT_NE(file.message().find((dir / "bad.safetensors").string()), std::string::npos)
      << file.message();
  EXPECT_NE(file.message().find("tensor \"w\""), std::string::npos) << file.message();
}

TEST(SafeTensorsErrorTest, OddTensorNamesAreQuotedInMessages) {
  std::string header = "{\"a\\\"b\\n\":{\"dtype\":\"U8\",\"shape\":[2],\"data_offsets\":[0,1]}}";
  expectMentions(parseError(test::buildRaw(header, test::sequenceBytes(4))),
                 {"tensor \"a\\\"b\\n\""});
}

} // namespace
} // namespace linnet::rt
