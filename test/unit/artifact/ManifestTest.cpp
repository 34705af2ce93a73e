// Manifest validation: the fake manifest parses, and each kind of mistake is
// an error naming the field.
#include "runtime/artifact/Manifest.h"

#include "ArtifactTestUtil.h"

#include <gtest/gtest.h>

namespace linnet::rt {
namespace {

using nlohmann::json;

std::string textError(std::string_view text) {
  Expected<Manifest> manifest = parseManifest(text, "m.lnpkg");
  EXPECT_FALSE(manifest.ok()) << text;
  return manifest.ok() ? "" : manifest.message();
}

std::string errorOf(const char *text) { return textError(text); }
std::string errorOf(const json &value) { return textError(value.dump()); }

// The fake manifest with `edit` applied.
template <typename F> json edited(F edit) {
  json m = test::fakeManifest();
  edit(m);
  return m;
}

#define EXPECT_ERROR(manifest, needle)                                                                                 \
  do {                                                                                                                 \
    std::string message = errorOf(manifest);                                                                           \
    EXPECT_NE(message.find(needle), std::string::npos) << message;                                                     \
  } while (0)

TEST(ManifestTest, ParsesTheFakeManifest) {
  Expected<Manifest> m = parseManifest(test::fakeManifest().dump(), "m");
  ASSERT_TRUE(m.ok()) << m.message();
  EXPECT_EQ(m->target.triple, "x86_64-unknown-linux-gnu");
  EXPECT_EQ(m->source.package, "fake");
  ASSERT_EQ(m->generics.size(), 2u);
  EXPECT_EQ(m->genericDims(), (DimEnv{{"K", 4}}));
  EXPECT_EQ(m->findGeneric("T")->dtype, DType::F32);
  ASSERT_EQ(m->parameters.size(), 1u);
  EXPECT_EQ(m->parameters[0].tensor, "bias");
  EXPECT_EQ(m->parameters[0].shape, (std::vector<std::int64_t>{4}));
  ASSERT_EQ(m->state.size(), 1u);
  EXPECT_EQ(m->state[0].path, "acc");
  const EntrySpec *pick = m->findEntry("pick");
  ASSERT_NE(pick, nullptr);
  EXPECT_EQ(pick->dims, (std::vector<std::string>{"B", "S"}));
  EXPECT_EQ(pick->state, StateAccess::Read);
  ASSERT_EQ(pick->checks.size(), 2u);
  EXPECT_EQ(pick->checks[1].argIndex, 1u);
  EXPECT_EQ(pick->checks[1].max->text(), "K - S + 1");
  ASSERT_EQ(pick->requirements.size(), 2u);
  EXPECT_EQ(pick->requirements[0].lhs.text(), "S");
  EXPECT_EQ(pick->requirements[0].relation, DimRelation::Greater);
  EXPECT_EQ(pick->requirements[0].rhs.text(), "0");
  EXPECT_EQ(pick->requirements[0].why, "`where` clause");
  EXPECT_EQ(pick->requirements[1].relation, DimRelation::Less);
  EXPECT_TRUE(m->findEntry("add")->requirements.empty());
  EXPECT_EQ(m->findEntry("iota")->results[0].shape[0].text(), "Steps * 2");
  EXPECT_EQ(m->findEntry("nope"), nullptr);
}

TEST(ManifestTest, MinimalManifest) {
  Expected<Manifest> m = parseManifest(
      R"({"format": "linnet-artifact", "version": 1, "target": {"kind": "cpu", "triple": "x86_64-linux"},
          "entries": []})",
      "m");
  ASSERT_TRUE(m.ok()) << m.message();
  EXPECT_TRUE(m->parameters.empty());
}

TEST(ManifestTest, Document) {
  EXPECT_ERROR("", "m.lnpkg: manifest");
  EXPECT_ERROR("[1]", "expected an object");
  EXPECT_ERROR(R"({"format": "linnet-artifact", "format": "x"})", "duplicate");
  EXPECT_ERROR(edited([](json &m) { m["extra"] = 1; }), "unknown key \"extra\"");
  EXPECT_ERROR(edited([](json &m) { m["format"] = "other"; }), "format: expected \"linnet-artifact\"");
  EXPECT_ERROR(edited([](json &m) { m.erase("format"); }), "missing `format`");
  EXPECT_ERROR(edited([](json &m) { m["version"] = 2; }), "manifest version 2 is not supported");
  EXPECT_ERROR(edited([](json &m) { m["version"] = "1"; }), "version: expected an integer");
  EXPECT_ERROR(edited([](json &m) { m["version"] = 1.0; }), "version: expected an integer");
}

