// Implementation of StrictJson.h. Duplicate keys are found with nlohmann's
// parse callback, which sees every object start, key and object end in
// document order; a stack of key sets (one per open object) finds repeats.
// nlohmann reports malformed input by throwing; the throw is caught right
// here so that no exception crosses the runtime's API.
#include "runtime/checkpoint/StrictJson.h"

#include <optional>
#include <set>
#include <vector>

namespace linnet::rt {

using nlohmann::json;

std::string jsonQuoted(std::string_view text) {
  // `replace` turns invalid UTF-8 into U+FFFD instead of throwing.
  return json(std::string(text)).dump(-1, ' ', false, json::error_handler_t::replace);
}

Expected<json> parseStrictJson(std::string_view text, std::string_view sourceName) {
  std::vector<std::set<std::string, std::less<>>> keysOfOpenObjects;
  std::optional<std::string> duplicateKey;

  json::parser_callback_t trackKeys = [&](int /*depth*/, json::parse_event_t event, json &parsed) {
    switch (event) {
    case json::parse_event_t::object_start:
      keysOfOpenObjects.emplace_back();
      break;
    case json::parse_event_t::key: {
      const std::string &key = parsed.get_ref<const std::string &>();
      if (!keysOfOpenObjects.empty() && !keysOfOpenObjects.back().insert(key).second &&
          !duplicateKey)
        duplicateKey = key;
      break;
    }
    case json::parse_event_t::object_end:
      if (!keysOfOpenObjects.empty())
        keysOfOpenObjects.pop_back();
      break;
    default:
      break;
    }
    return true; // keep every value; duplicates are reported after parsing
  };

  json document;
  try {
    document = json::parse(text.begin(), text.end(), trackKeys, /*allow_exceptions=*/true,
                           /*ignore_comments=*/false);
  } catch (const json::exception &e) {
    return makeError("{}: invalid JSON: {}", sourceName, e.what());
  }
  if (duplicateKey)
    return makeError("{}: duplicate key {} in a JSON object", sourceName,
                     jsonQuoted(*duplicateKey));
  return document;
}

} // namespace linnet::rt
