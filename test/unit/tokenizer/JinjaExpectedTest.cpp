// The Jinja engine against jinja2 itself: every case of
// test/data/chat-templates/expected.json (written by
// tools/tokenizer/make_chat_template_expected.py with transformers' own
// environment) is rendered here and must give the same text, or fail with
// the same message when jinja2 raised. The cases are one template per
// construct, and the committed real chat templates (Llama 3.2/3.3, Qwen3,
// QwQ, Mistral Nemo, Phi-3.5, SmolLM2, TinyLlama) with several conversations.
#include "runtime/tokenizer/jinja/Template.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <sstream>

namespace linnet::rt::jinja {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

fs::path dataDir() { return fs::path(LINNET_SOURCE_DIR) / "test" / "data" / "chat-templates"; }

std::string readFile(const fs::path &path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

const json &expectedFile() {
  static const json data = json::parse(readFile(dataDir() / "expected.json"));
  return data;
}

std::vector<std::size_t> caseIndices() {
  std::vector<std::size_t> out;
  for (std::size_t i = 0; i < expectedFile()["cases"].size(); ++i)
    out.push_back(i);
  return out;
}

std::string caseName(const testing::TestParamInfo<std::size_t> &info) {
  std::string name = expectedFile()["cases"][info.param]["name"].get<std::string>();
  for (char &c : name)
    if (!std::isalnum(static_cast<unsigned char>(c)))
      c = '_';
  return name;
}

class JinjaExpectedTest : public testing::TestWithParam<std::size_t> {};

TEST_P(JinjaExpectedTest, RendersAsJinja2) {
  const json &c = expectedFile()["cases"][GetParam()];
  std::string source = c.contains("template") ? c["template"].get<std::string>()
                                              : readFile(dataDir() / c["template_file"].get<std::string>());
  Expected<Template> compiled = Template::parse(source);
  ASSERT_TRUE(compiled.ok()) << compiled.message();
  Value context = Value::fromJson(c["context"]);
  RenderOptions options;
  options.now = expectedFile()["now"].get<std::time_t>();
  Expected<std::string> text = compiled->render(context.dictData(), options);
  if (c.contains("error")) {
    ASSERT_FALSE(text.ok()) << "jinja2 raised " << c["error"] << ", we rendered: " << *text;
    EXPECT_NE(text.message().find(c["error"].get<std::string>()), std::string::npos)
        << "ours: " << text.message() << "\njinja2's: " << c["error"].get<std::string>();
    return;
  }
  ASSERT_TRUE(text.ok()) << text.message();
  EXPECT_EQ(*text, c["expected"].get<std::string>());
}

INSTANTIATE_TEST_SUITE_P(Cases, JinjaExpectedTest, testing::ValuesIn(caseIndices()), caseName);

} // namespace
} // namespace linnet::rt::jinja
