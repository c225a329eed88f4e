// symx/nn/layers.hpp: layers, the objects that own a model's variables and apply them.
//
// A layer creates its variables at its first application, from the input's shape, inside a name
// scope of its own ("dense/w", "dense/b"; a second Dense gets "dense_1/..."); applying it again
// shares them. The mode is chosen per application: layer(x, true) builds the training graph
// (dropout drops, batch norm uses the batch's statistics and adds its running-statistics updates to
// the graph's update collection, see add_updates) and layer(x, false) the evaluation graph, over the
// same variables.
//
// Layouts: features last for Dense ((N, ..., F)); channels first for convolutions and images
// ((N, C, W) for Conv1D, (N, C, H, W) for the 2-D layers), as nn::conv2d takes them. Variable shapes
// come from the known (non-batch) axes only: a layer never reads the batch size, so one layer serves
// every batch size. Variables take the input's float dtype (float32 unless the input is float64).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "symx/nn/init.hpp"
#include "symx/symx.hpp"

namespace symx::nn::layers {

// The base of every layer: names its variables, builds them at the first application and applies
// the layer. Subclasses implement build (make the variables from the input) and forward.
// Example: y = layer(x, training=True)
class Layer {
 public:
  explicit Layer(std::string name);
  virtual ~Layer() = default;
  Layer(const Layer&) = delete;
  Layer& operator=(const Layer&) = delete;

  // Applies the layer to `x`: builds its variables at the first call (from x's non-batch axes),
  // then returns the output tensor. `training` selects the training graph (dropout, random
  // augmentation, batch statistics and their updates) or the evaluation graph (false, the default).
  // An input that does not fit the variables built at the first call is a ShapeError naming the layer.
  // Example: logits = dense(x, training=True)
  Tensor operator()(const Tensor& x, bool training = false, Loc loc = Loc::current());
  // The layer's variables in creation order (empty before the first application); only the trainable
  // (true) or non-trainable (false) ones when `trainable` is given.
  // Example: dense.variables() is [dense/w, dense/b]
  virtual std::vector<Tensor> variables(std::optional<bool> trainable = std::nullopt) const;
  // The layer's scoped name once built ("dense_1"), before that the name it was given.
  // Example: Dense(10).name is "dense"
  const std::string& name() const { return name_; }
  // Whether the layer has been applied (and made its variables).
  // Example: Dense(10).built is False
  bool built() const { return built_; }

 protected:
  // Makes the variables from the first input (inside the layer's name scope). Default: none.
  virtual void build(const Tensor& x, Loc loc);
  virtual Tensor forward(const Tensor& x, bool training, Loc loc) = 0;
  // Builds the layer from `x` inside its name scope unless it is built: for an application other
  // than operator() (Recurrent::call), which then applies the layer itself.
  void ensure_built(const Tensor& x, Loc loc);
  // A variable of the layer, named "<layer>/<name>".
  Tensor add_variable(const std::string& name, const Initializer& init, Shape shape, DType dtype, bool trainable,
                      Loc loc);
  // "nn.layers.Dense 'dense_1'": how errors name the layer.
  std::string describe() const;
  // Throws ShapeError "<layer>: <problem> (input <x> of shape S). <fix>".
  [[noreturn]] void fail_shape(const Tensor& x, const std::string& problem, const std::string& fix) const;
  // Requires x to have `rank` axes (`layout` names them in the message, e.g. "(N, C, H, W)").
  void check_rank(const Tensor& x, int rank, const char* layout) const;
  // Requires x.shape[axis] to be the size seen at the first application.
  void check_features(const Tensor& x, int axis, std::int64_t expected, const char* what) const;
  // Checks that x has `rank` axes (`layout`, channels on axis 1) whose channels divide into
  // `groups`, and returns the channel count: the first step of every convolution's build.
  std::int64_t grouped_channels(const Tensor& x, int rank, const char* layout, std::int64_t groups) const;
  std::string kind_;  // the class name, for messages

