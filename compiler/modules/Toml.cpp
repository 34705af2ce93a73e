// Toml: the strict TOML-subset reader behind `linnet.toml` (see Toml.h).
//
// The reader walks the text once, line by line. Each construct it does not
// support is named in its error, because a manifest author who wrote valid
// TOML deserves to know why it was refused. Offsets are 32-bit: the input is
// at most kMaxTomlBytes.
#include "compiler/modules/Toml.h"

#include <limits>
#include <unordered_map>
#include <unordered_set>

namespace linnet::modules {

std::string_view TomlValue::kindName() const {
  switch (kind) {
    case Kind::String: return "a string";
    case Kind::Integer: return "an integer";
    case Kind::Bool: return "a boolean";
    case Kind::Array: return "an array";
    case Kind::InlineTable: return "an inline table";
  }
  return "a value";
}

const TomlEntry* TomlTable::find(std::string_view key) const {
  for (const TomlEntry& entry : entries)
    if (entry.key == key) return &entry;
  return nullptr;
}

const TomlTable* TomlDocument::find(std::string_view name) const {
  for (const TomlTable& table : tables)
    if (table.name == name) return &table;
  return nullptr;
}

namespace {

// Length of the valid UTF-8 sequence at `i`, or 0 if it is not valid
// (overlong forms, surrogates and values past U+10FFFF are invalid).
size_t utf8Length(std::string_view s, size_t i) {
  unsigned char c = static_cast<unsigned char>(s[i]);
  if (c < 0x80) return 1;
  size_t length;
  uint32_t value;
  if (c >= 0xC2 && c <= 0xDF) { length = 2; value = c & 0x1F; }
  else if (c >= 0xE0 && c <= 0xEF) { length = 3; value = c & 0x0F; }
  else if (c >= 0xF0 && c <= 0xF4) { length = 4; value = c & 0x07; }
  else return 0;
  if (i + length > s.size()) return 0;
  for (size_t k = 1; k < length; ++k) {
    unsigned char next = static_cast<unsigned char>(s[i + k]);
    if ((next & 0xC0) != 0x80) return 0;
    value = (value << 6) | (next & 0x3F);
  }
  if (length == 3 && (value < 0x800 || (value >= 0xD800 && value <= 0xDFFF))) return 0;
  if (length == 4 && (value < 0x10000 || value > 0x10FFFF)) return 0;
  return length;
}

void appendUtf8(std::string& out, uint32_t cp) {
  if (cp < 0x80) {
    out.push_back(static_cast<char>(cp));
  } else if (cp < 0x800) {
    out.push_back(static_cast<char>(0xC0 | (cp >> 6)));
    out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else if (cp < 0x10000) {
    out.push_back(static_cast<char>(0xE0 | (cp >> 12)));
    out.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else {
    out.push_back(static_cast<char>(0xF0 | (cp >> 18)));
    out.push_back(static_cast<char>(0x80 | ((cp >> 12) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  }
}

bool isBareKeyChar(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
         c == '-';
}

bool isDigit(char c) { return c >= '0' && c <= '9'; }

// Control characters TOML forbids in comments and strings (tab is allowed).
bool isForbiddenControl(char c) {
  unsigned char u = static_cast<unsigned char>(c);
  return (u < 0x20 && u != '\t') || u == 0x7F;
}

// Where a value is being read decides which nested forms are allowed.
enum class Nesting { TopLevel, InArray, InInlineTable };

class Reader {
 public:
  Reader(std::string_view text, TomlError* error) : text_(text), error_(error) {}

  std::optional<TomlDocument> run() {
    if (text_.size() > kMaxTomlBytes)
      return fail("the manifest is larger than 1 MiB", 0, 0);
    for (size_t i = 0; i < text_.size();) {
      size_t length = utf8Length(text_, i);
      if (length == 0) return fail("the manifest is not valid UTF-8", i, i + 1);
      i += length;
    }
    TomlDocument document;
    document.tables.emplace_back();  // the root table
    size_t current = 0;
    while (pos_ < text_.size()) {
      skipSpaces();
      if (atEnd()) break;
      char c = text_[pos_];
      if (c == '#' || c == '\n' || c == '\r') {
        if (!endOfLine()) return std::nullopt;
        continue;
      }
      if (c == '[') {
        if (!header(document, &current)) return std::nullopt;
        continue;
      }
      if (!keyValue(document.tables[current].entries, document.tables[current].name))
        return std::nullopt;
    }
    return document;
  }

 private:
  bool atEnd() const { return pos_ >= text_.size(); }
  char peek(size_t ahead = 0) const {
    return pos_ + ahead < text_.size() ? text_[pos_ + ahead] : '\0';
  }
  void skipSpaces() {
    while (!atEnd() && (text_[pos_] == ' ' || text_[pos_] == '\t')) ++pos_;
  }

  std::nullopt_t fail(std::string message, size_t begin, size_t end) {
    if (error_) {
      error_->message = std::move(message);
      error_->begin = static_cast<uint32_t>(std::min(begin, text_.size()));
      error_->end = static_cast<uint32_t>(std::min(std::max(end, begin), text_.size()));
    }
    failed_ = true;
    return std::nullopt;
  }
  bool failBool(std::string message, size_t begin, size_t end) {
    fail(std::move(message), begin, end);
    return false;
  }

  // A comment (if any), then a line break or the end of the text.
  bool endOfLine() {
    skipSpaces();
    if (peek() == '#') {
      while (!atEnd() && text_[pos_] != '\n') {
        if (text_[pos_] == '\r' && peek(1) == '\n') break;
        if (isForbiddenControl(text_[pos_]))
          return failBool("control character in a comment", pos_, pos_ + 1);
        ++pos_;
      }
    }
    if (atEnd()) return true;
    if (text_[pos_] == '\n') { ++pos_; return true; }
    if (text_[pos_] == '\r' && peek(1) == '\n') { pos_ += 2; return true; }
    if (text_[pos_] == '\r') return failBool("a carriage return must be followed by a line feed", pos_, pos_ + 1);
    return failBool("expected the end of the line", pos_, pos_ + 1);
  }

  // A bare or quoted key.
  bool key(std::string* out, size_t* begin, size_t* end) {
    *begin = pos_;
    if (peek() == '"' || peek() == '\'') {
      if (!quotedString(out, /*literal=*/peek() == '\'')) return false;
    } else {
      while (!atEnd() && isBareKeyChar(text_[pos_])) ++pos_;
      if (pos_ == *begin) return failBool("expected a key", pos_, pos_ + 1);
      out->assign(text_.substr(*begin, pos_ - *begin));
    }
    *end = pos_;
    skipSpaces();
    if (peek() == '.') return failBool("dotted keys are not supported", pos_, pos_ + 1);
    return true;
  }

  bool header(TomlDocument& document, size_t* current) {
    size_t begin = pos_;
    ++pos_;  // '['
    if (peek() == '[')
      return failBool("arrays of tables (`[[...]]`) are not supported", begin, begin + 2);
    skipSpaces();
    std::string name;
    size_t keyBegin, keyEnd;
    if (!key(&name, &keyBegin, &keyEnd)) return false;
    if (peek() != ']') return failBool("expected `]` to close the table header", pos_, pos_ + 1);
    ++pos_;
    if (name.empty()) return failBool("a table needs a name", begin, pos_);
    if (!tableNames_.insert(name).second)
      return failBool("table `[" + name + "]` is defined twice", begin, pos_);
    TomlTable table;
    table.name = std::move(name);
    table.headerBegin = static_cast<uint32_t>(begin);
    table.headerEnd = static_cast<uint32_t>(pos_);
    document.tables.push_back(std::move(table));
    *current = document.tables.size() - 1;
    return endOfLine();
  }

  bool keyValue(std::vector<TomlEntry>& entries, const std::string& tableName) {
    TomlEntry entry;
    size_t begin, end;
    if (!key(&entry.key, &begin, &end)) return false;
    entry.keyBegin = static_cast<uint32_t>(begin);
    entry.keyEnd = static_cast<uint32_t>(end);
    if (peek() != '=') return failBool("expected `=` after key `" + entry.key + "`", pos_, pos_ + 1);
    ++pos_;
    skipSpaces();
    if (!value(&entry.value, Nesting::TopLevel)) return false;
    // A set of each table's keys: a search of its entries per key was
    // quadratic (133,000 keys in a 1 MiB file: 14 s before every command).
    if (!tableKeys_[tableName].insert(entry.key).second) {
      std::string where = tableName.empty() ? std::string() : " in `[" + tableName + "]`";
      return failBool("key `" + entry.key + "` is defined twice" + where, begin, end);
    }
    entries.push_back(std::move(entry));
    return endOfLine();
  }

  bool quotedString(std::string* out, bool literal) {
    char quote = literal ? '\'' : '"';
    size_t begin = pos_;
    if (peek(1) == quote && peek(2) == quote)
      return failBool("multi-line strings are not supported", begin, begin + 3);
    ++pos_;
    out->clear();
    while (true) {
      if (atEnd() || text_[pos_] == '\n' || text_[pos_] == '\r')
        return failBool("unterminated string", begin, pos_);
      char c = text_[pos_];
      if (c == quote) { ++pos_; return true; }
      if (isForbiddenControl(c)) return failBool("control character in a string", pos_, pos_ + 1);
      if (c == '\\' && !literal) {
        if (!escape(out)) return false;
        continue;
      }
      out->push_back(c);
      ++pos_;
    }
  }

  bool escape(std::string* out) {
    size_t begin = pos_;
    char c = peek(1);
    pos_ += 2;
    switch (c) {
      case 'b': out->push_back('\b'); return true;
      case 't': out->push_back('\t'); return true;
      case 'n': out->push_back('\n'); return true;
      case 'f': out->push_back('\f'); return true;
      case 'r': out->push_back('\r'); return true;
      case '"': out->push_back('"'); return true;
      case '\\': out->push_back('\\'); return true;
      case 'u':
      case 'U': {
        size_t digits = c == 'u' ? 4 : 8;
        uint32_t value = 0;
        for (size_t k = 0; k < digits; ++k) {
          char h = peek();
          uint32_t d;
          if (h >= '0' && h <= '9') d = h - '0';
          else if (h >= 'a' && h <= 'f') d = h - 'a' + 10;
          else if (h >= 'A' && h <= 'F') d = h - 'A' + 10;
          else return failBool("invalid unicode escape in a string", begin, pos_ + 1);
          value = (value << 4) | d;
          ++pos_;
        }
        if (value > 0x10FFFF || (value >= 0xD800 && value <= 0xDFFF))
          return failBool("unicode escape is not a scalar value", begin, pos_);
        appendUtf8(*out, value);
        return true;
      }
      default:
        return failBool("invalid escape sequence in a string", begin, std::min(pos_, text_.size()));
    }
  }

  // True if the value that just ended is followed by something that may
  // follow a value.
  bool atValueEnd() const {
    char c = peek();
    return atEnd() || c == ' ' || c == '\t' || c == ',' || c == ']' || c == '}' || c == '#' ||
           c == '\n' || c == '\r';
  }

  bool integer(TomlValue* out) {
    size_t begin = pos_;
    bool negative = false;
    if (peek() == '+' || peek() == '-') {
      negative = peek() == '-';
      ++pos_;
    }
    if (peek() == '0' && (peek(1) == 'x' || peek(1) == 'o' || peek(1) == 'b'))
      return failBool("only decimal integers are supported", begin, pos_ + 2);
    if (!isDigit(peek())) return failBool("expected a value", begin, pos_ + 1);
    size_t digitsBegin = pos_;
    uint64_t magnitude = 0;
    bool overflow = false;
    char previous = '\0';
    while (!atEnd() && (isDigit(text_[pos_]) || text_[pos_] == '_')) {
      char c = text_[pos_];
      if (c == '_') {
        if (!isDigit(previous) || !isDigit(peek(1)))
          return failBool("`_` in an integer must be between two digits", pos_, pos_ + 1);
      } else {
        uint64_t digit = static_cast<uint64_t>(c - '0');
        if (magnitude > (std::numeric_limits<uint64_t>::max() - digit) / 10) overflow = true;
        else magnitude = magnitude * 10 + digit;
      }
      previous = c;
      ++pos_;
    }
    char next = peek();
    if (next == '.' || next == 'e' || next == 'E' || next == ':' || next == '-' || next == 'T')
      return failBool("floats, dates and times are not supported", begin, pos_ + 1);
    if (!atValueEnd()) return failBool("invalid integer", begin, pos_ + 1);
    if (text_[digitsBegin] == '0' && pos_ - digitsBegin > 1)
      return failBool("an integer may not have leading zeros", begin, pos_);
    uint64_t limit = negative ? uint64_t{1} << 63 : (uint64_t{1} << 63) - 1;
    if (overflow || magnitude > limit)
      return failBool("integer does not fit in 64 bits", begin, pos_);
    out->kind = TomlValue::Kind::Integer;
    out->integer = negative ? static_cast<int64_t>(0 - magnitude) : static_cast<int64_t>(magnitude);
    return true;
  }

  bool value(TomlValue* out, Nesting nesting) {
    size_t begin = pos_;
    out->begin = static_cast<uint32_t>(begin);
    char c = peek();
    bool ok;
    if (c == '"' || c == '\'') {
      out->kind = TomlValue::Kind::String;
      ok = quotedString(&out->string, c == '\'');
    } else if (text_.substr(pos_).starts_with("true") || text_.substr(pos_).starts_with("false")) {
      bool isTrue = c == 't';
      pos_ += isTrue ? 4 : 5;
      if (!atValueEnd()) return failBool("expected a value", begin, pos_ + 1);
      out->kind = TomlValue::Kind::Bool;
      out->boolean = isTrue;
      ok = true;
    } else if (isDigit(c) || c == '+' || c == '-') {
      ok = integer(out);
    } else if (c == '[') {
      if (nesting == Nesting::InArray)
        return failBool("nested arrays are not supported", begin, begin + 1);
      ok = array(out);
    } else if (c == '{') {
      if (nesting == Nesting::InArray)
        return failBool("arrays of inline tables are not supported", begin, begin + 1);
      if (nesting == Nesting::InInlineTable)
        return failBool("nested inline tables are not supported", begin, begin + 1);
      ok = inlineTable(out);
    } else if (atEnd() || c == '\n' || c == '\r' || c == '#') {
      return failBool("expected a value", begin, begin + 1);
    } else {
      return failBool("expected a value (a string, integer, boolean, array or inline table)",
                      begin, begin + 1);
    }
    out->end = static_cast<uint32_t>(pos_);
    return ok;
  }

  // Skips spaces, line breaks and comments inside an array.
  bool skipArrayFill() {
    while (!atEnd()) {
      char c = text_[pos_];
      if (c == ' ' || c == '\t') { ++pos_; continue; }
      if (c == '#' || c == '\n' || c == '\r') {
        if (!endOfLine()) return false;
        continue;
      }
      break;
    }
    return true;
  }

  bool array(TomlValue* out) {
    size_t begin = pos_;
    out->kind = TomlValue::Kind::Array;
    ++pos_;  // '['
    while (true) {
      if (!skipArrayFill()) return false;
      if (atEnd()) return failBool("unterminated array", begin, begin + 1);
      if (peek() == ']') { ++pos_; return true; }
      TomlValue element;
      if (!value(&element, Nesting::InArray)) return false;
      out->array.push_back(std::move(element));
      if (!skipArrayFill()) return false;
      if (peek() == ',') { ++pos_; continue; }
      if (peek() == ']') { ++pos_; return true; }
      if (atEnd()) return failBool("unterminated array", begin, begin + 1);
      return failBool("expected `,` or `]` in an array", pos_, pos_ + 1);
    }
  }

  bool inlineTable(TomlValue* out) {
    size_t begin = pos_;
    out->kind = TomlValue::Kind::InlineTable;
    ++pos_;  // '{'
    skipSpaces();
    if (peek() == '}') { ++pos_; return true; }
    std::unordered_set<std::string> keys;
    while (true) {
      skipSpaces();
      if (atEnd() || peek() == '\n' || peek() == '\r')
        return failBool("an inline table must be closed on the line it opens", begin, begin + 1);
      if (peek() == '}') return failBool("trailing comma in an inline table", pos_, pos_ + 1);
      TomlEntry entry;
      size_t keyBegin, keyEnd;
      if (!key(&entry.key, &keyBegin, &keyEnd)) return false;
      entry.keyBegin = static_cast<uint32_t>(keyBegin);
      entry.keyEnd = static_cast<uint32_t>(keyEnd);
      if (peek() != '=') return failBool("expected `=` after key `" + entry.key + "`", pos_, pos_ + 1);
      ++pos_;
      skipSpaces();
      if (!value(&entry.value, Nesting::InInlineTable)) return false;
      if (!keys.insert(entry.key).second)
        return failBool("key `" + entry.key + "` is defined twice in an inline table", keyBegin, keyEnd);
      out->table.push_back(std::move(entry));
      skipSpaces();
      if (peek() == ',') { ++pos_; continue; }
      if (peek() == '}') { ++pos_; return true; }
      if (atEnd() || peek() == '\n' || peek() == '\r')
        return failBool("an inline table must be closed on the line it opens", begin, begin + 1);
      return failBool("expected `,` or `}` in an inline table", pos_, pos_ + 1);
    }
  }

  std::string_view text_;
  TomlError* error_;
  size_t pos_ = 0;
  bool failed_ = false;
  std::unordered_set<std::string> tableNames_;
  std::unordered_map<std::string, std::unordered_set<std::string>> tableKeys_;  // by table name, "" the root
};

}  // namespace

std::optional<TomlDocument> parseToml(std::string_view text, TomlError* error) {
  Reader reader(text, error);
  return reader.run();
}

}  // namespace linnet::modules
