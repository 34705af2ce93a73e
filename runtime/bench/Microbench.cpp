// Microbench: see Microbench.h.
#include "runtime/bench/Microbench.h"

#include <immintrin.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <thread>
#include <vector>

namespace linnet::rt {

namespace {

using Clock = std::chrono::steady_clock;

double secondsSince(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

// Runs `body(t)` on `threads` threads at once (thread 0 is the caller) and
// returns the wall time from a common start to the last finish.
template <typename F>
double timeParallel(int threads, F body) {
  std::atomic<int> ready{0};
  std::atomic<bool> go{false};
  std::vector<std::thread> workers;
  for (int t = 1; t < threads; ++t)
    workers.emplace_back([&, t] {
      ready.fetch_add(1);
      while (!go.load(std::memory_order_acquire)) std::this_thread::yield();
      body(t);
    });
  while (ready.load() != threads - 1) std::this_thread::yield();
  Clock::time_point start = Clock::now();
  go.store(true, std::memory_order_release);
  body(0);
  for (std::thread& w : workers) w.join();
  return secondsSince(start);
}

// Sums 64-bit words with four independent chains; the result is kept so the
// reads cannot be dropped.
std::uint64_t sumWords(const std::uint64_t* p, std::size_t n) {
  std::uint64_t a = 0, b = 0, c = 0, d = 0;
  std::size_t i = 0;
  for (; i + 4 <= n; i += 4) {
    a += p[i];
    b += p[i + 1];
    c += p[i + 2];
    d += p[i + 3];
  }
  for (; i < n; ++i) a += p[i];
  return a + b + c + d;
}

// The same with 256-bit loads: one core's scalar loads may not saturate the
// memory system, and the figure must be the memory's, not the loop's. Each
// 128-byte step also prefetches the two lines 1 KiB ahead, as the generated
// products do (docs/codegen.md): without it the stream waits on the hardware
// prefetcher at every 4 KiB page, and Phi-3-mini's decode read its weights
// faster (about 24 GB/s) than this loop measured (22.9).
constexpr std::size_t kPrefetchWords = 128;

__attribute__((target("avx2"))) std::uint64_t sumWordsAvx2(const std::uint64_t* p, std::size_t n) {
  __m256i a = _mm256_setzero_si256(), b = a, c = a, d = a;
  std::size_t i = 0;
  for (; i + 16 <= n; i += 16) {
    std::size_t ahead = std::min(i + kPrefetchWords, n - 16);  // stays inside the buffer
    _mm_prefetch(reinterpret_cast<const char*>(p + ahead), _MM_HINT_T0);
    _mm_prefetch(reinterpret_cast<const char*>(p + ahead + 8), _MM_HINT_T0);
    a = _mm256_add_epi64(a, _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p + i)));
    b = _mm256_add_epi64(b, _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p + i + 4)));
    c = _mm256_add_epi64(c, _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p + i + 8)));
    d = _mm256_add_epi64(d, _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p + i + 12)));
  }
  alignas(32) std::uint64_t lanes[4];
  _mm256_store_si256(reinterpret_cast<__m256i*>(lanes), _mm256_add_epi64(_mm256_add_epi64(a, b), _mm256_add_epi64(c, d)));
  return lanes[0] + lanes[1] + lanes[2] + lanes[3] + sumWords(p + i, n - i);
}

constexpr int kChains = 12;  // independent accumulators: enough to cover the latency

// The chains must be unrolled into registers: left as a loop over the
// array, GCC keeps the accumulators in memory, one load-FMA-store per
// instruction, and the "peak" measured 104 GFLOP/s on a machine whose two
// cores do 310-340 (two 512-bit FMAs per cycle each).
#define LINNET_UNROLL_CHAINS _Pragma("GCC unroll 16")

// The accumulators' lanes summed: the result keeps the loops from being
// dropped.
__attribute__((target("avx512f"))) double sumChains(const __m512 (&acc)[kChains]) {
  __m512 total = acc[0];
  for (int k = 1; k < kChains; ++k) total = _mm512_add_ps(total, acc[k]);
  alignas(64) float lanes[16];
  _mm512_store_ps(lanes, total);
  double sum = 0;
  for (float lane : lanes) sum += lane;
  return sum;
}

__attribute__((target("avx512f,avx512bf16"))) double dpbf16Loop(long iterations) {
  __m512 acc[kChains];
  for (int k = 0; k < kChains; ++k) acc[k] = _mm512_setzero_ps();
  __m512bh a = (__m512bh)_mm512_set1_epi16(0x3f80);  // bf16 1.0
  __m512bh b = (__m512bh)_mm512_set1_epi16(0x3c00);  // bf16 2^-7: sums stay exact for a long time
  for (long i = 0; i < iterations; ++i) {
    LINNET_UNROLL_CHAINS
    for (int k = 0; k < kChains; ++k) acc[k] = _mm512_dpbf16_ps(acc[k], a, b);
  }
  return sumChains(acc);
}

__attribute__((target("avx512f"))) double fma512Loop(long iterations) {
  __m512 acc[kChains];
  for (int k = 0; k < kChains; ++k) acc[k] = _mm512_setzero_ps();
  __m512 a = _mm512_set1_ps(1.0f), b = _mm512_set1_ps(1e-7f);
  for (long i = 0; i < iterations; ++i) {
    LINNET_UNROLL_CHAINS
    for (int k = 0; k < kChains; ++k) acc[k] = _mm512_fmadd_ps(a, b, acc[k]);
  }
  return sumChains(acc);
}

