// The README's training quick start in C++: a model of your own trained with symx::train::fit on
// the real digits bundled in data/mnist, with validation, early stopping, metrics, curves and
// checkpoints. Run from the repository root: build/bin/train_digits [data/mnist] [run folder].
#include <cstdio>
#include <memory>
#include <string>

#include <symx/train.hpp>

namespace sx = symx;
namespace L = symx::nn::layers;

int main(int argc, char** argv) {
  std::string data_dir = argc > 1 ? argv[1] : "data/mnist";
  std::string run_dir = argc > 2 ? argv[2] : "runs/digits-mlp";
  sx::data::Dataset digits = sx::data::load_mnist(data_dir);  // x (8000, 1, 28, 28) uint8, y (8000,) int64
  auto [train, validation] = sx::data::train_test_split(digits, /*test_size=*/1000, /*seed=*/0);

  L::Sequential net({std::make_shared<L::Flatten>(), std::make_shared<L::Dense>(128),
                     std::make_shared<L::Activation>("relu"), std::make_shared<L::Dense>(10)});
  auto model = [&](const sx::Tensor& x, bool training) { return net(x / 255.0f, training); };  // x: float32 batches
  sx::optim::Adam adam(1e-3);
  sx::train::History history = sx::train::fit(
      model, sx::train::softmax_cross_entropy, adam, train, validation,
      {.epochs = 5, .batch_size = 64, .seed = 0, .out_dir = run_dir},  // metrics.jsonl, curves.png, checkpoints
      {std::make_shared<sx::train::EarlyStopping>("val_loss", /*patience=*/2)});
  std::printf("%zu epochs, validation accuracy %.3f; curves in %s/curves.png\n", history.size(),
              history.back().val_accuracy, run_dir.c_str());
}