TEST(ManifestTest, TargetAndSource) {
  EXPECT_ERROR(edited([](json &m) { m.erase("target"); }), "missing `target`");
  EXPECT_ERROR(edited([](json &m) { m["target"]["kind"] = "gpu"; }), "unsupported target kind \"gpu\"");
  EXPECT_ERROR(edited([](json &m) { m["target"].erase("triple"); }), "target: missing `triple`");
  EXPECT_ERROR(edited([](json &m) { m["target"]["cpu"] = 3; }), "target.cpu: expected a string");
  EXPECT_ERROR(edited([](json &m) { m["target"]["abi"] = "x"; }), "target: unknown key \"abi\"");
  EXPECT_ERROR(edited([](json &m) { m["source"]["hash"] = 1; }), "source.hash: expected a string");
}

TEST(ManifestTest, Generics) {
  EXPECT_ERROR(edited([](json &m) { m["generics"] = json::array(); }), "generics: expected an object");
  EXPECT_ERROR(edited([](json &m) { m["generics"]["a-b"] = 1; }), "\"a-b\" is not a valid name");
  EXPECT_ERROR(edited([](json &m) { m["generics"]["K"] = -1; }), "generics.K: expected a non-negative integer");
  EXPECT_ERROR(edited([](json &m) { m["generics"]["K"] = 1.5; }), "generics.K");
  EXPECT_ERROR(edited([](json &m) { m["generics"]["T"] = "f8"; }), "generics.T: unknown dtype \"f8\"");
}

TEST(ManifestTest, ParametersAndState) {
  EXPECT_ERROR(edited([](json &m) { m["parameters"] = json::object(); }), "parameters: expected an array");
  EXPECT_ERROR(edited([](json &m) { m["parameters"][0].erase("path"); }), "parameters[0]: missing `path`");
  EXPECT_ERROR(edited([](json &m) { m["parameters"][0]["path"] = ""; }), "parameters[0].path: empty path");
  EXPECT_ERROR(edited([](json &m) { m["parameters"].push_back(m["parameters"][0]); }),
               "parameters[1].path: \"bias\" is listed twice");
  EXPECT_ERROR(edited([](json &m) { m["parameters"][0]["tensor"] = ""; }), "empty tensor name");
  EXPECT_ERROR(edited([](json &m) { m["parameters"][0]["tensor"] = 5; }), "parameters[0].tensor: expected a string");
  EXPECT_ERROR(edited([](json &m) { m["parameters"][0]["dtype"] = "float"; }),
               "parameters[0].dtype: unknown dtype \"float\"");
  // `stored`: the checkpoint's float dtype a parameter is converted from.
  EXPECT_ERROR(edited([](json &m) { m["parameters"][0]["stored"] = "f128"; }),
               "parameters[0].stored: unknown dtype \"f128\"");
  EXPECT_ERROR(edited([](json &m) { m["parameters"][0]["stored"] = m["parameters"][0]["dtype"]; }),
               "parameters[0].stored: a float dtype other than the parameter's");
  EXPECT_ERROR(edited([](json &m) { m["parameters"][0]["stored"] = "i32"; }),
               "parameters[0].stored: a float dtype other than the parameter's");
  EXPECT_ERROR(edited([](json &m) { m["parameters"][0]["shape"] = {-4}; }), "parameters[0].shape[0]: -4 is negative");
  EXPECT_ERROR(edited([](json &m) { m["parameters"][0]["shape"] = {"K"}; }),
               "parameters[0].shape[0]: expected a non-negative integer");
  EXPECT_ERROR(edited([](json &m) { m["parameters"][0]["shape"] = json(std::vector<int>(65, 1)); }),
               "rank 65 exceeds the limit of 64");
  EXPECT_ERROR(edited([](json &m) {
                 m["parameters"][0]["shape"] = {std::int64_t{1} << 40, std::int64_t{1} << 40};
               }),
               "the byte size overflows");
  EXPECT_ERROR(edited([](json &m) { m["parameters"][0]["init"] = 0; }), "parameters[0]: unknown key \"init\"");
  EXPECT_ERROR(edited([](json &m) { m["state"].push_back(m["state"][0]); }), "state[1].path: \"acc\" is listed twice");
  EXPECT_ERROR(edited([](json &m) { m["state"][0]["dtype"] = 1; }), "state[0].dtype: expected a string");
  EXPECT_ERROR(edited([](json &m) { m["state"][0]["tensor"] = "x"; }), "state[0]: unknown key \"tensor\"");
}

