// Lexer: one pass over a UTF-8 buffer producing tokens (spec chapter 1).
//
// Every lexical error is reported and lexing continues with a token that
// keeps the parser from cascading: a malformed number is still a number
// token, an unterminated string still a string token, a run of invalid
// characters one `Error` token (which the parser never reports again). Each
// step consumes at least one byte, so the loop always ends, with EndOfFile.
// Comments are not tokens; they are recorded (with doc comments separately)
// so the formatter can put them back.
#include "compiler/lex/Lexer.h"

#include <fmt/format.h>

#include <array>
#include <cmath>
#include <cstdlib>
#include <unordered_map>
#include <unordered_set>

namespace linnet {

namespace {

bool isDigit(char c) { return c >= '0' && c <= '9'; }
bool isIdentStart(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; }
bool isIdentContinue(char c) { return isIdentStart(c) || isDigit(c); }
bool isHexDigit(char c) {
  return isDigit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

// One decoded UTF-8 sequence; `length` is 0 when the bytes are not valid UTF-8.
struct Utf8Char {
  uint32_t codePoint = 0;
  uint32_t length = 0;
};

Utf8Char decodeUtf8(std::string_view text, size_t at) {
  auto byte = [&](size_t i) -> unsigned {
    return i < text.size() ? static_cast<unsigned char>(text[i]) : 0x100u;
  };
  unsigned lead = byte(at);
  if (lead < 0x80) return {lead, 1};
  auto cont = [&](size_t i, unsigned lo, unsigned hi) {
    unsigned b = byte(i);
    return b >= lo && b <= hi;
  };
  if (lead >= 0xC2 && lead <= 0xDF) {
    if (!cont(at + 1, 0x80, 0xBF)) return {};
    return {((lead & 0x1F) << 6) | (byte(at + 1) & 0x3F), 2};
  }
  if (lead >= 0xE0 && lead <= 0xEF) {
    // E0 would be overlong below A0; ED above 9F would be a surrogate.
    unsigned lo = lead == 0xE0 ? 0xA0 : 0x80;
    unsigned hi = lead == 0xED ? 0x9F : 0xBF;
    if (!cont(at + 1, lo, hi) || !cont(at + 2, 0x80, 0xBF)) return {};
    return {((lead & 0x0F) << 12) | ((byte(at + 1) & 0x3F) << 6) | (byte(at + 2) & 0x3F), 3};
  }
  if (lead >= 0xF0 && lead <= 0xF4) {
    unsigned lo = lead == 0xF0 ? 0x90 : 0x80;
    unsigned hi = lead == 0xF4 ? 0x8F : 0xBF;
    if (!cont(at + 1, lo, hi) || !cont(at + 2, 0x80, 0xBF) || !cont(at + 3, 0x80, 0xBF)) return {};
    return {((lead & 0x07) << 18) | ((byte(at + 1) & 0x3F) << 12) | ((byte(at + 2) & 0x3F) << 6) |
                (byte(at + 3) & 0x3F),
            4};
  }
  return {};
}

// Reserved for future syntax (spec 1.4): lexed as identifiers, reported E1004.
bool isReservedWord(std::string_view word) {
  static constexpr std::array<std::string_view, 12> kReserved = {
      "async", "await", "effect", "unsafe", "macro", "trait",
      "impl",  "derive", "rng",   "mut",    "ref",   "device"};
  for (std::string_view reserved : kReserved)
    if (word == reserved) return true;
  return false;
}

const std::unordered_map<std::string_view, TokenKind>& keywordTable() {
  static const std::unordered_map<std::string_view, TokenKind> table = {
#define KEYWORD(Name, Spelling) {Spelling, TokenKind::Name},
#include "compiler/lex/TokenKinds.def"
  };
  return table;
}

struct Punctuation {
  std::string_view spelling;
  TokenKind kind;
};

// Punctuation in TokenKinds.def order (longest spellings first), so the first
// prefix match is the maximal munch.
constexpr Punctuation kPunctuation[] = {
#define PUNCT(Name, Spelling) {Spelling, TokenKind::Name},
#include "compiler/lex/TokenKinds.def"
};

bool startsPunctuation(char c) {
  for (const Punctuation& p : kPunctuation)
    if (p.spelling[0] == c) return true;
  return false;
}

// The number checks shared by the lexer (which reports) and the decoders.
struct NumberCheck {
  bool isFloat = false;
  std::string error;  // empty when valid
  uint64_t intValue = 0;
  double floatValue = 0;
};

// Checks `digits` (underscores allowed only between two digits) in `radix`.
std::string checkDigitGroup(std::string_view digits, int radix, std::string_view what) {
  if (digits.empty()) return fmt::format("{} has no digits", what);
  for (size_t i = 0; i < digits.size(); ++i) {
    char c = digits[i];
    if (c == '_') {
      bool between = i > 0 && i + 1 < digits.size() && digits[i - 1] != '_' && digits[i + 1] != '_';
      if (!between) return "`_` is allowed only between two digits";
      continue;
    }
    bool ok = radix == 16 ? isHexDigit(c) : radix == 2 ? (c == '0' || c == '1') : isDigit(c);
    if (!ok) {
      std::string_view kind = radix == 16 ? "hexadecimal" : radix == 2 ? "binary" : "decimal";
      return fmt::format("`{}` is not a {} digit", c, kind);
    }
  }
  return {};
}

// Parses an integer spelling already split from its prefix; "" on success.
std::string accumulate(std::string_view digits, int radix, uint64_t* value) {
  constexpr uint64_t kMax = 9223372036854775807ull;  // i64 max
  uint64_t v = 0;
  for (char c : digits) {
    if (c == '_') continue;
    unsigned d = isDigit(c) ? unsigned(c - '0') : unsigned((c | 0x20) - 'a' + 10);
    if (v > (kMax - d) / unsigned(radix)) return "the value does not fit in `i64`";
    v = v * unsigned(radix) + d;
  }
  *value = v;
  return {};
}

// Splits and validates a whole number token spelling (as the lexer cut it).
NumberCheck checkNumber(std::string_view s) {
  NumberCheck r;
  if (s.size() >= 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'b')) {
    int radix = s[1] == 'x' ? 16 : 2;
    std::string_view body = s.substr(2);
    r.error = checkDigitGroup(body, radix, radix == 16 ? "hexadecimal literal" : "binary literal");
    if (r.error.empty()) r.error = accumulate(body, radix, &r.intValue);
    return r;
  }
  size_t i = 0;
  while (i < s.size() && (isDigit(s[i]) || s[i] == '_')) ++i;
  std::string_view whole = s.substr(0, i);
  std::string_view fraction, exponent;
  bool hasFraction = false, hasExponent = false;
  if (i + 1 < s.size() && s[i] == '.' && isDigit(s[i + 1])) {
    size_t start = ++i;
    while (i < s.size() && (isDigit(s[i]) || s[i] == '_')) ++i;
    fraction = s.substr(start, i - start);
    hasFraction = true;
  }
  if (i < s.size() && (s[i] == 'e' || s[i] == 'E')) {
    size_t j = i + 1;
    if (j < s.size() && (s[j] == '+' || s[j] == '-')) ++j;
    if (j < s.size() && isDigit(s[j])) {
      i = j;
      while (i < s.size() && (isDigit(s[i]) || s[i] == '_')) ++i;
      exponent = s.substr(j, i - j);
      hasExponent = true;
    }
  }
  r.isFloat = hasFraction || hasExponent;
  if (i < s.size()) {
    r.error = fmt::format("unexpected `{}` after the digits", s.substr(i));
    return r;
  }
  r.error = checkDigitGroup(whole, 10, "the literal");
  if (r.error.empty() && whole.size() > 1 && whole[0] == '0')
    r.error = "a decimal literal other than `0` cannot start with `0`";
  if (r.error.empty() && hasFraction) r.error = checkDigitGroup(fraction, 10, "the fraction");
  if (r.error.empty() && hasExponent) r.error = checkDigitGroup(exponent, 10, "the exponent");
  if (!r.error.empty()) return r;
  if (!r.isFloat) {
    r.error = accumulate(whole, 10, &r.intValue);
    return r;
  }
  std::string plain;
  for (char c : s)
    if (c != '_') plain.push_back(c);
  r.floatValue = std::strtod(plain.c_str(), nullptr);
  if (!std::isfinite(r.floatValue)) r.error = "the value is too large for a float";
  return r;
}

class Lexer {
 public:
  Lexer(const SourceFile& source, FileId file, DiagnosticEmitter& diagnostics)
      : text_(source.text()), file_(file), diagnostics_(diagnostics) {
    out_.file = file;
  }

