// Implementation of PreTokenizer.h.
#include "runtime/tokenizer/PreTokenizer.h"

#include "runtime/checkpoint/StrictJson.h"
#include "runtime/tokenizer/ByteLevel.h"
#include "runtime/tokenizer/Utf8.h"

#include <cctype>

namespace linnet::rt {

using nlohmann::json;

std::string jsonType(const json &config) {
  auto it = config.find("type");
  return it != config.end() && it->is_string() ? it->get<std::string>() : std::string();
}

namespace {

Expected<bool> boolField(const json &config, std::string_view key, bool fallback,
                         std::string_view source, std::string_view where) {
  auto it = config.find(key);
  if (it == config.end() || it->is_null())
    return fallback;
  if (!it->is_boolean())
    return makeError("{}: {} \"{}\" must be true or false", source, where, key);
  return it->get<bool>();
}

// A literal as a regex of escaped characters.
std::string escapeLiteral(std::string_view text) {
  std::string out;
  for (char c : text) {
    auto u = static_cast<unsigned char>(c);
    if (u < 0x80 && !std::isalnum(u) && c != ' ')
      out.push_back('\\');
    out.push_back(c);
  }
  return out;
}

} // namespace

Expected<PreTokenizer> PreTokenizer::fromJson(const json &config, std::string_view source) {
  PreTokenizer out;
  if (Status status = out.addSteps(config, source, 0); !status)
    return status.error();
  std::size_t byteLevelSteps = 0;
  for (const Step &step : out.steps_)
    byteLevelSteps += step.kind == Step::Kind::ByteLevel;
  if (byteLevelSteps == 0)
    return makeError("{}: unsupported \"pre_tokenizer\": only byte-level BPE is implemented, and "
                     "the pre-tokenizer has no ByteLevel step",
                     source);
  // A second would map the first one's characters again, each to as many as
  // its UTF-8 bytes: the text doubles at every such step (40 of them took a
  // one-character prompt past 8 GB).
  if (byteLevelSteps > 1)
    return makeError("{}: unsupported \"pre_tokenizer\": it has {} ByteLevel steps; byte-level BPE maps the "
                     "text's bytes once",
                     source, byteLevelSteps);
  return out;
}

Status PreTokenizer::addSteps(const json &config, std::string_view source, int depth) {
  if (!config.is_object())
    return makeError("{}: \"pre_tokenizer\" must be an object, got {}", source, config.type_name());
  std::string type = jsonType(config);
  if (type == "Sequence") {
    auto list = config.find("pretokenizers");
    if (list == config.end() || !list->is_array())
      return makeError("{}: a Sequence pre-tokenizer needs a \"pretokenizers\" array", source);
    if (depth > 8)
      return makeError("{}: pre-tokenizer Sequences nested too deeply", source);
    for (const json &item : *list)
      if (Status status = addSteps(item, source, depth + 1); !status)
        return status;
    return Status::success();
  }
  if (type == "ByteLevel") {
    Step step;
    step.kind = Step::Kind::ByteLevel;
    Expected<bool> prefix = boolField(config, "add_prefix_space", true, source, "ByteLevel");
    if (!prefix)
      return prefix.error();
    Expected<bool> useRegex = boolField(config, "use_regex", true, source, "ByteLevel");
    if (!useRegex)
      return useRegex.error();
    step.addPrefixSpace = *prefix;
    if (*useRegex) {
      Expected<Regex> regex = Regex::compile(kGpt2Pattern);
      if (!regex)
        return makeError("{}: GPT-2's pattern: {}", source, regex.message());
      step.regex = std::make_shared<const Regex>(std::move(*regex));
    }
    steps_.push_back(std::move(step));
    return Status::success();
  }
  if (type == "Split") {
    auto behavior = config.find("behavior");
    if (behavior == config.end() || *behavior != "Isolated")
      return makeError("{}: unsupported Split pre-tokenizer behavior {} (only \"Isolated\")",
                       source, behavior == config.end() ? "(none)" : behavior->dump());
    Expected<bool> invert = boolField(config, "invert", false, source, "Split");
    if (!invert)
      return invert.error();
    if (*invert)
      return makeError("{}: unsupported Split pre-tokenizer with \"invert\": true", source);
    auto pattern = config.find("pattern");
    std::string regexText;
    if (pattern != config.end() && pattern->is_object() && pattern->size() == 1 &&
        pattern->contains("Regex") && (*pattern)["Regex"].is_string())
      regexText = (*pattern)["Regex"].get<std::string>();
    else if (pattern != config.end() && pattern->is_object() && pattern->size() == 1 &&
             pattern->contains("String") && (*pattern)["String"].is_string())
      regexText = escapeLiteral((*pattern)["String"].get<std::string>());
    else
      return makeError("{}: a Split pre-tokenizer needs \"pattern\": {{\"Regex\": ...}} or "
                       "{{\"String\": ...}}",
                       source);
    if (regexText.empty())
      return makeError("{}: a Split pre-tokenizer has an empty pattern", source);
    Expected<Regex> regex = Regex::compile(regexText);
    if (!regex) {
      // A hostile pattern can be megabytes: quote only its start (cut at a
      // UTF-8 character boundary).
      std::string shown = regexText;
      if (shown.size() > 200) {
        std::size_t cut = 200;
        while (cut > 0 && (static_cast<unsigned char>(shown[cut]) & 0xC0) == 0x80)
          --cut;
        shown = jsonQuoted(shown.substr(0, cut)) + "...";
      } else {
        shown = jsonQuoted(shown);
      }
      return makeError("{}: Split pattern {}: {}", source, shown, regex.message());
    }
    Step step;
    step.kind = Step::Kind::Split;
    step.regex = std::make_shared<const Regex>(std::move(*regex));
    steps_.push_back(std::move(step));
    return Status::success();
  }
  if (type == "Digits") {
    // `tokenizers` splits off numeric characters (Rust's char::is_numeric:
    // general category N*, so also '½' and '٣'): each alone
    // (individual_digits) or in runs ("Contiguous").
    Expected<bool> individual = boolField(config, "individual_digits", false, source, "Digits");
    if (!individual)
      return individual.error();
    Expected<Regex> regex = Regex::compile(*individual ? "\\p{N}" : "\\p{N}+");
    if (!regex)
      return regex.error();
    Step step;
    step.kind = Step::Kind::Split;
    step.regex = std::make_shared<const Regex>(std::move(*regex));
    steps_.push_back(std::move(step));
    return Status::success();
  }
  return makeError("{}: unsupported pre-tokenizer type {} (supported: ByteLevel, Split, Digits, "
                   "Sequence)",
                   source, jsonQuoted(type.empty() ? config.dump() : type));
}

Expected<std::vector<std::string>> PreTokenizer::split(std::u32string_view text) const {
  std::vector<std::u32string> pieces;
  if (!text.empty())
    pieces.emplace_back(text);
  std::vector<std::u32string> next;
  auto splitWith = [&](const Regex &regex, const std::u32string &piece) -> Status {
    Expected<std::vector<std::pair<std::size_t, std::size_t>>> matches = regex.findAll(piece);
    if (!matches)
      return matches.error();
    std::size_t previous = 0;
    for (auto [begin, end] : *matches) {
      if (begin > previous)
        next.push_back(piece.substr(previous, begin - previous));
      next.push_back(piece.substr(begin, end - begin));
      previous = end;
    }
    if (previous < piece.size())
      next.push_back(piece.substr(previous));
    return Status::success();
  };
  for (const Step &step : steps_) {
    next.clear();
    for (std::u32string &piece : pieces) {
      if (step.kind == Step::Kind::ByteLevel && step.addPrefixSpace && piece.front() != U' ')
        piece.insert(piece.begin(), U' ');
      if (step.regex) {
        if (Status status = splitWith(*step.regex, piece); !status)
          return status.error();
      } else {
        next.push_back(std::move(piece));
      }
    }
    if (step.kind == Step::Kind::ByteLevel)
      for (std::u32string &piece : next) {
        std::string bytes = toUtf8(piece);
        std::u32string mapped;
        mapped.reserve(bytes.size());
        for (char b : bytes)
          mapped.push_back(byteToChar(static_cast<unsigned char>(b)));
        piece = std::move(mapped);
      }
    pieces.swap(next);
  }
  std::vector<std::string> words;
  words.reserve(pieces.size());
  for (const std::u32string &piece : pieces)
    words.push_back(toUtf8(piece));
  return words;
}

} // namespace linnet::rt