TEST(ManifestTest, Entries) {
  EXPECT_ERROR(edited([](json &m) { m.erase("entries"); }), "missing `entries`");
  EXPECT_ERROR(edited([](json &m) { m["entries"][0]["name"] = "a b"; }), "entries[0].name: \"a b\" is not a valid");
  EXPECT_ERROR(edited([](json &m) {
                 m["entries"][1]["name"] = "add";
                 m["entries"][1]["args"][0]["name"] = "x";
                 m["entries"][1]["args"][0]["shape"] = {"N", "K"};
                 m["entries"][1]["dims"] = {"N"};
               }),
               "entries[1].name: entry `add` is listed twice with the same arguments, dtypes and ranks");
  EXPECT_ERROR(edited([](json &m) { m["entries"][1]["symbol"] = "linnet_entry_add"; }),
               "symbol `linnet_entry_add` is used by two entries");
  EXPECT_ERROR(edited([](json &m) { m["entries"][0]["symbol"] = "x;rm"; }), "is not a valid C symbol");
  EXPECT_ERROR(edited([](json &m) { m["entries"][0]["dims"] = {"N", "N"}; }), "entries[0].dims[1]: `N` is listed twice");
  EXPECT_ERROR(edited([](json &m) { m["entries"][0]["dims"] = {"K"}; }), "`K` is also a generic of the model");
  EXPECT_ERROR(edited([](json &m) { m["entries"][0]["dims"] = {1}; }), "entries[0].dims[0]: expected a dim name");
  EXPECT_ERROR(edited([](json &m) { m["entries"][0].erase("args"); }), "entries[0]: missing `args`");
  EXPECT_ERROR(edited([](json &m) { m["entries"][0]["args"].push_back(m["entries"][0]["args"][0]); }),
               "entries[0].args[1].name: `x` is listed twice");
  EXPECT_ERROR(edited([](json &m) { m["entries"][0]["args"][0]["shape"] = {"N", "M"}; }),
               "entries[0].args[0].shape[1]: `M` is neither a dim of the entry nor an integer generic");
  EXPECT_ERROR(edited([](json &m) { m["entries"][0]["args"][0]["shape"] = {"N", "T"}; }), "`T` is neither");
  EXPECT_ERROR(edited([](json &m) { m["entries"][0]["args"][0]["shape"] = {"N", "(K"}; }), "expected `)`");
  EXPECT_ERROR(edited([](json &m) { m["entries"][0]["args"][0]["shape"] = {"N", 4}; }),
               "entries[0].args[0].shape[1]: expected a string");
  EXPECT_ERROR(edited([](json &m) { m["entries"][0]["args"][0]["dtype"] = "i4"; }), "unknown dtype \"i4\"");
  EXPECT_ERROR(edited([](json &m) { m["entries"][0]["results"][0].erase("shape"); }),
               "entries[0].results[0]: missing `shape`");
  EXPECT_ERROR(edited([](json &m) { m["entries"][0]["state"] = "rw"; }),
               "entries[0].state: expected \"none\", \"read\" or \"write\"");
  EXPECT_ERROR(edited([](json &m) { m["entries"][0]["doc"] = ""; }), "entries[0]: unknown key \"doc\"");
}

