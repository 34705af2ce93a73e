// Implementation of Generate.h.
#include "runtime/generate/Generate.h"

#include "runtime/generate/TextStream.h"
#include "runtime/tokenizer/Utf8.h"

#include <algorithm>

namespace linnet::rt {

namespace {

// An argument of `entry` holding integer `values` in the dtype the manifest
// gives it (the entries take i32 tokens and positions, an i64 key).
Expected<HostTensor> intArgument(const EntrySpec &entry, std::string_view name, std::vector<std::int64_t> shape,
                                 std::span<const std::int64_t> values) {
  const ArgSpec *spec = entry.findArg(name);
  if (!spec)
    return makeError("entry `{}` has no argument `{}`", entry.name, name);
  Expected<HostTensor> tensor = HostTensor::zeros(spec->dtype, std::move(shape));
  if (!tensor)
    return tensor.error();
  if (static_cast<std::size_t>(tensor->elementCount()) != values.size())
    return makeError("argument `{}`: {} values for {}", name, values.size(), tensor->describe());
  std::size_t size = dtypeSize(spec->dtype);
  for (std::size_t i = 0; i < values.size(); ++i)
    storeIntElement(tensor->bytes().data() + i * size, spec->dtype, values[i]);
  return tensor;
}

Expected<HostTensor> scalarArgument(const EntrySpec &entry, std::string_view name, std::int64_t value) {
  return intArgument(entry, name, {}, std::span(&value, 1));
}

Expected<const EntrySpec *> requireEntry(const Manifest &manifest, std::string_view name, std::string_view why) {
  const EntrySpec *entry = manifest.findEntry(name);
  if (!entry)
    return makeError("the artifact has no entry `{}`, which {} needs", name, why);
  return entry;
}

class Generator {
public:
  Generator(Session &session, const Tokenizer &tokenizer, const GenerateOptions &options, std::FILE *out)
      : session_(session), tokenizer_(tokenizer), options_(options), out_(out) {}

  Expected<GenerateReport> run() {
    const Manifest &manifest = session_.manifest();
    const GenericValue *batch = manifest.findGeneric("Batch");
    if (batch && batch->dim && *batch->dim != 1)
      return makeError("--prompt needs an artifact built with Batch = 1; this one has Batch = {}", *batch->dim);
    const GenericValue *maxSeq = manifest.findGeneric("MaxSeq");
    if (!maxSeq || !maxSeq->dim)
      return makeError("the artifact has no MaxSeq generic; --prompt needs a model with a cache");
    maxSeq_ = *maxSeq->dim;

    Expected<std::vector<TokenId>> ids = encodePrompt();
    if (!ids)
      return ids.error();
    if (ids->empty())
      return makeError("the prompt encodes to no tokens");
    // The prompt's last token goes in with the first step, at position
    // size - 1: a prompt that fills the cache still yields one token.
    if (static_cast<std::int64_t>(ids->size()) > maxSeq_)
      return makeError("the prompt is {} tokens; the model's cache holds {} (MaxSeq)", ids->size(), maxSeq_);
    report_.promptTokens = ids->size();

    if (Status s = prefill(*ids); !s)
      return s.error();
    TextStream stream(tokenizer_, *ids, out_);
    if (Status s = stream.start(!options_.chat); !s)
      return s.error();
    Status generated = options_.temperature > 0 ? sample(ids->back(), stream) : greedy(ids->back(), stream);
    if (!generated) {
      stream.endLine();
      return generated.error();
    }
    if (Status s = stream.finish(); !s)
      return s.error();
    report_.generated = stream.generated();
    report_.untokenized = stream.untokenized();
    return std::move(report_);
  }

private:
  // A text no token sequence that fits the cache can spell is refused before
  // it is encoded (a 16 MiB chat render took a minute to encode, then was
  // refused): no token stands for more bytes than the longest token's
  // spelling, and normalization shrinks text at most threefold (NFKC
  // composing Hangul jamo), so it needs at least bytes / (4 * longest).
  Status fitsTheCache(std::string_view text, std::string_view what) const {
    std::size_t longest = std::max<std::size_t>(tokenizer_.longestTokenBytes(), 1);
    std::size_t most = static_cast<std::size_t>(maxSeq_) * 4 * longest;
    if (text.size() <= most)
      return Status::success();
    return makeError("{} is {} bytes: more tokens than the model's cache holds ({} = MaxSeq; no token stands for "
                     "more than {} bytes, {} allowing for normalization)",
                     what, text.size(), maxSeq_, longest, 4 * longest);
  }

