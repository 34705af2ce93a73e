// Bench: see Bench.h.
#include "runtime/bench/Bench.h"

#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <nlohmann/json.hpp>
#include <thread>
#include <vector>

#include "runtime/artifact/Artifact.h"
#include "runtime/bench/Microbench.h"
#include "runtime/checkpoint/Checkpoint.h"
#include "runtime/cli/RunCommand.h"
#include "runtime/session/Session.h"

namespace linnet::rt {

namespace {

using Clock = std::chrono::steady_clock;

double secondsSince(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

// A figure, or why there is none.
struct Figure {
  std::optional<double> value;
  std::string why;  // when there is no value
  // Decode: the mean time per call spent outside the generated code.
  std::optional<double> overheadSeconds;

  static Figure missing(std::string why) {
    Figure f;
    f.why = std::move(why);
    return f;
  }
  static Figure measured(double value, std::optional<double> overhead = std::nullopt) {
    Figure f;
    f.value = value;
    f.overheadSeconds = overhead;
    return f;
  }
};

std::int64_t genericDim(const Manifest& manifest, std::string_view name, std::int64_t fallback) {
  const GenericValue* g = manifest.findGeneric(name);
  return g && g->dim ? *g->dim : fallback;
}

// Token ids `[rows, columns]` of i32, spread over 0..vocab.
HostTensor tokens(std::int64_t rows, std::int64_t columns, std::int64_t vocab) {
  HostTensor t = HostTensor::zeros(DType::I32, {rows, columns}).value();
  auto* data = reinterpret_cast<std::int32_t*>(t.bytes().data());
  for (std::int64_t i = 0; i < rows * columns; ++i) data[i] = std::int32_t((i * 7919 + 13) % std::max<std::int64_t>(vocab, 1));
  return t;
}

HostTensor positions(std::int64_t rows, std::int32_t at) {
  HostTensor t = HostTensor::zeros(DType::I32, {rows}).value();
  auto* data = reinterpret_cast<std::int32_t*>(t.bytes().data());
  for (std::int64_t i = 0; i < rows; ++i) data[i] = at;
  return t;
}

double median(std::vector<double> xs) {
  std::sort(xs.begin(), xs.end());
  return xs[xs.size() / 2];
}

struct Model {
  Session session;
  std::int64_t batch, maxSeq, vocab;
  double parameterBytes = 0, matrixElements = 0, stateBytes = 0;
};

Expected<Model> load(const std::string& path, const std::string& checkpointDir, double* seconds) {
  Clock::time_point start = Clock::now();
  Expected<Artifact> artifact = Artifact::open(path);
  if (!artifact) return artifact.error();
  Expected<Checkpoint> checkpoint = Checkpoint::open(checkpointDir);
  if (!checkpoint) return checkpoint.error();
  Expected<Session> session = Session::create(std::move(*artifact), std::move(*checkpoint));
  if (!session) return session.error();
  if (seconds) *seconds = secondsSince(start);
  const Manifest& m = session->manifest();
  Model model{std::move(*session), genericDim(m, "Batch", 1), genericDim(m, "MaxSeq", 0), genericDim(m, "Vocab", 1)};
  for (const ParameterSpec& p : model.session.manifest().parameters) {
    double elements = 1;
    for (std::int64_t d : p.shape) elements *= double(d);
    model.parameterBytes += elements * double(dtypeSize(p.dtype));
    if (p.shape.size() >= 2) model.matrixElements += elements;
  }
  for (const StateSpec& s : model.session.manifest().state) {
    double elements = 1;
    for (std::int64_t d : s.shape) elements *= double(d);
    model.stateBytes += elements * double(dtypeSize(s.dtype));
  }
  return model;
}

// Seconds of one call (median of `repeats` after a warm-up), or the error.
Expected<double> timeCall(Session& session, std::string_view entry, const ArgMap& args, int repeats) {
  std::vector<double> times;
  for (int i = 0; i <= repeats; ++i) {
    Clock::time_point start = Clock::now();
    Expected<std::vector<HostTensor>> result = session.call(entry, args);
    if (!result) return result.error();
    if (i > 0) times.push_back(secondsSince(start));
  }
  return median(times);
}

Figure prefillTokensPerSecond(Model& model, std::int64_t s, int repeats, std::FILE* err) {
  if (!model.session.manifest().findEntry("prefill")) return Figure::missing("no `prefill` entry");
  if (model.maxSeq && s > model.maxSeq) return Figure::missing("MaxSeq " + std::to_string(model.maxSeq) + " < S");
  std::fprintf(err, "bench: prefill S=%lld...\n", static_cast<long long>(s));
  ArgMap args;
  args.emplace("tokens", tokens(model.batch, s, model.vocab));
  args.emplace("pos", HostTensor::scalar(DType::I32, 0));
  Expected<double> seconds = timeCall(model.session, "prefill", args, repeats);
  if (!seconds) return Figure::missing(seconds.message());
  return Figure::measured(double(model.batch * s) / *seconds);
}

// `steps` calls of `entry` at positions 0.., one token per row each.
Figure decodeTokensPerSecond(Model& model, std::string_view entry, int steps, std::FILE* err) {
  if (!model.session.manifest().findEntry(entry)) return Figure::missing("no `" + std::string(entry) + "` entry");
  if (model.maxSeq && steps + 1 > model.maxSeq) return Figure::missing("MaxSeq too small");
  std::fprintf(err, "bench: %s, %lld rows...\n", std::string(entry).c_str(), static_cast<long long>(model.batch));
  bool rows = entry == "decode_rows";
  HostTensor token = tokens(model.batch, 1, model.vocab);
  std::vector<double> times;
  double overhead = 0;
  for (int step = 0; step <= steps; ++step) {
    ArgMap args;
    args.emplace(rows ? "tokens" : "token", token);
    if (rows) args.emplace("positions", positions(model.batch, step));
    else args.emplace("pos", HostTensor::scalar(DType::I32, step));
    Clock::time_point start = Clock::now();
    Expected<std::vector<HostTensor>> result = model.session.call(entry, args);
    if (!result) return Figure::missing(result.message());
    if (step == 0) continue;  // warms up
    times.push_back(secondsSince(start));
    overhead += times.back() - model.session.lastCallNativeSeconds();
  }
  double total = 0;
  for (double t : times) total += t;
  return Figure::measured(double(model.batch) * double(times.size()) / total, overhead / double(times.size()));
}

double peakRssBytes() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return double(usage.ru_maxrss) * 1024.0;  // Linux reports KiB
}

std::string fixed(double v, int digits) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", digits, v);
  return buf;
}

}  // namespace