TEST(ManifestTest, Checks) {
  EXPECT_ERROR(edited([](json &m) { m["entries"][2]["checks"][0]["kind"] = "sorted"; }),
               "entries[2].checks[0].kind: unknown check kind \"sorted\"");
  EXPECT_ERROR(edited([](json &m) { m["entries"][2]["checks"][0]["arg"] = "nope"; }),
               "entries[2].checks[0].arg: \"nope\" is not an argument");
  EXPECT_ERROR(edited([](json &m) {
                 m["entries"][2]["checks"][0].erase("min");
                 m["entries"][2]["checks"][0].erase("max");
               }),
               "a range check needs `min` or `max`");
  EXPECT_ERROR(edited([](json &m) { m["entries"][2]["checks"][0]["max"] = "Vocab"; }),
               "entries[2].checks[0].max: `Vocab` is neither");
  EXPECT_ERROR(edited([](json &m) { m["entries"][2]["checks"][0]["max"] = 4; }), "checks[0].max: expected a string");
  EXPECT_ERROR(edited([](json &m) { m["entries"][2]["checks"][0]["step"] = "1"; }), "unknown key \"step\"");
  // `distinct` takes no bounds.
  EXPECT_ERROR(edited([](json &m) { m["entries"][2]["checks"][0]["kind"] = "distinct"; }),
               "entries[2].checks[0]: a distinct check has no `min` or `max`");
  // A distinct check per value of another argument, leaving out a value.
  auto distinctPer = [](json per, json except) {
    return edited([&](json &m) {
      m["entries"][2]["checks"].push_back({{"arg", "tokens"}, {"kind", "distinct"}, {"per", per}, {"except", except}});
    });
  };
  Expected<Manifest> per = parseManifest(distinctPer("pos", "K - 1").dump(), "m");
  ASSERT_TRUE(per.ok()) << per.message();
  const ValueCheck &check = per->findEntry("pick")->checks.back();
  EXPECT_EQ(check.per, "pos");
  EXPECT_EQ(check.perIndex, 1u);
  EXPECT_EQ(check.except->text(), "K - 1");
  EXPECT_ERROR(distinctPer("tokens", "0"), "entries[2].checks[2].per: \"tokens\" is not another argument");
  EXPECT_ERROR(distinctPer("nope", "0"), "entries[2].checks[2].per: \"nope\" is not another argument");
  EXPECT_ERROR(distinctPer("pos", "Q"), "entries[2].checks[2].except: `Q` is neither");
  EXPECT_ERROR(edited([](json &m) { m["entries"][2]["checks"][0]["per"] = "pos"; }),
               "entries[2].checks[0]: a range check has no `per` or `except`");
}

// An enum argument or result: an i32 scalar with identifiers, unique, at
// least one; an argument gets a range check 0 <= index < variants.
TEST(ManifestTest, Enums) {
  auto withEnum = [](json enumValue, std::string dtype = "i32", json shape = json::array()) {
    return edited([&](json &m) {
      m["entries"][0]["args"].push_back({{"name", "mode"}, {"dtype", dtype}, {"shape", shape}, {"enum", enumValue}});
    });
  };
  json good = {{"name", "Mode"}, {"variants", {"Double", "Negate", "Keep"}}};
  Expected<Manifest> parsed = parseManifest(withEnum(good).dump(), "m.lnpkg");
  ASSERT_TRUE(parsed.ok()) << parsed.message();
  const EntrySpec &entry = parsed->entries[0];
  const ArgSpec &mode = entry.args.back();
  ASSERT_TRUE(mode.enumType.has_value());
  EXPECT_EQ(mode.enumType->variants.size(), 3u);
  EXPECT_EQ(mode.enumType->indexOf("Negate"), 1);
  EXPECT_EQ(mode.enumType->indexOf("Mode.Keep"), 2);
  EXPECT_EQ(mode.enumType->indexOf("Other.Keep"), std::nullopt);
  EXPECT_EQ(mode.enumType->indexOf("Mode."), std::nullopt);
  ASSERT_FALSE(entry.checks.empty());
  const ValueCheck &check = entry.checks.back();
  EXPECT_EQ(check.arg, "mode");
  EXPECT_EQ(check.argIndex, entry.args.size() - 1);
  EXPECT_EQ(check.min->text(), "0");
  EXPECT_EQ(check.max->text(), "3");

  EXPECT_ERROR(withEnum(good, "f32"), "args[1].enum: an enum value is an i32 scalar");
  EXPECT_ERROR(withEnum(good, "i32", {"N"}), "an enum value is an i32 scalar");
  EXPECT_ERROR(withEnum({{"name", "Mode"}, {"variants", json::array()}}), "an enum needs at least one variant");
  EXPECT_ERROR(withEnum({{"name", "Mode"}, {"variants", {"A", "A"}}}), "variants[1]: `A` is listed twice");
  EXPECT_ERROR(withEnum({{"name", "Mode"}, {"variants", {"A", "b c"}}}), "variants[1]: expected an identifier");
  EXPECT_ERROR(withEnum({{"name", "Mode"}, {"variants", {"A", 1}}}), "variants[1]: expected an identifier");
  EXPECT_ERROR(withEnum({{"name", "1x"}, {"variants", {"A"}}}), "enum.name: \"1x\" is not an identifier");
  EXPECT_ERROR(withEnum({{"name", "Mode"}, {"variants", {"A"}}, {"doc", ""}}), "unknown key \"doc\"");
  EXPECT_ERROR(withEnum({{"name", "Mode"}}), "enum: missing `variants`");
  EXPECT_ERROR(withEnum("Mode"), "enum: expected an object");
  EXPECT_ERROR(edited([](json &m) { m["entries"][0]["results"][0]["enum"] = {{"name", "M"}, {"variants", {"A"}}}; }),
               "results[0].enum: an enum value is an i32 scalar");
}

