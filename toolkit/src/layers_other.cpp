// Layers (symx/nn/layers.hpp): pooling, reshaping, activation, dropout, normalization, embedding,
// augmentation, upsampling.
#include <algorithm>
#include <cmath>
#include <map>

#include "layers_util.hpp"
#include "symx/distributed.hpp"
#include "symx/nn/activations.hpp"

namespace symx::nn::layers {
namespace {

// The shape (N, 1, ..., 1) of per-sample random draws (or x's whole shape when `whole`). N may be
// the symbol of an unknown batch size: random draws take it and draw as many as each call needs.
Shape random_shape(const Tensor& x, bool whole) {
  if (whole) return x.shape();
  Shape shape(static_cast<std::size_t>(x.ndim()), 1);
  shape[0] = x.shape()[0];
  return shape;
}

// Interpolation weights (out, in) of PyTorch's bilinear upsampling with align_corners=False along one
// axis: output cell o reads the input at (o + 0.5) / scale - 0.5, clamped at 0.
Array bilinear_matrix(std::int64_t in, std::int64_t scale, DType dtype) {
  const std::int64_t out = in * scale;
  Array m({out, in}, DType::f64);
  double* a = m.data<double>();
  for (std::int64_t o = 0; o < out; ++o) {
    double src = std::max(0.0, (static_cast<double>(o) + 0.5) / static_cast<double>(scale) - 0.5);
    auto i0 = static_cast<std::int64_t>(std::floor(src));
    std::int64_t i1 = std::min(i0 + 1, in - 1);
    double lambda = src - static_cast<double>(i0);
    a[o * in + i0] += 1 - lambda;
    a[o * in + i1] += lambda;
  }
  return m.astype(dtype);
}

using NamedFunction = std::function<Tensor(const Tensor&, Loc)>;

const std::map<std::string, NamedFunction>& named_activations() {
  static const std::map<std::string, NamedFunction> table = {
      {"linear", [](const Tensor& x, Loc) { return x; }},
      {"relu", [](const Tensor& x, Loc l) { return nn::relu(x, l); }},
      {"relu6", [](const Tensor& x, Loc l) { return nn::relu6(x, l); }},
      {"leaky_relu", [](const Tensor& x, Loc l) { return nn::leaky_relu(x, 0.01, l); }},
      {"elu", [](const Tensor& x, Loc l) { return nn::elu(x, 1.0, l); }},
      {"gelu", [](const Tensor& x, Loc l) { return nn::gelu(x, false, l); }},
      {"softplus", [](const Tensor& x, Loc l) { return nn::softplus(x, l); }},
      {"sigmoid", [](const Tensor& x, Loc l) { return nn::sigmoid(x, l); }},
      {"tanh", [](const Tensor& x, Loc l) { return symx::tanh(x, l); }},
      {"softmax", [](const Tensor& x, Loc l) { return nn::softmax(x, -1, l); }},
      {"log_softmax", [](const Tensor& x, Loc l) { return nn::log_softmax(x, -1, l); }},
      {"silu", [](const Tensor& x, Loc l) { return nn::silu(x, l); }},
      {"swish", [](const Tensor& x, Loc l) { return nn::swish(x, l); }},
      {"hard_tanh", [](const Tensor& x, Loc l) { return nn::hard_tanh(x, -1, 1, l); }},
  };
  return table;
}

}  // namespace

// ---- pooling and reshaping ----

MaxPool2D::MaxPool2D(std::vector<std::int64_t> window, PoolOptions options)
    : Layer(options.name.empty() ? "max_pool2d" : options.name), options_(std::move(options)) {
  kind_ = "MaxPool2D";
  window_ = detail::per_axis("MaxPool2D", "window", window, 2, 1);
  if (!options_.strides.empty()) options_.strides = detail::per_axis("MaxPool2D", "strides", options_.strides, 2, 1);
  options_.padding = detail::checked_padding("MaxPool2D", options_.padding, 2);
}

Tensor MaxPool2D::forward(const Tensor& x, bool, Loc loc) {
  check_rank(x, 4, "(N, C, H, W)");
  return max_pool2d(x, window_, options_.strides, options_.padding, loc);
}

AvgPool2D::AvgPool2D(std::vector<std::int64_t> window, PoolOptions options)
    : Layer(options.name.empty() ? "avg_pool2d" : options.name), options_(std::move(options)) {
  kind_ = "AvgPool2D";
  window_ = detail::per_axis("AvgPool2D", "window", window, 2, 1);
  if (!options_.strides.empty()) options_.strides = detail::per_axis("AvgPool2D", "strides", options_.strides, 2, 1);
  options_.padding = detail::checked_padding("AvgPool2D", options_.padding, 2);
}

Tensor AvgPool2D::forward(const Tensor& x, bool, Loc loc) {
  check_rank(x, 4, "(N, C, H, W)");
  return avg_pool2d(x, window_, options_.strides, options_.padding, loc);
}

GlobalAvgPool2D::GlobalAvgPool2D(bool keepdims, std::string name) : Layer(std::move(name)), keepdims_(keepdims) {
  kind_ = "GlobalAvgPool2D";
}

Tensor GlobalAvgPool2D::forward(const Tensor& x, bool, Loc loc) {
  check_rank(x, 4, "(N, C, H, W)");
  return mean(x, {2, 3}, keepdims_, loc);
}

Flatten::Flatten(std::string name) : Layer(std::move(name)) { kind_ = "Flatten"; }

Tensor Flatten::forward(const Tensor& x, bool, Loc loc) {
  if (x.ndim() < 1) fail_shape(x, "needs a batch axis", "Give it inputs of shape (N, ...).");
  Shape sample(x.shape().begin() + 1, x.shape().end());
  // A known batch size with unknown sample sizes leaves the sample's -1 to the call.
  if (has_symbols(sample) && !is_symbol(x.shape()[0])) return reshape(x, {x.shape()[0], -1}, loc);
  if (has_symbols(sample))
    fail_shape(x, "has sizes unknown until a call on axes other than the batch axis",
               "Give the input placeholder known sizes on every axis but the first.");
  return reshape(x, {-1, num_elements(sample)}, loc);
}

Reshape::Reshape(Shape shape, std::string name) : Layer(std::move(name)), shape_(std::move(shape)) {
  kind_ = "Reshape";
  if (std::count(shape_.begin(), shape_.end(), -1) > 1)
    throw ValueError("nn.layers.Reshape: at most one entry of the shape " + shape_string(shape_) + " may be -1.");
  for (std::int64_t d : shape_)
    if (d < -1) throw ValueError("nn.layers.Reshape: the shape " + shape_string(shape_) + " has a negative size.");
}

Tensor Reshape::forward(const Tensor& x, bool, Loc loc) {
  if (x.ndim() < 1) fail_shape(x, "needs a batch axis", "Give it inputs of shape (N, ...).");
  if (has_symbols(Shape(x.shape().begin() + 1, x.shape().end())))
    fail_shape(x, "has sizes unknown until a call on axes other than the batch axis",
               "Give the input placeholder known sizes on every axis but the first.");
  std::int64_t have = 1, want = 1;
  for (int d = 1; d < x.ndim(); ++d) have *= x.shape()[static_cast<std::size_t>(d)];
  for (std::int64_t d : shape_) want *= d == -1 ? 1 : d;
  Shape target = {-1};
  for (std::int64_t d : shape_) target.push_back(d == -1 && want > 0 ? have / want : d);
  if ((want == 0 ? have != 0 : have % want != 0) || (std::count(shape_.begin(), shape_.end(), -1) == 0 && have != want))
    fail_shape(x,
               "the " + std::to_string(have) + " elements of each sample do not fit the shape " + shape_string(shape_),
               "Give a shape with as many elements as a sample (all axes but the first).");
  return reshape(x, target, loc);
}

// ---- activation and dropout ----

Activation::Activation(const std::string& function, std::string name)
    : Layer(name.empty() ? function : std::move(name)) {
  kind_ = "Activation";
  auto it = named_activations().find(function);
  if (it == named_activations().end()) {
    std::string known;
    for (const auto& [key, fn] : named_activations()) known += (known.empty() ? "" : ", ") + key;
    throw ValueError("nn.layers.Activation: unknown activation '" + function + "'. Use one of " + known +
                     ", or pass a function.");
  }
  function_ = it->second;
}

Activation::Activation(std::function<Tensor(const Tensor&)> function, std::string name) : Layer(std::move(name)) {
  kind_ = "Activation";
  if (!function) throw ValueError("nn.layers.Activation: the function is empty. Pass a function of a tensor.");
  function_ = [f = std::move(function)](const Tensor& x, Loc) { return f(x); };
}

Tensor Activation::forward(const Tensor& x, bool, Loc loc) {
  Tensor y = function_(x, loc);
  if (!y.defined()) throw ValueError(describe() + ": the function returned an undefined tensor.");
  return y;
}

Dropout::Dropout(double rate, std::string name) : Layer(std::move(name)), rate_(rate) {
  kind_ = "Dropout";
  if (!(rate >= 0 && rate < 1))
    throw ValueError("nn.layers.Dropout: rate must be in [0, 1), got " + std::to_string(rate) +
                     ". It is the probability of dropping an element.");
}

Tensor Dropout::forward(const Tensor& x, bool training, Loc loc) {
  if (!training || rate_ == 0) return x;
  const double keep = 1 - rate_;
  Tensor mask = random::bernoulli(random_shape(x, true), keep, x.dtype(), loc);
  return multiply(x, multiply(mask, 1 / keep, loc), loc);
}

// ---- normalization ----

BatchNorm::BatchNorm(BatchNormOptions options) : Layer(options.name), options_(std::move(options)) {
  kind_ = "BatchNorm";
  if (!(options_.momentum >= 0 && options_.momentum <= 1))
    throw ValueError("nn.layers.BatchNorm: momentum must be in [0, 1], got " + std::to_string(options_.momentum) + ".");
  if (!(options_.eps > 0))
    throw ValueError("nn.layers.BatchNorm: eps must be > 0, got " + std::to_string(options_.eps) + ".");
}

void BatchNorm::build(const Tensor& x, Loc loc) {
  axis_ = options_.axis < 0 ? options_.axis + x.ndim() : options_.axis;
  if (x.ndim() < 2 || axis_ < 1 || axis_ >= x.ndim())
    fail_shape(x, "the feature axis " + std::to_string(options_.axis) + " is not a non-batch axis of the input",
               "Give inputs (N, C, ...) with axis=1, or features last with axis=-1.");
  features_ = x.shape()[static_cast<std::size_t>(axis_)];
  DType dtype = detail::param_dtype(x);
  if (options_.affine) {
    gamma_ = add_variable("gamma", init::ones(), {features_}, dtype, true, loc);
    beta_ = add_variable("beta", init::zeros(), {features_}, dtype, true, loc);
  }
  running_mean_ = add_variable("running_mean", init::zeros(), {features_}, dtype, false, loc);
  running_var_ = add_variable("running_var", init::ones(), {features_}, dtype, false, loc);
}

Tensor BatchNorm::forward(const Tensor& x, bool training, Loc loc) {
  if (x.ndim() <= axis_)
    fail_shape(x, "has no feature axis " + std::to_string(axis_), "Give inputs like the first ones.");
  check_features(x, axis_, features_, "features");
  std::vector<std::int64_t> reduce;
  for (int d = 0; d < x.ndim(); ++d)
    if (d != axis_) reduce.push_back(d);
  Shape stat_shape(static_cast<std::size_t>(x.ndim() - axis_), 1);  // (C, 1, ...): broadcasts over the trailing axes
  stat_shape[0] = features_;
  Tensor mu, variance;
  if (training) {
    // The element count per feature, from the graph (it includes the batch size, unknown when built).
    Tensor count = sum(ones_like(x, loc), reduce, false, loc);
    if (options_.sync && distributed::world_size() > 1) {
      // The statistics of every process's examples: sums all-reduced, in two passes as var() does.
      using distributed::Reduction;
      Tensor sums =
          distributed::all_reduce(concatenate({reshape(sum(x, reduce, true, loc), {features_}, loc), count}, 0, loc),
                                  Reduction::sum, loc);
      count = slice(sums, {Index::range(features_, 2 * features_)}, loc);
      mu = reshape(divide(slice(sums, {Index::range(0, features_)}, loc), count, loc), stat_shape, loc);
      Tensor squares =
          distributed::all_reduce(sum(square(subtract(x, mu, loc), loc), reduce, true, loc), Reduction::sum, loc);
      variance = divide(squares, reshape(count, stat_shape, loc), loc);
    } else {
      mu = mean(x, reduce, true, loc);
      variance = var(x, reduce, true, loc);
    }
    Tensor unbiased = multiply(reshape(variance, {features_}, loc), divide(count, subtract(count, 1, loc), loc), loc);
    const double m = options_.momentum;
    add_updates({{running_mean_,
                  add(multiply(running_mean_, 1 - m, loc), multiply(reshape(mu, {features_}, loc), m, loc), loc)},
                 {running_var_, add(multiply(running_var_, 1 - m, loc), multiply(unbiased, m, loc), loc)}},
                loc);
  } else {
    mu = reshape(running_mean_, stat_shape, loc);
    variance = reshape(running_var_, stat_shape, loc);
  }
  Tensor y = multiply(subtract(x, mu, loc), rsqrt(add(variance, options_.eps, loc), loc), loc);
  if (!options_.affine) return y;
  return add(multiply(y, reshape(gamma_, stat_shape, loc), loc), reshape(beta_, stat_shape, loc), loc);
}

LayerNorm::LayerNorm(std::vector<int> axes, double eps, bool affine, std::string name)
    : Layer(std::move(name)), axes_(std::move(axes)), eps_(eps), affine_(affine) {
  kind_ = "LayerNorm";
  if (axes_.empty())
    throw ValueError("nn.layers.LayerNorm: axes is empty; give the axes to normalize over, e.g. {-1}.");
  if (!(eps > 0)) throw ValueError("nn.layers.LayerNorm: eps must be > 0, got " + std::to_string(eps) + ".");
}

void LayerNorm::build(const Tensor& x, Loc loc) {
  std::vector<int> normalized;
  for (int a : axes_) {
    int d = a < 0 ? a + x.ndim() : a;
    if (d < 1 || d >= x.ndim())
      fail_shape(x, "axis " + std::to_string(a) + " is not a non-batch axis of the input",
                 "Normalize over axes 1..ndim-1 (negative ones count from the end).");
    normalized.push_back(d);
  }
  std::sort(normalized.begin(), normalized.end());
  normalized.erase(std::unique(normalized.begin(), normalized.end()), normalized.end());
  axes_ = normalized;
  // (d_first, ..., d_last) with 1 on the axes in between that are not normalized: broadcasts over x.
  for (int d = axes_.front(); d < x.ndim(); ++d) {
    bool in = std::find(axes_.begin(), axes_.end(), d) != axes_.end();
    param_shape_.push_back(in ? x.shape()[static_cast<std::size_t>(d)] : 1);
  }
  if (affine_) {
    DType dtype = detail::param_dtype(x);
    gamma_ = add_variable("gamma", init::ones(), param_shape_, dtype, true, loc);
    beta_ = add_variable("beta", init::zeros(), param_shape_, dtype, true, loc);
  }
}

Tensor LayerNorm::forward(const Tensor& x, bool, Loc loc) {
  const int built_ndim = axes_.front() + static_cast<int>(param_shape_.size());
  if (x.ndim() != built_ndim)
    fail_shape(x,
               "the input has " + std::to_string(x.ndim()) + " axes but the layer was built for " +
                   std::to_string(built_ndim) + " at its first application",
               "Apply it to inputs of the same rank, or make a new layer.");
  for (int d : axes_) check_features(x, d, param_shape_[static_cast<std::size_t>(d - axes_.front())], "elements");
  std::vector<std::int64_t> reduce(axes_.begin(), axes_.end());
  Tensor mu = mean(x, reduce, true, loc);
  Tensor y = multiply(subtract(x, mu, loc), rsqrt(add(var(x, reduce, true, loc), eps_, loc), loc), loc);
  return affine_ ? add(multiply(y, gamma_, loc), beta_, loc) : y;
}

// ---- embedding ----

Embedding::Embedding(std::int64_t num_embeddings, std::int64_t features, Initializer w_init, DType dtype,
                     std::string name)
    : Layer(std::move(name)),
      num_embeddings_(num_embeddings),
      features_(features),
      w_init_(std::move(w_init)),
      dtype_(dtype) {
  kind_ = "Embedding";
  detail::check_positive("Embedding", "num_embeddings", num_embeddings);
  detail::check_positive("Embedding", "features", features);
  detail::check_initializers("Embedding", w_init_, w_init_);
  if (!is_floating(dtype)) throw DTypeError("nn.layers.Embedding: the table's dtype must be float32 or float64.");
}

void Embedding::build(const Tensor&, Loc loc) {
  w_ = add_variable("w", w_init_, {num_embeddings_, features_}, dtype_, true, loc);
}

Tensor Embedding::forward(const Tensor& x, bool, Loc loc) {
  if (!is_integer(x.dtype()))
    throw DTypeError(describe() + ": the indices '" + x.label() + "' are " + std::string(dtype_name(x.dtype())) +
                     "; they must be integers (int32 or int64). Cast them with astype.");
  return take(w_, x, 0, loc);
}

// ---- augmentation and upsampling ----

RandomCrop::RandomCrop(std::vector<std::int64_t> size, std::int64_t padding, std::string name)
    : Layer(std::move(name)), padding_(padding) {
  kind_ = "RandomCrop";
  size_ = detail::per_axis("RandomCrop", "size", size, 2, 1);
  if (padding < 0) throw ValueError("nn.layers.RandomCrop: padding must be >= 0, got " + std::to_string(padding) + ".");
}

Tensor RandomCrop::forward(const Tensor& x, bool training, Loc loc) {
  check_rank(x, 4, "(N, C, H, W)");
  if (is_symbol(x.shape()[2]) || is_symbol(x.shape()[3]))
    fail_shape(x, "the image size is unknown until a call", "Give the input placeholder known H and W.");
  const std::int64_t p = padding_, h = size_[0], w = size_[1];
  const std::int64_t hp = x.shape()[2] + 2 * p, wp = x.shape()[3] + 2 * p;
  if (hp < h || wp < w)
    fail_shape(x,
               "the padded image is " + std::to_string(hp) + "x" + std::to_string(wp) + ", smaller than the crop " +
                   std::to_string(h) + "x" + std::to_string(w),
               "Use a smaller crop or more padding.");
  Tensor xp = p > 0 ? pad(x, {{0, 0}, {0, 0}, {p, p}, {p, p}}, 0, loc) : x;
  if (!training) {
    const std::int64_t top = (hp - h) / 2, left = (wp - w) / 2;
    return slice(xp, {Index::all(), Index::all(), Index::range(top, top + h), Index::range(left, left + w)}, loc);
  }
  // Per image, a random first row and column; the window's rows and columns are gathered.
  Tensor top = random::randint(random_shape(x, false), 0, hp - h + 1, DType::i64, loc);
  Tensor rows = add(top, reshape(arange(0, static_cast<double>(h), 1, DType::i64, loc), {1, 1, h, 1}, loc), loc);
  Tensor left = random::randint(random_shape(x, false), 0, wp - w + 1, DType::i64, loc);
  Tensor cols = add(left, reshape(arange(0, static_cast<double>(w), 1, DType::i64, loc), {1, 1, 1, w}, loc), loc);
  return take_along_axis(take_along_axis(xp, rows, 2, loc), cols, 3, loc);
}

RandomFlip::RandomFlip(bool horizontal, bool vertical, std::string name)
    : Layer(std::move(name)), horizontal_(horizontal), vertical_(vertical) {
  kind_ = "RandomFlip";
}

Tensor RandomFlip::forward(const Tensor& x, bool training, Loc loc) {
  check_rank(x, 4, "(N, C, H, W)");
  if (!training) return x;
  Tensor y = x;
  if (horizontal_) y = where(random::bernoulli(random_shape(x, false), 0.5, DType::b8, loc), flip(y, {3}, loc), y, loc);
  if (vertical_) y = where(random::bernoulli(random_shape(x, false), 0.5, DType::b8, loc), flip(y, {2}, loc), y, loc);
  return y;
}

Upsample2D::Upsample2D(std::vector<std::int64_t> scale, std::string method, std::string name)
    : Layer(std::move(name)), method_(std::move(method)) {
  kind_ = "Upsample2D";
  scale_ = detail::per_axis("Upsample2D", "scale", scale, 2, 1);
  if (method_ != "nearest" && method_ != "bilinear")
    throw ValueError("nn.layers.Upsample2D: unknown method '" + method_ + "'; use \"nearest\" or \"bilinear\".");
}

Tensor Upsample2D::forward(const Tensor& x, bool, Loc loc) {
  check_rank(x, 4, "(N, C, H, W)");
  if (method_ == "nearest") return repeat(repeat(x, scale_[0], 2, loc), scale_[1], 3, loc);
  if (!is_floating(x.dtype())) throw DTypeError(describe() + ": bilinear upsampling needs a float input.");
  if (is_symbol(x.shape()[2]) || is_symbol(x.shape()[3]))
    fail_shape(x, "bilinear weights need the image size, unknown until a call",
               "Give the input placeholder known H and W.");
  // Separable: rows by a (H_out, H) matrix from the left, columns by a (W, W_out) one from the right.
  Tensor rows = constant(bilinear_matrix(x.shape()[2], scale_[0], x.dtype()), loc);
  Tensor cols = constant(bilinear_matrix(x.shape()[3], scale_[1], x.dtype()), loc);
  return matmul(matmul(rows, x, loc), transpose(cols, {}, loc), loc);
}

Identity::Identity(std::string name) : Layer(std::move(name)) { kind_ = "Identity"; }

Tensor Identity::forward(const Tensor& x, bool, Loc) { return x; }

}  // namespace symx::nn::layers