  Expected<std::vector<TokenId>> encodePrompt() {
    if (Expected<std::u32string> decoded = decodeUtf8(options_.prompt); !decoded)
      return makeError("--prompt: {}", decoded.message());
    if (!options_.chat) {
      if (Status s = fitsTheCache(options_.prompt, "the prompt"); !s)
        return s.error();
      return tokenizer_.encode(options_.prompt);
    }
    ChatMessage message{"user", options_.prompt};
    Expected<std::string> text = tokenizer_.applyChatTemplate(std::span(&message, 1), true);
    if (!text)
      return text.error();
    if (Status s = fitsTheCache(*text, "the chat template's text"); !s)
      return s.error();
    Expected<std::vector<TokenId>> ids = tokenizer_.encode(*text, tokenizer_.chatEncodeOptions(*text));
    if (!ids)
      return ids;
    dropLoneSpaceBeforeAddedToken(*ids);
    return ids;
  }

  // Our tokenizer follows the slow LlamaTokenizer, which puts a lone `▁`
  // before a leading added token (`<s> ▁ <|user|>`); the fast tokenizer,
  // which trained the chat data (tools/embedded/make_embedded.py) and which
  // Hugging Face users get, does not. A model never saw that `▁` there, and
  // it changes what it says (docs/tokenizer.md, "encode vs fast").
  void dropLoneSpaceBeforeAddedToken(std::vector<TokenId> &ids) const {
    std::optional<TokenId> space = tokenizer_.tokenToId("\xE2\x96\x81"); // U+2581
    if (!space)
      return;
    std::size_t at = !ids.empty() && tokenizer_.bosId() && ids[0] == *tokenizer_.bosId() ? 1 : 0;
    if (ids.size() > at + 1 && ids[at] == *space && tokenizer_.isAddedToken(ids[at + 1]))
      ids.erase(ids.begin() + static_cast<std::ptrdiff_t>(at));
  }

  // Every prompt token but the last into the cache, from position 0.
  Status prefill(const std::vector<TokenId> &ids) {
    if (ids.size() < 2)
      return Status::success();
    Expected<const EntrySpec *> entry = requireEntry(session_.manifest(), "prefill", "--prompt");
    if (!entry)
      return entry.error();
    std::vector<std::int64_t> tokens(ids.begin(), ids.end() - 1);
    ArgMap args;
    Expected<HostTensor> tokenArg = intArgument(**entry, "tokens", {1, static_cast<std::int64_t>(tokens.size())}, tokens);
    if (!tokenArg)
      return tokenArg.error();
    Expected<HostTensor> posArg = scalarArgument(**entry, "pos", 0);
    if (!posArg)
      return posArg.error();
    args.emplace("tokens", std::move(*tokenArg));
    args.emplace("pos", std::move(*posArg));
    Expected<std::vector<HostTensor>> results = session_.call("prefill", args);
    if (!results)
      return makeError("prefill: {}", results.message());
    return Status::success();
  }

  bool isStop(TokenId id) const {
    return std::binary_search(options_.stopIds.begin(), options_.stopIds.end(), id);
  }