  TokenizedBuffer run() {
    // A UTF-8 byte order mark is not part of the program.
    if (text_.substr(0, 3) == "\xEF\xBB\xBF") pos_ = 3;
    while (pos_ < text_.size()) step();
    Token eof;
    eof.kind = TokenKind::EndOfFile;
    eof.span = span(uint32_t(text_.size()), uint32_t(text_.size()));
    eof.leadingSpace = sawSpace_;
    eof.blankLineBefore = newlines_ >= 2;
    out_.tokens.push_back(eof);
    return std::move(out_);
  }

 private:
  Span span(uint32_t begin, uint32_t end) const { return Span{file_, begin, end}; }
  char at(size_t i) const { return i < text_.size() ? text_[i] : '\0'; }

  void step() {
    char c = text_[pos_];
    switch (c) {
      case ' ':
      case '\t':
      case '\r':
        ++pos_;
        sawSpace_ = true;
        return;
      case '\n':
        ++pos_;
        ++newlines_;
        sawSpace_ = true;
        return;
      default:
        break;
    }
    if (c == '/' && at(pos_ + 1) == '/') return lineComment();
    if (c == '/' && at(pos_ + 1) == '*') return blockComment();
    uint32_t start = uint32_t(pos_);
    if (isIdentStart(c)) return identifier(start);
    if (isDigit(c)) return number(start);
    if (c == '"') return string(start);
    for (const Punctuation& p : kPunctuation) {
      if (text_.substr(pos_, p.spelling.size()) == p.spelling) {
        pos_ += p.spelling.size();
        push(p.kind, start);
        return;
      }
    }
    invalidRun(start);
  }

