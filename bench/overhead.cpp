// Per-call overhead of a compiled symx function adding two float32 scalars, called from C++
// through Function::call_into with preallocated inputs and outputs (the steady state: no
// allocation, no compile). Built and run by bench/run.py; prints one JSON line.
//   overhead [calls]   (default 1e6, split in 25 samples; the median sample mean is reported)
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include <symx/symx.hpp>

namespace sx = symx;

int main(int argc, char** argv) {
  const long calls = argc > 1 ? std::atol(argv[1]) : 1000000;
  const int samples = 25;
  const long per = std::max(1L, calls / samples);
  sx::Tensor a = sx::placeholder(sx::Shape{}, sx::f32, "a");
  sx::Tensor b = sx::placeholder(sx::Shape{}, sx::f32, "b");
  sx::Function f = sx::function({a, b}, {a + b});
  std::vector<sx::Array> in{sx::Array::scalar(1.5f), sx::Array::scalar(2.25f)};
  std::vector<sx::Array> out{sx::Array::zeros(sx::Shape{}, sx::f32)};
  auto c0 = std::chrono::steady_clock::now();
  f.call_into(in, out);  // first call: compiles (or loads from the disk cache)
  const double first_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - c0).count();
  for (long i = 0; i < std::min(per, 10000L); ++i) f.call_into(in, out);
  std::vector<double> ns;
  for (int s = 0; s < samples; ++s) {
    auto t0 = std::chrono::steady_clock::now();
    for (long i = 0; i < per; ++i) f.call_into(in, out);
    auto t1 = std::chrono::steady_clock::now();
    ns.push_back(std::chrono::duration<double, std::nano>(t1 - t0).count() / per);
  }
  std::vector<double> sorted = ns;
  std::sort(sorted.begin(), sorted.end());
  std::printf(
      "{\"median_ns\": %.4g, \"min_ns\": %.4g, \"calls\": %ld, \"first_call_s\": %.6g, "
      "\"compile_count\": %lld, \"result\": %.6g, \"backend\": \"%s\"}\n",
      sorted[sorted.size() / 2], sorted[0], per * samples, first_s, static_cast<long long>(f.compile_count()),
      out[0].item<double>(), f.backend() == sx::Backend::compiled ? "compiled" : "reference");
  return 0;
}