 private:
  std::string name_;
  bool built_ = false;
  std::vector<Tensor> variables_;
};

// Applies layers in order, each to the previous one's output, in the same mode; its variables are
// its layers' variables. Layers are shared: a layer in two Sequentials has one set of variables.
// Example: net = Sequential([Dense(100), Activation("relu"), Dense(10)]); logits = net(x, training=True)
class Sequential : public Layer {
 public:
  explicit Sequential(std::vector<std::shared_ptr<Layer>> layers, std::string name = "sequential");
  std::vector<Tensor> variables(std::optional<bool> trainable = std::nullopt) const override;
  // The layers, in order.
  // Example: net.layers[0] is the first layer
  const std::vector<std::shared_ptr<Layer>>& layers() const { return layers_; }

 protected:
  Tensor forward(const Tensor& x, bool training, Loc loc) override;

 private:
  std::vector<std::shared_ptr<Layer>> layers_;
};

// Options of Dense.
struct DenseOptions {
  bool use_bias = true;
  Initializer w_init = init::glorot_uniform();
  Initializer b_init = init::zeros();
  std::string name = "dense";
};

// A fully connected layer: x @ w + b on the last axis, as PyTorch's Linear (whose weight is w's
// transpose). x: (N, ..., in) float; w: (in, units), glorot_uniform by default; b: (units,), zeros.
// Returns (N, ..., units). Options: use_bias, w_init, b_init, name.
// C++ passes the options in DenseOptions (Dense(10, {.use_bias = false})); Python as keywords.
// Example: Dense(10, w_init=nn.init.he_normal())(placeholder((32, 784))) has shape (32, 10)
class Dense : public Layer {
 public:
  explicit Dense(std::int64_t units, DenseOptions options = {});

 protected:
  void build(const Tensor& x, Loc loc) override;
  Tensor forward(const Tensor& x, bool training, Loc loc) override;

 private:
  std::int64_t units_;
  DenseOptions options_;
  std::int64_t in_features_ = 0;
  Tensor w_, b_;
};

// Options of Conv1D and Conv2D (a single stride or dilation applies to every spatial axis).
struct ConvOptions {
  std::vector<std::int64_t> strides = {1};
  Padding padding = "VALID";
  std::vector<std::int64_t> dilation = {1};
  std::int64_t groups = 1;
  bool use_bias = true;
  Initializer w_init = init::glorot_uniform();
  Initializer b_init = init::zeros();
  std::string name = "";  // default "conv1d" / "conv2d"
};

// 1-D convolution (cross-correlation), as PyTorch's Conv1d. x: (N, C, W) float; w: (filters,
// C / groups, kernel_size); b: (filters,). padding: "VALID", "SAME", [(low, high)] or one int.
// Returns (N, filters, W_out).
// C++ passes stride, padding, dilation, groups, use_bias, w_init, b_init and name in ConvOptions
// (Conv1D(16, 5, {.padding = "SAME"})); Python as keywords (stride, not strides).
// Example: Conv1D(16, 5, padding="SAME")(placeholder((8, 3, 100))) has shape (8, 16, 100)
class Conv1D : public Layer {
 public:
  Conv1D(std::int64_t filters, std::int64_t kernel_size, ConvOptions options = {});

 protected:
  void build(const Tensor& x, Loc loc) override;
  Tensor forward(const Tensor& x, bool training, Loc loc) override;

 private:
  std::int64_t filters_, kernel_size_;
  ConvOptions options_;
  std::int64_t channels_ = 0;
  Tensor w_, b_;
};

// 2-D convolution (cross-correlation), as PyTorch's Conv2d. x: (N, C, H, W) float; w: (filters,
// C / groups, KH, KW) (OIHW); b: (filters,). kernel_size: one int or (KH, KW); strides, dilation: one
// int or one per axis; padding: "VALID", "SAME", ((low, high), (low, high)) or one int for every side;
// groups divides C and filters. Returns (N, filters, H_out, W_out).
// C++ passes the other arguments in ConvOptions (Conv2D(16, {3}, {.padding = 1})); Python as keywords.
// Example: Conv2D(16, 3, padding=1)(placeholder((8, 3, 32, 32))) has shape (8, 16, 32, 32)
class Conv2D : public Layer {
 public:
  Conv2D(std::int64_t filters, std::vector<std::int64_t> kernel_size, ConvOptions options = {});
  Conv2D(std::int64_t filters, std::int64_t kernel_size, ConvOptions options = {})
      : Conv2D(filters, std::vector<std::int64_t>{kernel_size}, std::move(options)) {}