  void push(TokenKind kind, uint32_t begin) {
    Token token;
    token.kind = kind;
    token.span = span(begin, uint32_t(pos_));
    token.leadingSpace = sawSpace_;
    token.blankLineBefore = newlines_ >= 2;
    out_.tokens.push_back(token);
    sawSpace_ = false;
    newlines_ = 0;
    lineHasToken_ = true;
  }

  void recordComment(uint32_t begin, uint32_t end, bool doc) {
    SourceComment comment;
    comment.span = span(begin, end);
    comment.trailing = newlines_ == 0 && lineHasToken_;
    comment.blankLineBefore = newlines_ >= 2;
    if (!out_.tokens.empty()) comment.previousToken = uint32_t(out_.tokens.size() - 1);
    out_.comments.push_back(comment);
    if (doc) out_.docComments.push_back({comment.span, uint32_t(out_.tokens.size())});
    sawSpace_ = true;
    newlines_ = 0;
    // A comment on its own line keeps the next one from looking trailing.
    lineHasToken_ = comment.trailing;
  }

  // `//` to the end of the line; `///` (but not `////`) is a doc comment.
  void lineComment() {
    uint32_t start = uint32_t(pos_);
    bool doc = at(pos_ + 2) == '/' && at(pos_ + 3) != '/';
    while (pos_ < text_.size() && text_[pos_] != '\n') {
      if (static_cast<unsigned char>(text_[pos_]) >= 0x80) {
        validateUtf8Run();
      } else {
        ++pos_;
      }
    }
    // The `\r` of a CRLF line ending is not part of the comment.
    uint32_t end = uint32_t(pos_);
    if (end > start && text_[end - 1] == '\r') --end;
    recordComment(start, end, doc);
  }

  // `/* ... */`, nesting. `/**` (but not `/**/` or `/***`) is a doc comment.
  void blockComment() {
    uint32_t start = uint32_t(pos_);
    bool doc = at(pos_ + 2) == '*' && at(pos_ + 3) != '/' && at(pos_ + 3) != '*';
    pos_ += 2;
    int depth = 1;
    while (pos_ < text_.size() && depth > 0) {
      char c = text_[pos_];
      if (c == '/' && at(pos_ + 1) == '*') {
        ++depth;
        pos_ += 2;
      } else if (c == '*' && at(pos_ + 1) == '/') {
        --depth;
        pos_ += 2;
      } else if (static_cast<unsigned char>(c) >= 0x80) {
        validateUtf8Run();
      } else {
        ++pos_;
      }
    }
    if (depth > 0) {
      out_.endsInsideLiteral = true;
      diagnostics_.emit(DiagnosticKind::UnterminatedBlockComment, span(start, start + 2))
          .label("the comment starts here")
          .help("block comments nest: each `/*` needs its own `*/`");
    }
    uint32_t newlinesInside = 0;
    for (uint32_t i = start; i < pos_; ++i) newlinesInside += text_[i] == '\n';
    recordComment(start, uint32_t(pos_), doc);
    // A multi-line comment ends on a later line than the token before it.
    if (newlinesInside > 0) lineHasToken_ = false;
  }

