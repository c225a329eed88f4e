// STREAM-style triad for the elementwise benchmark's bandwidth limit: out[i] = x[i]*a[i] + b[i]
// over n float32 (three arrays read, one written: the bytes the ideal fused kernel of case 1
// moves). Compiled by bench/run.py with g++ -O3 -march=native -fopenmp; threads from
// OMP_NUM_THREADS. Prints one JSON line with the median and best time and bandwidth.
#include <omp.h>
#include <sys/mman.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <vector>

int main(int argc, char** argv) {
  const long n = argc > 1 ? std::atol(argv[1]) : 16L * 1024 * 1024;
  const int reps = argc > 2 ? std::atoi(argv[2]) : 30;
  // On transparent huge pages, as symx's own large buffers are (src/core/memory.hpp), so the
  // limit is the machine's best streaming bandwidth.
  auto alloc = [n] {
    const std::size_t huge = std::size_t{2} << 20, bytes = (sizeof(float) * n + huge - 1) / huge * huge;
    void* p = std::aligned_alloc(huge, bytes);
    if (p) ::madvise(p, bytes, MADV_HUGEPAGE);
    return static_cast<float*>(p);
  };
  float *x = alloc(), *a = alloc(), *b = alloc(), *out = alloc();
#pragma omp parallel for schedule(static)
  for (long i = 0; i < n; ++i) {  // first touch by the threads that will use the pages
    x[i] = 1.0f + (i % 7) * 0.1f;
    a[i] = 0.5f + (i % 5) * 0.1f;
    b[i] = (i % 3) * 0.1f;
    out[i] = 0.0f;
  }
  std::vector<double> t;
  for (int r = 0; r < reps + 2; ++r) {
    auto t0 = std::chrono::steady_clock::now();
#pragma omp parallel for simd schedule(static)
    for (long i = 0; i < n; ++i) out[i] = x[i] * a[i] + b[i];
    auto t1 = std::chrono::steady_clock::now();
    if (r >= 2) t.push_back(std::chrono::duration<double>(t1 - t0).count());
    x[r % n] += 1e-7f;  // keep every repetition live
  }
  double check = 0;
  for (long i = 0; i < n; i += 4096) check += out[i];
  std::sort(t.begin(), t.end());
  const double bytes = 4.0 * sizeof(float) * n;
  const double med = t[t.size() / 2], best = t[0];
  std::printf(
      "{\"n\": %ld, \"threads\": %d, \"bytes\": %.0f, \"median_s\": %.9g, \"min_s\": %.9g, "
      "\"median_gbps\": %.4g, \"best_gbps\": %.4g, \"check\": %.6g}\n",
      n, omp_get_max_threads(), bytes, med, best, bytes / med / 1e9, bytes / best / 1e9, check);
  std::free(x);
  std::free(a);
  std::free(b);
  std::free(out);
  return 0;
}
