// Case 8's C++ loop: the scalar body of the scan case (c = c * 0.999 + 1) as a compiled function
// called once per iteration through Function::call_into, 1e6 times: what a scan saves over a loop
// written in the host program. Built and run by bench/run.py; prints one JSON line with the
// median time of a million iterations (over 5 samples).
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <vector>

#include <symx/symx.hpp>

namespace sx = symx;

int main() {
  const long n = 1000000;
  sx::Tensor c = sx::placeholder(sx::Shape{}, sx::f32, "c");
  sx::Function step = sx::function({c}, {c * 0.999f + 1.0f});
  std::vector<sx::Array> in{sx::Array::scalar(0.0f)};
  std::vector<sx::Array> out{sx::Array::zeros(sx::Shape{}, sx::f32)};
  step.call_into(in, out);  // compiles
  std::vector<double> seconds;
  float result = 0;
  for (int s = 0; s < 5; ++s) {
    in[0] = sx::Array::scalar(0.0f);
    auto t0 = std::chrono::steady_clock::now();
    for (long i = 0; i < n; ++i) {
      step.call_into(in, out);
      std::swap(in[0], out[0]);
    }
    seconds.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
    result = in[0].item<float>();
  }
  std::sort(seconds.begin(), seconds.end());
  std::printf("{\"median_s\": %.6g, \"min_s\": %.6g, \"iterations\": %ld, \"result\": %.6g}\n", seconds[2], seconds[0],
              n, static_cast<double>(result));
  return 0;
}