  // generate_until<MaxNew=1> once per token: the token at `pos` in, the next
  // one out.
  Status greedy(TokenId token, TextStream &stream) {
    Expected<const EntrySpec *> entry = requireEntry(session_.manifest(), "generate_until", "greedy --prompt");
    if (!entry)
      return entry.error();
    std::int64_t pos = static_cast<std::int64_t>(report_.promptTokens) - 1;
    std::int64_t eos = options_.stopIds.empty() ? 0 : options_.stopIds.front();
    for (std::int64_t step = 0;; ++step) {
      if (step == options_.maxNew) {
        report_.reason = StopReason::MaxNew;
        return Status::success();
      }
      if (pos >= maxSeq_) {
        report_.reason = StopReason::CacheFull;
        return Status::success();
      }
      std::int64_t tokenValue = token;
      ArgMap args;
      Expected<HostTensor> tokenArg = intArgument(**entry, "token", {1, 1}, std::span(&tokenValue, 1));
      Expected<HostTensor> posArg = scalarArgument(**entry, "pos", pos);
      Expected<HostTensor> eosArg = scalarArgument(**entry, "eos", eos);
      if (!tokenArg || !posArg || !eosArg)
        return makeError("generate_until: {}", !tokenArg ? tokenArg.message()
                                               : !posArg ? posArg.message()
                                                         : eosArg.message());
      args.emplace("token", std::move(*tokenArg));
      args.emplace("pos", std::move(*posArg));
      args.emplace("eos", std::move(*eosArg));
      Expected<std::vector<HostTensor>> results = session_.call("generate_until", args, {{"MaxNew", 1}});
      if (!results)
        return makeError("generate_until (step {}): {}", step, results.message());
      if (results->empty() || (*results)[0].elementCount() < 1)
        return makeError("generate_until returned no token");
      TokenId next = static_cast<TokenId>((*results)[0].elementAsInt(0));
      if (isStop(next)) {
        report_.reason = StopReason::StopToken;
        return Status::success();
      }
      if (Status s = stream.push(next); !s)
        return s;
      token = next;
      ++pos;
    }
  }

  // One sample<Steps=N> call, then the tokens up to the first stop id.
  Status sample(TokenId token, TextStream &stream) {
    Expected<const EntrySpec *> entry = requireEntry(session_.manifest(), "sample", "--temperature");
    if (!entry)
      return entry.error();
    std::int64_t pos = static_cast<std::int64_t>(report_.promptTokens) - 1;
    std::int64_t steps = std::min(options_.maxNew, maxSeq_ - pos);
    std::int64_t tokenValue = token;
    std::array<std::int64_t, 2> key = prngKeyFromSeed(options_.seed);
    const ArgSpec *temperatureSpec = (*entry)->findArg("temperature");
    if (!temperatureSpec)
      return makeError("entry `sample` has no argument `temperature`");
    ArgMap args;
    Expected<HostTensor> tokenArg = intArgument(**entry, "token", {1, 1}, std::span(&tokenValue, 1));
    Expected<HostTensor> posArg = scalarArgument(**entry, "pos", pos);
    Expected<HostTensor> keyArg = intArgument(**entry, "key", {2}, key);
    if (!tokenArg || !posArg || !keyArg)
      return makeError("sample: {}", !tokenArg ? tokenArg.message() : !posArg ? posArg.message() : keyArg.message());
    args.emplace("token", std::move(*tokenArg));
    args.emplace("pos", std::move(*posArg));
    args.emplace("key", std::move(*keyArg));
    args.emplace("temperature", HostTensor::scalar(temperatureSpec->dtype, options_.temperature));
    Expected<std::vector<HostTensor>> results = session_.call("sample", args, {{"Steps", steps}});
    if (!results)
      return makeError("sample: {}", results.message());
    if (results->empty() || (*results)[0].elementCount() != steps)
      return makeError("sample returned {} tokens, expected {}", results->empty() ? 0 : (*results)[0].elementCount(),
                       steps);
    for (std::int64_t t = 0; t < steps; ++t) {
      TokenId next = static_cast<TokenId>((*results)[0].elementAsInt(t));
      if (isStop(next)) {
        report_.reason = StopReason::StopToken;
        return Status::success();
      }
      if (Status s = stream.push(next); !s)
        return s;
    }
    report_.reason = steps < options_.maxNew ? StopReason::CacheFull : StopReason::MaxNew;
    return Status::success();
  }

  Session &session_;
  const Tokenizer &tokenizer_;
  const GenerateOptions &options_;
  std::FILE *out_;
  std::int64_t maxSeq_ = 0;
  GenerateReport report_;
};

} // namespace

std::array<std::int64_t, 2> prngKeyFromSeed(std::uint64_t seed) {
  return {static_cast<std::int64_t>(seed >> 32), static_cast<std::int64_t>(seed & 0xffffffffu)};
}

Expected<GenerateReport> generateText(Session &session, const Tokenizer &tokenizer, const GenerateOptions &options,
                                      std::FILE *out) {
  return Generator(session, tokenizer, options, out).run();
}

} // namespace linnet::rt
