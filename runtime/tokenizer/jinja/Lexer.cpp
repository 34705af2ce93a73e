// The template lexer (see Lexer.h).
#include "runtime/tokenizer/jinja/Lexer.h"

#include "runtime/tokenizer/Utf8.h"

#include <cctype>

namespace linnet::rt::jinja {

namespace {

bool isSpace(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'; }
bool isNameStart(char c) { return std::isalpha(static_cast<unsigned char>(c)) || c == '_'; }
bool isNameChar(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }
int hexDigit(char c) {
  if (c >= '0' && c <= '9')
    return c - '0';
  if (c >= 'a' && c <= 'f')
    return c - 'a' + 10;
  if (c >= 'A' && c <= 'F')
    return c - 'A' + 10;
  return -1;
}

class Lexer {
public:
  explicit Lexer(std::string source) : src_(std::move(source)) {}

  Expected<std::vector<Token>> run() {
    bool lineStarting = true;
    while (pos_ < src_.size()) {
      std::size_t start = findTagStart(pos_);
      std::string text = src_.substr(pos_, start - pos_);
      if (start == src_.size()) {
        emitText(std::move(text));
        break;
      }
      char kind = src_[start + 1]; // '{', '%' or '#'
      char modifier = start + 2 < src_.size() ? src_[start + 2] : '\0';
      if (modifier == '-') {
        while (!text.empty() && isSpace(text.back()))
          text.pop_back();
      } else if (kind != '{' && modifier != '+') {
        std::size_t lineStart = text.rfind('\n');
        lineStart = lineStart == std::string::npos ? 0 : lineStart + 1;
        if ((lineStart > 0 || lineStarting) &&
            text.find_first_not_of(" \t", lineStart) == std::string::npos)
          text.resize(lineStart);
      }
      emitText(std::move(text));
      countLines(pos_, start);
      pos_ = start + 2 + ((modifier == '-' || modifier == '+') ? 1 : 0);
      Status status = kind == '#' ? comment() : tag(kind == '{');
      if (!status)
        return status.error();
      lineStarting = pos_ > 0 && src_[pos_ - 1] == '\n';
    }
    tokens_.push_back({Token::Kind::End, "", line_});
    return std::move(tokens_);
  }

private:
  std::size_t findTagStart(std::size_t from) const {
    for (std::size_t i = from; i + 1 < src_.size(); ++i)
      if (src_[i] == '{' && (src_[i + 1] == '{' || src_[i + 1] == '%' || src_[i + 1] == '#'))
        return i;
    return src_.size();
  }

  void emitText(std::string text) {
    if (!text.empty())
      tokens_.push_back({Token::Kind::Text, std::move(text), line_});
  }

  void countLines(std::size_t from, std::size_t to) {
    for (std::size_t i = from; i < to && i < src_.size(); ++i)
      if (src_[i] == '\n')
        ++line_;
  }

  // After a tag's closing characters: `-` strips all following whitespace;
  // otherwise trim_blocks drops one newline after block tags and comments
  // (unless the tag ends with `+%}`).
  void afterTag(bool strip, bool trimNewline) {
    if (strip) {
      std::size_t end = pos_;
      while (end < src_.size() && isSpace(src_[end]))
        ++end;
      countLines(pos_, end);
      pos_ = end;
    } else if (trimNewline && pos_ < src_.size() && src_[pos_] == '\n') {
      ++line_;
      ++pos_;
    }
  }

  Status comment() {
    int startLine = line_;
    std::size_t end = src_.find("#}", pos_);
    if (end == std::string::npos)
      return makeError("line {}: unterminated comment (missing `#}}`)", startLine);
    bool strip = end > pos_ && src_[end - 1] == '-';
    countLines(pos_, end);
    pos_ = end + 2;
    afterTag(strip, true);
    return Status::success();
  }

  Status tag(bool variable) {
    int startLine = line_;
    tokens_.push_back({variable ? Token::Kind::VarBegin : Token::Kind::BlockBegin, "", line_});
    const char *close = variable ? "}}" : "%}";
    int depth = 0;
    while (true) {
      while (pos_ < src_.size() && isSpace(src_[pos_])) {
        if (src_[pos_] == '\n')
          ++line_;
        ++pos_;
      }
      if (pos_ >= src_.size())
        return makeError("line {}: unterminated `{}` tag (missing `{}`)", startLine,
                         variable ? "{{" : "{%", close);
      std::string_view rest = std::string_view(src_).substr(pos_);
      if (depth == 0) {
        bool strip = rest.starts_with(std::string("-") + close);
        bool keep = !variable && rest.starts_with("+%}");
        if (strip || keep || rest.starts_with(close)) {
          tokens_.push_back(
              {variable ? Token::Kind::VarEnd : Token::Kind::BlockEnd, "", line_});
          pos_ += (strip || keep) ? 3 : 2;
          afterTag(strip, !variable && !keep);
          return Status::success();
        }
      }
      if (!variable && rest.starts_with("}}") && depth == 0)
        return makeError("line {}: unexpected `}}}}` in a `{{%` tag", line_);
      char c = src_[pos_];
      if (c == '\'' || c == '"') {
        if (Status s = stringLiteral(c); !s)
          return s;
      } else if (std::isdigit(static_cast<unsigned char>(c))) {
        number();
      } else if (isNameStart(c)) {
        std::size_t end = pos_;
        while (end < src_.size() && isNameChar(src_[end]))
          ++end;
        tokens_.push_back({Token::Kind::Name, src_.substr(pos_, end - pos_), line_});
        pos_ = end;
      } else {
        static const char *const kOperators[] = {"//", "**", "==", "!=", "<=", ">=", "(", ")",
                                                 "[",  "]",  "{",  "}",  ".",  ",",  ":", "|",
                                                 "+",  "-",  "*",  "/",  "%",  "~",  "=", "<",
                                                 ">"};
        const char *found = nullptr;
        for (const char *op : kOperators)
          if (rest.starts_with(op)) {
            found = op;
            break;
          }
        if (!found)
          return makeError("line {}: unexpected character `{}` in a tag", line_, c);
        std::string op = found;
        if (op == "(" || op == "[" || op == "{")
          ++depth;
        else if ((op == ")" || op == "]" || op == "}") && depth > 0)
          --depth;
        tokens_.push_back({Token::Kind::Operator, op, line_});
        pos_ += op.size();
      }
    }
  }

  void number() {
    std::size_t end = pos_;
    auto digits = [&] {
      while (end < src_.size() && (std::isdigit(static_cast<unsigned char>(src_[end])) ||
                                   (src_[end] == '_' && end > pos_)))
        ++end;
    };
    digits();
    bool isFloat = false;
    if (end + 1 < src_.size() && src_[end] == '.' &&
        std::isdigit(static_cast<unsigned char>(src_[end + 1]))) {
      isFloat = true;
      ++end;
      digits();
    }
    if (end < src_.size() && (src_[end] == 'e' || src_[end] == 'E')) {
      std::size_t e = end + 1;
      if (e < src_.size() && (src_[e] == '+' || src_[e] == '-'))
        ++e;
      if (e < src_.size() && std::isdigit(static_cast<unsigned char>(src_[e]))) {
        isFloat = true;
        end = e;
        digits();
      }
    }
    std::string text;
    for (std::size_t i = pos_; i < end; ++i)
      if (src_[i] != '_')
        text += src_[i];
    tokens_.push_back({isFloat ? Token::Kind::Float : Token::Kind::Integer, text, line_});
    pos_ = end;
  }

  // Python string literal escapes, as jinja2 decodes them; an unknown escape
  // keeps its backslash.
  Status stringLiteral(char quote) {
    int startLine = line_;
    std::string value;
    std::size_t i = pos_ + 1;
    while (true) {
      if (i >= src_.size())
        return makeError("line {}: unterminated string literal", startLine);
      char c = src_[i];
      if (c == quote)
        break;
      if (c == '\n')
        ++line_;
      if (c != '\\') {
        value += c;
        ++i;
        continue;
      }
      if (i + 1 >= src_.size())
        return makeError("line {}: unterminated string literal", startLine);
      char e = src_[i + 1];
      i += 2;
      switch (e) {
      case 'n': value += '\n'; break;
      case 't': value += '\t'; break;
      case 'r': value += '\r'; break;
      case '0': value += '\0'; break;
      case 'a': value += '\a'; break;
      case 'b': value += '\b'; break;
      case 'f': value += '\f'; break;
      case 'v': value += '\v'; break;
      case '\\': value += '\\'; break;
      case '\'': value += '\''; break;
      case '"': value += '"'; break;
      case '\n': ++line_; break; // a line continuation
      case 'x':
      case 'u':
      case 'U': {
        int width = e == 'x' ? 2 : e == 'u' ? 4 : 8;
        char32_t code = 0;
        for (int k = 0; k < width; ++k) {
          int d = i + k < src_.size() ? hexDigit(src_[i + k]) : -1;
          if (d < 0)
            return makeError("line {}: truncated \\{} escape in a string literal", line_, e);
          code = code * 16 + static_cast<char32_t>(d);
        }
        if (code > 0x10FFFF)
          return makeError("line {}: \\{} escape out of range in a string literal", line_, e);
        i += static_cast<std::size_t>(width);
        appendUtf8(value, code);
        break;
      }
      default:
        value += '\\';
        value += e;
      }
    }
    tokens_.push_back({Token::Kind::String, std::move(value), startLine});
    pos_ = i + 1;
    return Status::success();
  }

  std::string src_;
  std::size_t pos_ = 0;
  int line_ = 1;
  std::vector<Token> tokens_;
};

std::string normalizeNewlines(std::string_view source) {
  std::string out;
  out.reserve(source.size());
  for (std::size_t i = 0; i < source.size(); ++i) {
    if (source[i] == '\r') {
      out += '\n';
      if (i + 1 < source.size() && source[i + 1] == '\n')
        ++i;
    } else {
      out += source[i];
    }
  }
  if (!out.empty() && out.back() == '\n')
    out.pop_back();
  return out;
}

} // namespace

Expected<std::vector<Token>> lexTemplate(std::string_view source) {
  return Lexer(normalizeNewlines(source)).run();
}

} // namespace linnet::rt::jinja
