// Microbenchmarks that measure the machine a benchmark runs on, so that its
// figures can be stated as fractions of what the hardware can do rather than
// as absolute times (the machines are shared and differ):
//   - the memory read bandwidth of all cores streaming a buffer far larger
//     than the caches (what bounds decoding, which reads every weight once
//     per token);
//   - the bf16 multiply-add peak of all cores: `vdpbf16ps` (AVX-512 BF16)
//     when the CPU has it, else the f32 FMA peak of AVX2, which the report
//     names (what bounds prefill, which is matrix-matrix work).
// These are measuring instruments, not model kernels: they compute nothing a
// model uses. Each runs a few passes and keeps the best (the least disturbed).
#pragma once

#include <cstddef>
#include <string>

namespace linnet::rt {

struct ReadBandwidth {
  double bytesPerSecond = 0;
  std::size_t bufferBytes = 0;
  int threads = 0;
};

struct ComputePeak {
  double flopsPerSecond = 0;
  std::string instruction;  // "vdpbf16ps (AVX-512 BF16)", "vfmadd (AVX2 FMA, f32)", ...
  int threads = 0;
};

// Streams a `bufferBytes` buffer (touched beforehand) with `threads` threads,
// each reading its share; the best of `passes`.
ReadBandwidth measureReadBandwidth(int threads, std::size_t bufferBytes = std::size_t{512} << 20, int passes = 5);

// The multiply-add throughput of `threads` threads running independent
// accumulator chains of the widest bf16 dot-product instruction the CPU has.
ComputePeak measureBf16Peak(int threads);

// The threads generated code runs on: OMP_NUM_THREADS when set to a positive
// number, else one per hardware thread (libomp's default).
int computeThreads();

}  // namespace linnet::rt