  // At a byte >= 0x80 inside a comment or string: steps over one valid
  // character, or reports a run of invalid bytes once.
  void validateUtf8Run() {
    if (decodeUtf8(text_, pos_).length != 0) {
      pos_ += decodeUtf8(text_, pos_).length;
      return;
    }
    uint32_t start = uint32_t(pos_);
    while (pos_ < text_.size() && static_cast<unsigned char>(text_[pos_]) >= 0x80 &&
           decodeUtf8(text_, pos_).length == 0)
      ++pos_;
    diagnostics_.emit(DiagnosticKind::InvalidUtf8, span(start, uint32_t(pos_)))
        .label("these bytes are not UTF-8");
  }

  void identifier(uint32_t start) {
    while (pos_ < text_.size() && isIdentContinue(text_[pos_])) ++pos_;
    std::string_view word = text_.substr(start, pos_ - start);
    auto it = keywordTable().find(word);
    if (it != keywordTable().end()) {
      push(it->second, start);
      return;
    }
    // Once per word and file: renaming the first use fixes the others.
    if (isReservedWord(word) && reportedReserved_.insert(word).second) {
      diagnostics_.emit(DiagnosticKind::ReservedIdentifier, span(start, uint32_t(pos_)), word)
          .help("choose another name; this word is reserved for future syntax");
    }
    push(TokenKind::Identifier, start);
  }

  // Cuts the number token: digits, a fraction only when a digit follows the
  // `.` (so `0..N` and `0::2` stay integer + punctuation), an exponent, and
  // any identifier characters glued on (reported as a bad suffix).
  void number(uint32_t start) {
    if (text_[pos_] == '0' && (at(pos_ + 1) == 'x' || at(pos_ + 1) == 'b')) {
      pos_ += 2;
      while (pos_ < text_.size() && isIdentContinue(text_[pos_])) ++pos_;
    } else {
      while (pos_ < text_.size() && (isDigit(text_[pos_]) || text_[pos_] == '_')) ++pos_;
      if (at(pos_) == '.' && isDigit(at(pos_ + 1))) {
        ++pos_;
        while (pos_ < text_.size() && (isDigit(text_[pos_]) || text_[pos_] == '_')) ++pos_;
      }
      if (at(pos_) == 'e' || at(pos_) == 'E') {
        size_t j = pos_ + 1;
        if (at(j) == '+' || at(j) == '-') ++j;
        if (isDigit(at(j))) pos_ = j;
      }
      while (pos_ < text_.size() && isIdentContinue(text_[pos_])) ++pos_;
    }
    std::string_view spelling = text_.substr(start, pos_ - start);
    NumberCheck check = checkNumber(spelling);
    if (!check.error.empty()) {
      // Quoted shortened: a 100000-digit literal made a 100 KB message.
      std::string shown = spelling.size() <= 40
                              ? std::string(spelling)
                              : fmt::format("{}... ({} characters)", spelling.substr(0, 30), spelling.size());
      diagnostics_.emit(DiagnosticKind::InvalidNumber, span(start, uint32_t(pos_)), shown, check.error);
    }
    push(check.isFloat ? TokenKind::FloatLiteral : TokenKind::IntegerLiteral, start);
  }

  void string(uint32_t start) {
    ++pos_;  // opening quote
    bool brokenLine = false;
    while (true) {
      if (pos_ >= text_.size()) {
        out_.endsInsideLiteral = true;
        diagnostics_.emit(DiagnosticKind::UnterminatedString, span(start, uint32_t(pos_)))
            .label("the string starts here and has no closing `\"`");
        break;
      }
      char c = text_[pos_];
      if (c == '"') {
        ++pos_;
        break;
      }
      if (c == '\n' || c == '\r') {
        if (!brokenLine) {
          diagnostics_.emit(DiagnosticKind::NewlineInString, span(start, uint32_t(pos_)))
              .help("strings are single-line; write `\\n` for a line break");
        }
        // When the next line holds the closing quote (an odd number of
        // quotes), the string was written across lines: take it whole so its
        // second half does not start a string of its own.
        if (brokenLine || !nextLineClosesString()) break;
        brokenLine = true;
        pos_ += (c == '\r' && at(pos_ + 1) == '\n') ? 2 : 1;
        continue;
      }
      if (c == '\\') {
        escape();
        continue;
      }
      if (static_cast<unsigned char>(c) >= 0x80) {
        validateUtf8Run();
        continue;
      }
      ++pos_;
    }
    push(TokenKind::StringLiteral, start);
  }

