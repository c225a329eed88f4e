// The MLP training step of bench case 3 (784-512-512-10, relu, softmax cross-entropy, SGD, batch
// 256, float32) from C++: a program linked with libsymx.a gets symx's OpenMP defaults like any
// other. Built and run by bench/busy.py; prints one JSON line with the median step time.
//   busy_step [seconds]   (default 3: timed steps after 5 warm-up steps, at least 20)
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <vector>

#include <symx/symx.hpp>

namespace sx = symx;

namespace {

sx::Array normal(sx::Shape shape, double stddev, std::mt19937& rng) {
  std::normal_distribution<float> draw(0.0f, static_cast<float>(stddev));
  std::int64_t n = 1;
  for (auto d : shape) n *= d;
  std::vector<float> values(static_cast<std::size_t>(n));
  for (auto& v : values) v = draw(rng);
  return sx::Array::from_vector<float>(values, shape);
}

}  // namespace

int main(int argc, char** argv) {
  const double seconds = argc > 1 ? std::atof(argv[1]) : 3.0;
  const std::int64_t batch = 256;
  const std::vector<std::int64_t> sizes{784, 512, 512, 10};
  std::mt19937 rng(3);
  sx::Tensor x = sx::placeholder({batch, sizes[0]}, sx::f32, "x");
  sx::Tensor y = sx::placeholder({batch, sizes[3]}, sx::f32, "y");
  std::vector<sx::Tensor> params;
  sx::Tensor h = x;
  for (std::size_t i = 0; i + 1 < sizes.size(); ++i) {
    sx::Tensor w = sx::variable(normal({sizes[i], sizes[i + 1]}, std::sqrt(2.0 / sizes[i]), rng));
    sx::Tensor b = sx::variable(sx::Array::zeros({sizes[i + 1]}));
    params.insert(params.end(), {w, b});
    h = sx::matmul(h, w) + b;
    if (i + 2 < sizes.size()) h = sx::nn::relu(h);
  }
  sx::Tensor loss = sx::mean(sx::nn::softmax_cross_entropy(h, y));
  std::vector<sx::Tensor> grads = sx::grad(loss, params);
  sx::Updates updates;
  for (std::size_t i = 0; i < params.size(); ++i) updates.emplace_back(params[i], params[i] - 0.01 * grads[i]);
  sx::Function step = sx::function({x, y}, {loss}, updates);

  std::vector<float> labels(static_cast<std::size_t>(batch * sizes[3]), 0.0f);
  for (std::int64_t i = 0; i < batch; ++i) labels[static_cast<std::size_t>(i * sizes[3] + (i * 7) % sizes[3])] = 1;
  std::vector<sx::Array> in{normal({batch, sizes[0]}, 1.0, rng), sx::Array::from_vector<float>(labels, {batch, 10})};
  std::vector<sx::Array> out{sx::Array::zeros({})};
  for (int i = 0; i < 5; ++i) step.call_into(in, out);  // the first compiles (or loads from the cache)

  std::vector<double> times;
  const auto start = std::chrono::steady_clock::now();
  while (times.size() < 20 ||
         std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() < seconds) {
    auto t0 = std::chrono::steady_clock::now();
    step.call_into(in, out);
    times.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  }
  double total = 0;
  for (double t : times) total += t;
  std::sort(times.begin(), times.end());
  const char* policy = std::getenv("OMP_WAIT_POLICY");
  const char* spins = std::getenv("GOMP_SPINCOUNT");
  std::printf(
      "{\"median_s\": %.6g, \"mean_s\": %.6g, \"reps\": %zu, \"loss\": %.6g, \"omp_wait_policy\": \"%s\", "
      "\"gomp_spincount\": \"%s\"}\n",
      times[times.size() / 2], total / static_cast<double>(times.size()), times.size(), out[0].item<double>(),
      policy ? policy : "", spins ? spins : "");
  return 0;
}
