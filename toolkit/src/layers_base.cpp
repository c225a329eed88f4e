// Layers (symx/nn/layers.hpp): the Layer base, Sequential, Dense and the convolutions.
#include <algorithm>

#include "layers_util.hpp"

namespace symx::nn::layers {

// ---- Layer ----

Layer::Layer(std::string name) : name_(std::move(name)) {
  if (name_.empty() || name_.find('/') != std::string::npos)
    throw ValueError("nn.layers: the layer name '" + name_ +
                     "' is empty or contains '/'. Use a plain name such as \"encoder\".");
}

Tensor Layer::operator()(const Tensor& x, bool training, Loc loc) {
  if (!x.defined()) throw ValueError(describe() + ": the input tensor is undefined (a default-constructed Tensor).");
  if (built_) return forward(x, training, loc);
  // The scope's last component is the unique name: "dense", then "dense_1" (under an outer scope
  // the full name is "outer/dense_1").
  std::string full = default_graph().unique_name(name_);
  std::string own = full.substr(full.rfind('/') + 1);
  Scope scope(own);
  build(x, loc);
  // Built even if forward fails below: its variables exist, and a second build would duplicate them.
  name_ = full;
  built_ = true;
  return forward(x, training, loc);  // inside the scope, so that a Sequential's layers are named under it
}

void Layer::ensure_built(const Tensor& x, Loc loc) {
  if (!x.defined()) throw ValueError(describe() + ": the input tensor is undefined (a default-constructed Tensor).");
  if (built_) return;
  std::string full = default_graph().unique_name(name_);
  Scope scope(full.substr(full.rfind('/') + 1));
  build(x, loc);
  name_ = full;
  built_ = true;
}

std::vector<Tensor> Layer::variables(std::optional<bool> trainable) const {
  std::vector<Tensor> out;
  for (const Tensor& v : variables_)
    if (!trainable || v.trainable() == *trainable) out.push_back(v);
  return out;
}

void Layer::build(const Tensor&, Loc) {}

Tensor Layer::add_variable(const std::string& name, const Initializer& init, Shape shape, DType dtype, bool trainable,
                           Loc loc) {
  // Parameter sizes come from the input's known axes; a size known only at a call cannot shape one.
  if (has_symbols(shape))
    throw ShapeError(describe() + ": its variable '" + name + "' would take a size from an axis of the input that is " +
                     "unknown until a call (shape " + shape_string(shape) + "). Give the input placeholder a known " +
                     "size on the axes the layer learns over (only the batch axis may be None/kDynamic).");
  Tensor v = variable(init, std::move(shape), dtype, name, trainable, loc);
  variables_.push_back(v);
  return v;
}

std::string Layer::describe() const { return "nn.layers." + kind_ + " '" + name_ + "'"; }

void Layer::fail_shape(const Tensor& x, const std::string& problem, const std::string& fix) const {
  throw ShapeError(describe() + ": " + problem + " (input '" + x.label() + "' of shape " + shape_string(x.shape()) +
                   "). " + fix);
}

std::int64_t Layer::grouped_channels(const Tensor& x, int rank, const char* layout, std::int64_t groups) const {
  check_rank(x, rank, layout);
  std::int64_t channels = x.shape()[1];
  if (channels % groups != 0)
    fail_shape(x, std::to_string(channels) + " channels do not divide into " + std::to_string(groups) + " groups",
               "Use a number of groups that divides the input's channels.");
  return channels;
}

void Layer::check_rank(const Tensor& x, int rank, const char* layout) const {
  if (x.ndim() != rank)
    fail_shape(x,
               "expects inputs with " + std::to_string(rank) + " axes " + layout + ", got " + std::to_string(x.ndim()),
               std::string("Reshape the input to ") + layout + ".");
}

void Layer::check_features(const Tensor& x, int axis, std::int64_t expected, const char* what) const {
  std::int64_t got = x.shape()[static_cast<std::size_t>(axis)];
  if (got != expected)
    fail_shape(x,
               "the input has " + std::to_string(got) + " " + what + " (axis " + std::to_string(axis) +
                   ") but the layer was built for " + std::to_string(expected) + " at its first application",
               "Apply it to inputs with " + std::to_string(expected) + " " + what +
                   ", or make a new layer for this input.");
}

// ---- Sequential ----

Sequential::Sequential(std::vector<std::shared_ptr<Layer>> layers, std::string name)
    : Layer(std::move(name)), layers_(std::move(layers)) {
  kind_ = "Sequential";
  for (std::size_t i = 0; i < layers_.size(); ++i)
    if (!layers_[i]) throw ValueError("nn.layers.Sequential: layer " + std::to_string(i) + " is null. Pass layers.");
}

std::vector<Tensor> Sequential::variables(std::optional<bool> trainable) const {
  std::vector<Tensor> out;
  for (const auto& layer : layers_) {
    auto vs = layer->variables(trainable);
    for (const Tensor& v : vs)  // a layer listed twice shares its variables: list them once
      if (std::find(out.begin(), out.end(), v) == out.end()) out.push_back(v);
  }
  return out;
}

Tensor Sequential::forward(const Tensor& x, bool training, Loc loc) {
  Tensor y = x;
  for (const auto& layer : layers_) y = (*layer)(y, training, loc);
  return y;
}

// ---- Dense ----

Dense::Dense(std::int64_t units, DenseOptions options)
    : Layer(options.name), units_(units), options_(std::move(options)) {
  kind_ = "Dense";
  detail::check_positive("Dense", "units", units);
  detail::check_initializers("Dense", options_.w_init, options_.b_init);
}

void Dense::build(const Tensor& x, Loc loc) {
  if (x.ndim() < 1) fail_shape(x, "expects inputs with a feature axis (N, ..., features)", "Reshape the input.");
  in_features_ = x.shape().back();
  DType dtype = detail::param_dtype(x);
  w_ = add_variable("w", options_.w_init, {in_features_, units_}, dtype, true, loc);
  if (options_.use_bias) b_ = add_variable("b", options_.b_init, {units_}, dtype, true, loc);
}

Tensor Dense::forward(const Tensor& x, bool, Loc loc) {
  if (x.ndim() < 1) fail_shape(x, "expects inputs with a feature axis (N, ..., features)", "Reshape the input.");
  check_features(x, x.ndim() - 1, in_features_, "features");
  Tensor y = matmul(x, w_, loc);
  return options_.use_bias ? add(y, b_, loc) : y;
}

// ---- convolutions ----

Conv1D::Conv1D(std::int64_t filters, std::int64_t kernel_size, ConvOptions options)
    : Layer(options.name.empty() ? "conv1d" : options.name),
      filters_(filters),
      kernel_size_(kernel_size),
      options_(std::move(options)) {
  kind_ = "Conv1D";
  detail::check_positive("Conv1D", "filters", filters);
  detail::check_positive("Conv1D", "kernel_size", kernel_size);
  options_.strides = detail::per_axis("Conv1D", "stride", options_.strides, 1, 1);
  options_.dilation = detail::per_axis("Conv1D", "dilation", options_.dilation, 1, 1);
  options_.padding = detail::checked_padding("Conv1D", options_.padding, 1);
  detail::check_groups("Conv1D", options_.groups, filters);
  detail::check_initializers("Conv1D", options_.w_init, options_.b_init);
}

void Conv1D::build(const Tensor& x, Loc loc) {
  channels_ = grouped_channels(x, 3, "(N, C, W)", options_.groups);
  DType dtype = detail::param_dtype(x);
  w_ = add_variable("w", options_.w_init, {filters_, channels_ / options_.groups, kernel_size_}, dtype, true, loc);
  if (options_.use_bias) b_ = add_variable("b", options_.b_init, {filters_}, dtype, true, loc);
}

Tensor Conv1D::forward(const Tensor& x, bool, Loc loc) {
  check_rank(x, 3, "(N, C, W)");
  check_features(x, 1, channels_, "channels");
  Tensor y = conv1d(x, w_, options_.strides[0], options_.padding, options_.dilation[0], options_.groups, loc);
  return options_.use_bias ? add(y, reshape(b_, {filters_, 1}, loc), loc) : y;
}

Conv2D::Conv2D(std::int64_t filters, std::vector<std::int64_t> kernel_size, ConvOptions options)
    : Layer(options.name.empty() ? "conv2d" : options.name), filters_(filters), options_(std::move(options)) {
  kind_ = "Conv2D";
  detail::check_positive("Conv2D", "filters", filters);
  kernel_size_ = detail::per_axis("Conv2D", "kernel_size", kernel_size, 2, 1);
  options_.strides = detail::per_axis("Conv2D", "strides", options_.strides, 2, 1);
  options_.dilation = detail::per_axis("Conv2D", "dilation", options_.dilation, 2, 1);
  options_.padding = detail::checked_padding("Conv2D", options_.padding, 2);
  detail::check_groups("Conv2D", options_.groups, filters);
  detail::check_initializers("Conv2D", options_.w_init, options_.b_init);
}

void Conv2D::build(const Tensor& x, Loc loc) {
  channels_ = grouped_channels(x, 4, "(N, C, H, W)", options_.groups);
  DType dtype = detail::param_dtype(x);
  w_ = add_variable("w", options_.w_init, {filters_, channels_ / options_.groups, kernel_size_[0], kernel_size_[1]},
                    dtype, true, loc);
  if (options_.use_bias) b_ = add_variable("b", options_.b_init, {filters_}, dtype, true, loc);
}

Tensor Conv2D::forward(const Tensor& x, bool, Loc loc) {
  check_rank(x, 4, "(N, C, H, W)");
  check_features(x, 1, channels_, "channels");
  Tensor y = conv2d(x, w_, options_.strides, options_.padding, options_.dilation, options_.groups, loc);
  return options_.use_bias ? add(y, reshape(b_, {filters_, 1, 1}, loc), loc) : y;
}

Conv2DTranspose::Conv2DTranspose(std::int64_t filters, std::vector<std::int64_t> kernel_size,
                                 ConvTransposeOptions options)
    : Layer(options.name), filters_(filters), options_(std::move(options)) {
  kind_ = "Conv2DTranspose";
  detail::check_positive("Conv2DTranspose", "filters", filters);
  kernel_size_ = detail::per_axis("Conv2DTranspose", "kernel_size", kernel_size, 2, 1);
  options_.strides = detail::per_axis("Conv2DTranspose", "strides", options_.strides, 2, 1);
  options_.dilation = detail::per_axis("Conv2DTranspose", "dilation", options_.dilation, 2, 1);
  options_.output_padding = detail::per_axis("Conv2DTranspose", "output_padding", options_.output_padding, 2, 0);
  options_.padding = detail::checked_padding("Conv2DTranspose", options_.padding, 2);
  detail::check_groups("Conv2DTranspose", options_.groups, filters);
  detail::check_initializers("Conv2DTranspose", options_.w_init, options_.b_init);
}

void Conv2DTranspose::build(const Tensor& x, Loc loc) {
  channels_ = grouped_channels(x, 4, "(N, C, H, W)", options_.groups);
  DType dtype = detail::param_dtype(x);
  w_ = add_variable("w", options_.w_init, {channels_, filters_ / options_.groups, kernel_size_[0], kernel_size_[1]},
                    dtype, true, loc);
  if (options_.use_bias) b_ = add_variable("b", options_.b_init, {filters_}, dtype, true, loc);
}

Tensor Conv2DTranspose::forward(const Tensor& x, bool, Loc loc) {
  check_rank(x, 4, "(N, C, H, W)");
  check_features(x, 1, channels_, "channels");
  Tensor y = conv2d_transpose(x, w_, options_.strides, options_.padding, options_.output_padding, options_.dilation,
                              options_.groups, loc);
  return options_.use_bias ? add(y, reshape(b_, {filters_, 1, 1}, loc), loc) : y;
}

}  // namespace symx::nn::layers