 protected:
  void build(const Tensor& x, Loc loc) override;
  Tensor forward(const Tensor& x, bool training, Loc loc) override;

 private:
  std::int64_t filters_;
  std::vector<std::int64_t> kernel_size_;
  ConvOptions options_;
  std::int64_t channels_ = 0;
  Tensor w_, b_;
};

// Options of Conv2DTranspose.
struct ConvTransposeOptions {
  std::vector<std::int64_t> strides = {1};
  Padding padding = "VALID";
  std::vector<std::int64_t> output_padding = {0};
  std::vector<std::int64_t> dilation = {1};
  std::int64_t groups = 1;
  bool use_bias = true;
  Initializer w_init = init::glorot_uniform();
  Initializer b_init = init::zeros();
  std::string name = "conv2d_transpose";
};

// The transpose of Conv2D (a "deconvolution"), as PyTorch's ConvTranspose2d. x: (N, C, H, W) float;
// w: (C, filters / groups, KH, KW), PyTorch's layout; b: (filters,). Arguments as Conv2D, and
// output_padding adds rows and columns at the end. Returns (N, filters, H_out, W_out).
// C++ passes the other arguments in ConvTransposeOptions; Python as keywords.
// Example: Conv2DTranspose(3, 2, strides=2)(placeholder((1, 16, 8, 8))) has shape (1, 3, 16, 16)
class Conv2DTranspose : public Layer {
 public:
  Conv2DTranspose(std::int64_t filters, std::vector<std::int64_t> kernel_size, ConvTransposeOptions options = {});
  Conv2DTranspose(std::int64_t filters, std::int64_t kernel_size, ConvTransposeOptions options = {})
      : Conv2DTranspose(filters, std::vector<std::int64_t>{kernel_size}, std::move(options)) {}

 protected:
  void build(const Tensor& x, Loc loc) override;
  Tensor forward(const Tensor& x, bool training, Loc loc) override;

 private:
  std::int64_t filters_;
  std::vector<std::int64_t> kernel_size_;
  ConvTransposeOptions options_;
  std::int64_t channels_ = 0;
  Tensor w_, b_;
};

// Options of MaxPool2D and AvgPool2D: strides default to the window (empty).
struct PoolOptions {
  std::vector<std::int64_t> strides = {};
  Padding padding = "VALID";
  std::string name = "";  // default "max_pool2d" / "avg_pool2d"
};

// Maximum over windows of (H, W), as PyTorch's MaxPool2d. x: (N, C, H, W); window: one int or (h, w).
// strides (default: the window), padding and name: PoolOptions in C++, keywords in Python.
// Example: MaxPool2D(2)(placeholder((8, 16, 32, 32))) has shape (8, 16, 16, 16)
class MaxPool2D : public Layer {
 public:
  explicit MaxPool2D(std::vector<std::int64_t> window, PoolOptions options = {});
  explicit MaxPool2D(std::int64_t window, PoolOptions options = {})
      : MaxPool2D(std::vector<std::int64_t>{window}, std::move(options)) {}

 protected:
  Tensor forward(const Tensor& x, bool training, Loc loc) override;

 private:
  std::vector<std::int64_t> window_;
  PoolOptions options_;
};

// Mean over windows of (H, W), as PyTorch's AvgPool2d with count_include_pad=False (padding cells
// are not counted). x: (N, C, H, W); window: one int or (h, w).
// strides (default: the window), padding and name: PoolOptions in C++, keywords in Python.
// Example: AvgPool2D(2, strides=1, padding="SAME")(placeholder((8, 16, 32, 32))) has shape (8, 16, 32, 32)
class AvgPool2D : public Layer {
 public:
  explicit AvgPool2D(std::vector<std::int64_t> window, PoolOptions options = {});
  explicit AvgPool2D(std::int64_t window, PoolOptions options = {})
      : AvgPool2D(std::vector<std::int64_t>{window}, std::move(options)) {}

 protected:
  Tensor forward(const Tensor& x, bool training, Loc loc) override;

