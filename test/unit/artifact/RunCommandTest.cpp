// The run command end to end on the fake artifact: one call, --calls files,
// --print, --out, and the exit codes of usage and input errors.
#include "runtime/cli/RunCommand.h"

#include "ArtifactTestUtil.h"
#include "runtime/checkpoint/SafeTensors.h"
#include "runtime/io/Npy.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>

namespace linnet::rt {
namespace {

struct Outcome {
  int code;
  std::string out, err;
};

class RunCommandTest : public ::testing::Test {
protected:
  RunCommandTest() {
    artifact_ = test::writeFakeArtifact(dir_, test::fakeManifest()).string();
    checkpoint_ = test::writeFakeCheckpoint(dir_).string();
  }

  RunOptions base() {
    RunOptions options;
    options.artifactPath = artifact_;
    options.checkpointDir = checkpoint_;
    return options;
  }

  Outcome run(RunOptions options) {
    char *outText = nullptr, *errText = nullptr;
    std::size_t outSize = 0, errSize = 0;
    options.out = open_memstream(&outText, &outSize);
    options.err = open_memstream(&errText, &errSize);
    int code = runCommand(options);
    std::fclose(options.out);
    std::fclose(options.err);
    Outcome outcome{code, std::string(outText, outSize), std::string(errText, errSize)};
    std::free(outText);
    std::free(errText);
    return outcome;
  }

  std::string writeCalls(const std::string &json) {
    std::filesystem::path path = dir_ / "calls.json";
    std::ofstream(path) << json;
    return path.string();
  }

  test::TempDir dir_;
  std::string artifact_, checkpoint_;
};

TEST_F(RunCommandTest, OneCallPrintedAndSaved) {
  RunOptions options = base();
  options.entry = "add";
  options.args = {"x=[[0,0,0,0],[1,1,1,1]]"};
  options.print = true;
  options.outFile = (dir_ / "out.safetensors").string();
  Outcome o = run(options);
  ASSERT_EQ(o.code, kExitOk) << o.err;
  EXPECT_EQ(o.out, "0: f32[2, 4]\n[[1., 2., 3., 4.],\n [2., 3., 4., 5.]]\n");
  Expected<SafeTensorsFile> saved = SafeTensorsFile::open(*options.outFile);
  ASSERT_TRUE(saved.ok()) << saved.message();
  ASSERT_NE(saved->find("0"), nullptr);
  EXPECT_EQ(saved->find("0")->shape, (std::vector<std::int64_t>{2, 4}));
}

TEST_F(RunCommandTest, CallsKeepStateAndNameResults) {
  std::filesystem::path npy = dir_ / "v.npy";
  std::ofstream(npy, std::ios::binary) << encodeNpy(test::f32Tensor({4}, {1, 1, 1, 1})).value();
  RunOptions options = base();
  options.callsFile = writeCalls(R"({"calls": [
      {"entry": "accumulate", "args": {"v": [1, 2, 3, 4]}},
      {"entry": "accumulate", "args": {"v": "@v.npy"}},
      {"entry": "iota", "args": {"start": 0.5}, "bind": {"Steps": 2}},
      {"entry": "poke"},
      {"entry": "pick", "args": {"tokens": [[1, 3]], "pos": 1}}]})");
  options.outFile = (dir_ / "calls.safetensors").string();
  Outcome o = run(options);
  ASSERT_EQ(o.code, kExitOk) << o.err;
  Expected<SafeTensorsFile> saved = SafeTensorsFile::open(*options.outFile);
  ASSERT_TRUE(saved.ok()) << saved.message();
  std::vector<std::string> names;
  for (const TensorView &t : saved->tensors())
    names.push_back(t.name);
  EXPECT_EQ(names, (std::vector<std::string>{"0.0", "0.1", "1.0", "1.1", "2", "4"}));
  const TensorView *acc = saved->find("1.0");
  float values[4];
  std::memcpy(values, acc->data, 16);
  EXPECT_EQ(values[0], 2);
  EXPECT_EQ(values[3], 5);
  EXPECT_EQ(saved->find("1.1")->dtype, DType::I64);
  EXPECT_TRUE(saved->find("1.1")->shape.empty());
  EXPECT_EQ(saved->find("2")->shape, (std::vector<std::int64_t>{4}));
  std::int32_t picked;
  std::memcpy(&picked, saved->find("4")->data, 4);
  EXPECT_EQ(picked, 4);
}

TEST_F(RunCommandTest, AFailedCheckStopsTheRun) {
  RunOptions options = base();
  options.callsFile = writeCalls(R"({"calls": [
      {"entry": "accumulate", "args": {"v": [1, 2, 3, 4]}},
      {"entry": "pick", "args": {"tokens": [[1, 9]], "pos": 0}},
      {"entry": "poke"}]})");
  options.outFile = (dir_ / "never.safetensors").string();
  Outcome o = run(options);
  EXPECT_EQ(o.code, kExitInputError);
  EXPECT_HAS(o.err, "linnet-run: error: call 1 (`pick`): argument `tokens` element [0, 1] is 9: it must be in 0..4");
  EXPECT_HAS(o.err, "K = 4");
  EXPECT_FALSE(std::filesystem::exists(*options.outFile));
}

