// Implementation of RunCommand.h.
//
// The command line is turned into a list of PlannedCalls (entry, argument
// values as JSON or .npy paths, binds) before anything is loaded beyond
// what parsing needs; then each call's values are converted with the
// entry's dtypes and ranks, checked and run in turn.
#include "runtime/cli/RunCommand.h"

#include "runtime/artifact/ShapeMatch.h"
#include "runtime/checkpoint/MappedFile.h"
#include "runtime/generate/Generate.h"
#include "runtime/generate/StopTokens.h"
#include "runtime/checkpoint/StrictJson.h"
#include "runtime/io/AtomicFile.h"
#include "runtime/io/Npy.h"
#include "runtime/io/SafeTensorsWriter.h"
#include "runtime/io/TensorLiteral.h"
#include "runtime/io/TensorPrinter.h"
#include "runtime/support/MemoryPolicy.h"
#include "runtime/support/ShownName.h"

#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <charconv>
#include <cfloat>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <limits>
#include <set>
#include <string>

namespace linnet::rt {

namespace {

// `Negate` or `Mode.Negate`: how a variant of an enum argument is written.
bool isVariantSpelling(std::string_view text) {
  std::size_t dot = text.find('.');
  if (dot == std::string_view::npos)
    return isIdentifier(text);
  return isIdentifier(text.substr(0, dot)) && isIdentifier(text.substr(dot + 1));
}

// `nan`, `inf`, `+inf`, `-inf` (any case): a float scalar JSON cannot spell.
std::optional<double> nonFiniteSpelling(std::string_view text) {
  std::string lower(text);
  std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char c) { return std::tolower(c); });
  if (lower == "nan")
    return std::numeric_limits<double>::quiet_NaN();
  if (lower == "inf" || lower == "+inf")
    return std::numeric_limits<double>::infinity();
  if (lower == "-inf")
    return -std::numeric_limits<double>::infinity();
  return std::nullopt;
}

using nlohmann::json;

// One argument value before conversion: a JSON value or a .npy file.
struct PlannedValue {
  std::optional<json> literal;
  std::optional<std::filesystem::path> npyPath;
  bool none = false; // `none`: an optional argument left out
};

struct PlannedCall {
  std::string entry;
  std::vector<std::pair<std::string, PlannedValue>> args;
  std::vector<std::pair<std::string, json>> binds; // number, or a dtype name
};

// An error that maps to an exit code.
struct Failure {
  int code;
  std::string message;
};

Expected<std::pair<std::string, std::string>> splitAssignment(const std::string &text, std::string_view flag) {
  std::size_t eq = text.find('=');
  if (eq == std::string::npos || eq == 0)
    return makeError("{} expects NAME=VALUE, got `{}`", flag, shownName(text));
  return std::pair{text.substr(0, eq), text.substr(eq + 1)};
}

// "8" -> 8; "bf16" stays a string (a dtype generic).
json bindValueFromText(const std::string &text) {
  std::int64_t value = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec == std::errc() && end == text.data() + text.size())
    return value;
  return text;
}

// Binds in the form Session::call takes: integer values; dtype generics are
// compared here with the build.
Expected<DimEnv> resolveBinds(const Manifest &manifest, const EntrySpec &entry,
                              const std::vector<std::pair<std::string, json>> &binds, bool onlyRelevant) {
  DimEnv env;
  for (const auto &[name, value] : binds) {
    const GenericValue *generic = manifest.findGeneric(name);
    bool isDim = std::find(entry.dims.begin(), entry.dims.end(), name) != entry.dims.end();
    if (onlyRelevant && !generic && !isDim)
      continue;
    if (generic && generic->dtype) {
      std::string given = value.is_string() ? value.get<std::string>() : value.dump();
      if (given != dtypeName(*generic->dtype))
        return makeError("the artifact was built with {} = {}; it cannot run with {} = {} (rebuild it)", name,
                         dtypeName(*generic->dtype), name, shownName(given));
      continue;
    }
    if (!value.is_number_integer() || (value.is_number_unsigned() && value.get<std::uint64_t>() > INT64_MAX))
      return makeError("bind {}: expected an integer from 0 to {}, got {}", shownName(name), kMaxDim,
                       shownName(value.dump()));
    env[name] = value.get<std::int64_t>();
  }
  return env;
}

class Runner {
public:
  explicit Runner(const RunOptions &options) : options_(options) {}