 private:
  std::vector<std::int64_t> window_;
  PoolOptions options_;
};

// The mean over H and W of (N, C, H, W): (N, C), or (N, C, 1, 1) with keepdims.
// Example: GlobalAvgPool2D()(placeholder((8, 16, 7, 7))) has shape (8, 16)
class GlobalAvgPool2D : public Layer {
 public:
  explicit GlobalAvgPool2D(bool keepdims = false, std::string name = "global_avg_pool2d");

 protected:
  Tensor forward(const Tensor& x, bool training, Loc loc) override;

 private:
  bool keepdims_;
};

// Flattens every axis but the batch axis: (N, d1, d2, ...) -> (N, d1 * d2 * ...).
// Example: Flatten()(placeholder((8, 16, 7, 7))) has shape (8, 784)
class Flatten : public Layer {
 public:
  explicit Flatten(std::string name = "flatten");

 protected:
  Tensor forward(const Tensor& x, bool training, Loc loc) override;
};

// Reshapes every axis but the batch axis to `shape` (one entry may be -1, inferred).
// Example: Reshape((1, 28, 28))(placeholder((8, 784))) has shape (8, 1, 28, 28)
class Reshape : public Layer {
 public:
  explicit Reshape(Shape shape, std::string name = "reshape");

 protected:
  Tensor forward(const Tensor& x, bool training, Loc loc) override;

 private:
  Shape shape_;
};

// Applies a function of one tensor: by name ("linear" (the identity), "relu", "relu6", "leaky_relu",
// "elu", "gelu", "softplus", "sigmoid", "tanh", "softmax", "log_softmax", "silu", "swish",
// "hard_tanh"; an unknown name is a ValueError), or any function of a tensor (Python: any callable).
// Example: Activation("relu")(x) is nn.relu(x)
class Activation : public Layer {
 public:
  explicit Activation(const std::string& function, std::string name = "");
  Activation(std::function<Tensor(const Tensor&)> function, std::string name = "activation");

 protected:
  Tensor forward(const Tensor& x, bool training, Loc loc) override;

 private:
  std::function<Tensor(const Tensor&, Loc)> function_;
};

// Inverted dropout: in training, each element is zeroed with probability `rate` and the others are
// scaled by 1 / (1 - rate), so the expectation is unchanged; the identity in evaluation. rate in [0, 1).
// Example: Dropout(0.5)(x, training=True)
class Dropout : public Layer {
 public:
  explicit Dropout(double rate, std::string name = "dropout");

 protected:
  Tensor forward(const Tensor& x, bool training, Loc loc) override;

 private:
  double rate_;
};

// Options of BatchNorm.
struct BatchNormOptions {
  int axis = 1;           // the feature axis: 1 for (N, C, ...) and (N, F); -1 for features last
  double momentum = 0.1;  // PyTorch's: running = (1 - momentum) * running + momentum * batch
  double eps = 1e-5;
  bool affine = true;  // learn a scale (gamma, ones) and an offset (beta, zeros)
  // In a distributed run, normalize by the statistics of the whole batch over every process
  // (PyTorch's SyncBatchNorm: two all-reduces forward, two backward); false: each process's own.
  bool sync = false;
  std::string name = "batch_norm";
};

// Batch normalization, as PyTorch's BatchNorm1d/2d. In training, x is normalized by the batch's mean
// and (biased) variance over every axis but the feature axis, and the update of the running statistics
// (running_mean, running_var: non-trainable, zeros and ones) is added to the graph's update collection:
// running = (1 - momentum) * running + momentum * batch, with the unbiased batch variance. In evaluation
// the running statistics normalize. y = (x - mean) / sqrt(var + eps) * gamma + beta. A second
// training-mode application in one graph is a ValueError (one update per variable; clear_updates()
// starts over).
// With sync, in a distributed run (symx/distributed.hpp) the mean and variance are those of the
// examples of every process together.
// Options (BatchNormOptions in C++, keywords in Python): axis, momentum, eps, affine, sync, name.
// Example: y = BatchNorm()(x, training=True); train = function([x], [loss], updates=get_updates())
class BatchNorm : public Layer {
 public:
  explicit BatchNorm(BatchNormOptions options = {});

 protected:
  void build(const Tensor& x, Loc loc) override;
  Tensor forward(const Tensor& x, bool training, Loc loc) override;

