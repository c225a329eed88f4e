// The models of the `symx` tool: the SymJAX paper's CIFAR-10 network ("paper-cnn"), a small
// perceptron ("mlp") and recurrent classifiers of image rows ("lstm", "gru"), each with its training
// recipe.
#include <string>

#include "symx/train.hpp"

namespace symx::train::models {

namespace L = nn::layers;

Tensor scale_by_max(const Tensor& x) {
  std::vector<std::int64_t> axes;
  for (int a = 1; a < x.ndim(); ++a) axes.push_back(a);
  Tensor peak = max(x, Axes(axes), true);
  return x / where(greater(peak, 0), peak, 1);  // an all-zero example is divided by 1
}

namespace {
std::shared_ptr<L::Layer> scale_layer() {
  return std::make_shared<L::Activation>(std::function<Tensor(const Tensor&)>(scale_by_max), "scale_by_max");
}
}  // namespace

std::shared_ptr<L::Layer> paper_cnn(const Shape& image_shape, std::int64_t classes, bool sync_batch_norm) {
  if (image_shape.size() != 3 || image_shape[1] < 10 || image_shape[2] < 10)
    throw ValueError("paper-cnn: images of shape " + shape_string(image_shape) +
                     "; the network takes images (C, H, W) of at least 10 x 10 pixels, such as MNIST's (1, 28, 28) "
                     "or CIFAR's (3, 32, 32).");
  auto relu = [] { return std::make_shared<L::Activation>("relu"); };
  auto batch_norm = [&] { return std::make_shared<L::BatchNorm>(L::BatchNormOptions{.sync = sync_batch_norm}); };
  return std::make_shared<L::Sequential>(
      std::vector<std::shared_ptr<L::Layer>>{
          scale_layer(), std::make_shared<L::RandomCrop>(std::vector<std::int64_t>{image_shape[1], image_shape[2]}, 4),
          std::make_shared<L::Conv2D>(32, 3), batch_norm(), relu(), std::make_shared<L::MaxPool2D>(2),
          std::make_shared<L::Conv2D>(64, 3), batch_norm(), relu(), std::make_shared<L::MaxPool2D>(2),
          std::make_shared<L::Flatten>(), std::make_shared<L::Dense>(128), batch_norm(), relu(),
          std::make_shared<L::Dense>(classes)},
      "paper_cnn");
}

std::shared_ptr<L::Layer> mlp(std::int64_t classes) {
  return std::make_shared<L::Sequential>(std::vector<std::shared_ptr<L::Layer>>{scale_layer(),
                                                                                std::make_shared<L::Flatten>(),
                                                                                std::make_shared<L::Dense>(256),
                                                                                std::make_shared<L::Activation>("relu"),
                                                                                std::make_shared<L::Dense>(classes)},
                                         "mlp");
}

std::shared_ptr<L::Layer> sequence_classifier(const std::string& cell, const Shape& image_shape, std::int64_t classes,
                                              std::int64_t hidden) {
  if (image_shape.size() != 3)
    throw ValueError(cell + ": images of shape " + shape_string(image_shape) +
                     "; the network takes images (C, H, W), read as H steps of C * W values.");
  const std::int64_t rows = image_shape[1], row_size = image_shape[0] * image_shape[2];
  // (N, C, H, W) -> (N, H, C, W) -> (N, H, C * W): one step per row, every channel of the row.
  auto to_rows = std::make_shared<L::Activation>(std::function<Tensor(const Tensor&)>([](const Tensor& x) {
                                                   return transpose(x, {0, 2, 1, 3});
                                                 }),
                                                 "rows");
  L::RecurrentOptions options{.return_sequences = false};
  std::shared_ptr<L::Layer> recurrent;
  if (cell == "lstm") recurrent = std::make_shared<L::LSTM>(hidden, options);
  else if (cell == "gru") recurrent = std::make_shared<L::GRU>(hidden, options);
  else throw ValueError("sequence_classifier: cell '" + cell + "' is unknown. Use \"lstm\" or \"gru\".");
  std::vector<std::shared_ptr<L::Layer>> layers = {scale_layer()};
  if (image_shape[0] != 1) layers.push_back(to_rows);
  layers.push_back(std::make_shared<L::Reshape>(Shape{rows, row_size}));
  layers.push_back(recurrent);
  layers.push_back(std::make_shared<L::Dense>(classes));
  return std::make_shared<L::Sequential>(std::move(layers), cell + "_classifier");
}

std::vector<std::string> model_names() { return {"mlp", "paper-cnn", "lstm", "gru"}; }

Model make_model(const std::string& name, const Shape& image_shape, std::int64_t classes, std::int64_t steps_per_epoch,
                 bool sync_batch_norm) {
  if (steps_per_epoch < 1) steps_per_epoch = 1;
  if (name == "paper-cnn") {
    // Adam at 0.005, dropping to 0.001 at epoch 50 and 0.0005 at epoch 75 (the paper's recipe).
    auto schedule =
        optim::schedules::piecewise_constant({50 * steps_per_epoch, 75 * steps_per_epoch}, {0.005, 0.001, 0.0005});
    return {name, paper_cnn(image_shape, classes, sync_batch_norm), std::make_shared<optim::Adam>(schedule), 32};
  }
  if (name == "mlp") return {name, mlp(classes), std::make_shared<optim::Adam>(1e-3), 32};
  if (name == "lstm" || name == "gru") {
    // Adam at 0.002 on batches of 64 with gradients clipped to norm 1 (against the rare large
    // gradients of backpropagation through time).
    auto adam = std::make_shared<optim::Adam>(2e-3, optim::AdamOptions{.clipping = {.clip_norm = 1.0}});
    return {name, sequence_classifier(name, image_shape, classes), adam, 64};
  }
  std::string known;
  for (const auto& n : model_names()) known += (known.empty() ? "" : ", ") + n;
  throw ValueError("unknown model '" + name + "'. The known models are: " + known + ".");
}

}  // namespace symx::train::models