  int run() {
    std::optional<Failure> failure = runOrFail();
    if (!failure)
      return kExitOk;
    report(*failure);
    return failure->code;
  }

  int reportMisuse() const {
    std::optional<Failure> failure = checkCommandLine();
    if (!failure)
      return kExitOk;
    report(*failure);
    return failure->code;
  }

private:
  void report(const Failure &failure) const {
    std::fprintf(options_.err, "%s: error: %s\n", options_.toolName.c_str(), shownMessage(failure.message).c_str());
    if (failure.code == kExitUsage)
      std::fprintf(options_.err, "run `%s --help` for the command line\n", options_.toolName.c_str());
  }

  static Failure usage(std::string message) { return {kExitUsage, std::move(message)}; }
  static Failure input(std::string message) { return {kExitInputError, std::move(message)}; }

public:
  // Misuse of the command line, found without loading anything.
  std::optional<Failure> checkCommandLine() const {
    if (options_.artifactPath.empty() && !options_.artifactImage)
      return usage("no artifact given");
    if (options_.prompt)
      return checkPromptLine();
    if (options_.chat || options_.maxNew || options_.temperature || options_.seed || options_.eos)
      return usage("--chat, --max-new, --temperature, --seed and --eos go with --prompt");
    if (options_.entry && options_.callsFile)
      return usage("give either --entry or --calls, not both");
    if (!options_.entry && !options_.callsFile)
      return usage("give --entry NAME (with --arg NAME=VALUE...), --calls FILE.json or --prompt TEXT");
    if (options_.callsFile && !options_.args.empty())
      return usage("--arg goes with --entry; with --calls the arguments are in the file");
    if (options_.keepGoing && !options_.callsFile)
      return usage("--keep-going goes with --calls");
    if (options_.outFile && std::filesystem::path(*options_.outFile).extension() != ".safetensors")
      return usage(fmt::format("--out {}: the file name must end in .safetensors", shownName(*options_.outFile)));
    return std::nullopt;
  }

private:
  std::optional<Failure> checkPromptLine() const {
    if (options_.entry || options_.callsFile || !options_.args.empty())
      return usage("--prompt runs the model's own generation entries: it takes no --entry, --arg or --calls");
    if (options_.print || options_.outFile)
      return usage("--prompt writes the generated text; --print and --out go with --entry or --calls");
    if (!options_.checkpointDir)
      return usage("--prompt needs --checkpoint DIR (the model's weights and tokenizer)");
    if (options_.maxNew && *options_.maxNew < 1)
      return usage(fmt::format("--max-new must be at least 1, got {}", *options_.maxNew));
    // The entry's temperature is an f32: a value past its range would be inf.
    if (options_.temperature && !(*options_.temperature >= 0 && *options_.temperature <= FLT_MAX))
      return usage(fmt::format("--temperature must be a finite f32 >= 0 (at most {}), got {}", FLT_MAX,
                               *options_.temperature));
    if (options_.eos && *options_.eos != "auto") {
      std::int64_t id = 0;
      const std::string &text = *options_.eos;
      auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), id);
      if (ec != std::errc() || end != text.data() + text.size() || id < 0 || id > INT32_MAX)
        return usage(fmt::format("--eos takes `auto` or a token id, got `{}`", shownName(text)));
    }
    return std::nullopt;
  }

  // Which input of the run the existing file `path` is (the artifact, the
  // calls file, a file of the checkpoint), if any.
  std::optional<std::string> inputAt(const std::string &path) const {
    std::error_code ec;
    if (!std::filesystem::exists(path, ec))
      return std::nullopt;
    auto same = [&](const std::filesystem::path &other) {
      std::error_code e;
      return std::filesystem::equivalent(path, other, e) && !e;
    };
    if (!options_.artifactPath.empty() && same(options_.artifactPath))
      return std::string("the artifact");
    if (options_.callsFile && same(*options_.callsFile))
      return std::string("the calls file");
    if (options_.checkpointDir) {
      std::error_code e;
      for (std::filesystem::directory_iterator it(*options_.checkpointDir, e), end; !e && it != end; it.increment(e))
        if (same(it->path()))
          return fmt::format("the checkpoint's {}", shownName(it->path().filename().string()));
    }
    return std::nullopt;
  }

  void progress(std::string_view what) const {
    if (options_.progress) {
      std::fprintf(options_.err, "%s: %s\n", options_.toolName.c_str(), shownMessage(what).c_str());
      std::fflush(options_.err);
    }
  }

  Expected<Artifact> loadArtifact() const {
    return options_.artifactImage
               ? Artifact::load(std::as_bytes(std::span(options_.artifactImage->data(), options_.artifactImage->size())),
                                options_.artifactPath.empty() ? std::string("<artifact>") : options_.artifactPath)
               : Artifact::open(options_.artifactPath);
  }

  // --prompt: tokenizer, session, then the generation loop (Generate.h).
  std::optional<Failure> runPrompt() {
    if (!options_.binds.empty())
      return usage("--bind goes with --entry or --calls; --prompt binds what it needs itself");
    progress("loading checkpoint...");
    Expected<Artifact> artifact = loadArtifact();
    if (!artifact)
      return input(artifact.message());
    Expected<Checkpoint> checkpoint = Checkpoint::open(*options_.checkpointDir);
    if (!checkpoint)
      return input(checkpoint.message());
    Expected<Tokenizer> tokenizer = Tokenizer::open(*options_.checkpointDir);
    if (!tokenizer)
      return input(tokenizer.message());
    Expected<std::vector<TokenId>> stopIds =
        resolveStopTokens(options_.eos.value_or("auto"), *tokenizer, *options_.checkpointDir);
    if (!stopIds)
      return input(stopIds.message());
    Expected<Session> session = Session::create(std::move(*artifact), std::move(*checkpoint), options_.session);
    if (!session)
      return input(session.message());
    GenerateOptions generate;
    generate.prompt = *options_.prompt;
    generate.chat = options_.chat;
    generate.maxNew = options_.maxNew.value_or(64);
    // --seed alone samples at temperature 1; --temperature 0 is greedy.
    generate.temperature = options_.temperature.value_or(options_.seed ? 1.0 : 0.0);
    generate.seed = options_.seed.value_or(0);
    generate.stopIds = std::move(*stopIds);
    Expected<GenerateReport> report = generateText(*session, *tokenizer, generate, options_.out);
    if (!report)
      return input(report.message());
    if (report->untokenized)
      std::fprintf(stderr,
                   "linnet-run: note: %zu generated token id(s) past the tokenizer's %zu ids (rows that pad the "
                   "model's vocabulary) have no text and were printed as nothing\n",
                   report->untokenized, tokenizer->vocabSize());
    // Streamed text that could not be written (`> /dev/full`) fails the run.
    if (std::fflush(options_.out) != 0 || std::ferror(options_.out))
      return input(fmt::format("cannot write the generated text: {}", std::strerror(errno)));
    return std::nullopt;
  }

  // Printed results that could not be written (a full disk, a closed pipe)
  // are a failure, not a silent success.
  Status flushOutput() const {
    if (std::fflush(options_.out) != 0 || std::ferror(options_.out))
      return makeError("cannot write the printed results: {}", std::strerror(errno));
    return Status::success();
  }

  std::optional<Failure> runOrFail() {
    if (std::optional<Failure> misuse = checkCommandLine())
      return misuse;
    if (options_.prompt)
      return runPrompt();

    // The command line first, so usage errors come before any loading.
    std::vector<std::pair<std::string, json>> globalBinds;
    std::set<std::string> bound;
    for (const std::string &text : options_.binds) {
      Expected<std::pair<std::string, std::string>> bind = splitAssignment(text, "--bind");
      if (!bind)
        return usage(bind.message());
      if (!isIdentifier(bind->first))
        return usage(fmt::format("--bind {}: `{}` is not a name", shownName(text), shownName(bind->first)));
      if (!bound.insert(bind->first).second)
        return usage(fmt::format("--bind {} is given twice", shownName(bind->first)));
      globalBinds.emplace_back(bind->first, bindValueFromText(bind->second));
    }
    std::vector<PlannedCall> calls;
    if (options_.entry) {
      PlannedCall call{*options_.entry, {}, {}};
      std::set<std::string> seen;
      for (const std::string &text : options_.args) {
        Expected<std::pair<std::string, std::string>> arg = splitAssignment(text, "--arg");
        if (!arg)
          return usage(arg.message());
        if (!seen.insert(arg->first).second)
          return usage(fmt::format("--arg {} is given twice", shownName(arg->first)));
        PlannedValue value;
        if (arg->second == "none") {
          value.none = true;
        } else if (!arg->second.empty() && arg->second[0] == '@') {
          value.npyPath = arg->second.substr(1);
        } else {
          Expected<json> parsed = parseStrictJson(arg->second, "value");
          if (parsed)
            value.literal = std::move(*parsed);
          else if (isVariantSpelling(arg->second) || nonFiniteSpelling(arg->second))
            value.literal = json(arg->second); // an enum variant, `Negate` or `Mode.Negate`, or `nan`
          else {
            // Why, where the text is meant as a number or a list (a nesting
            // past the limit, a number past a double's range, a typo).
            std::string why = parsed.message();
            constexpr std::string_view kPrefix = "value: invalid JSON: ";
            bool meant = arg->second.find_first_of("[0123456789") == 0 || arg->second[0] == '-';
            if (meant && why.starts_with(kPrefix))
              why = "; " + why.substr(kPrefix.size());
            else if (meant && why.starts_with("value: "))
              why = "; " + why.substr(7);
            else
              why.clear();
            return input(fmt::format("--arg {}: not a number or a nested list: `{}`{}", shownName(arg->first),
                                     shownName(arg->second), why));
          }
        }
        call.args.emplace_back(arg->first, std::move(value));
      }
      calls.push_back(std::move(call));
    } else {
      Expected<std::vector<PlannedCall>> planned = readCallsFile(*options_.callsFile);
      if (!planned)
        return input(planned.message());
      calls = std::move(*planned);
    }

    // An `--out` that cannot be written is said before any call runs, and so
    // is one that names an input of the run (it replaced the checkpoint's
    // weights with the result).
    if (options_.outFile) {
      if (std::optional<std::string> named = inputAt(*options_.outFile))
        return usage(fmt::format("--out {} is {}: the result would overwrite it", shownText(*options_.outFile),
                                 *named));
      if (Status s = checkWritable(*options_.outFile); !s)
        return input(s.message());
    }

    // Load.
    Expected<Artifact> artifact = loadArtifact();
    if (!artifact)
      return input(artifact.message());
    std::optional<Checkpoint> checkpoint;
    if (options_.checkpointDir) {
      Expected<Checkpoint> opened = Checkpoint::open(*options_.checkpointDir);
      if (!opened)
        return input(opened.message());
      checkpoint = std::move(*opened);
    }
    Expected<Session> session = Session::create(std::move(*artifact), std::move(checkpoint), options_.session);
    if (!session)
      return input(session.message());
    const Manifest &manifest = session->manifest();
    for (const GenericValue &g : manifest.generics)
      if (g.dim)
        modelDims_[g.name] = *g.dim;

    // Every global bind must mean something to some call.
    for (const auto &[name, value] : globalBinds) {
      bool used = manifest.findGeneric(name) != nullptr;
      for (const PlannedCall &call : calls)
        for (const EntrySpec *entry : manifest.findVariants(call.entry))
          used = used || std::find(entry->dims.begin(), entry->dims.end(), name) != entry->dims.end();
      if (!used)
        return input(fmt::format("--bind {0}: `{0}` is neither a generic of the model nor a dim of {1}",
                                 shownName(name), options_.entry ? "the entry" : "any entry called"));
    }

    // Run.
    std::vector<std::pair<std::string, HostTensor>> saved;
    std::size_t failedCalls = 0;  // --keep-going: each is reported when it fails
    // One call: its failure, if any. With --keep-going, a failed call of
    // any kind (an unknown entry, a bad argument, a run-time check) is
    // reported and the next one runs; the others are not undone.
    auto runCall = [&](std::size_t i) -> std::optional<Failure> {
      std::string label = options_.callsFile ? fmt::format("call {} (`{}`)", i, shownName(calls[i].entry))
                                             : fmt::format("entry `{}`", shownName(calls[i].entry));
      // An argument given as `none` is left out: the variant without that
      // optional parameter runs (docs/abi.md "Variants").
      PlannedCall call = calls[i];
      std::vector<const EntrySpec *> variants = manifest.findVariants(call.entry);
      std::set<std::string> givenNone;
      for (const auto &[name, value] : calls[i].args) {
        if (!value.none)
          continue;
        givenNone.insert(name);
        // Some variant runs without it, not by computing its default.
        bool optional = std::any_of(variants.begin(), variants.end(), [&](const EntrySpec *v) {
          return v->findArg(name) == nullptr && !v->computesDefault(name);
        });
        bool known = std::any_of(variants.begin(), variants.end(),
                                 [&](const EntrySpec *v) { return v->findArg(name) != nullptr; });
        if (known && !optional)
          return input(fmt::format("{}: argument `{}` is `none`, but it is not optional", label, shownName(name)));
        // An optional tuple or struct is named by the prefix of its parts
        // (`p=none` for `p.0`, `p.1`); a name of nothing is a mistake.
        bool names = known || std::any_of(variants.begin(), variants.end(), [&](const EntrySpec *v) {
          return std::any_of(v->args.begin(), v->args.end(),
                             [&](const auto &a) { return a.name.rfind(name + ".", 0) == 0; });
        });
        if (!names && !variants.empty())
          return input(fmt::format("{}: argument `{}` is `none`, but the entry has no argument of that name", label,
                                   shownName(name)));
      }
      std::erase_if(call.args, [](const auto &arg) { return arg.second.none; });
      const EntrySpec *entry = manifest.findEntry(call.entry);
      if (!entry) {
        std::vector<std::string_view> names;
        for (const EntrySpec &e : manifest.entries)
          if (std::find(names.begin(), names.end(), e.name) == names.end())
            names.push_back(e.name);
        return input(fmt::format("{}: the artifact has no entry `{}` (entries: {})", label, shownName(call.entry),
                                 fmt::join(names, ", ")));
      }
      // An entry compiled in variants (docs/abi.md): the first, in manifest
      // order, that takes exactly the arguments given, in dtypes and ranks
      // they can have; an .npy's own dtype first (an f16 file runs the f16
      // variant, not the bf16 one it could be read as), then any a literal
      // or an .npy can be read as.
      Expected<ArgMap> args = convertArgs(*entry, call);
      if (variants.size() > 1) {
        // Every argument given is the variant's, and every one of its
        // arguments not given has a default; an argument left out (not
        // `none`) that some variant computes from its default runs such a
        // variant, and only a call leaving it out does.
        auto given = [&](const std::string &name) {
          return std::any_of(call.args.begin(), call.args.end(), [&](const auto &arg) { return arg.first == name; });
        };
        auto leftOut = [&](const std::string &name) { return !given(name) && !givenNone.count(name); };
        auto takes = [&](const EntrySpec &variant) {
          return fitsLeftOutDefaults(variants, variant, leftOut) &&
                 std::all_of(call.args.begin(), call.args.end(),
                             [&](const auto &arg) { return variant.findArg(arg.first) != nullptr; }) &&
                 std::all_of(variant.args.begin(), variant.args.end(),
                             [&](const auto &a) { return a.defaultValue || given(a.name); });
        };
        std::optional<Expected<ArgMap>> chosen;
        std::set<std::string> failures; // each distinct reason a variant refused the arguments
        for (bool exactNpy : {true, false})
          for (const EntrySpec *variant : variants) {
            if (chosen || !takes(*variant))
              continue;
            if (Expected<ArgMap> converted = convertArgs(*variant, call, exactNpy)) {
              chosen = std::move(converted);
              entry = variant;
            } else {
              failures.insert(converted.message());
              if (args)
                args = std::move(converted); // the first failure, for the message
            }
          }
        // One reason for every variant (an .npy that cannot be read, a
        // malformed literal) is the argument's fault, not the variants'.
        if (!chosen && failures.size() == 1)
          return input(fmt::format("{}: {}", label, *failures.begin()));
        if (!chosen)
          return input(fmt::format("{}: no variant of the entry takes these arguments; it was compiled for {}{}",
                                   label, formatVariants(variants),
                                   args ? std::string() : fmt::format(" (the first: {})", args.message())));
        args = std::move(*chosen);
      }
      if (!args)
        return input(fmt::format("{}: {}", label, args.message()));
      Expected<DimEnv> binds = resolveBinds(manifest, *entry, globalBinds, true);
      if (!binds)
        return input(fmt::format("{}: {}", label, binds.message()));
      Expected<DimEnv> callBinds = resolveBinds(manifest, *entry, call.binds, false);
      if (!callBinds)
        return input(fmt::format("{}: {}", label, callBinds.message()));
      for (const auto &[name, value] : *callBinds)
        (*binds)[name] = value;
      Expected<std::vector<HostTensor>> results = session->call(*entry, *args, *binds);
      if (!results) {
        // A message that already starts with the label ("entry `f` needs
        // S > 0 ...") is not prefixed again.
        const std::string &message = results.message();
        return input(message.rfind(label, 0) == 0 ? message : fmt::format("{}: {}", label, message));
      }
      for (std::size_t r = 0; r < results->size(); ++r) {
        std::string name = results->size() == 1 ? std::to_string(i) : fmt::format("{}.{}", i, r);
        if (options_.print) {
          std::string text = formatTensor((*results)[r]);
          // An enum result: its variant's name after the index.
          if (const std::optional<EnumSpec> &e = entry->results[r].enumType) {
            std::int64_t index = (*results)[r].elementAsInt(0);
            if (index >= 0 && static_cast<std::size_t>(index) < e->variants.size())
              text += fmt::format(" ({}.{})", e->name, e->variants[static_cast<std::size_t>(index)]);
          }
          std::fprintf(options_.out, "%s: %s\n", name.c_str(), text.c_str());
        }
        if (options_.outFile) { // kept for the file only
          session->keepResults((*results)[r].bytes().size());
          saved.emplace_back(std::move(name), std::move((*results)[r]));
        }
      }
      return std::nullopt;
    };
    for (std::size_t i = 0; i < calls.size(); ++i) {
      std::optional<Failure> failure = runCall(i);
      if (!failure)
        continue;
      if (!options_.keepGoing)
        return failure;
      report(*failure);
      ++failedCalls;
    }
    if (options_.outFile) {
      std::vector<NamedTensor> named;
      for (const auto &[name, tensor] : saved)
        named.push_back({name, &tensor});
      if (Status s = writeSafeTensors(*options_.outFile, named); !s)
        return input(s.message());
    }
    if (Status s = flushOutput(); !s)
      return input(s.message());
    if (failedCalls)
      return input(fmt::format("{} of {} calls failed", failedCalls, calls.size()));
    return std::nullopt;
  }

  // `exactNpy`: an .npy must hold the argument's dtype (no f32 read as bf16).
  Expected<ArgMap> convertArgs(const EntrySpec &entry, const PlannedCall &call, bool exactNpy = false) {
    ArgMap args;
    for (const auto &[name, value] : call.args) {
      const ArgSpec *spec = entry.findArg(name);
      if (!spec) {
        std::vector<std::string_view> names;
        for (const ArgSpec &a : entry.args)
          names.push_back(a.name);
        return makeError("entry `{}` has no argument `{}` (its arguments: {})", entry.name, shownName(name),
                         names.empty() ? std::string("none") : fmt::format("{}", fmt::join(names, ", ")));
      }
      if (value.literal && value.literal->is_string()) {
        // A variant's name, for an enum argument only; `nan` or `inf` for a
        // float scalar.
        std::string text = value.literal->get<std::string>();
        std::optional<double> special = spec->enumType ? std::nullopt : nonFiniteSpelling(text);
        if (special && isFloatingPoint(spec->dtype) && spec->shape.empty()) {
          args.emplace(name, HostTensor::scalar(spec->dtype, *special));
          continue;
        }
        if (special && !isFloatingPoint(spec->dtype))
          return makeError("argument `{}`: `{}` is no value of {}", name, text, dtypeName(spec->dtype));
        if (special)
          return makeError("argument `{}`: `{}` stands for a float scalar; a tensor holding one is given as an "
                           ".npy file",
                           name, text);
        if (!spec->enumType)
          return makeError("argument `{}`: `{}` is a name, and the argument is not an enum", name, shownName(text));
        std::optional<std::int32_t> index = spec->enumType->indexOf(text);
        if (!index)
          return makeError("argument `{}`: `{}` is not a variant of `{}` (its variants: {})", name, shownName(text),
                           spec->enumType->name, fmt::join(spec->enumType->variants, ", "));
        args.emplace(name, HostTensor::scalar(DType::I32, static_cast<double>(*index)));
        continue;
      }
      // An .npy's axes of a known extent (a number, or the model's generics)
      // are checked from its header too, before its data is copied.
      std::vector<std::optional<std::int64_t>> extents;
      if (value.npyPath) {
        for (const DimExpr &axis : spec->shape) {
          Expected<std::int64_t> known = axis.evaluate(modelDims_);
          extents.push_back(known ? std::optional<std::int64_t>(*known) : std::nullopt);
        }
      }
      Expected<HostTensor> tensor = value.npyPath
                                        ? readNpyAs(*value.npyPath, spec->dtype, exactNpy, spec->shape.size(), extents)
                                        : tensorFromJson(*value.literal, spec->dtype, spec->shape.size());
      if (!tensor)
        return makeError("argument `{}`: {}", name, tensor.message());
      args.emplace(name, std::move(*tensor));
    }
    return args;
  }

  Expected<std::vector<PlannedCall>> readCallsFile(const std::string &path) {
    Expected<MappedFile> file = MappedFile::open(path);
    if (!file)
      return file.error();
    // The parsed document is many times its text (each number of `[1,1,...]`
    // a 16-byte node, vectors grown by doubling; 35 bytes a byte measured
    // for a list of 10^7 ones), so a file whose document could pass a
    // quarter of memory, the budget of a call's results, is refused before
    // it is read, instead of ending in the out-of-memory killer.
    if (file->size() > (std::size_t{1} << 30))
      return makeError("{}: larger than 1 GiB", path);
    constexpr std::size_t kDocumentBytesPerTextByte = 48;
    MemoryCeiling ceiling = memoryCeiling();
    if (file->size() > ceiling.bytes / 4 / kDocumentBytesPerTextByte)
      return makeError("{}: {} of JSON could take {} once read, more than a quarter of {}, {}: give large "
                       "tensors as @FILE.npy",
                       path, formatByteCount(file->size()), formatByteCount(file->size() * kDocumentBytesPerTextByte),
                       ceiling.what, formatByteCount(ceiling.bytes));
    std::string_view text(reinterpret_cast<const char *>(file->data()), file->size());
    Expected<json> root = parseStrictJson(text, path);
    if (!root)
      return root.error();
    if (root->is_object())
      for (const auto &item : root->items())
        if (item.key() != "calls")
          return makeError("{}: unknown key `{}` (the file is {{\"calls\": [...]}})", path, shownName(item.key()));
    if (!root->is_object() || !root->contains("calls") || !(*root)["calls"].is_array())
      return makeError("{}: expected {{\"calls\": [...]}}", path);
    std::filesystem::path base = std::filesystem::path(path).parent_path();
    std::vector<PlannedCall> calls;
    // Values are moved out of the document, not copied: a tensor literal's
    // DOM is many times its text.
    json &list = (*root)["calls"];
    for (std::size_t i = 0; i < list.size(); ++i) {
      json &c = list[i];
      std::string where = fmt::format("{}: calls[{}]", path, i);
      if (!c.is_object())
        return makeError("{}: expected an object", where);
      for (const auto &item : c.items())
        if (item.key() != "entry" && item.key() != "args" && item.key() != "bind")
          return makeError("{}: unknown key {} (expected entry, args, bind)", where,
                           item.key().size() <= kShownNameBytes ? jsonQuoted(item.key()) : shownName(item.key()));
      if (!c.contains("entry") || !c["entry"].is_string())
        return makeError("{}: `entry` must be a string", where);
      PlannedCall call{c["entry"].get<std::string>(), {}, {}};
      if (c.contains("args")) {
        if (!c["args"].is_object())
          return makeError("{}: `args` must be an object", where);
        for (auto item : c["args"].items()) {
          PlannedValue value;
          if (item.value().is_null() || item.value() == "none") {
            value.none = true;
          } else if (item.value().is_string()) {
            std::string s = item.value().get<std::string>();
            if (isVariantSpelling(s)) {
              value.literal = item.value(); // an enum variant
            } else {
              if (s.empty() || s[0] != '@')
                return makeError("{}: argument `{}`: a string value must be @FILE.npy or an enum variant", where,
                                 shownName(item.key()));
              std::filesystem::path npy = s.substr(1);
              value.npyPath = npy.is_absolute() ? npy : base / npy;
            }
          } else {
            value.literal = std::move(item.value());
          }
          call.args.emplace_back(item.key(), std::move(value));
        }
      }
      if (c.contains("bind")) {
        if (!c["bind"].is_object())
          return makeError("{}: `bind` must be an object", where);
        for (const auto &item : c["bind"].items())
          call.binds.emplace_back(item.key(), item.value());
      }
      calls.push_back(std::move(call));
    }
    return calls;
  }

  const RunOptions &options_;
  DimEnv modelDims_; // the model's dim generics, bound at build time
};

} // namespace

int runCommand(const RunOptions &options) { return Runner(options).run(); }

int checkCommandLine(const RunOptions &options) { return Runner(options).reportMisuse(); }

} // namespace linnet::rt
