// `linnet bench` / `linnet-run --bench`: one table of a model's speed on this
// machine, every figure also a fraction of what the machine can do
// (docs/bench.md):
//   - load time (artifact + checkpoint mapping + state);
//   - prefill tokens/s at S = 128 and 512 (`prefill`, one sequence per cache
//     row, from position 0), and its FLOP/s as a fraction of the bf16
//     multiply-add peak (Microbench.h);
//   - decode tokens/s at the artifact's Batch (`decode`, every row one token)
//     and, given a second artifact built with Batch = 8, at 8 rows
//     (`decode_rows`), with the bytes/s of decode (every parameter byte read
//     once per step) as a fraction of the measured read bandwidth;
//   - the time of one call of a cheap entry outside the generated code is not
//     separable here; the embedded model's decode shows the overheads;
//   - peak resident memory against parameters + state.
// An entry the artifact lacks, or a sequence length its cache cannot hold,
// is a `-` with the reason, never an error. Progress goes to `err`.
#pragma once

#include <cstdio>
#include <optional>
#include <string>

namespace linnet::rt {

struct BenchOptions {
  std::string artifactPath;                  // built with the Batch to decode at (usually 1)
  std::optional<std::string> batch8Artifact; // the same model built with Batch = 8
  std::string checkpointDir;
  std::optional<double> buildSeconds;        // when the caller built the artifact
  bool json = false;
  int decodeSteps = 32;
  int repeats = 3;  // timed calls per figure (after one warm-up); the median counts
  std::FILE* out = stdout;
  std::FILE* err = stderr;
};

// Runs the benchmark; returns an exit code (kExitOk, kExitInputError).
int benchCommand(const BenchOptions& options);

}  // namespace linnet::rt