TEST_F(RunCommandTest, Binds) {
  RunOptions options = base();
  options.entry = "iota";
  options.args = {"start=1"};
  options.print = true;
  Outcome unbound = run(options);
  EXPECT_EQ(unbound.code, kExitInputError);
  EXPECT_HAS(unbound.err, "dim `Steps` of entry `iota` is not fixed by any argument");
  options.binds = {"Steps=2", "T=f32", "K=4"};
  Outcome ok = run(options);
  EXPECT_EQ(ok.code, kExitOk) << ok.err;
  EXPECT_HAS(ok.out, "[1., 2., 3., 4.]");
  options.binds = {"Steps=2", "T=bf16"};
  EXPECT_HAS(run(options).err, "the artifact was built with T = f32; it cannot run with T = bf16");
  options.binds = {"Steps=2", "Nope=1"};
  EXPECT_HAS(run(options).err, "`Nope` is neither a generic of the model nor a dim");
  options.binds = {"Steps=x"};
  EXPECT_HAS(run(options).err, "bind Steps: expected an integer");
}

TEST_F(RunCommandTest, UsageErrors) {
  RunOptions options = base();
  EXPECT_EQ(run(options).code, kExitUsage);
  options.entry = "add";
  options.callsFile = "x.json";
  EXPECT_EQ(run(options).code, kExitUsage);
  options.callsFile.reset();
  options.args = {"novalue"};
  EXPECT_HAS(run(options).err, "--arg expects NAME=VALUE");
  EXPECT_EQ(run(options).code, kExitUsage);
  options.args = {"x=[[1,1,1,1]]", "x=[[1,1,1,1]]"};
  EXPECT_EQ(run(options).code, kExitUsage);
  options.args = {};
  options.outFile = "out.npy";
  EXPECT_EQ(run(options).code, kExitUsage);
  options.outFile.reset();
  options.prompt = "hello";
  EXPECT_EQ(run(options).code, kExitUsage);
}

TEST_F(RunCommandTest, InputErrors) {
  RunOptions options = base();
  options.entry = "add";
  options.args = {"x=[[1,2],[3]]"};
  Outcome ragged = run(options);
  EXPECT_EQ(ragged.code, kExitInputError);
  EXPECT_HAS(ragged.err, "entry `add`: argument `x`: ragged list");
  options.args = {"y=1"};
  EXPECT_HAS(run(options).err, "entry `add` has no argument `y` (its arguments: x)");
  options.args = {"x=[[1,2,3,4]"};
  EXPECT_HAS(run(options).err, "--arg x: not a number or a nested list");
  // The parser's reason follows: a number too small for a double read as 0,
  // which an integer argument took (`1e-400` ran as token 0).
  options.args = {"x=[[1,2,3,1e-400]]"};
  EXPECT_HAS(run(options).err, "--arg x: not a number or a nested list: `[[1,2,3,1e-400]]`; number underflow parsing "
                               "'1e-400'");
  options.args = {"x=@missing.npy"};
  EXPECT_EQ(run(options).code, kExitInputError);
  options.entry = "nope";
  options.args = {};
  EXPECT_HAS(run(options).err, "the artifact has no entry `nope`");
  options.entry = "add";
  options.checkpointDir.reset();
  EXPECT_HAS(run(options).err, "no checkpoint was given");
  options.artifactPath = (dir_ / "absent.lnpkg").string();
  EXPECT_EQ(run(options).code, kExitInputError);
  options = base();
  options.callsFile = writeCalls(R"({"calls": [{"entry": "poke", "extra": 1}]})");
  EXPECT_HAS(run(options).err, "calls[0]: unknown key \"extra\"");
  options.callsFile = writeCalls(R"({"calls": {}})");
  EXPECT_HAS(run(options).err, "expected {\"calls\": [...]}");
  // A key beside `calls` is named (it said only what the file should be).
  options.callsFile = writeCalls(R"({"calls": [], "cals": 1})");
  EXPECT_HAS(run(options).err, "unknown key `cals` (the file is {\"calls\": [...]})");
  options.callsFile = writeCalls(R"({"calls": [{"entry": "accumulate", "args": {"v": "some text"}}]})");
  EXPECT_HAS(run(options).err, "a string value must be @FILE.npy or an enum variant");
  // A name is an enum variant, and `v` is no enum.
  options.callsFile = writeCalls(R"({"calls": [{"entry": "accumulate", "args": {"v": "text"}}]})");
  EXPECT_HAS(run(options).err, "argument `v`: `text` is a name, and the argument is not an enum");
}

TEST_F(RunCommandTest, ArtifactImageInMemory) {
  std::ifstream in(artifact_, std::ios::binary);
  std::string image((std::istreambuf_iterator<char>(in)), {});
  RunOptions options = base();
  options.artifactPath = "built-in-memory";
  options.artifactImage = image;
  options.entry = "poke";
  EXPECT_EQ(run(options).code, kExitOk);
  image[0] = 'X';
  options.artifactImage = image;
  EXPECT_HAS(run(options).err, "built-in-memory: not a linnet artifact");
}

} // namespace
} // namespace linnet::rt