TEST(ManifestTest, Requires) {
  EXPECT_ERROR(edited([](json &m) { m["entries"][2]["requires"] = json::object(); }),
               "entries[2].requires: expected an array");
  EXPECT_ERROR(edited([](json &m) { m["entries"][2]["requires"][0] = "S > 0"; }),
               "entries[2].requires[0]: expected an object");
  EXPECT_ERROR(edited([](json &m) { m["entries"][2]["requires"][0]["relation"] = "=>"; }),
               "entries[2].requires[0].relation: unknown relation \"=>\"");
  EXPECT_ERROR(edited([](json &m) { m["entries"][2]["requires"][0]["relation"] = 1; }),
               "entries[2].requires[0].relation: expected a string");
  EXPECT_ERROR(edited([](json &m) { m["entries"][2]["requires"][0].erase("relation"); }),
               "entries[2].requires[0]: missing `relation`");
  EXPECT_ERROR(edited([](json &m) { m["entries"][2]["requires"][0].erase("lhs"); }),
               "entries[2].requires[0]: missing `lhs`");
  EXPECT_ERROR(edited([](json &m) { m["entries"][2]["requires"][0]["rhs"] = 0; }),
               "entries[2].requires[0].rhs: expected a string");
  EXPECT_ERROR(edited([](json &m) { m["entries"][2]["requires"][0]["lhs"] = "Vocab"; }),
               "entries[2].requires[0].lhs: `Vocab` is neither");
  EXPECT_ERROR(edited([](json &m) { m["entries"][2]["requires"][0]["lhs"] = "S +"; }), "entries[2].requires[0].lhs:");
  EXPECT_ERROR(edited([](json &m) { m["entries"][2]["requires"][0]["why"] = 3; }),
               "entries[2].requires[0].why: expected a string");
  EXPECT_ERROR(edited([](json &m) { m["entries"][2]["requires"][0]["why"] = std::string(2000, 'x'); }),
               "entries[2].requires[0].why: longer than 1024 characters");
  EXPECT_ERROR(edited([](json &m) { m["entries"][2]["requires"][0]["why"] = "a\nb"; }),
               "entries[2].requires[0].why: contains a control character");
  EXPECT_ERROR(edited([](json &m) { m["entries"][2]["requires"][0]["kind"] = "dim"; }), "unknown key \"kind\"");
  // `why` is optional; a dim of another entry is not a name here.
  Expected<Manifest> ok =
      parseManifest(edited([](json &m) { m["entries"][2]["requires"][0].erase("why"); }).dump(), "m");
  ASSERT_TRUE(ok.ok()) << ok.message();
  EXPECT_EQ(ok->findEntry("pick")->requirements[0].why, "");
  EXPECT_ERROR(edited([](json &m) { m["entries"][0]["requires"] = json::array({{{"lhs", "S"}, {"relation", ">"}, {"rhs", "0"}}}); }),
               "entries[0].requires[0].lhs: `S` is neither");
}