 private:
  BatchNormOptions options_;
  int axis_ = 1;
  std::int64_t features_ = 0;
  Tensor gamma_, beta_, running_mean_, running_var_;
};

// Layer normalization, as PyTorch's LayerNorm: each sample is normalized over `axes` (default the last;
// never the batch axis), then scaled by gamma and shifted by beta (of those axes' sizes) when affine.
// Example: LayerNorm()(placeholder((8, 10, 64))) normalizes each 64-vector
class LayerNorm : public Layer {
 public:
  explicit LayerNorm(std::vector<int> axes = {-1}, double eps = 1e-5, bool affine = true,
                     std::string name = "layer_norm");

 protected:
  void build(const Tensor& x, Loc loc) override;
  Tensor forward(const Tensor& x, bool training, Loc loc) override;

 private:
  std::vector<int> axes_;
  double eps_;
  bool affine_;
  Shape param_shape_;
  Tensor gamma_, beta_;
};

// A lookup table, as PyTorch's Embedding: integer indices of any shape S -> (S..., features) rows of
// w (num_embeddings, features), drawn from w_init (normal(0, 1) by default, PyTorch's).
// Example: Embedding(1000, 64)(placeholder((8, 20), int64)) has shape (8, 20, 64)
class Embedding : public Layer {
 public:
  Embedding(std::int64_t num_embeddings, std::int64_t features, Initializer w_init = init::normal(0, 1),
            DType dtype = DType::f32, std::string name = "embedding");

 protected:
  void build(const Tensor& x, Loc loc) override;
  Tensor forward(const Tensor& x, bool training, Loc loc) override;

 private:
  std::int64_t num_embeddings_, features_;
  Initializer w_init_;
  DType dtype_;
  Tensor w_;
};

// Options of RNN, GRU and LSTM.
struct RecurrentOptions {
  std::int64_t num_layers = 1;  // stacked layers, each reading the previous one's output sequence
  bool bidirectional = false;   // a second, reversed pass per layer; outputs join on the feature axis
  // Inputs (N, T, F) (true, the toolkit's batch-first convention, Keras's layout) or (T, N, F)
  // (false, PyTorch's default layout); the output follows. Initial and final states are
  // (layers * directions, N, H) either way, as in PyTorch.
  bool batch_first = true;
  double dropout = 0;            // in training, dropout on each layer's output but the last's, in [0, 1)
  bool use_bias = true;          // the biases bias_ih and bias_hh (PyTorch's bias)
  bool return_sequences = true;  // false: the layer's tensor is the last step's output (N, directions * H)
  // Empty: PyTorch's uniform(-1/sqrt(H), 1/sqrt(H)) for every weight and bias.
  Initializer w_init = {};
  Initializer b_init = {};
  std::string name = "";  // default "rnn" / "gru" / "lstm"
};

// What RNN, GRU and LSTM take besides the input sequence: initial states (zeros when undefined), each
// (layers * directions, N, H), ordered layer by layer with the reverse direction after the forward
// one, as PyTorch's h_0 and c_0 (c0: LSTM only), and the length of each sequence of the batch
// (`lengths`, an int tensor (N,), each in [0, T]) for a padded batch.
struct RecurrentInputs {
  Tensor h0{};
  Tensor c0{};
  Tensor lengths{};
};

// What RNN, GRU and LSTM compute (Recurrent::call): the last layer's outputs at every step, (N, T,
// directions * H) (time first without batch_first), or the last step's (N, directions * H) without
// return_sequences; the final states h_n and (LSTM) c_n, (layers * directions, N, H) as PyTorch's.
struct RecurrentOutputs {
  Tensor output;
  Tensor h_n;
  Tensor c_n;
};

// The base of RNN, GRU and LSTM, layers that carry a state along the time axis of (N, T, F) (a
// symx::scan per layer and direction, so the step is compiled once; its gradient is
// backpropagation through time). Variables, per layer k and direction ("_reverse" for the reverse
// one), as PyTorch names and lays them out: weight_ih_l{k} (gates * H, F), weight_hh_l{k} (gates *
// H, H), bias_ih_l{k} and bias_hh_l{k} (gates * H,), with the gates in PyTorch's order. Layer k > 0
// reads the previous layer's output (directions * H features). Applied as a layer (rnn(x,
// training)), it returns RecurrentOutputs::output; `call` also takes initial states and lengths and
// returns the final states. With `lengths`, a sequence's steps past its length leave its state
// unchanged and output zeros, as PyTorch's packed sequences (h_n is the state after its last step;
// the reverse direction starts at its last step).
// Example: out, h_n = GRU(64).call(x, lengths=lengths)
class Recurrent : public Layer {
 public:
  // Applies the layer to `x` (N, T, F) (or (T, N, F) without batch_first) with the initial states
  // and lengths of `inputs`. Python returns PyTorch's tuples: (output, h_n) for RNN and GRU,
  // (output, (h_n, c_n)) for LSTM.
  // Example: output, (h_n, c_n) = lstm.call(x, h0=h0, c0=c0, lengths=lengths, training=True)
  RecurrentOutputs call(const Tensor& x, const RecurrentInputs& inputs = {}, bool training = false,
                        Loc loc = Loc::current());
  // The number of features of the state (H).
  // Example: LSTM(128).hidden_size is 128
  std::int64_t hidden_size() const { return hidden_; }
  // The options the layer was made with.
  // Example: GRU(8, num_layers=2).options.num_layers is 2
  const RecurrentOptions& options() const { return options_; }

