// Text <-> token ids for a checkpoint. Two kinds are supported:
//
//  - a SentencePiece `tokenizer.model` (Llama 2, Phi-3, Mistral, ...),
//    following Hugging Face's slow `LlamaTokenizer` so that a prompt gives
//    the ids transformers gives;
//  - otherwise a Hugging Face `tokenizer.json` whose model is a byte-level
//    BPE (GPT-2, Llama 3, Qwen2, SmolLM, ...), following the `tokenizers`
//    library (transformers' fast tokenizer). Only the pipeline parts those
//    use are implemented; anything else is refused at open()
//    (TokenizerJson.h).
//
// open() also reads `tokenizer_config.json` (optional: added tokens, bos/eos,
// add_bos_token/add_eos_token, legacy, chat_template). Nothing about a
// particular model is built in: every id and every special string comes from
// those files. The exact encoding and decoding rules, and where they differ
// from transformers, are in docs/tokenizer.md.
//
// A Tokenizer is immutable after open(): any number of threads may call its
// const methods at once (SentencePiece's encode/decode are const and keep no
// per-call state in the processor; the BPE path keeps none either). It is
// move-only; moving keeps nothing dangling because the state lives behind
// one pointer (a moved-from Tokenizer may only be destroyed or assigned to).
#pragma once

#include "runtime/support/Status.h"
#include "runtime/tokenizer/TokenizerConfig.h"

#include <cstddef>
#include <filesystem>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace linnet::rt {

struct EncodeOptions {
  // Prepend bos / append eos; unset means what the checkpoint says
  // (add_bos_token / add_eos_token), which is what `tokenizer(text)` does.
  // Hugging Face's apply_chat_template(tokenize=True) passes neither: use
  // addBos = false, addEos = false to reproduce it.
  std::optional<bool> addBos = std::nullopt;
  std::optional<bool> addEos = std::nullopt;
};

struct DecodeOptions {
  // Drop special tokens (added tokens marked "special", the named bos / eos /
  // unk / pad tokens, SentencePiece control pieces) instead of rendering
  // their text.
  bool skipSpecialTokens = false;
};

struct ChatMessage {
  std::string role; // "system", "user" or "assistant"
  std::string content;
};

class Tokenizer {
public:
  static constexpr std::string_view kModelFileName = "tokenizer.model";

  // Loads the tokenizer files of a checkpoint directory: tokenizer.model if
  // present, else tokenizer.json. Every problem (neither file, a corrupt
  // tokenizer.model, malformed JSON, an unsupported tokenizer.json pipeline,
  // added token ids out of range or repeated, a special token that names
  // nothing) is an Error naming the file.
  static Expected<Tokenizer> open(const std::filesystem::path &checkpointDir);

  Tokenizer(Tokenizer &&) noexcept;
  Tokenizer &operator=(Tokenizer &&) noexcept;
  Tokenizer(const Tokenizer &) = delete;
  Tokenizer &operator=(const Tokenizer &) = delete;
  ~Tokenizer();

  // Text (UTF-8) to ids. Added-token strings in the text (e.g. "<|end|>")
  // become their ids, longest match first; the text between them goes
  // through SentencePiece or the byte-level BPE pipeline. Fails if a
  // requested bos/eos does not exist, for text that is not valid UTF-8, and
  // on the tokenizer.json path for text that needs an NFC normalization the
  // checkpoint asks for (see docs/tokenizer.md).
  Expected<std::vector<TokenId>> encode(std::string_view text,
                                        const EncodeOptions &options = {}) const;

  // Ids to text. An id outside 0..vocabSize() is an Error naming its
  // position; the ids are never trusted.
  Expected<std::string> decode(std::span<const TokenId> ids,
                               const DecodeOptions &options = {}) const;

  // The id of an added token's content or a SentencePiece piece ("<|end|>",
  // "▁the", "<0x0A>") or BPE vocab token (in byte-level spelling: "Ġthe");
  // nullopt if there is none.
  std::optional<TokenId> tokenToId(std::string_view token) const;
  // The inverse: an added token's content or the piece's text.
  Expected<std::string> idToToken(TokenId id) const;

  // SentencePiece pieces (or BPE vocab tokens) plus the added tokens above
  // them: one more than the largest id (open() guarantees there are no
  // holes).
  std::size_t vocabSize() const;
  // The most bytes of text any one token stands for, bounded by the longest
  // spelling of an id (a piece's "▁" stands for one space, a byte-level
  // token's characters for one byte each, "<0x0A>" for one byte). Walks the
  // vocabulary: for a check before encoding a prompt, not per token.
  std::size_t longestTokenBytes() const;
  // The number of pieces in tokenizer.model (or tokens in the BPE vocab).
  std::size_t pieceCount() const;

  std::optional<TokenId> bosId() const;
  std::optional<TokenId> eosId() const;
  std::optional<TokenId> unkId() const;
  std::optional<TokenId> padId() const;
  bool addsBos() const; // add_bos_token as resolved by open()
  bool addsEos() const;
  bool isLegacy() const; // transformers' `legacy` flag (see docs/tokenizer.md); false for BPE

  // True for ids decode(skipSpecialTokens) drops; false for ids out of range.
  bool isSpecial(TokenId id) const;
  // True for ids that come from added tokens (including named special
  // tokens registered from the SentencePiece vocabulary).
  bool isAddedToken(TokenId id) const;

  // How to encode the text applyChatTemplate rendered: as Hugging Face's
  // `tokenizer(apply_chat_template(..., tokenize=False))`, which is how the
  // chat data of the models we run was tokenized (bos as the checkpoint
  // says), except that a template which writes the bos token itself (Llama
  // 3's `<|begin_of_text|>`) gets no second one.
  EncodeOptions chatEncodeOptions(std::string_view rendered) const;

  // Renders a conversation with the checkpoint's chat template, as text to
  // pass to encode(). The template is executed by our Jinja engine
  // (jinja/Template.h) with the variables transformers' apply_chat_template
  // passes: messages (role/content dicts), add_generation_prompt,
  // tools = documents = None, and bos_token / eos_token / unk_token /
  // pad_token where the checkpoint sets them. The text is what jinja2 gives
  // (docs/tokenizer.md, "Chat template"). No template is an Error; so are a
  // malformed or unsupported template and one that raises (e.g. a role-order
  // rule via raise_exception), with the template's message and line.
  Expected<std::string> applyChatTemplate(std::span<const ChatMessage> messages,
                                          bool addGenerationPrompt) const;

  struct Impl; // defined in TokenizerImpl.h

private:
  explicit Tokenizer(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

} // namespace linnet::rt
