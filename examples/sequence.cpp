// A sequence model trained with symx::train::fit: an LSTM reads each digit of data/mnist row by row
// (28 steps of 28 pixels, "sequential MNIST") and a Dense layer classifies its last output.
// Run from the repository root: build/bin/sequence [data/mnist] [run folder]
#include <cstdio>
#include <memory>
#include <string>

#include <symx/train.hpp>

namespace sx = symx;
namespace L = symx::nn::layers;

int main(int argc, char** argv) {
  std::string data_dir = argc > 1 ? argv[1] : "data/mnist";
  std::string run_dir = argc > 2 ? argv[2] : "runs/digits-lstm";
  sx::data::Dataset digits = sx::data::load_mnist(data_dir);  // x (8000, 1, 28, 28) uint8, y (8000,) int64
  auto [train, validation] = sx::data::train_test_split(digits, /*test_size=*/1000, /*seed=*/0);

  L::Sequential net({
      std::make_shared<L::Reshape>(sx::Shape{28, 28}),                                // (N, T=28 rows, F=28 pixels)
      std::make_shared<L::LSTM>(64, L::RecurrentOptions{.return_sequences = false}),  // last output (N, 64)
      std::make_shared<L::Dense>(10),
  });
  auto model = [&](const sx::Tensor& x, bool training) { return net(x / 255.0f, training); };  // x: float32 batches
  sx::optim::Adam adam(2e-3, {.clipping = {.clip_norm = 1.0}});
  sx::train::History history = sx::train::fit(model, sx::train::softmax_cross_entropy, adam, train, validation,
                                              {.epochs = 3, .batch_size = 64, .seed = 0, .out_dir = run_dir});
  std::printf("%zu epochs, validation accuracy %.3f; curves in %s/curves.png\n", history.size(),
              history.back().val_accuracy, run_dir.c_str());
}