  // At a line break inside a string: whether the next line has an odd
  // number of unescaped quotes.
  bool nextLineClosesString() const {
    size_t i = pos_;
    if (at(i) == '\r') ++i;
    if (at(i) == '\n') ++i;
    int quotes = 0;
    for (; i < text_.size() && text_[i] != '\n' && text_[i] != '\r'; ++i) {
      if (text_[i] == '\\') {
        ++i;
        continue;
      }
      if (text_[i] == '"') ++quotes;
    }
    return quotes % 2 == 1;
  }

  // At a backslash inside a string.
  void escape() {
    uint32_t start = uint32_t(pos_);
    char next = at(pos_ + 1);
    switch (next) {
      case 'n':
      case 'r':
      case 't':
      case '0':
      case '\\':
      case '"':
        pos_ += 2;
        return;
      case 'u':
        unicodeEscape(start);
        return;
      default:
        break;
    }
    // A backslash cannot continue a string onto the next line, and one at
    // the end of the file leaves it unterminated: the caller reports both.
    if (next == '\n' || next == '\r' || pos_ + 1 >= text_.size()) {
      ++pos_;
      return;
    }
    uint32_t length = 1;
    if (static_cast<unsigned char>(next) >= 0x80) {
      length = decodeUtf8(text_, pos_ + 1).length;
      if (length == 0) length = 1;
    }
    pos_ += 1 + length;
    diagnostics_
        .emit(DiagnosticKind::InvalidEscape, span(start, uint32_t(pos_)),
              text_.substr(start, pos_ - start))
        .help("the escapes are `\\n`, `\\r`, `\\t`, `\\0`, `\\\\`, `\\\"` and `\\u{...}`");
  }

  // `\u{` 1-6 hex digits `}` naming a Unicode scalar value.
  void unicodeEscape(uint32_t start) {
    pos_ += 2;  // `\u`
    bool ok = at(pos_) == '{';
    if (ok) ++pos_;
    size_t digitsStart = pos_;
    while (pos_ < text_.size() && isHexDigit(text_[pos_]) && pos_ - digitsStart < 8) ++pos_;
    size_t digits = pos_ - digitsStart;
    ok = ok && digits >= 1 && digits <= 6 && at(pos_) == '}';
    if (ok) {
      uint32_t value = uint32_t(std::strtoul(std::string(text_.substr(digitsStart, digits)).c_str(),
                                             nullptr, 16));
      ok = value <= 0x10FFFF && !(value >= 0xD800 && value <= 0xDFFF);
    }
    if (at(pos_) == '}') ++pos_;
    if (!ok) {
      diagnostics_
          .emit(DiagnosticKind::InvalidUnicodeEscape, span(start, uint32_t(pos_)),
                text_.substr(start, pos_ - start))
          .help("write `\\u{` with 1 to 6 hex digits of a Unicode scalar value, then `}`");
    }
  }

