// Helpers of the layers (layers_util.hpp).
#include "layers_util.hpp"

#include <algorithm>
#include <cctype>

namespace symx::nn::layers::detail {

void check_positive(const char* layer, const char* what, std::int64_t value) {
  if (value <= 0)
    throw ValueError(std::string("nn.layers.") + layer + ": " + what + " must be > 0, got " + std::to_string(value) +
                     ".");
}

std::vector<std::int64_t> per_axis(const char* layer, const char* what, const std::vector<std::int64_t>& values,
                                   int axes, std::int64_t minimum) {
  if (values.size() != 1 && values.size() != static_cast<std::size_t>(axes))
    throw ValueError(std::string("nn.layers.") + layer + ": " + what + " needs one value or " + std::to_string(axes) +
                     " (one per spatial axis), got " + std::to_string(values.size()) + ".");
  std::vector<std::int64_t> out(static_cast<std::size_t>(axes), values[0]);
  if (values.size() != 1) out = values;
  for (std::int64_t v : out)
    if (v < minimum)
      throw ValueError(std::string("nn.layers.") + layer + ": " + what + " must be >= " + std::to_string(minimum) +
                       ", got " + std::to_string(v) + ".");
  return out;
}

Padding checked_padding(const char* layer, Padding padding, int axes) {
  std::string upper = padding.mode;
  std::transform(upper.begin(), upper.end(), upper.begin(), [](unsigned char c) { return std::toupper(c); });
  const std::string where = std::string("nn.layers.") + layer + ": padding";
  if (upper == "SAME" || upper == "VALID") {
    padding.mode = upper;
  } else if (padding.mode == "UNIFORM") {
    if (padding.uniform < 0) throw ValueError(where + " must be >= 0, got " + std::to_string(padding.uniform) + ".");
  } else if (padding.mode == "EXPLICIT") {
    if (padding.explicit_pads.size() != static_cast<std::size_t>(axes))
      throw ValueError(where + " needs one (low, high) pair per spatial axis (" + std::to_string(axes) + "), got " +
                       std::to_string(padding.explicit_pads.size()) + ".");
    for (auto [low, high] : padding.explicit_pads)
      if (low < 0 || high < 0) throw ValueError(where + " cells must be >= 0.");
  } else {
    throw ValueError(where + " '" + padding.mode +
                     "' is unknown. Use \"SAME\", \"VALID\", a number of cells, or one "
                     "(low, high) pair per spatial axis.");
  }
  return padding;
}

void check_groups(const char* layer, std::int64_t groups, std::int64_t filters) {
  check_positive(layer, "groups", groups);
  if (filters % groups != 0)
    throw ValueError(std::string("nn.layers.") + layer + ": groups=" + std::to_string(groups) +
                     " does not divide filters=" + std::to_string(filters) +
                     ". Use a number of groups that divides both filters and input channels.");
}

void check_initializers(const char* layer, const Initializer& w_init, const Initializer& b_init) {
  if (!w_init || !b_init)
    throw ValueError(std::string("nn.layers.") + layer +
                     ": an initializer is empty. Pass one such as nn::init::zeros().");
}

DType param_dtype(const Tensor& x) { return is_floating(x.dtype()) ? x.dtype() : DType::f32; }

}  // namespace symx::nn::layers::detail

namespace symx::nn::layers {

Tensor create_variable(const std::string& name, const VariableValue& value, Shape shape, bool trainable, bool inplace,
                       DType dtype, const std::function<Tensor(const Tensor&)>& preprocessor, Loc loc) {
  const std::string what = "create_variable '" + name + "'";
  auto check_shape = [&](const Shape& got) {
    if (got != shape)
      throw ShapeError(what + ": the value is " + shape_string(got) + " but shape=" + shape_string(shape) +
                       ". Pass a value of that shape, a number to fill it, or an initializer.");
  };
  if (inplace) {
    if (!std::holds_alternative<Tensor>(value))
      throw ValueError(what + ": inplace=True returns the given tensor as it is, but the value is " +
                       (std::holds_alternative<Array>(value) ? "an array" : "an initializer") +
                       ". Pass the tensor itself, or inplace=False to make a variable.");
    return std::get<Tensor>(value);
  }
  Tensor v;
  if (const auto* t = std::get_if<Tensor>(&value)) {
    check_shape(t->shape());
    v = variable(t->dtype() == dtype ? *t : astype(*t, dtype, loc), name, trainable, loc);
  } else if (const auto* a = std::get_if<Array>(&value)) {
    Array arr = a->ndim() == 0 && !shape.empty() ? Array::full(shape, a->get_flat(0), dtype) : a->astype(dtype);
    check_shape(arr.shape());
    v = variable(arr, name, trainable, loc);
  } else {
    v = variable(std::get<Initializer>(value), shape, dtype, name, trainable, loc);
  }
  return preprocessor ? preprocessor(v) : v;
}

}  // namespace symx::nn::layers
