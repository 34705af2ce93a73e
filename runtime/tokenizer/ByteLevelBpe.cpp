// Implementation of ByteLevelBpe.h. The merge loop mirrors `tokenizers`'
// Word::merge_all: a priority queue of candidate merges ordered by (rank,
// position); a popped candidate whose symbols have changed since it was
// queued is skipped.
#include "runtime/tokenizer/ByteLevelBpe.h"

#include "runtime/checkpoint/StrictJson.h"

#include <limits>
#include <queue>

namespace linnet::rt {

using nlohmann::json;

namespace {

// Length in bytes of the UTF-8 character starting with `lead` (1 for a
// stray byte, so malformed input still advances).
std::size_t charLength(unsigned char lead) {
  if (lead >= 0xF0)
    return 4;
  if (lead >= 0xE0)
    return 3;
  if (lead >= 0xC0)
    return 2;
  return 1;
}

} // namespace

Expected<ByteLevelBpe> ByteLevelBpe::fromJson(const json &model, std::string_view source) {
  ByteLevelBpe out;
  auto stringOrNull = [&](std::string_view key) -> Expected<std::optional<std::string>> {
    auto it = model.find(key);
    if (it == model.end() || it->is_null())
      return std::optional<std::string>();
    if (!it->is_string())
      return makeError("{}: model \"{}\" must be a string or null", source, key);
    return std::optional<std::string>(it->get<std::string>());
  };
  auto flag = [&](std::string_view key) -> Expected<bool> {
    auto it = model.find(key);
    if (it == model.end() || it->is_null())
      return false;
    if (!it->is_boolean())
      return makeError("{}: model \"{}\" must be true or false", source, key);
    return it->get<bool>();
  };

  Expected<bool> byteFallback = flag("byte_fallback");
  if (!byteFallback)
    return byteFallback.error();
  if (*byteFallback)
    return makeError("{}: unsupported BPE model with \"byte_fallback\": true (only byte-level "
                     "BPE is implemented)",
                     source);
  for (std::string_view key : {"continuing_subword_prefix", "end_of_word_suffix"}) {
    Expected<std::optional<std::string>> value = stringOrNull(key);
    if (!value)
      return value.error();
    if (*value && !(*value)->empty())
      return makeError("{}: unsupported BPE model with \"{}\": {}", source, key,
                       jsonQuoted(**value));
  }
  if (auto it = model.find("dropout"); it != model.end() && !it->is_null()) {
    if (!it->is_number())
      return makeError("{}: model \"dropout\" must be a number or null", source);
    if (it->get<double>() > 0)
      return makeError("{}: unsupported BPE model with dropout (random merges)", source);
  }
  Expected<bool> fuseUnk = flag("fuse_unk");
  if (!fuseUnk)
    return fuseUnk.error();
  Expected<bool> ignoreMerges = flag("ignore_merges");
  if (!ignoreMerges)
    return ignoreMerges.error();
  out.fuseUnk_ = *fuseUnk;
  out.ignoreMerges_ = *ignoreMerges;

  auto vocab = model.find("vocab");
  if (vocab == model.end() || !vocab->is_object() || vocab->empty())
    return makeError("{}: the BPE model needs a non-empty \"vocab\" object", source);
  constexpr std::int64_t kMaxId = std::numeric_limits<TokenId>::max() - 1;
  std::int64_t maxId = -1;
  for (const auto &[token, id] : vocab->items())
    if (!id.is_number_integer() || id.get<std::int64_t>() < 0 || id.get<std::int64_t>() > kMaxId)
      return makeError("{}: vocab token {} has id {}, not an integer in 0..{}", source,
                       jsonQuoted(token), id.dump(), kMaxId);
    else
      maxId = std::max(maxId, id.get<std::int64_t>());
  // Ids far above the vocab's size would make the tables huge: refuse them.
  if (static_cast<std::uint64_t>(maxId) >= 4 * vocab->size() + 1024)
    return makeError("{}: vocab ids go up to {} for only {} tokens", source, maxId, vocab->size());
  out.tokens_.resize(static_cast<std::size_t>(maxId) + 1);
  out.hasToken_.assign(static_cast<std::size_t>(maxId) + 1, false);
  for (const auto &[token, value] : vocab->items()) {
    auto id = static_cast<TokenId>(value.get<std::int64_t>());
    if (out.hasToken_[static_cast<std::size_t>(id)])
      return makeError("{}: vocab id {} is given to both {} and {}", source, id,
                       jsonQuoted(out.tokens_[static_cast<std::size_t>(id)]), jsonQuoted(token));
    out.hasToken_[static_cast<std::size_t>(id)] = true;
    out.tokens_[static_cast<std::size_t>(id)] = token;
    out.vocab_.emplace(token, id);
  }

  Expected<std::optional<std::string>> unk = stringOrNull("unk_token");
  if (!unk)
    return unk.error();
  if (*unk) {
    std::optional<TokenId> id = out.tokenToId(**unk);
    if (!id)
      return makeError("{}: model \"unk_token\" {} is not in the vocab", source, jsonQuoted(**unk));
    out.unk_ = id;
  }

  auto merges = model.find("merges");
  if (merges == model.end() || merges->is_null())
    return out;
  if (!merges->is_array())
    return makeError("{}: model \"merges\" must be an array", source);
  out.merges_.reserve(merges->size());
  std::uint32_t rank = 0;
  for (const json &merge : *merges) {
    std::string left, right;
    if (merge.is_string()) {
      const std::string &text = merge.get_ref<const std::string &>();
      std::size_t space = text.find(' ');
      if (space == std::string::npos || text.find(' ', space + 1) != std::string::npos)
        return makeError("{}: merge {} ({}) is not two tokens separated by one space", source,
                         rank, jsonQuoted(text));
      left = text.substr(0, space);
      right = text.substr(space + 1);
    } else if (merge.is_array() && merge.size() == 2 && merge[0].is_string() &&
               merge[1].is_string()) {
      left = merge[0].get<std::string>();
      right = merge[1].get<std::string>();
    } else {
      return makeError("{}: merge {} must be \"a b\" or [\"a\", \"b\"]", source, rank);
    }
    std::optional<TokenId> a = out.tokenToId(left), b = out.tokenToId(right),
                           result = out.tokenToId(left + right);
    if (!a || !b || !result)
      return makeError("{}: merge {} ({} + {}) names a token that is not in the vocab: {}", source,
                       rank, jsonQuoted(left), jsonQuoted(right),
                       jsonQuoted(!a ? left : !b ? right : left + right));
    // A repeated pair keeps its last rank (as `tokenizers` builds its map).
    out.merges_[pairKey(*a, *b)] = Merge{rank, *result};
    ++rank;
  }
  return out;
}

std::optional<TokenId> ByteLevelBpe::tokenToId(std::string_view token) const {
  auto it = vocab_.find(token);
  if (it == vocab_.end())
    return std::nullopt;
  return it->second;
}

const std::string *ByteLevelBpe::idToToken(TokenId id) const {
  if (id < 0 || static_cast<std::size_t>(id) >= tokens_.size() ||
      !hasToken_[static_cast<std::size_t>(id)])
    return nullptr;
  return &tokens_[static_cast<std::size_t>(id)];
}

const ByteLevelBpe::Merge *ByteLevelBpe::findMerge(TokenId a, TokenId b) const {
  auto it = merges_.find(pairKey(a, b));
  return it == merges_.end() ? nullptr : &it->second;
}

void ByteLevelBpe::encodeWord(std::string_view word, std::vector<TokenId> &out) const {
  if (word.empty())
    return;
  if (ignoreMerges_)
    if (std::optional<TokenId> whole = tokenToId(word)) {
      out.push_back(*whole);
      return;
    }

  struct Symbol {
    TokenId id;
    std::ptrdiff_t prev, next; // -1: none
    bool alive;
  };
  std::vector<Symbol> symbols;
  symbols.reserve(word.size());
  bool hasPendingUnk = false; // an unk symbol not added yet (fuse_unk may extend it)
  auto add = [&](TokenId id) {
    auto index = static_cast<std::ptrdiff_t>(symbols.size());
    symbols.push_back({id, index - 1, -1, true});
    if (index > 0)
      symbols[static_cast<std::size_t>(index - 1)].next = index;
  };
  for (std::size_t pos = 0; pos < word.size();) {
    std::size_t length =
        std::min(charLength(static_cast<unsigned char>(word[pos])), word.size() - pos);
    std::optional<TokenId> id = tokenToId(word.substr(pos, length));
    pos += length;
    if (id) {
      if (hasPendingUnk)
        add(*unk_);
      hasPendingUnk = false;
      add(*id);
    } else if (unk_) {
      if (hasPendingUnk && !fuseUnk_)
        add(*unk_);
      hasPendingUnk = true;
    }
  }
  if (hasPendingUnk)
    add(*unk_);

  struct Candidate {
    std::uint32_t rank;
    std::size_t pos;
    TokenId result;
    bool operator>(const Candidate &other) const {
      return rank != other.rank ? rank > other.rank : pos > other.pos;
    }
  };
  std::priority_queue<Candidate, std::vector<Candidate>, std::greater<>> queue;
  for (std::size_t i = 0; i + 1 < symbols.size(); ++i)
    if (const Merge *merge = findMerge(symbols[i].id, symbols[i + 1].id))
      queue.push({merge->rank, i, merge->result});
  while (!queue.empty()) {
    Candidate top = queue.top();
    queue.pop();
    Symbol &target = symbols[top.pos];
    if (!target.alive || target.next < 0)
      continue;
    auto rightIndex = static_cast<std::size_t>(target.next);
    Symbol &right = symbols[rightIndex];
    const Merge *current = findMerge(target.id, right.id);
    if (!current || current->result != top.result)
      continue; // stale: one of the two symbols changed since
    target.id = top.result;
    target.next = right.next;
    right.alive = false;
    if (right.next >= 0)
      symbols[static_cast<std::size_t>(right.next)].prev = static_cast<std::ptrdiff_t>(top.pos);
    if (target.prev >= 0) {
      auto prevIndex = static_cast<std::size_t>(target.prev);
      if (const Merge *merge = findMerge(symbols[prevIndex].id, target.id))
        queue.push({merge->rank, prevIndex, merge->result});
    }
    if (target.next >= 0)
      if (const Merge *merge =
              findMerge(target.id, symbols[static_cast<std::size_t>(target.next)].id))
        queue.push({merge->rank, top.pos, merge->result});
  }
  for (const Symbol &symbol : symbols)
    if (symbol.alive)
      out.push_back(symbol.id);
}

} // namespace linnet::rt
