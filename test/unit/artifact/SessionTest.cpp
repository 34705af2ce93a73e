// Loading the fake artifact and running its entries through a Session:
// argument checks, dims, state across calls, result ownership.
#include "runtime/session/Session.h"

#include "ArtifactTestUtil.h"
#include "runtime/artifact/ArtifactFile.h"
#include "runtime/io/TensorLiteral.h"

#include <gtest/gtest.h>

#include <elf.h>

#include <cstring>

namespace linnet::rt {
namespace {

using nlohmann::json;
using test::f32Tensor;
using test::floats;
using test::i32Tensor;
using test::i64Scalar;
using test::edited;

class SessionTest : public ::testing::Test {
protected:
  Expected<Session> open(const json &manifest, bool withCheckpoint = true, const SessionOptions &options = {}) {
    Expected<Artifact> artifact = Artifact::open(test::writeFakeArtifact(dir_, manifest));
    if (!artifact)
      return artifact.error();
    std::optional<Checkpoint> checkpoint;
    if (withCheckpoint) {
      Expected<Checkpoint> opened = Checkpoint::open(test::writeFakeCheckpoint(dir_));
      EXPECT_TRUE(opened.ok());
      checkpoint = std::move(*opened);
    }
    return Session::create(std::move(*artifact), std::move(checkpoint), options);
  }
  Session session() {
    Expected<Session> s = open(test::fakeManifest());
    EXPECT_TRUE(s.ok()) << (s.ok() ? "" : s.message());
    return std::move(s).value();
  }
  std::string callError(Session &s, std::string_view entry, const ArgMap &args, const DimEnv &binds = {}) {
    Expected<std::vector<HostTensor>> results = s.call(entry, args, binds);
    EXPECT_FALSE(results.ok());
    return results.ok() ? "" : results.message();
  }
  std::vector<float> acc(Session &s) {
    StateView view = *s.state().find("acc");
    std::vector<float> out(4);
    std::memcpy(out.data(), view.data, 16);
    return out;
  }