 protected:
  enum class Cell { tanh, relu, gru, lstm };
  Recurrent(Cell cell, std::int64_t hidden_size, RecurrentOptions options, const char* kind, const char* name);
  void build(const Tensor& x, Loc loc) override;
  Tensor forward(const Tensor& x, bool training, Loc loc) override;

 private:
  struct Weights {
    Tensor w_ih, w_hh, b_ih, b_hh;
  };
  int gates() const;
  RecurrentOutputs run(const Tensor& x, const RecurrentInputs& inputs, bool training, Loc loc);
  Cell cell_;
  std::int64_t hidden_;
  RecurrentOptions options_;
  std::int64_t features_ = 0;
  std::vector<Weights> weights_;  // layer by layer, the reverse direction after the forward one
};

// An Elman recurrent layer, as PyTorch's RNN: h_t = act(x_t @ weight_ih^T + bias_ih + h_{t-1} @
// weight_hh^T + bias_hh), act "tanh" or "relu" (`nonlinearity`). x: (N, T, F) float (batch_first,
// the default) or (T, N, F); output (N, T, directions * hidden_size). Options (RecurrentOptions in
// C++, keywords in Python): num_layers, bidirectional, batch_first, dropout, use_bias,
// return_sequences, w_init, b_init, name. Unlike PyTorch, the input size comes from the first input
// and batch_first is true by default (PyTorch: false).
// C++: RNN(16, "relu", {.num_layers = 2}); Python: RNN(16, nonlinearity="relu", num_layers=2).
// Example: RNN(16)(placeholder((8, 20, 3))) has shape (8, 20, 16)
class RNN : public Recurrent {
 public:
  explicit RNN(std::int64_t hidden_size, const std::string& nonlinearity = "tanh", RecurrentOptions options = {});
};

// A gated recurrent unit layer, as PyTorch's GRU (gates r, z, n in that order): r = sigmoid(x W_ir^T +
// b_ir + h W_hr^T + b_hr), z likewise, n = tanh(x W_in^T + b_in + r * (h W_hn^T + b_hn)), h' = (1 -
// z) * n + z * h. Shapes and options as RNN (three gates: weights of 3 * hidden_size rows).
// C++: GRU(64, {.bidirectional = true}); Python: GRU(64, bidirectional=True).
// Example: GRU(64, return_sequences=False)(placeholder((8, 28, 28))) has shape (8, 64)
class GRU : public Recurrent {
 public:
  explicit GRU(std::int64_t hidden_size, RecurrentOptions options = {});
};

// A long short-term memory layer, as PyTorch's LSTM (gates i, f, g, o in that order): c' =
// sigmoid(f) * c + sigmoid(i) * tanh(g), h' = sigmoid(o) * tanh(c'), each gate x W^T + b_i + h W^T +
// b_h. Shapes and options as RNN (four gates: weights of 4 * hidden_size rows); `call` also returns
// c_n and takes c0.
// C++: LSTM(128, {.num_layers = 2, .dropout = 0.2}); Python: LSTM(128, num_layers=2, dropout=0.2).
// Example: LSTM(128)(placeholder((8, 28, 28))) has shape (8, 28, 128)
class LSTM : public Recurrent {
 public:
  explicit LSTM(std::int64_t hidden_size, RecurrentOptions options = {});
};

// Random crops for data augmentation: in training, each image of (N, C, H, W) is padded with
// `padding` zeros on every side and a window of `size` (h, w) is cut at a random place (uniform over
// the places, per image); in evaluation the centre window of the padded image.
// Example: RandomCrop(32, padding=4)(images, training=True)  # CIFAR's augmentation
class RandomCrop : public Layer {
 public:
  RandomCrop(std::vector<std::int64_t> size, std::int64_t padding = 0, std::string name = "random_crop");
  explicit RandomCrop(std::int64_t size, std::int64_t padding = 0, std::string name = "random_crop")
      : RandomCrop(std::vector<std::int64_t>{size}, padding, std::move(name)) {}