int benchCommand(const BenchOptions& options) {
  std::FILE* err = options.err;
  int threads = computeThreads();
  std::fprintf(err, "bench: loading %s...\n", options.artifactPath.c_str());
  double loadSeconds = 0;
  Expected<Model> model = load(options.artifactPath, options.checkpointDir, &loadSeconds);
  if (!model) {
    std::fprintf(err, "bench: error: %s\n", model.message().c_str());
    return kExitInputError;
  }
  Figure prefill128 = prefillTokensPerSecond(*model, 128, options.repeats, err);
  Figure prefill512 = prefillTokensPerSecond(*model, 512, options.repeats, err);
  Figure decode1 = decodeTokensPerSecond(*model, "decode", options.decodeSteps, err);
  // The Batch = 1 model's peak, read before the Batch = 8 model is loaded:
  // that one maps the same checkpoint again, and the kernel counts every
  // mapping's resident pages, so a peak read after it counts the weights
  // twice (15.3 GB for Phi-3-mini's 7.6 GB).
  double rss = peakRssBytes();
  Figure decode8 = Figure::missing("no Batch = 8 artifact");
  std::int64_t batch8 = 0;
  if (options.batch8Artifact) {
    Expected<Model> wide = load(*options.batch8Artifact, options.checkpointDir, nullptr);
    if (!wide) {
      std::fprintf(err, "bench: error: %s\n", wide.message().c_str());
      return kExitInputError;
    }
    batch8 = wide->batch;
    decode8 = decodeTokensPerSecond(*wide, "decode_rows", options.decodeSteps, err);
  }
  // The generated code's OpenMP workers spin for a while after the last
  // parallel loop (libomp's KMP_BLOCKTIME, 200 ms by default) and would
  // share the cores with the microbenchmarks: the bf16 peak measured 54-64
  // GFLOP/s right after the model's calls, 87 in a process of its own.
  std::this_thread::sleep_for(std::chrono::seconds(1));
  std::fprintf(err, "bench: measuring the read bandwidth (%d threads)...\n", threads);
  ReadBandwidth bandwidth = measureReadBandwidth(threads);
  std::fprintf(err, "bench: measuring the bf16 multiply-add peak...\n");
  ComputePeak peak = measureBf16Peak(threads);

  // Prefill: 2 FLOPs per matrix element per token (every matrix parameter is
  // multiplied once per token; attention's own FLOPs are not counted, and an
  // embedding table is counted though it is only gathered from, so the
  // fraction errs high by its share). Decode: every parameter byte read once
  // per step (the convention: 7.64 GB per Phi-3-mini token).
  double flopsPerToken = 2 * model->matrixElements;
  auto flopFraction = [&](const Figure& f) -> std::optional<double> {
    if (!f.value || peak.flopsPerSecond <= 0) return std::nullopt;
    return *f.value * flopsPerToken / peak.flopsPerSecond;
  };
  auto bandwidthFraction = [&](const Figure& f, std::int64_t rows) -> std::optional<double> {
    if (!f.value || bandwidth.bytesPerSecond <= 0) return std::nullopt;
    return *f.value / double(rows) * model->parameterBytes / bandwidth.bytesPerSecond;
  };

  nlohmann::json j;
  j["machine"] = {{"threads", threads},
                  {"read_bandwidth_bytes_per_s", bandwidth.bytesPerSecond},
                  {"bf16_peak_flops_per_s", peak.flopsPerSecond},
                  {"peak_instruction", peak.instruction}};
  j["model"] = {{"artifact", options.artifactPath},
                {"parameter_bytes", model->parameterBytes},
                {"state_bytes", model->stateBytes},
                {"batch", model->batch}};
  if (options.buildSeconds) j["build_s"] = *options.buildSeconds;
  j["load_s"] = loadSeconds;
  auto put = [&](const char* key, const Figure& f, std::optional<double> fraction, const char* fractionKey) {
    if (!f.value) {
      j[key] = nullptr;
      j[std::string(key) + "_why"] = f.why;
      return;
    }
    j[key] = *f.value;
    if (fraction) j[fractionKey] = *fraction;
  };
  put("prefill_s128_tokens_per_s", prefill128, flopFraction(prefill128), "prefill_s128_peak_fraction");
  put("prefill_s512_tokens_per_s", prefill512, flopFraction(prefill512), "prefill_s512_peak_fraction");
  put("decode_b1_tokens_per_s", decode1, bandwidthFraction(decode1, model->batch), "decode_b1_bandwidth_fraction");
  if (decode1.overheadSeconds) j["decode_call_overhead_s"] = *decode1.overheadSeconds;
  put("decode_b8_tokens_per_s", decode8, bandwidthFraction(decode8, std::max<std::int64_t>(batch8, 1)),
      "decode_b8_bandwidth_fraction");
  j["peak_rss_bytes"] = rss;
  j["peak_rss_over_parameters_and_state"] = rss / std::max(1.0, model->parameterBytes + model->stateBytes);

  if (options.json) {
    std::fprintf(options.out, "%s\n", j.dump(2).c_str());
    return kExitOk;
  }
  auto row = [&](const std::string& name, const std::string& value, const std::string& note) {
    std::fprintf(options.out, "%-28s %14s  %s\n", name.c_str(), value.c_str(), note.c_str());
  };
  auto percent = [](std::optional<double> f, const char* of) {
    return f ? fixed(100 * *f, 1) + "% of " + of : std::string();
  };
  auto figureRow = [&](const std::string& name, const Figure& f, std::optional<double> fraction, const char* of) {
    if (f.value) row(name, fixed(*f.value, 2), percent(fraction, of));
    else row(name, "-", f.why);
  };
  std::fprintf(options.out, "machine: %d threads, read bandwidth %.1f GB/s, bf16 peak %.1f GFLOP/s (%s)\n", threads,
               bandwidth.bytesPerSecond / 1e9, peak.flopsPerSecond / 1e9, peak.instruction.c_str());
  std::fprintf(options.out, "model: %s, parameters %.3f GB, state %.3f GB\n\n", options.artifactPath.c_str(),
               model->parameterBytes / 1e9, model->stateBytes / 1e9);
  row("figure", "value", "fraction of the machine");
  if (options.buildSeconds) row("build (s)", fixed(*options.buildSeconds, 2), "");
  row("load (s)", fixed(loadSeconds, 3), "");
  figureRow("prefill S=128 (tokens/s)", prefill128, flopFraction(prefill128), "bf16 peak");
  figureRow("prefill S=512 (tokens/s)", prefill512, flopFraction(prefill512), "bf16 peak");
  figureRow("decode Batch=" + std::to_string(model->batch) + " (tokens/s)", decode1,
            bandwidthFraction(decode1, model->batch), "read bandwidth");
  figureRow("decode_rows Batch=" + std::to_string(std::max<std::int64_t>(batch8, 8)) + " (tokens/s)", decode8,
            bandwidthFraction(decode8, std::max<std::int64_t>(batch8, 1)), "read bandwidth");
  if (decode1.overheadSeconds)
    row("decode call overhead (us)", fixed(*decode1.overheadSeconds * 1e6, 1), "per call, outside the generated code");
  row("peak RSS (MB)", fixed(rss / 1e6, 1),
      fixed(100 * rss / std::max(1.0, model->parameterBytes + model->stateBytes), 1) + "% of parameters + state");
  return kExitOk;
}

}  // namespace linnet::rt
