// The README's toolkit quick start in C++: a small classifier with layers, a loss, Adam and a
// schedule, trained on batches of 64 whose last one is smaller (the batch size is kDynamic).
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <memory>
#include <numeric>
#include <random>
#include <vector>

#include <symx/toolkit.hpp>

namespace sx = symx;
namespace L = symx::nn::layers;
namespace schedules = symx::optim::schedules;

int main() {
  const std::int64_t n = 1000;
  std::mt19937 gen(0);
  std::normal_distribution<float> normal;
  sx::Array data(sx::Shape{n, 2}, sx::f32), labels(sx::Shape{n}, sx::i64);
  for (std::int64_t i = 0; i < n; ++i) {
    float a = normal(gen), b = normal(gen);
    data.set_flat(2 * i, a);
    data.set_flat(2 * i + 1, b);
    labels.set_flat(i, std::hypot(a, b) > 1.2f ? 1 : 0);  // inside or outside a circle
  }

  L::Sequential net({std::make_shared<L::Dense>(32), std::make_shared<L::BatchNorm>(),
                     std::make_shared<L::Activation>("relu"), std::make_shared<L::Dropout>(0.1),
                     std::make_shared<L::Dense>(2)});
  auto x = sx::placeholder({sx::kDynamic, 2}, sx::f32, "x");
  auto y = sx::placeholder({sx::kDynamic}, sx::i64, "y");
  auto loss = sx::nn::losses::softmax_cross_entropy_loss(net(x, true), y);  // integer labels, mean over the batch
  sx::optim::Adam(schedules::linear_warmup(schedules::cosine_decay(0.05, 150), 10)).minimize(loss);
  auto train = sx::function({x, y}, {loss}, sx::get_updates());  // Adam's and batch norm's updates
  auto accuracy = sx::nn::losses::accuracy(net(x, false), y);
  auto evaluate = sx::function({x, y}, {accuracy});

  std::vector<std::int64_t> order(static_cast<std::size_t>(n));
  std::iota(order.begin(), order.end(), 0);
  for (int epoch = 0; epoch < 10; ++epoch) {
    std::shuffle(order.begin(), order.end(), gen);
    double total = 0;
    int batches = 0;
    for (std::int64_t start = 0; start < n; start += 64, ++batches) {
      std::int64_t size = std::min<std::int64_t>(64, n - start);  // the last batch has 40
      sx::Array xb(sx::Shape{size, 2}, sx::f32), yb(sx::Shape{size}, sx::i64);
      for (std::int64_t i = 0; i < size; ++i) {
        std::int64_t k = order[static_cast<std::size_t>(start + i)];
        xb.set_flat(2 * i, data.get_flat(2 * k));
        xb.set_flat(2 * i + 1, data.get_flat(2 * k + 1));
        yb.set_flat(i, labels.get_flat(k));
      }
      total += train({xb, yb})[0].item<double>();
    }
    std::printf("epoch %d: loss %.4f, accuracy %.3f\n", epoch, total / batches,
                evaluate({data, labels})[0].item<double>());
  }
}