  test::TempDir dir_;
};


TEST_F(SessionTest, RunsAnEntryAndReadsResultsThroughStrides) {
  Session s = session();
  ArgMap args;
  args.emplace("x", f32Tensor({2, 4}, {0, 0, 0, 0, 10, 20, 30, 40}));
  Expected<std::vector<HostTensor>> results = s.call("add", args);
  ASSERT_TRUE(results.ok()) << results.message();
  ASSERT_EQ(results->size(), 1u);
  EXPECT_EQ((*results)[0].describe(), "f32[2, 4]");
  EXPECT_EQ(floats((*results)[0]), (std::vector<float>{1, 2, 3, 4, 11, 22, 33, 44}));
  // N = 0 is a valid size.
  ArgMap empty;
  empty.emplace("x", HostTensor::zeros(DType::F32, {0, 4}).value());
  Expected<std::vector<HostTensor>> none = s.call("add", empty);
  ASSERT_TRUE(none.ok()) << none.message();
  EXPECT_EQ((*none)[0].describe(), "f32[0, 4]");
}

TEST_F(SessionTest, StateIsKeptAcrossCalls) {
  Session s = session();
  ArgMap args;
  args.emplace("v", f32Tensor({4}, {1, 2, 3, 4}));
  ASSERT_TRUE(s.call("accumulate", args).ok());
  Expected<std::vector<HostTensor>> second = s.call("accumulate", args);
  ASSERT_TRUE(second.ok()) << second.message();
  ASSERT_EQ(second->size(), 2u);
  EXPECT_EQ(floats((*second)[0]), (std::vector<float>{2, 4, 6, 8}));
  EXPECT_EQ((*second)[1].describe(), "i64[]");
  EXPECT_EQ((*second)[1].elementAsInt(0), 20);
  EXPECT_EQ(acc(s), (std::vector<float>{2, 4, 6, 8}));
  // An entry without results or arguments.
  Expected<std::vector<HostTensor>> poke = s.call("poke", {});
  ASSERT_TRUE(poke.ok()) << poke.message();
  EXPECT_TRUE(poke->empty());
  EXPECT_EQ(acc(s)[0], 42);
  // Moving the session keeps the state and the code.
  Session moved = std::move(s);
  EXPECT_EQ(acc(moved)[0], 42);
  ASSERT_TRUE(moved.call("accumulate", args).ok());
  EXPECT_EQ(acc(moved)[0], 43);
}

TEST_F(SessionTest, FailedChecksLeaveStateUntouched) {
  Session s = session();
  ArgMap good;
  good.emplace("v", f32Tensor({4}, {1, 1, 1, 1}));
  ASSERT_TRUE(s.call("accumulate", good).ok());
  ArgMap bad;
  bad.emplace("v", f32Tensor({3}, {5, 5, 5}));
  EXPECT_HAS(callError(s, "accumulate", bad), "argument `v` has shape [3]: axis 0 is 3 but must be K = 4");
  EXPECT_EQ(acc(s), (std::vector<float>{1, 1, 1, 1}));
}

TEST_F(SessionTest, ShapeErrorsNameArgumentAxisAndBound) {
  Session s = session();
  ArgMap args;
  args.emplace("x", f32Tensor({2, 3}, {0, 0, 0, 0, 0, 0}));
  EXPECT_HAS(callError(s, "add", args), "argument `x` has shape [2, 3]: axis 1 is 3 but must be K = 4");
  ArgMap rank;
  rank.emplace("x", f32Tensor({4}, {0, 0, 0, 0}));
  EXPECT_HAS(callError(s, "add", rank), "argument `x` has rank 1 but entry `add` expects rank 2 [N, K]");
  ArgMap dtype;
  dtype.emplace("x", i32Tensor({1, 4}, {0, 0, 0, 0}));
  EXPECT_HAS(callError(s, "add", dtype), "argument `x` is i32 but entry `add` takes f32");
  EXPECT_HAS(callError(s, "add", {}), "missing argument `x` (f32[N, K])");
  ArgMap extra;
  extra.emplace("x", f32Tensor({1, 4}, {0, 0, 0, 0}));
  extra.emplace("y", f32Tensor({1}, {0}));
  EXPECT_HAS(callError(s, "add", extra), "entry `add` has no argument `y`");
  EXPECT_HAS(callError(s, "nope", {}), "the artifact has no entry `nope` (entries: add, accumulate");
}

TEST_F(SessionTest, DimsFromArgumentsAndBinds) {
  Session s = session();
  ArgMap args;
  args.emplace("start", HostTensor::scalar(DType::F32, 5));
  EXPECT_EQ(callError(s, "iota", args),
            "dim `Steps` of entry `iota` is not fixed by any argument; give it a value: `--bind Steps=<value>`");
  // A dim in an axis linear in it (`2 * N + 1`) is solved from it; one that
  // appears only in other expressions is named with them.
  Expected<Session> linear = open(
      edited(test::fakeManifest(), [](json &m) { m["entries"][0]["args"][0]["shape"] = json::array({"2 * N + 1", "K"}); }));
  ASSERT_TRUE(linear.ok()) << linear.message();
  ArgMap x5;
  x5.emplace("x", f32Tensor({5, 4}, std::vector<float>(20, 0)));
  Expected<DimEnv> solved = linear->check("add", x5);
  ASSERT_TRUE(solved.ok()) << solved.message();
  EXPECT_EQ(solved->at("N"), 2);
  ArgMap x4;
  x4.emplace("x", f32Tensor({4, 4}, std::vector<float>(16, 0)));
  // 4 rows are `2 * N + 1` for no N: said so, not that nothing fixes N.
  EXPECT_HAS(linear->check("add", x4).message(),
             "dim `N` of entry `add` cannot be fixed: argument `x` axis 0 is 4, and `2 * N + 1` is that for no `N` >= 0");
  Expected<Session> squared = open(
      edited(test::fakeManifest(), [](json &m) { m["entries"][0]["args"][0]["shape"] = json::array({"N * N", "K"}); }));
  ASSERT_TRUE(squared.ok()) << squared.message();
  EXPECT_EQ(callError(*squared, "add", x4),
            "dim `N` of entry `add` is not fixed by any argument (no argument axis is exactly `N`: argument `x` axis 0 "
            "is `N * N`); give it a value: `--bind N=<value>`");
  Expected<std::vector<HostTensor>> results = s.call("iota", args, {{"Steps", 3}});
  ASSERT_TRUE(results.ok()) << results.message();
  EXPECT_EQ(floats((*results)[0]), (std::vector<float>{5, 6, 7, 8, 9, 10}));
  EXPECT_HAS(callError(s, "iota", args, {{"Steps", -1}}), "bind Steps = -1: a dim is an integer from 0 to 2147483648");
  EXPECT_HAS(callError(s, "iota", args, {{"Steps", std::int64_t{1} << 40}}), "a dim is an integer from 0 to");
  EXPECT_HAS(callError(s, "iota", args, {{"Steps", 1}, {"Other", 2}}), "`Other` is not a dim of entry `iota`");
  EXPECT_TRUE(s.call("iota", args, {{"Steps", 1}, {"K", 4}}).ok());
  EXPECT_HAS(callError(s, "iota", args, {{"Steps", 1}, {"K", 5}}), "the artifact was built with K = 4");
  ArgMap x;
  x.emplace("x", f32Tensor({1, 4}, {0, 0, 0, 0}));
  EXPECT_HAS(callError(s, "add", x, {{"N", 2}}), "bind N = 2 disagrees with argument `x` axis 0, which is 1");
  EXPECT_TRUE(s.call("add", x, {{"N", 1}}).ok());
}

TEST_F(SessionTest, ValueChecksFromTheManifest) {
  Session s = session();
  ArgMap args;
  args.emplace("tokens", i32Tensor({2, 2}, {0, 1, 3, 2}));
  args.emplace("pos", i64Scalar(1));
  Expected<std::vector<HostTensor>> results = s.call("pick", args);
  ASSERT_TRUE(results.ok()) << results.message();
  EXPECT_EQ((*results)[0].elementAsInt(0), 2);
  EXPECT_EQ((*results)[0].elementAsInt(1), 3);

  args.at("tokens") = i32Tensor({2, 2}, {0, 1, 4, 2});
  EXPECT_HAS(callError(s, "pick", args), "argument `tokens` element [1, 0] is 4: it must be in 0..4 (>= 0 and < K = 4)");
  args.at("tokens") = i32Tensor({2, 2}, {0, -1, 0, 0});
  EXPECT_HAS(callError(s, "pick", args), "argument `tokens` element [0, 1] is -1");
  args.at("tokens") = i32Tensor({1, 2}, {0, 0});
  args.at("pos") = i64Scalar(3);
  EXPECT_HAS(callError(s, "pick", args), "argument `pos` is 3: it must be in 0..3 (>= 0 and < K - S + 1 = 3)");
  args.at("pos") = i64Scalar(2);
  EXPECT_TRUE(s.call("pick", args).ok());

  // A u64 value past 2^63 is compared as itself, not wrapped to negative.
  Expected<Session> unsigned64 =
      open(edited(test::fakeManifest(), [](json &m) { m["entries"][2]["args"][0]["dtype"] = "u64"; }));
  ASSERT_TRUE(unsigned64.ok()) << unsigned64.message();
  ArgMap u;
  u.emplace("tokens", parseTensorLiteral("[[9223372036854775808]]", DType::U64, 2).value());
  u.emplace("pos", i64Scalar(0));
  EXPECT_EQ(callError(*unsigned64, "pick", u),
            "argument `tokens` element [0, 0] is 9223372036854775808: it must be in 0..4 (>= 0 and < K = 4)");
}

// A `distinct` check names the first element that repeats an earlier one,
// and that one; the call does not run.
TEST_F(SessionTest, DistinctCheckFromTheManifest) {
  Expected<Session> opened = open(edited(test::fakeManifest(), [](json &m) {
    m["entries"][2]["checks"].push_back({{"arg", "tokens"}, {"kind", "distinct"}});
  }));
  ASSERT_TRUE(opened.ok()) << opened.message();
  ArgMap args;
  args.emplace("tokens", i32Tensor({2, 2}, {0, 3, 1, 2}));
  args.emplace("pos", i64Scalar(1));
  EXPECT_TRUE(opened->call("pick", args).ok());
  args.at("tokens") = i32Tensor({2, 2}, {3, 1, 2, 1});
  EXPECT_EQ(callError(*opened, "pick", args),
            "argument `tokens` element [1, 1] is 1, as is element [0, 1]: its elements must be distinct");
  args.at("tokens") = i32Tensor({2, 2}, {2, 2, 2, 0});
  EXPECT_EQ(callError(*opened, "pick", args),
            "argument `tokens` element [0, 1] is 2, as is element [0, 0]: its elements must be distinct");
}

TEST_F(SessionTest, DimRequirementsFromTheManifest) {
  Session s = session();
  // pick reads tokens[b][S - 1]: with S = 0 it would read before the tensor.
  ArgMap args;
  args.emplace("tokens", i32Tensor({2, 0}, {}));
  args.emplace("pos", i64Scalar(0));
  EXPECT_EQ(callError(s, "pick", args), "entry `pick` needs S > 0 (`where` clause), but S = 0");
  // A compound side shows its value; the generics' values are named too.
  auto errorWith = [&](auto edit) {
    Expected<Session> opened = open(edited(test::fakeManifest(), edit));
    EXPECT_TRUE(opened.ok()) << (opened.ok() ? "" : opened.message());
    return opened.ok() ? callError(*opened, "pick", args) : std::string();
  };
  args.at("tokens") = i32Tensor({1, 1}, {0});
  EXPECT_EQ(errorWith([](json &m) { m["entries"][2]["requires"][0]["rhs"] = "K - 3"; }),
            "entry `pick` needs S > K - 3 (`where` clause), but S = 1, K = 4 (1 > 1 is false)");
  // Without names, a relation that fails fails every call.
  EXPECT_EQ(errorWith([](json &m) {
              m["entries"][2]["requires"][0] = {{"lhs", "1"}, {"relation", "=="}, {"rhs", "2"}};
            }),
            "entry `pick` needs 1 == 2, which is false");
  // An evaluation error names the relation.
  EXPECT_HAS(errorWith([](json &m) { m["entries"][2]["requires"][0]["lhs"] = "K / (S - 1)"; }),
             "entry `pick` needs K / (S - 1) > 0: ");
  // And a call that meets them runs.
  args.at("tokens") = i32Tensor({1, 2}, {1, 2});
  Expected<std::vector<HostTensor>> results = s.call("pick", args);
  ASSERT_TRUE(results.ok()) << results.message();
  EXPECT_EQ((*results)[0].elementAsInt(0), 2);
}

// Result sizes are checked before the call (docs/runtime.md, "Result
// sizes"): overflow, each result and their sum within the limit, with
// messages naming the entry, the result and the dims; nothing runs.
TEST_F(SessionTest, ResultSizesAreCheckedBeforeTheCall) {
  SessionOptions capped;
  capped.maxResultBytes = 20;
  Expected<Session> opened = open(test::fakeManifest(), true, capped);
  ASSERT_TRUE(opened.ok()) << opened.message();
  Session &s = *opened;
  ArgMap start;
  start.emplace("start", HostTensor::scalar(DType::F32, 1));
  // iota<Steps> -> f32[Steps * 2]: 16 bytes fit, 24 do not.
  EXPECT_TRUE(s.call("iota", start, {{"Steps", 2}}).ok());
  EXPECT_EQ(callError(s, "iota", start, {{"Steps", 3}}),
            "entry `iota` result 0 is f32[Steps * 2] = [6] with Steps = 3: 24 bytes, more than the 20 bytes all "
            "results of a call may take (the session's cap, --max-result-bytes); nothing was run");
  // accumulate -> (f32[K], i64): 16 and 8 bytes, 24 together; the state
  // it would have written is untouched.
  ArgMap v;
  v.emplace("v", f32Tensor({4}, {1, 2, 3, 4}));
  EXPECT_EQ(callError(s, "accumulate", v),
            "entry `accumulate`'s results take 24 bytes together (result 0: 16 bytes, result 1: 8 bytes) with K = 4, "
            "more than the 20 bytes they may take (the session's cap, --max-result-bytes); nothing was run");
  EXPECT_EQ(acc(s), (std::vector<float>{0, 0, 0, 0}));
  // check() refuses the same, without running.
  EXPECT_FALSE(s.check("accumulate", v).ok());

  // Without a cap: a quarter of the machine's memory. Sizes overflowing int64
  // are refused before anything is allocated.
  json huge = edited(test::fakeManifest(), [](json &m) {
    m["entries"][3]["results"][0]["shape"] = json::array({"Steps", "Steps", "Steps"});
  });
  Expected<Session> big = open(huge);
  ASSERT_TRUE(big.ok()) << big.message();
  EXPECT_EQ(callError(*big, "iota", start, {{"Steps", 2000000000}}),
            "entry `iota` result 0 is f32[Steps, Steps, Steps] = [2000000000, 2000000000, 2000000000] with Steps = "
            "2000000000: its size in bytes overflows int64; nothing was run");
  // 4 * 2000000000^2 bytes fit in uint64 but not in int64, in which the
  // generated code computes its allocation sizes: refused too.
  json square = edited(test::fakeManifest(),
                       [](json &m) { m["entries"][3]["results"][0]["shape"] = json::array({"Steps", "Steps"}); });
  Expected<Session> sq = open(square);
  ASSERT_TRUE(sq.ok()) << sq.message();
  EXPECT_HAS(callError(*sq, "iota", start, {{"Steps", 2000000000}}), "its size in bytes overflows int64");
  // 4 * 10^12 bytes: more than a machine holds.
  EXPECT_HAS(callError(*sq, "iota", start, {{"Steps", 1000000}}),
             "entry `iota` result 0 is f32[Steps, Steps] = [1000000, 1000000] with Steps = 1000000: "
             "4000000000000 bytes (3.6 TiB), more than the ");
  EXPECT_HAS(callError(*sq, "iota", start, {{"Steps", 1000000}}), "as each result is held twice while it is copied out");
}

TEST_F(SessionTest, RejectedResultsAreStillFreed) {
  Session s = session();
  // The sanitizer build reports a leak if the rejected result is not freed.
  EXPECT_HAS(callError(s, "wrong_shape", {}), "entry `wrong_shape` result 0: the native code returned shape [3], not [2]");
}

TEST_F(SessionTest, CheckpointBinding) {
  EXPECT_HAS(open(test::fakeManifest(), false).message(), "the model has 1 parameters but no checkpoint was given");
  EXPECT_HAS(open(edited(test::fakeManifest(), [](json &m) { m["parameters"][0].erase("tensor"); })).message(),
             "parameter `bias` names no checkpoint tensor");
  EXPECT_HAS(open(edited(test::fakeManifest(), [](json &m) { m["parameters"][0]["tensor"] = "w"; })).message(),
             "parameter `bias`");
  EXPECT_HAS(open(edited(test::fakeManifest(), [](json &m) { m["parameters"][0]["shape"] = {2, 2}; })).message(),
             "checkpoint tensor `bias` has shape [4], the artifact expects [2, 2]");
  EXPECT_HAS(open(edited(test::fakeManifest(), [](json &m) { m["parameters"][0]["dtype"] = "i32"; })).message(),
             "parameter `bias`: checkpoint tensor `bias` is f32, the artifact was built for a checkpoint storing it "
             "as i32; rebuild the artifact against this checkpoint");
  // A float dtype conversion at load, as the build planned it: a bf16
  // parameter from an f32 tensor (`stored`).
  EXPECT_TRUE(open(edited(test::fakeManifest(), [](json &m) {
                m["parameters"][0]["dtype"] = "bf16";
                m["parameters"][0]["stored"] = "f32";
              })).ok());
  // One the build did not plan is refused, as the compiler's binder refuses it
  // (an f32 artifact run with an f64 checkpoint converted silently).
  EXPECT_HAS(open(edited(test::fakeManifest(), [](json &m) { m["parameters"][0]["dtype"] = "bf16"; })).message(),
             "checkpoint tensor `bias` is f32, the artifact was built for a checkpoint storing it as bf16");
  EXPECT_HAS(open(edited(test::fakeManifest(), [](json &m) {
               m["parameters"][0]["dtype"] = "bf16";
               m["parameters"][0]["stored"] = "f16";
             })).message(),
             "checkpoint tensor `bias` is f32, the artifact was built for a checkpoint storing it as f16");
  // No parameters: no checkpoint needed.
  EXPECT_TRUE(open(edited(test::fakeManifest(), [](json &m) { m["parameters"] = json::array(); }), false).ok());
}

TEST_F(SessionTest, StateBudget) {
  json big = edited(test::fakeManifest(), [](json &m) { m["state"][0]["shape"] = {std::int64_t{1} << 40}; });
  Expected<Artifact> artifact = Artifact::open(test::writeFakeArtifact(dir_, big));
  ASSERT_TRUE(artifact.ok()) << artifact.message();
  SessionOptions options;
  options.maxStateBytes = 1 << 20;
  Expected<Checkpoint> checkpoint = Checkpoint::open(test::writeFakeCheckpoint(dir_));
  ASSERT_TRUE(checkpoint.ok());
  Expected<Session> s = Session::create(std::move(*artifact), std::move(*checkpoint), options);
  ASSERT_FALSE(s.ok());
  EXPECT_HAS(s.message(), "acc");
}

TEST_F(SessionTest, LoadErrors) {
  // A symbol the native code lacks is an error at load.
  json missing = edited(test::fakeManifest(), [](json &m) {
    m["entries"].push_back({{"name", "gone"}, {"symbol", "linnet_entry_gone"}, {"args", json::array()},
                            {"results", json::array()}, {"state", "none"}});
  });
  Expected<Artifact> artifact = Artifact::open(test::writeFakeArtifact(dir_, missing));
  ASSERT_FALSE(artifact.ok());
  EXPECT_HAS(artifact.message(), "the native code has no symbol `linnet_entry_gone` (entry `gone`)");
  // Hidden (non-exported) symbols do not count.
  EXPECT_HAS(Artifact::open(test::writeFakeArtifact(dir_, edited(test::fakeManifest(), [](json &m) {
                              m["entries"][0]["symbol"] = "malloc_not_here";
                            }))).message(),
             "no symbol `malloc_not_here`");
  // Another architecture.
  EXPECT_HAS(Artifact::open(test::writeFakeArtifact(dir_, edited(test::fakeManifest(), [](json &m) {
                              m["target"]["triple"] = "aarch64-unknown-linux-gnu";
                            }))).message(),
             "built for aarch64");
  // Native code that is not a shared object.
  std::filesystem::path notElf = dir_ / "notelf.lnpkg";
  ASSERT_TRUE(writeArtifact(notElf.string(), test::fakeManifest().dump(), "#!/bin/sh\necho hi\n").ok());
  EXPECT_HAS(Artifact::open(notElf).message(), "the native code is not an ELF file");
  // A shared object cut short, or whose program headers point outside it or
  // outside its loaded segments (inside a container whose checksum matches):
  // refused, where the dynamic loader faulted with SIGBUS or SIGSEGV.
  std::string object = test::fakeSharedObject();
  auto withObject = [&](std::string bytes) {
    std::filesystem::path path = dir_ / "damaged.lnpkg";
    EXPECT_TRUE(writeArtifact(path.string(), test::fakeManifest().dump(), bytes).ok());
    return Artifact::open(path);
  };
  EXPECT_HAS(withObject(object.substr(0, object.size() / 2)).message(), "the native code is damaged");
  Elf64_Ehdr header;
  std::memcpy(&header, object.data(), sizeof header);
  for (std::uint16_t i = 0; i < header.e_phnum; ++i) {
    Elf64_Phdr segment;
    std::size_t at = header.e_phoff + i * sizeof(Elf64_Phdr);
    std::memcpy(&segment, object.data() + at, sizeof segment);
    if (segment.p_type == PT_NULL || segment.p_type == PT_GNU_STACK)
      continue;
    std::string moved = object;
    segment.p_vaddr += std::uint64_t{1} << 44;
    std::memcpy(moved.data() + at, &segment, sizeof segment);
    SCOPED_TRACE(i);
    EXPECT_HAS(withObject(moved).message(), "the native code is damaged");
  }
  // A file that is not there.
  EXPECT_FALSE(Artifact::open(dir_ / "absent.lnpkg").ok());
}

TEST_F(SessionTest, TwoArtifactsAtOnce) {
  Session a = session();
  Session b = session();
  ArgMap args;
  args.emplace("v", f32Tensor({4}, {1, 1, 1, 1}));
  ASSERT_TRUE(a.call("accumulate", args).ok());
  ASSERT_TRUE(a.call("accumulate", args).ok());
  ASSERT_TRUE(b.call("accumulate", args).ok());
  EXPECT_EQ(acc(a)[0], 2);
  EXPECT_EQ(acc(b)[0], 1);
}

} // namespace
} // namespace linnet::rt