  // Characters that cannot start a token: consecutive ones form one Error
  // token and one diagnostic, named after the first.
  void invalidRun(uint32_t start) {
    DiagnosticKind kind = DiagnosticKind::InvalidCharacter;
    std::string what;
    bool first = true;
    while (pos_ < text_.size()) {
      unsigned char c = static_cast<unsigned char>(text_[pos_]);
      uint32_t length = 1;
      if (c >= 0x80) {
        Utf8Char decoded = decodeUtf8(text_, pos_);
        if (first) {
          if (decoded.length == 0) {
            kind = DiagnosticKind::InvalidUtf8;
          } else {
            kind = DiagnosticKind::NonAsciiOutsideText;
            what = fmt::format("`{}` (U+{:04X})", text_.substr(pos_, decoded.length),
                               decoded.codePoint);
          }
        }
        if (decoded.length != 0) length = decoded.length;
      } else {
        bool bad = c < 0x20 || c == 0x7F || !(isIdentContinue(char(c)) || c == '"' ||
                                             c == ' ' || startsPunctuation(char(c)));
        if (c == '\t' || c == '\n' || c == '\r') bad = false;
        if (!bad) break;
        if (first) {
          what = (c < 0x20 || c == 0x7F) ? fmt::format("U+{:04X}", unsigned(c))
                                         : fmt::format("`{}`", char(c));
        }
      }
      first = false;
      pos_ += length;
    }
    Span where = span(start, uint32_t(pos_));
    switch (kind) {
      case DiagnosticKind::InvalidUtf8:
        diagnostics_.emit(kind, where).label("these bytes are not UTF-8");
        break;
      case DiagnosticKind::NonAsciiOutsideText:
        diagnostics_.emit(kind, where, what)
            .help("names are ASCII; other characters may appear only in comments and strings");
        break;
      default:
        diagnostics_.emit(kind, where, what);
        break;
    }
    push(TokenKind::Error, start);
  }

  std::string_view text_;
  FileId file_;
  DiagnosticEmitter& diagnostics_;
  std::unordered_set<std::string_view> reportedReserved_;
  TokenizedBuffer out_;
  size_t pos_ = 0;
  bool sawSpace_ = false;
  uint32_t newlines_ = 0;
  // Whether a token (or trailing comment) precedes on the current line.
  bool lineHasToken_ = false;
};

}  // namespace

TokenizedBuffer lex(const SourceManager& sources, FileId file, DiagnosticEmitter& diagnostics) {
  return Lexer(sources.file(file), file, diagnostics).run();
}

std::string decodeStringLiteral(std::string_view spelling) {
  std::string out;
  if (spelling.empty()) return out;
  size_t end = spelling.size();
  if (end >= 2 && spelling.back() == '"') --end;
  for (size_t i = 1; i < end; ++i) {
    char c = spelling[i];
    if (c != '\\' || i + 1 >= end) {
      out.push_back(c);
      continue;
    }
    char next = spelling[++i];
    switch (next) {
      case 'n': out.push_back('\n'); break;
      case 'r': out.push_back('\r'); break;
      case 't': out.push_back('\t'); break;
      case '0': out.push_back('\0'); break;
      case '\\': out.push_back('\\'); break;
      case '"': out.push_back('"'); break;
      case 'u': {
        size_t close = spelling.find('}', i);
        if (i + 1 >= end || spelling[i + 1] != '{' || close == std::string_view::npos || close >= end)
          break;
        std::string digits(spelling.substr(i + 2, close - i - 2));
        uint32_t cp = uint32_t(std::strtoul(digits.c_str(), nullptr, 16));
        if (digits.empty() || digits.size() > 6 || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) {
          i = close;
          break;
        }
        if (cp < 0x80) {
          out.push_back(char(cp));
        } else if (cp < 0x800) {
          out.push_back(char(0xC0 | (cp >> 6)));
          out.push_back(char(0x80 | (cp & 0x3F)));
        } else if (cp < 0x10000) {
          out.push_back(char(0xE0 | (cp >> 12)));
          out.push_back(char(0x80 | ((cp >> 6) & 0x3F)));
          out.push_back(char(0x80 | (cp & 0x3F)));
        } else {
          out.push_back(char(0xF0 | (cp >> 18)));
          out.push_back(char(0x80 | ((cp >> 12) & 0x3F)));
          out.push_back(char(0x80 | ((cp >> 6) & 0x3F)));
          out.push_back(char(0x80 | (cp & 0x3F)));
        }
        i = close;
        break;
      }
      default:
        // Invalid escapes were reported by the lexer; keep the text.
        out.push_back('\\');
        out.push_back(next);
        break;
    }
  }
  return out;
}

std::optional<uint64_t> decodeIntegerLiteral(std::string_view spelling) {
  NumberCheck check = checkNumber(spelling);
  if (!check.error.empty() || check.isFloat) return std::nullopt;
  return check.intValue;
}

std::optional<double> decodeFloatLiteral(std::string_view spelling) {
  NumberCheck check = checkNumber(spelling);
  if (!check.error.empty()) return std::nullopt;
  if (!check.isFloat) return double(check.intValue);
  return check.floatValue;
}

}  // namespace linnet
