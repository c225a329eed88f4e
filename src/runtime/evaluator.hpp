// The reference evaluator: runs a graph node by node with each op's reference rule. It is the
// oracle the compiled backend is tested against, so it stays simple and unoptimized.
#pragma once

#include <vector>

#include "symx/tensor.hpp"

namespace symx::runtime {

// Values of `outputs` given `feed` (placeholder values) and the current variable values.
// `context` names the caller in error messages ("eval", "function 'train'").
std::vector<Array> evaluate(const std::vector<Tensor>& outputs, const Feed& feed, const char* context = "eval");

// The random-state variables read by the random ops in the graph of `outputs`.
std::vector<Tensor> random_states(const std::vector<Tensor>& outputs);

// evaluate(), then advances the default graph's random state when a random op was evaluated,
// so that the next evaluation draws fresh numbers.
std::vector<Array> evaluate_and_advance(const std::vector<Tensor>& outputs, const Feed& feed);

// Adds one to each random-state variable (the caller holds their locks exclusively).
void advance_random_states(const std::vector<Tensor>& states);

// What a feed does with a value whose dtype converts only with loss (float64 data into a float32
// placeholder, int64 into int32).
enum class Downcast {
  refuse,           // DTypeError (eval)
  refuse_function,  // DTypeError that names function's allow_input_downcast option
  allow,            // converted, as Theano's allow_input_downcast: floats rounded; integers only when every
                    // value fits (else DTypeError); never float into integer or bool
};

// Checks that `value` fits placeholder `p`: true when it does as it is; false when only its dtype
// differs and converts without loss (NumPy's safe casting: int32 into int64, bool into an
// integer or a float, ...) or as `downcast` allows, for which the caller converts it with
// feed_value. Throws ShapeError for another shape and DTypeError for a refused dtype, naming the
// placeholder and the conversion.
bool check_feed_value(const Tensor& p, const Array& value, const char* context, Downcast downcast = Downcast::refuse);
// The dtype part of check_feed_value alone, for a placeholder whose unknown sizes (None) are checked
// elsewhere: messages show the placeholder's own shape, None included.
bool check_feed_dtype(const Tensor& p, const Array& value, const char* context, Downcast downcast = Downcast::refuse);
// `value` as placeholder `p` takes it: the value itself, or its conversion (see above).
Array feed_value(const Tensor& p, const Array& value, const char* context, Downcast downcast = Downcast::refuse);

}  // namespace symx::runtime
