// Helpers shared by the layers' sources: checks of constructor arguments (ValueError at
// construction, naming the layer class) and the dtype of a layer's variables.
#pragma once

#include <string>
#include <vector>

#include "symx/nn/layers.hpp"

namespace symx::nn::layers::detail {

// Requires value > 0.
void check_positive(const char* layer, const char* what, std::int64_t value);
// One value for every axis, or one per axis; each >= minimum. Returns one per axis.
std::vector<std::int64_t> per_axis(const char* layer, const char* what, const std::vector<std::int64_t>& values,
                                   int axes, std::int64_t minimum);
// "SAME"/"VALID" (any case), non-negative cells, or one (low, high) pair per spatial axis.
Padding checked_padding(const char* layer, Padding padding, int axes);
// groups > 0 and divides filters.
void check_groups(const char* layer, std::int64_t groups, std::int64_t filters);
// Initializers must not be empty functions.
void check_initializers(const char* layer, const Initializer& w_init, const Initializer& b_init);
// The input's dtype when it is a float, else float32.
DType param_dtype(const Tensor& x);

}  // namespace symx::nn::layers::detail
