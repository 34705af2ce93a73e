// Tests for runtime/checkpoint/StrictJson.h: documents of every shape parse
// to what nlohmann's own parser gives, a key repeated within one object is an
// error at any depth (the same key in sibling objects is not), and malformed
// text is an error naming the source, never an exception.
#include "runtime/checkpoint/StrictJson.h"

#include <gtest/gtest.h>

#include <string>

namespace linnet::rt {
namespace {

using nlohmann::json;

std::string errorOf(std::string_view text) {
  Expected<json> parsed = parseStrictJson(text, "doc.json");
  return parsed.ok() ? "<parsed successfully>" : parsed.message();
}

TEST(StrictJsonTest, ParsesAsNlohmannDoes) {
  for (const char *text : {R"({"a": [1, -2, 3.5, true, null, "s", {"b": {}}, []], "c": {"d": [[{}]]}})",
                           "[]", "{}", "7", "\"text\"", "null", "  [ {\"x\": 1} , {\"x\": 2} ]  \n",
                           R"([{"a": 1, "b": [{"a": 2}, {"a": 3}]}, 18446744073709551615, -9223372036854775808])"}) {
    Expected<json> parsed = parseStrictJson(text, "doc.json");
    ASSERT_TRUE(parsed.ok()) << text << ": " << parsed.message();
    EXPECT_EQ(*parsed, json::parse(text)) << text;
  }
}

TEST(StrictJsonTest, NulByteEndsNothing) {
  // nlohmann stops at a NUL byte, so `{}` then anything was a valid document.
  EXPECT_EQ(errorOf(std::string_view("{}\0{{{ garbage", 15)), "doc.json: invalid JSON: a NUL byte at offset 2");
  EXPECT_EQ(errorOf(std::string_view("{\"a\": \"x\0\"}", 11)), "doc.json: invalid JSON: a NUL byte at offset 8");
}

TEST(StrictJsonTest, ManyObjectsInOneArray) {
  // Each call of a `--calls` file is an object in one array.
  std::string text = "{\"calls\": [";
  for (int i = 0; i < 100000; ++i) text += (i ? "," : "") + std::string("{\"entry\": \"f\", \"args\": {\"x\": [1, 2]}}");
  text += "]}";
  Expected<json> parsed = parseStrictJson(text, "calls.json");
  ASSERT_TRUE(parsed.ok()) << parsed.message();
  ASSERT_EQ((*parsed)["calls"].size(), 100000u);
  EXPECT_EQ((*parsed)["calls"][99999]["args"]["x"][1], 2);
}

TEST(StrictJsonTest, RepeatedKeyAtAnyDepth) {
  EXPECT_NE(errorOf(R"({"a": 1, "a": 2})").find("duplicate key \"a\""), std::string::npos);
  EXPECT_NE(errorOf(R"({"x": [{"k": 1, "j": 2, "k": 3}]})").find("duplicate key \"k\""), std::string::npos);
  EXPECT_NE(errorOf(R"({"o": {"p": {}, "p": []}})").find("duplicate key \"p\""), std::string::npos);
  // The same key in sibling and nested objects is fine.
  EXPECT_EQ(errorOf(R"([{"a": 1}, {"a": 2}, {"a": {"a": {"a": 3}}}])"), "<parsed successfully>");
}

TEST(StrictJsonTest, NestingIsBounded) {
  // 512 levels parse; one more is an error, at any size of the rest (a
  // 200 KB header of 100000 nested arrays crashed the message printing it).
  std::string ok = std::string(kMaxJsonDepth, '[') + std::string(kMaxJsonDepth, ']');
  EXPECT_EQ(errorOf(ok), "<parsed successfully>");
  std::string deep = std::string(kMaxJsonDepth + 1, '[') + std::string(kMaxJsonDepth + 1, ']');
  EXPECT_NE(errorOf(deep).find("doc.json: invalid JSON: nested deeper than 512 levels"), std::string::npos);
  std::string deeper = "{\"a\": " + std::string(100000, '[');
  EXPECT_NE(errorOf(deeper).find("nested deeper than 512 levels"), std::string::npos);
  std::string objects;
  for (int i = 0; i < 1000; ++i) objects += "{\"k\": ";
  EXPECT_NE(errorOf(objects).find("nested deeper than 512 levels"), std::string::npos);
}

TEST(StrictJsonTest, MalformedTextIsAnError) {
  for (const char *text : {"", "{", "[1, 2", "{\"a\" 1}", "[1,]", "{\"a\": 1} x", "[] []", "nul", "\"\\u12\"",
                           "{\"a\": 1, \"a\": }"}) {
    std::string message = errorOf(text);
    EXPECT_NE(message.find("doc.json: invalid JSON"), std::string::npos) << text << " -> " << message;
    // Without the library's tag (`[json.exception.parse_error.101]`).
    EXPECT_EQ(message.find("json.exception"), std::string::npos) << text << " -> " << message;
  }
  EXPECT_EQ(errorOf("[1e400]").find("json.exception"), std::string::npos) << errorOf("[1e400]");
}

// A literal too small for a double is an error as one too large is: it read
// as 0, which an integer argument took as the integer 0.
TEST(StrictJsonTest, UnderflowIsAnError) {
  EXPECT_NE(errorOf("[1, 2, 1e-400]").find("number underflow parsing '1e-400'"), std::string::npos)
      << errorOf("[1, 2, 1e-400]");
  EXPECT_NE(errorOf("[-0.5E-999]").find("number underflow"), std::string::npos);
  // Zeros written as zeros, and the smallest subnormal, are numbers.
  for (const char *text : {"[0.0]", "[-0e5]", "[0.000e-400]", "[5e-324]"})
    EXPECT_TRUE(parseStrictJson(text, "doc.json").ok()) << text;
}

TEST(StrictJsonTest, TheLastTokenReadIsShownShortAndEscaped) {
  // nlohmann's message ends with the whole last token: a 5 MB number made a
  // 5 MB message, a byte that is not UTF-8 reached the terminal raw.
  std::string huge = "[" + std::string(5000000, '1') + "e99999]";
  std::string message = errorOf(huge);
  EXPECT_LT(message.size(), 400u) << message.substr(0, 400);
  EXPECT_NE(message.find("'111111"), std::string::npos) << message;
  EXPECT_NE(message.find("... ("), std::string::npos) << message;
  std::string token = errorOf("[\"" + std::string(5000000, 'x'));
  EXPECT_LT(token.size(), 400u) << token.substr(0, 400);
  EXPECT_NE(token.find("last read: '\"xxx"), std::string::npos) << token;
  EXPECT_NE(token.find("... (5000001 bytes)'"), std::string::npos) << token;
  std::string raw = errorOf("{\"phi\xff\": 1}");
  EXPECT_EQ(raw.find('\xff'), std::string::npos) << raw;
  EXPECT_NE(raw.find("\\xff"), std::string::npos) << raw;
}

}  // namespace
}  // namespace linnet::rt