__attribute__((target("avx2,fma"))) double fmaLoop(long iterations) {
  __m256 acc[kChains];
  for (int k = 0; k < kChains; ++k) acc[k] = _mm256_setzero_ps();
  __m256 a = _mm256_set1_ps(1.0f), b = _mm256_set1_ps(1e-7f);
  for (long i = 0; i < iterations; ++i) {
    LINNET_UNROLL_CHAINS
    for (int k = 0; k < kChains; ++k) acc[k] = _mm256_fmadd_ps(a, b, acc[k]);
  }
  __m256 total = acc[0];
  for (int k = 1; k < kChains; ++k) total = _mm256_add_ps(total, acc[k]);
  alignas(32) float lanes[8];
  _mm256_store_ps(lanes, total);
  double sum = 0;
  for (float lane : lanes) sum += lane;
  return sum;
}

}  // namespace

int computeThreads() {
  if (const char* env = std::getenv("OMP_NUM_THREADS")) {
    int n = std::atoi(env);
    if (n > 0) return n;
  }
  return std::max(1u, std::thread::hardware_concurrency());
}

ReadBandwidth measureReadBandwidth(int threads, std::size_t bufferBytes, int passes) {
  threads = std::max(threads, 1);
  std::size_t words = bufferBytes / sizeof(std::uint64_t);
  std::unique_ptr<std::uint64_t[]> buffer(new std::uint64_t[words]);
  // Touch every page (and give the words values) before timing.
  timeParallel(threads, [&](int t) {
    std::size_t begin = words * t / threads, end = words * (t + 1) / threads;
    for (std::size_t i = begin; i < end; ++i) buffer[i] = i;
  });
  __builtin_cpu_init();
  bool avx2 = __builtin_cpu_supports("avx2");
  std::vector<std::uint64_t> sinks(threads);
  double best = 0;
  for (int pass = 0; pass < passes; ++pass) {
    double seconds = timeParallel(threads, [&](int t) {
      std::size_t begin = words * t / threads, end = words * (t + 1) / threads;
      sinks[t] += avx2 ? sumWordsAvx2(buffer.get() + begin, end - begin) : sumWords(buffer.get() + begin, end - begin);
    });
    best = std::max(best, double(words * sizeof(std::uint64_t)) / seconds);
  }
  volatile std::uint64_t keep = 0;
  for (std::uint64_t s : sinks) keep = keep + s;
  return ReadBandwidth{best, words * sizeof(std::uint64_t), threads};
}

ComputePeak measureBf16Peak(int threads) {
  threads = std::max(threads, 1);
  __builtin_cpu_init();
  // The widest multiply-add a bf16 matrix product can use: vdpbf16ps with
  // AVX-512 BF16; without it, bf16 is widened and multiplied in f32, so the
  // f32 FMA peak (512-bit with AVX-512F, else 256-bit) is the bound.
  // FLOPs per instruction: vdpbf16ps on 16 f32 lanes does 2 products and 2
  // additions per lane; an FMA does 1 product and 1 addition per lane.
  enum class Kind { Bf16, Fma512, Fma256, None } kind = Kind::None;
  if (__builtin_cpu_supports("avx512bf16") && __builtin_cpu_supports("avx512f")) kind = Kind::Bf16;
  else if (__builtin_cpu_supports("avx512f")) kind = Kind::Fma512;
  else if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) kind = Kind::Fma256;
  ComputePeak peak;
  peak.threads = threads;
  if (kind == Kind::None) {
    peak.instruction = "none measured (no AVX-512 or AVX2 FMA)";
    return peak;
  }
  double flopsPerInstruction = kind == Kind::Bf16 ? 64 : kind == Kind::Fma512 ? 32 : 16;
  peak.instruction = kind == Kind::Bf16     ? "vdpbf16ps (AVX-512 BF16)"
                     : kind == Kind::Fma512 ? "vfmadd231ps zmm (AVX-512F, f32: no AVX-512 BF16)"
                                            : "vfmadd231ps ymm (AVX2 FMA, f32: no AVX-512)";
  // About 0.2 s a pass at a few GHz: long enough that thread start-up and
  // the cores' climb to their vector clock do not count (20M instructions,
  // a few ms, measured 54-86 GFLOP/s on one machine from run to run).
  const long iterations = 1'000'000'000 / kChains;
  std::vector<double> sinks(threads);
  for (int pass = 0; pass < 3; ++pass) {
    double seconds = timeParallel(threads, [&](int t) {
      sinks[t] += kind == Kind::Bf16 ? dpbf16Loop(iterations) : kind == Kind::Fma512 ? fma512Loop(iterations) : fmaLoop(iterations);
    });
    double flops = flopsPerInstruction * double(iterations) * kChains * threads;
    peak.flopsPerSecond = std::max(peak.flopsPerSecond, flops / seconds);
  }
  volatile double keep = 0;
  for (double s : sinks) keep = keep + s;
  return peak;
}

}  // namespace linnet::rt