 protected:
  Tensor forward(const Tensor& x, bool training, Loc loc) override;

 private:
  std::vector<std::int64_t> size_;
  std::int64_t padding_;
};

// Random flips for data augmentation: in training, each image of (N, C, H, W) is mirrored left-right
// (horizontal) and/or upside-down (vertical) with probability 1/2, independently per image and per
// direction; the identity in evaluation.
// Example: RandomFlip()(images, training=True)
class RandomFlip : public Layer {
 public:
  explicit RandomFlip(bool horizontal = true, bool vertical = false, std::string name = "random_flip");

 protected:
  Tensor forward(const Tensor& x, bool training, Loc loc) override;

 private:
  bool horizontal_, vertical_;
};

// Upsampling of (N, C, H, W) by integer factors `scale` (one int or (sh, sw)), as PyTorch's Upsample:
// method "nearest" repeats pixels; "bilinear" interpolates (align_corners=False).
// Example: Upsample2D(2, method="bilinear")(placeholder((1, 3, 8, 8))) has shape (1, 3, 16, 16)
class Upsample2D : public Layer {
 public:
  explicit Upsample2D(std::vector<std::int64_t> scale, std::string method = "nearest", std::string name = "upsample2d");
  explicit Upsample2D(std::int64_t scale, std::string method = "nearest", std::string name = "upsample2d")
      : Upsample2D(std::vector<std::int64_t>{scale}, std::move(method), std::move(name)) {}

 protected:
  Tensor forward(const Tensor& x, bool training, Loc loc) override;

 private:
  std::vector<std::int64_t> scale_;
  std::string method_;
};

// What create_variable makes a variable from: an array (a 0-d one fills the shape), a tensor (its value
// now is the first value) or an initializer (drawn for the shape and dtype, again by reset_variables).
using VariableValue = std::variant<Array, Tensor, Initializer>;

// SymJAX's nn.layers.create_variable(name, tensor_or_func, shape, trainable, inplace, dtype, preprocessor):
// a variable `name` of `shape` and `dtype` made from `value`, returned through `preprocessor` when one
// is given (a function of the variable: a reparametrization such as a softplus for a positive scale).
// With inplace, `value` must be a tensor and is returned as it is (no variable is made, as SymJAX's). A
// value whose shape is not `shape` is a ShapeError naming the variable. Python: tensor_or_func=None
// returns None, as SymJAX's.
// Example: w = nn::layers::create_variable("w", nn::init::glorot_uniform(), {784, 10}, true)
// Python: w = sx.nn.layers.create_variable("w", sx.nn.init.glorot_uniform(), (784, 10), True)
Tensor create_variable(const std::string& name, const VariableValue& value, Shape shape, bool trainable,
                       bool inplace = false, DType dtype = DType::f32,
                       const std::function<Tensor(const Tensor&)>& preprocessor = {}, Loc loc = Loc::current());

// Returns its input: a placeholder in a list of layers.
// Example: Identity()(x) is x
class Identity : public Layer {
 public:
  explicit Identity(std::string name = "identity");

 protected:
  Tensor forward(const Tensor& x, bool training, Loc loc) override;
};

}  // namespace symx::nn::layers