TEST(ManifestTest, DimDefaults) {
  // entries[2] is `pick` with dims B, S; a default may name the model's
  // generics and the dims before its own.
  Expected<Manifest> ok = parseManifest(
      edited([](json &m) { m["entries"][2]["defaults"] = {{"B", "2"}, {"S", "B * 4 + K"}}; }).dump(), "m");
  ASSERT_TRUE(ok.ok()) << ok.message();
  EXPECT_EQ(ok->findEntry("pick")->defaults.at("S").text(), "B * 4 + K");
  EXPECT_ERROR(edited([](json &m) { m["entries"][2]["defaults"] = json::array(); }),
               "entries[2].defaults: expected an object");
  EXPECT_ERROR(edited([](json &m) { m["entries"][2]["defaults"] = {{"Q", "1"}}; }),
               "entries[2].defaults.Q: `Q` is not a dim of the entry");
  EXPECT_ERROR(edited([](json &m) { m["entries"][2]["defaults"] = {{"B", "S"}}; }), "entries[2].defaults.B:");
  EXPECT_ERROR(edited([](json &m) { m["entries"][2]["defaults"] = {{"B", "2 +"}}; }), "entries[2].defaults.B:");
}

TEST(ManifestTest, ArgumentDefaults) {
  // entries[2] is `pick`: `pos` is an i64 scalar, `tokens` a tensor.
  Expected<Manifest> ok = parseManifest(edited([](json &m) { m["entries"][2]["args"][1]["default"] = 3; }).dump(), "m");
  ASSERT_TRUE(ok.ok()) << ok.message();
  EXPECT_EQ(ok->findEntry("pick")->args[1].defaultValue, 3.0);
  EXPECT_ERROR(edited([](json &m) { m["entries"][2]["args"][0]["default"] = 1; }),
               "entries[2].args[0].default: only a scalar may have a default");
  EXPECT_ERROR(edited([](json &m) { m["entries"][2]["args"][1]["default"] = "3"; }),
               "entries[2].args[1].default: expected a finite number or a bool");
  // An enum's default is its variant's name; the runtime passes its index.
  auto enumDefault = [](json value) {
    return edited([value](json &m) {
      json &a = m["entries"][2]["args"][1];
      a["dtype"] = "i32";
      a["enum"] = {{"name", "Mode"}, {"variants", {"A", "B"}}};
      a["default"] = value;
    });
  };
  Expected<Manifest> named = parseManifest(enumDefault("B").dump(), "m");
  ASSERT_TRUE(named.ok()) << named.message();
  EXPECT_EQ(named->findEntry("pick")->args[1].defaultValue, 1.0);
  EXPECT_ERROR(enumDefault("C"), "entries[2].args[1].default: expected the name of a variant of `Mode`");
  EXPECT_ERROR(enumDefault(1), "entries[2].args[1].default: expected the name of a variant of `Mode`");
}

TEST(ManifestTest, ConfigRecord) {
  // The config.json keys the build read (docs/abi.md `config`).
  Expected<Manifest> none = parseManifest(edited([](json &) {}).dump(), "m");
  ASSERT_TRUE(none.ok()) << none.message();
  EXPECT_FALSE(none->config.has_value());
  Expected<Manifest> ok = parseManifest(
      edited([](json &m) { m["config"] = {{"values", {{"rope_theta", 10000.0}}}, {"absent", {"head_dim"}}}; }).dump(),
      "m");
  ASSERT_TRUE(ok.ok()) << ok.message();
  ASSERT_TRUE(ok->config.has_value());
  ASSERT_EQ(ok->config->values.size(), 1u);
  EXPECT_EQ(ok->config->values[0].first, "rope_theta");
  EXPECT_EQ(ok->config->absent, std::vector<std::string>{"head_dim"});
  EXPECT_ERROR(edited([](json &m) { m["config"] = {{"values", 3}}; }), "config.values: expected an object");
  EXPECT_ERROR(edited([](json &m) { m["config"] = {{"absent", {1}}}; }), "config.absent: expected an array of strings");
  EXPECT_ERROR(edited([](json &m) { m["config"] = {{"keys", json::array()}}; }), "config");
}

