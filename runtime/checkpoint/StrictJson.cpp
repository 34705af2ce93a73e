// Implementation of StrictJson.h. The document is built by a SAX handler of
// our own that also keeps, per open object, the set of its keys, so a repeat
// is found as it is read. (nlohmann's parse callback could see the keys too,
// but with a callback its DOM builder searches the enclosing array for
// discarded values at every object's end: quadratic in an array of objects,
// minutes for a `--calls` file of a million calls.) Malformed input is
// reported by the handler's parse_error, so no exception crosses the runtime's API.
#include "runtime/checkpoint/StrictJson.h"
#include "runtime/support/ShownName.h"

#include <fmt/format.h>

#include <optional>
#include <set>
#include <vector>

namespace linnet::rt {

using nlohmann::json;

std::string jsonQuoted(std::string_view text) {
  // `replace` turns invalid UTF-8 into U+FFFD instead of throwing.
  return json(std::string(text)).dump(-1, ' ', false, json::error_handler_t::replace);
}

namespace {

// Builds the document as nlohmann's DOM parser would, and records the first
// key that repeats within one object and the first parse error.
class StrictDocument {
public:
  explicit StrictDocument(json &root) : root_(root) {}

  bool null() { return put(nullptr) != nullptr; }
  bool boolean(bool v) { return put(v) != nullptr; }
  bool number_integer(json::number_integer_t v) { return put(v) != nullptr; }
  bool number_unsigned(json::number_unsigned_t v) { return put(v) != nullptr; }
  bool number_float(json::number_float_t v, const json::string_t &text) {
    // A literal too small for a double reads as 0 (`1e-400`), and an integer
    // argument then took it as the integer 0: refused as nlohmann refuses
    // one too large ("number overflow").
    if (v == 0) {
      std::string_view mantissa = std::string_view(text).substr(0, text.find_first_of("eE"));
      if (mantissa.find_first_of("123456789") != std::string_view::npos) {
        error = fmt::format("number underflow parsing '{}'", shownName(text));
        return false;
      }
    }
    return put(v) != nullptr;
  }
  bool string(json::string_t &v) { return put(std::move(v)) != nullptr; }
  bool binary(json::binary_t &v) { return put(json::binary(std::move(v))) != nullptr; }

  bool start_object(std::size_t /*size*/) {
    if (!deeper())
      return false;
    open_.push_back(put(json::object()));
    keys_.emplace_back();
    return true;
  }
  bool key(json::string_t &k) {
    if (!keys_.back().insert(k).second && !duplicateKey)
      duplicateKey = k;
    // A node of the object's map: stays put while the object grows.
    slot_ = &(*open_.back())[k];
    return true;
  }
  bool end_object() {
    open_.pop_back();
    keys_.pop_back();
    return true;
  }
  bool start_array(std::size_t /*size*/) {
    if (!deeper())
      return false;
    open_.push_back(put(json::array()));
    return true;
  }
  bool end_array() {
    open_.pop_back();
    return true;
  }
  // nlohmann's message ends with the whole last token read (a 5 MB number,
  // raw bytes that are not UTF-8): shown shortened and escaped.
  bool parse_error(std::size_t /*position*/, const std::string & /*lastToken*/,
                   const nlohmann::detail::exception &e) {
    std::string_view what = e.what();
    // The library's own tag (`[json.exception.parse_error.101] `) says
    // nothing to a user.
    if (what.starts_with("[json.exception.")) {
      if (std::size_t end = what.find("] "); end != std::string_view::npos)
        what.remove_prefix(end + 2);
    }
    constexpr std::string_view kLastRead = "; last read: '";
    std::size_t at = what.find(kLastRead);
    if (at == std::string_view::npos) {
      error = shownText(what, 240); // "number overflow parsing '<the number>'"
    } else {
      std::string_view token = what.substr(at + kLastRead.size());
      if (token.ends_with('\''))
        token.remove_suffix(1);
      error = fmt::format("{}{}{}'", shownText(what.substr(0, at)), kLastRead, shownName(token));
    }
    return false;
  }

  std::optional<std::string> duplicateKey;
  std::optional<std::string> error;

private:
  // Whether one more level of nesting is allowed; else the error.
  bool deeper() {
    if (open_.size() < kMaxJsonDepth)
      return true;
    error = fmt::format("nested deeper than {} levels", kMaxJsonDepth);
    return false;
  }

  // Places `v` where the document is: the root, the end of the open array,
  // or the open object's last key. Only the innermost open value grows, so
  // the pointers to the enclosing ones stay valid.
  json *put(json v) {
    if (open_.empty()) {
      root_ = std::move(v);
      return &root_;
    }
    json &into = *open_.back();
    if (into.is_array()) {
      into.push_back(std::move(v));
      return &into.back();
    }
    *slot_ = std::move(v);
    return slot_;
  }

  json &root_;
  std::vector<json *> open_;
  std::vector<std::set<std::string, std::less<>>> keys_;
  json *slot_ = nullptr;
};

} // namespace

Expected<json> parseStrictJson(std::string_view text, std::string_view sourceName) {
  // nlohmann's lexer takes a NUL byte for the end of the input, so whatever
  // followed one (`{}\0garbage`) was never read; JSON has no place for one.
  if (std::size_t nul = text.find('\0'); nul != std::string_view::npos)
    return makeError("{}: invalid JSON: a NUL byte at offset {}", sourceName, nul);
  json document;
  StrictDocument builder(document);
  bool ok = false;
  try {
    ok = json::sax_parse(text.begin(), text.end(), &builder, json::input_format_t::json,
                         /*strict=*/true, /*ignore_comments=*/false);
  } catch (const json::exception &e) {
    // The handler reports parse errors itself; this is only a guard.
    return makeError("{}: invalid JSON: {}", sourceName, e.what());
  }
  if (builder.error || !ok)
    return makeError("{}: invalid JSON: {}", sourceName,
                     builder.error ? *builder.error : std::string("not one JSON document"));
  if (builder.duplicateKey)
    return makeError("{}: duplicate key {} in a JSON object", sourceName,
                     jsonQuoted(*builder.duplicateKey));
  return document;
}

} // namespace linnet::rt
