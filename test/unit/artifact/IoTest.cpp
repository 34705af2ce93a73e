// runtime/io: nested-list literals, .npy reading, safetensors writing (read
// back with the checkpoint reader) and printing.
#include "runtime/io/Npy.h"
#include "runtime/io/SafeTensorsWriter.h"
#include "runtime/io/TensorLiteral.h"
#include "runtime/io/TensorPrinter.h"

#include "ArtifactTestUtil.h"
#include "runtime/checkpoint/SafeTensors.h"

#include <gtest/gtest.h>

#include <fstream>

namespace linnet::rt {
namespace {

std::string literalError(std::string_view text, DType dtype, std::size_t rank) {
  Expected<HostTensor> tensor = parseTensorLiteral(text, dtype, rank);
  EXPECT_FALSE(tensor.ok()) << text;
  return tensor.ok() ? "" : tensor.message();
}

TEST(TensorLiteralTest, Parses) {
  Expected<HostTensor> t = parseTensorLiteral("[[1,2,3]]", DType::I32, 2);
  ASSERT_TRUE(t.ok()) << t.message();
  EXPECT_EQ(t->describe(), "i32[1, 3]");
  EXPECT_EQ(t->elementAsInt(2), 3);
  Expected<HostTensor> scalar = parseTensorLiteral("7", DType::I64, 0);
  ASSERT_TRUE(scalar.ok());
  EXPECT_EQ(scalar->describe(), "i64[]");
  EXPECT_EQ(scalar->elementAsInt(0), 7);
  Expected<HostTensor> f = parseTensorLiteral("[0.5, -2, 1e3]", DType::BF16, 1);
  ASSERT_TRUE(f.ok());
  EXPECT_EQ(f->elementAsDouble(0), 0.5);
  EXPECT_EQ(f->elementAsDouble(2), 1000);
  Expected<HostTensor> b = parseTensorLiteral("[true, 0, 1, false]", DType::Bool, 1);
  ASSERT_TRUE(b.ok());
  EXPECT_EQ(b->elementAsInt(0), 1);
  EXPECT_EQ(b->elementAsInt(1), 0);
  Expected<HostTensor> empty = parseTensorLiteral("[[]]", DType::F32, 2);
  ASSERT_TRUE(empty.ok());
  EXPECT_EQ(empty->describe(), "f32[1, 0]");
  Expected<HostTensor> empty2 = parseTensorLiteral("[]", DType::F32, 3);
  ASSERT_TRUE(empty2.ok());
  EXPECT_EQ(empty2->describe(), "f32[0, 0, 0]");
  Expected<HostTensor> big = parseTensorLiteral("[9223372036854775807, -9223372036854775808]", DType::I64, 1);
  ASSERT_TRUE(big.ok());
  EXPECT_EQ(big->elementAsInt(1), std::numeric_limits<std::int64_t>::min());
  // u64: the whole range, past 2^63 too.
  Expected<HostTensor> u = parseTensorLiteral("[0, 9223372036854775808, 18446744073709551615]", DType::U64, 1);
  ASSERT_TRUE(u.ok()) << u.message();
  EXPECT_EQ(u->elementAsUnsigned(1), std::uint64_t{1} << 63);
  EXPECT_EQ(u->elementAsUnsigned(2), std::numeric_limits<std::uint64_t>::max());
  // A number written with a fraction or an exponent is read as its value
  // when that is an integer (below 2^53, where doubles are exact).
  Expected<HostTensor> integral = parseTensorLiteral("[1e3, 2.0, -0.0, -4e0]", DType::I32, 1);
  ASSERT_TRUE(integral.ok()) << integral.message();
  EXPECT_EQ(integral->elementAsInt(0), 1000);
  EXPECT_EQ(integral->elementAsInt(1), 2);
  EXPECT_EQ(integral->elementAsInt(2), 0);
  EXPECT_EQ(integral->elementAsInt(3), -4);
}

TEST(TensorLiteralTest, Errors) {
  EXPECT_HAS(literalError("[[1,2],[3]]", DType::I32, 2), "ragged list: element [1] has 1 items, but the first list");
  EXPECT_HAS(literalError("[[1,2],3]", DType::I32, 2), "element [1]: expected a list");
  EXPECT_HAS(literalError("[[1,\"a\"]]", DType::I32, 2), "element [0, 1]: expected a number, found string");
  EXPECT_HAS(literalError("[[1,null]]", DType::F32, 2), "element [0, 1]: expected a number");
  EXPECT_HAS(literalError("[[[1]]]", DType::I32, 2), "element [0, 0]: nested deeper than the argument's rank 2");
  EXPECT_HAS(literalError("[1, 2]", DType::I32, 2), "element [0]: expected a list");
  EXPECT_HAS(literalError("5", DType::I32, 1), "expected a rank-1 tensor as nested lists, found a number");
  EXPECT_HAS(literalError("[1.5]", DType::I32, 1), "element [0]: 1.5 is not an integer (i32 argument)");
  EXPECT_HAS(literalError("[128]", DType::I8, 1), "128 is out of range for i8");
  EXPECT_HAS(literalError("[-1]", DType::U8, 1), "-1 is out of range for u8");
  EXPECT_HAS(literalError("[2147483648]", DType::I32, 1), "out of range for i32");
  EXPECT_HAS(literalError("[18446744073709551615]", DType::I64, 1), "out of range for i64");
  EXPECT_HAS(literalError("[70000]", DType::F16, 1), "70000 is out of range for f16");
  EXPECT_HAS(literalError("[1e39]", DType::F32, 1), "out of range for f32");
  EXPECT_HAS(literalError("[2]", DType::Bool, 1), "2 is out of range for bool");
  // Integral but out of range: the range is the problem, and the message says so.
  EXPECT_EQ(literalError("[[1,2],[4,5,1e10]]", DType::I32, 2).find("ragged"), 0u);
  EXPECT_EQ(literalError("[[1,2,3],[4,5,1e10]]", DType::I32, 2),
            "element [1, 2]: 10000000000 is out of range for i32 (-2147483648..2147483647)");
  EXPECT_EQ(literalError("[-1e3]", DType::U8, 1), "element [0]: -1000 is out of range for u8 (0..255)");
  EXPECT_EQ(literalError("[1e30]", DType::I64, 1),
            "element [0]: 1e+30 is out of range for i64 (-9223372036854775808..9223372036854775807)");
  // 2^64 (read as a double, as it is too large for JSON's integers) and 2^63.
  EXPECT_HAS(literalError("[18446744073709551616]", DType::U64, 1), "is out of range for u64 (0..18446744073709551615)");
  EXPECT_HAS(literalError("[9223372036854775808]", DType::I64, 1),
             "9223372036854775808 is out of range for i64 (-9223372036854775808..9223372036854775807)");
  EXPECT_HAS(literalError("[9.223372036854775808e18]", DType::I64, 1), "is out of range for i64");
  EXPECT_EQ(literalError("[2147483648.0]", DType::I32, 1),
            "element [0]: 2147483648 is out of range for i32 (-2147483648..2147483647)");
  EXPECT_TRUE(parseTensorLiteral("[2147483647.0, -2147483648.0]", DType::I32, 1).ok());
  EXPECT_HAS(literalError("[-1]", DType::U64, 1), "-1 is out of range for u64 (0..18446744073709551615)");
  EXPECT_EQ(literalError("[1e17]", DType::I64, 1),
            "element [0]: 1e+17 is an integer too large to read exactly from a number with a fraction or exponent "
            "(above 2^53); write its digits");
  EXPECT_EQ(literalError("[2.5e0]", DType::I64, 1), "element [0]: 2.5 is not an integer (i64 argument)");
  EXPECT_HAS(literalError("[1,", DType::I32, 1), "not a number or a nested list");
  EXPECT_HAS(literalError("[[], [1]]", DType::I32, 2), "ragged");
  // Deep nesting is rejected by depth, not by recursion.
  EXPECT_HAS(literalError(std::string(100000, '[') + std::string(100000, ']'), DType::I32, 1), "nested deeper");
}

std::string npyHeader(std::string_view dict, int version = 1) {
  std::string out("\x93NUMPY", 6);
  out.push_back(static_cast<char>(version));
  out.push_back('\0');
  std::string padded(dict);
  padded += '\n';
  if (version == 1) {
    out.push_back(static_cast<char>(padded.size() & 0xff));
    out.push_back(static_cast<char>(padded.size() >> 8));
  } else {
    for (int i = 0; i < 4; ++i)
      out.push_back(static_cast<char>(padded.size() >> (8 * i)));
  }
  return out + padded;
}

std::span<const std::byte> bytesOf(const std::string &s) { return std::as_bytes(std::span(s.data(), s.size())); }

std::string npyError(const std::string &image) {
  Expected<HostTensor> t = parseNpy(bytesOf(image), "a.npy");
  EXPECT_FALSE(t.ok());
  return t.ok() ? "" : t.message();
}

TEST(NpyTest, Reads) {
  std::string data(8, '\0');
  data[0] = 1;
  data[4] = 2;
  Expected<HostTensor> t =
      parseNpy(bytesOf(npyHeader("{'descr': '<i4', 'fortran_order': False, 'shape': (1, 2), }") + data), "a.npy");
  ASSERT_TRUE(t.ok()) << t.message();
  EXPECT_EQ(t->describe(), "i32[1, 2]");
  EXPECT_EQ(t->elementAsInt(1), 2);
  Expected<HostTensor> v2 =
      parseNpy(bytesOf(npyHeader("{\"descr\": \"|b1\", \"shape\": (3,), \"fortran_order\": False}", 2) + std::string("\x01\x00\x01", 3)),
               "a.npy");
  ASSERT_TRUE(v2.ok()) << v2.message();
  EXPECT_EQ(v2->describe(), "bool[3]");
  Expected<HostTensor> scalar =
      parseNpy(bytesOf(npyHeader("{'descr': '<f8', 'fortran_order': False, 'shape': ()}") + std::string(8, '\0')),
               "a.npy");
  ASSERT_TRUE(scalar.ok()) << scalar.message();
  EXPECT_EQ(scalar->describe(), "f64[]");
  // Round trip through the encoder.
  HostTensor f = test::f32Tensor({2, 2}, {1, 2, 3, 4});
  Expected<std::string> encoded = encodeNpy(f);
  ASSERT_TRUE(encoded.ok());
  Expected<HostTensor> back = parseNpy(bytesOf(*encoded), "b.npy");
  ASSERT_TRUE(back.ok()) << back.message();
  EXPECT_EQ(*back, f);
}

TEST(NpyTest, HostileHeaders) {
  const std::string dict = "{'descr': '<i4', 'fortran_order': False, 'shape': (2,), }";
  EXPECT_HAS(npyError("hello"), "bad magic");
  EXPECT_HAS(npyError(npyHeader(dict, 7)), "format version 7");
  EXPECT_HAS(npyError(npyHeader(dict) + std::string(4, '\0')), "needs 8 bytes of data, the file has 4");
  EXPECT_HAS(npyError(npyHeader(dict) + std::string(12, '\0')), "needs 8 bytes of data, the file has 12");
  EXPECT_HAS(npyError(npyHeader(dict).substr(0, 20)), "truncated");
  std::string huge("\x93NUMPY\x02\x00\xff\xff\xff\xff", 12);
  EXPECT_HAS(npyError(huge), "exceeds the limit");
  EXPECT_HAS(npyError(npyHeader("{'descr': '>i4', 'fortran_order': False, 'shape': (2,), }") + std::string(8, '\0')),
             "dtype '>i4' is not supported");
  EXPECT_HAS(npyError(npyHeader("{'descr': '<i4', 'fortran_order': True, 'shape': (2,), }") + std::string(8, '\0')),
             "Fortran-order");
  EXPECT_HAS(npyError(npyHeader("{'descr': '<c8', 'fortran_order': False, 'shape': (2,), }")), "'<c8' is not supported");
  EXPECT_HAS(npyError(npyHeader("{'descr': [('a', '<i4')], 'fortran_order': False, 'shape': (2,), }")),
             "structured dtypes");
  EXPECT_HAS(npyError(npyHeader("{'descr': '<i4', 'fortran_order': False}")), "needs 'descr', 'fortran_order' and 'shape'");
  EXPECT_HAS(npyError(npyHeader("{'descr': '<i4', 'descr': '<i4', 'fortran_order': False, 'shape': (2,)}")), "twice");
  EXPECT_HAS(npyError(npyHeader("{'descr': '<i4', 'fortran_order': False, 'shape': (-2,), }")), "non-negative");
  EXPECT_HAS(npyError(npyHeader("{'descr': '<i4', 'fortran_order': False, 'shape': (99999999999999999999,), }")),
             "too large");
  EXPECT_HAS(npyError(npyHeader("{'descr': '<i8', 'fortran_order': False, 'shape': (4294967296, 4294967296), }")),
             "overflows");
  EXPECT_HAS(npyError(npyHeader("{'descr': '<i4', 'fortran_order': False, 'shape': (2,), 'x': 1}")), "unknown key");
  EXPECT_HAS(npyError(npyHeader("{'descr': '<i4\x01', 'fortran_order': False, 'shape': (2,)}")), "printable");
}

TEST(NpyTest, ReadAsDType) {
  test::TempDir dir;
  std::filesystem::path path = dir / "x.npy";
  std::ofstream(path, std::ios::binary) << encodeNpy(test::f32Tensor({2}, {1.5, -2})).value();
  Expected<HostTensor> bf16 = readNpyAs(path, DType::BF16);
  ASSERT_TRUE(bf16.ok()) << bf16.message();
  EXPECT_EQ(bf16->describe(), "bf16[2]");
  EXPECT_EQ(bf16->elementAsDouble(0), 1.5);
  Expected<HostTensor> wrong = readNpyAs(path, DType::I32);
  ASSERT_FALSE(wrong.ok());
  EXPECT_HAS(wrong.message(), "holds f32 data, but i32 is expected");
  EXPECT_FALSE(readNpyAs(dir / "absent.npy", DType::F32).ok());
  // The argument's rank, from the header, before the data is copied.
  EXPECT_TRUE(readNpyAs(path, DType::F32, false, 1).ok());
  Expected<HostTensor> rank = readNpyAs(path, DType::F32, false, 2);
  ASSERT_FALSE(rank.ok());
  EXPECT_HAS(rank.message(), "has rank 1 (shape (2)), but the argument has rank 2");
}

TEST(SafeTensorsWriterTest, RoundTripsThroughTheCheckpointReader) {
  std::vector<HostTensor> tensors;
  for (DType dtype : kAllDTypes)
    tensors.push_back(HostTensor::zeros(dtype, {2, 3}).value());
  for (std::size_t i = 0; i < tensors.size(); ++i)
    for (std::size_t b = 0; b < tensors[i].bytes().size(); ++b)
      tensors[i].bytes()[b] = std::byte(tensors[i].dtype() == DType::Bool ? b % 2 : (b * 7 + i) & 0xff);
  tensors.push_back(test::i64Scalar(-3));
  tensors.push_back(HostTensor::zeros(DType::F32, {0, 5}).value());
  std::vector<NamedTensor> named;
  for (std::size_t i = 0; i < tensors.size(); ++i)
    named.push_back({std::to_string(i) + ".x", &tensors[i]});
  test::TempDir dir;
  ASSERT_TRUE(writeSafeTensors(dir / "out.safetensors", named).ok());
  Expected<SafeTensorsFile> file = SafeTensorsFile::open(dir / "out.safetensors");
  ASSERT_TRUE(file.ok()) << file.message();
  EXPECT_EQ(file->headerSize() % 8, 0u);
  for (const NamedTensor &n : named) {
    const TensorView *view = file->find(n.name);
    ASSERT_NE(view, nullptr) << n.name;
    EXPECT_EQ(view->dtype, n.tensor->dtype());
    EXPECT_EQ(view->shape, n.tensor->shape());
    ASSERT_EQ(view->byteSize, n.tensor->bytes().size());
    if (view->byteSize != 0) {
      EXPECT_EQ(std::memcmp(view->data, n.tensor->bytes().data(), view->byteSize), 0) << n.name;
    }
  }
  NamedTensor twice[] = {{"a", &tensors[0]}, {"a", &tensors[1]}};
  EXPECT_HAS(writeSafeTensors(dir / "bad.safetensors", twice).message(), "tensor \"a\" is saved twice");
  NamedTensor reserved[] = {{"__metadata__", &tensors[0]}};
  EXPECT_FALSE(encodeSafeTensors(reserved).ok());
}

TEST(TensorPrinterTest, NumpyLike) {
  EXPECT_EQ(formatTensor(test::i32Tensor({1, 3}, {1, 2, 3})), "i32[1, 3]\n[[1, 2, 3]]");
  EXPECT_EQ(formatTensorValues(test::f32Tensor({2, 2}, {1, 2.5, -0.125, 1e-9f})), "[[1., 2.5],\n [-0.125, 1e-09]]");
  EXPECT_EQ(formatTensorValues(test::i64Scalar(7)), "7");
  // u64 prints unsigned, past 2^63 too.
  HostTensor u64 = parseTensorLiteral("[1, 9223372036854775808, 18446744073709551615]", DType::U64, 1).value();
  EXPECT_EQ(formatTensorValues(u64), "[1, 9223372036854775808, 18446744073709551615]");
  EXPECT_EQ(formatTensorValues(parseTensorLiteral("[true, false]", DType::Bool, 1).value()), "[true, false]");
  EXPECT_EQ(formatTensorValues(HostTensor::zeros(DType::I32, {2, 1, 2}).value()), "[[[0, 0]],\n\n [[0, 0]]]");
  EXPECT_EQ(formatTensorValues(HostTensor::zeros(DType::I32, {0}).value()), "[]");
  std::vector<std::int32_t> many(2000);
  for (int i = 0; i < 2000; ++i)
    many[i] = i;
  EXPECT_EQ(formatTensorValues(test::i32Tensor({2000}, many)), "[0, 1, 2, ..., 1997, 1998, 1999]");
  std::string grid = formatTensorValues(HostTensor::zeros(DType::I32, {100, 100}).value());
  EXPECT_LT(grid.size(), 200u);
  EXPECT_NE(grid.find("...,\n"), std::string::npos);
}

} // namespace
} // namespace linnet::rt