TEST(ManifestTest, EntryVariants) {
  // Variants of `add` (docs/abi.md): the same argument names, told apart by
  // their dtypes and ranks; findVariants lists them in order.
  auto variant = [](json &m, json shape, const char *dtype, const char *symbol) {
    json v = m["entries"][0];
    v["symbol"] = symbol;
    if (shape.size() == 3)
      v["dims"] = {"N", "S_0"};
    v["args"][0]["shape"] = shape;
    v["args"][0]["dtype"] = dtype;
    v["results"][0]["shape"] = shape;
    m["entries"].push_back(v);
  };
  json ok = edited([&](json &m) {
    variant(m, {"N", "S_0", "K"}, "f32", "linnet_entry_add__S1");
    variant(m, {"N", "K"}, "f64", "linnet_entry_add__Tf64");
  });
  Expected<Manifest> m = parseManifest(ok.dump(), "m");
  ASSERT_TRUE(m.ok()) << m.message();
  std::vector<const EntrySpec *> variants = m->findVariants("add");
  ASSERT_EQ(variants.size(), 3u);
  EXPECT_EQ(variants[1]->symbol, "linnet_entry_add__S1");
  EXPECT_EQ(variants[2]->args[0].dtype, DType::F64);
  EXPECT_EQ(m->findEntry("add"), variants[0]);
  EXPECT_TRUE(m->findVariants("nope").empty());
  EXPECT_ERROR(edited([&](json &m) { variant(m, {"N", "K"}, "f32", "linnet_entry_add2"); }),
               "entry `add` is listed twice with the same arguments, dtypes and ranks");
  // A variant without an optional argument, and tuple parts' names.
  json parts = edited([&](json &m) {
    variant(m, {"N", "K"}, "f32", "linnet_entry_add__no_x");
    m["entries"].back()["args"] = json::array();
    m["entries"][0]["args"][0]["name"] = "pair.0";
  });
  Expected<Manifest> withParts = parseManifest(parts.dump(), "m");
  ASSERT_TRUE(withParts.ok()) << withParts.message();
  EXPECT_EQ(withParts->findVariants("add").size(), 2u);
  // A variant computing an argument from its default is told apart by that
  // alone; what it computes is an argument name of its own.
  json computes = edited([&](json &m) {
    variant(m, {"N", "K"}, "f32", "linnet_entry_add__default_y");
    m["entries"].back()["defaulted"] = json::array({"y"});
  });
  Expected<Manifest> withDefaulted = parseManifest(computes.dump(), "m");
  ASSERT_TRUE(withDefaulted.ok()) << withDefaulted.message();
  EXPECT_EQ(withDefaulted->findVariants("add")[1]->defaulted, std::vector<std::string>{"y"});
  EXPECT_ERROR(edited([](json &m) { m["entries"][0]["defaulted"] = {"z", "z"}; }),
               "entries[0].defaulted[1]: `z` is also an argument of the entry or listed twice");
  // (json::array: a braced list of one json value is that value under clang.)
  EXPECT_ERROR(edited([](json &m) {
                 m["entries"][0]["defaulted"] = json::array({m["entries"][0]["args"][0]["name"]});
               }),
               "is also an argument of the entry");
  EXPECT_ERROR(edited([](json &m) { m["entries"][0]["defaulted"] = json::array({"a b"}); }),
               "entries[0].defaulted[0]: expected an argument name");
  EXPECT_ERROR(edited([](json &m) { m["entries"][0]["defaulted"] = "y"; }), "entries[0].defaulted: expected an array");
  EXPECT_ERROR(edited([](json &m) { m["entries"][0]["args"][0]["name"] = "pair.1x"; }), "is not a valid argument name");
  EXPECT_ERROR(edited([](json &m) { m["entries"][0]["args"][0]["name"] = "pair."; }), "is not a valid argument name");
}

} // namespace
} // namespace linnet::rt
