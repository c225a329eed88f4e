#include "symx/nn/losses.hpp"

#include <cmath>

#include "nn_internal.hpp"

namespace symx::nn::losses {

namespace {
using internal::at_user_line;
using internal::describe;

// Dimensions agree when equal, or when either is not known until the graph runs (negative).
bool dims_match(const Shape& a, const Shape& b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i)
    if (a[i] != b[i] && a[i] >= 0 && b[i] >= 0) return false;
  return true;
}

// Whether `small` broadcasts to `big` without changing it (NumPy's rule; unknown dimensions fit).
bool broadcasts_to(const Shape& small, const Shape& big) {
  if (small.size() > big.size()) return false;
  std::size_t offset = big.size() - small.size();
  for (std::size_t i = 0; i < small.size(); ++i) {
    std::int64_t s = small[i], b = big[offset + i];
    if (s != 1 && s != b && s >= 0 && b >= 0) return false;
  }
  return true;
}

// Throws ShapeError "<fn>: <problem> (<operands>), at <line>. <fix>".
[[noreturn]] void shape_error(const char* fn, const std::string& problem, const std::string& operands,
                              const std::string& fix, Loc loc) {
  throw ShapeError(std::string(fn) + ": " + problem + " (" + operands + ")" + at_user_line(loc) + ". " + fix);
}

// `t` itself when it is float32 or float64; a DTypeError naming the argument otherwise.
const Tensor& float_argument(const char* fn, const char* name, const Tensor& t, Loc loc) {
  if (!is_floating(t.dtype()))
    throw DTypeError(std::string(fn) + ": " + name + " must be float32 or float64, not " +
                     std::string(dtype_name(t.dtype())) + " (" + describe(name, t) + ")" + at_user_line(loc) +
                     ". Cast it first: astype(" + name + ", float32).");
  return t;
}

// Logits with a class axis last: float, at least 1-D.
const Tensor& class_logits(const char* fn, const Tensor& logits, Loc loc) {
  float_argument(fn, "logits", logits, loc);
  if (logits.ndim() == 0)
    shape_error(fn, "logits is a scalar", describe("logits", logits),
                "Give the logits a class axis last, e.g. shape (N, C).", loc);
  return logits;
}

// Integer class labels of the logits' shape without its class axis.
void check_class_labels(const char* fn, const Tensor& logits, const Tensor& labels, Loc loc) {
  Shape batch(logits.shape().begin(), logits.shape().end() - 1);
  if (!dims_match(labels.shape(), batch))
    shape_error(fn, "labels must have the logits' shape without the class axis, " + shape_string(batch),
                describe("logits", logits) + ", " + describe("labels", labels),
                "Pass one class index per example (shape (N,) for logits (N, C)), or for probabilities "
                "(one-hot) the logits' shape.",
                loc);
  if (labels.dtype() != DType::i32 && labels.dtype() != DType::i64)
    throw DTypeError(std::string(fn) + ": class labels must be int32 or int64, not " +
                     std::string(dtype_name(labels.dtype())) + " (" + describe("labels", labels) + ")" +
                     at_user_line(loc) + ". Cast them: astype(labels, int64).");
}

// `other` (named `name`) cast to the dtype of `reference`, after checking the two have one shape.
Tensor same_shape_as(const char* fn, const char* reference_name, const Tensor& reference, const char* name,
                     const Tensor& other, Loc loc) {
  if (!dims_match(reference.shape(), other.shape()))
    shape_error(fn, std::string(name) + " must have the shape of " + reference_name,
                describe(reference_name, reference) + ", " + describe(name, other),
                std::string("Reshape ") + name + " to " + shape_string(reference.shape()) +
                    " (losses do not broadcast, which would silently pair (N, 1) with (N,)).",
                loc);
  return other.dtype() == reference.dtype() ? other : astype(other, reference.dtype(), loc);
}

// True where each example's class label is (from the labels' one-hot rows); all false for a label
// outside [0, C), which then touches no logit (one_hot never reads out of bounds).
Tensor label_mask(const Tensor& logits, const Tensor& labels, Loc loc) {
  return one_hot(labels, logits.shape().back(), DType::b8, loc);
}

// Each example's logit at its label, with the class axis kept (size 1).
Tensor logit_at_label(const Tensor& logits, const Tensor& mask, Loc loc) {
  return sum(where(mask, logits, 0, loc), -1, true, loc);
}

Tensor reduce(const char* fn, const Tensor& losses, const std::string& reduction, Loc loc,
              bool allow_batchmean = false) {
  if (reduction == "mean") return mean(losses, {}, false, loc);
  if (reduction == "sum") return sum(losses, {}, false, loc);
  if (reduction == "none") return losses;
  if (allow_batchmean && reduction == "batchmean") {
    // sum / size of axis 0, as a mean over axis 0 of per-example sums: right also when the batch
    // size is only known when the graph runs.
    if (losses.ndim() <= 1) return losses.ndim() == 0 ? losses : mean(losses, {}, false, loc);
    std::vector<int> rest;
    for (int a = 1; a < losses.ndim(); ++a) rest.push_back(a);
    return mean(sum(losses, rest, false, loc), 0, false, loc);
  }
  throw ValueError(std::string(fn) + ": reduction '" + reduction + "' is not one of " +
                   (allow_batchmean ? "'mean', 'batchmean', 'sum', 'none'" : "'mean', 'sum', 'none'") +
                   at_user_line(loc) + ". Pass reduction=\"mean\" (the default), \"sum\" or \"none\".");
}
}  // namespace

Tensor softmax_cross_entropy_loss(const Tensor& logits, const Tensor& labels, double label_smoothing,
                                  const std::string& reduction, Loc loc) {
  const char* fn = "softmax_cross_entropy_loss";
  class_logits(fn, logits, loc);
  if (!(label_smoothing >= 0 && label_smoothing <= 1))
    throw ValueError(std::string(fn) + ": label_smoothing is " + std::to_string(label_smoothing) + at_user_line(loc) +
                     "; it must be in [0, 1] (0: no smoothing, 0.1: a common choice).");
  std::int64_t classes = logits.shape().back();
  Tensor probabilities;
  if (labels.ndim() == logits.ndim() - 1) {
    check_class_labels(fn, logits, labels, loc);
    probabilities = one_hot(labels, classes, logits.dtype(), loc);
  } else {
    probabilities = same_shape_as(fn, "logits", logits, "labels", labels, loc);
  }
  if (label_smoothing > 0)
    probabilities =
        add(multiply(probabilities, 1 - label_smoothing, loc), label_smoothing / static_cast<double>(classes), loc);
  return reduce(fn, nn::softmax_cross_entropy(logits, probabilities, -1, loc), reduction, loc);
}

Tensor sigmoid_binary_cross_entropy_loss(const Tensor& logits, const Tensor& labels, const Tensor& pos_weight,
                                         const std::string& reduction, Loc loc) {
  const char* fn = "sigmoid_binary_cross_entropy_loss";
  const Tensor& x = float_argument(fn, "logits", logits, loc);
  Tensor y = same_shape_as(fn, "logits", x, "labels", labels, loc);
  Tensor log_weight = y;  // the weight of -log(sigmoid(x)): y, or pos_weight * y
  if (pos_weight.defined()) {
    if (!broadcasts_to(pos_weight.shape(), x.shape()))
      shape_error(fn, "pos_weight does not broadcast against the logits",
                  describe("logits", x) + ", " + describe("pos_weight", pos_weight),
                  "Give one weight per class (the logits' last axis) or a single number.", loc);
    Tensor weight = pos_weight.dtype() == x.dtype() ? pos_weight : astype(pos_weight, x.dtype(), loc);
    log_weight = multiply(y, weight, loc);
  }
  // -log(sigmoid(x)) = softplus(-x) and -log(1 - sigmoid(x)) = x + softplus(-x): finite for any x.
  Tensor negative_log_p = softplus(negative(x, loc), loc);
  Tensor per_element = add(multiply(subtract(1, y, loc), add(x, negative_log_p, loc), loc),
                           multiply(log_weight, negative_log_p, loc), loc);
  return reduce(fn, per_element, reduction, loc);
}

Tensor mean_squared_error_loss(const Tensor& predictions, const Tensor& targets, const std::string& reduction,
                               Loc loc) {
  const char* fn = "mean_squared_error_loss";
  const Tensor& p = float_argument(fn, "predictions", predictions, loc);
  Tensor t = same_shape_as(fn, "predictions", p, "targets", targets, loc);
  return reduce(fn, square(subtract(p, t, loc), loc), reduction, loc);
}

Tensor mean_absolute_error_loss(const Tensor& predictions, const Tensor& targets, const std::string& reduction,
                                Loc loc) {
  const char* fn = "mean_absolute_error_loss";
  const Tensor& p = float_argument(fn, "predictions", predictions, loc);
  Tensor t = same_shape_as(fn, "predictions", p, "targets", targets, loc);
  return reduce(fn, abs(subtract(p, t, loc), loc), reduction, loc);
}

Tensor huber_loss(const Tensor& predictions, const Tensor& targets, double delta, const std::string& reduction,
                  Loc loc) {
  const char* fn = "huber_loss";
  if (!(delta > 0) || !std::isfinite(delta))
    throw ValueError(std::string(fn) + ": delta is " + std::to_string(delta) + at_user_line(loc) +
                     "; it must be a positive number (where the loss turns from quadratic to linear).");
  const Tensor& p = float_argument(fn, "predictions", predictions, loc);
  Tensor t = same_shape_as(fn, "predictions", p, "targets", targets, loc);
  // With q = min(|d|, delta): 0.5 q^2 + delta (|d| - q) is both branches in one expression (no where).
  Tensor magnitude = abs(subtract(p, t, loc), loc);
  Tensor q = minimum(magnitude, delta, loc);
  Tensor per_element = add(multiply(square(q, loc), 0.5, loc), multiply(subtract(magnitude, q, loc), delta, loc), loc);
  return reduce(fn, per_element, reduction, loc);
}

Tensor hinge_loss(const Tensor& scores, const Tensor& labels, const std::string& reduction, Loc loc) {
  const char* fn = "hinge_loss";
  const Tensor& s = float_argument(fn, "scores", scores, loc);
  // y * scores with y = +1 for labels > 0 and -1 otherwise, as a choice (no product, no dtype change).
  Tensor positive = greater(same_shape_as(fn, "scores", s, "labels", labels, loc), 0, loc);
  Tensor signed_scores = where(positive, s, negative(s, loc), loc);
  // max(1 - y s, 0) with the whole gradient where 1 - y s is 0, as PyTorch's clamp_min (its
  // hinge_embedding_loss); maximum would split it.
  Tensor margin = subtract(1, signed_scores, loc);
  return reduce(fn, where(less(margin, 0, loc), 0, margin, loc), reduction, loc);
}

Tensor multiclass_hinge_loss(const Tensor& logits, const Tensor& labels, double margin, int p,
                             const std::string& reduction, Loc loc) {
  const char* fn = "multiclass_hinge_loss";
  if (p != 1 && p != 2)
    throw ValueError(std::string(fn) + ": p is " + std::to_string(p) + at_user_line(loc) +
                     "; it must be 1 (the hinge) or 2 (the squared hinge), as in PyTorch's multi_margin_loss.");
  class_logits(fn, logits, loc);
  check_class_labels(fn, logits, labels, loc);
  Tensor mask = label_mask(logits, labels, loc);
  // relu: no gradient where a margin is exactly 0, as PyTorch's multi_margin_loss (z > 0 only).
  Tensor margins = relu(add(subtract(logits, logit_at_label(logits, mask, loc), loc), margin, loc), loc);
  if (p == 2) margins = square(margins, loc);
  // The label's own term is excluded; the sum over the others is divided by C, as PyTorch does.
  Tensor per_example = mean(where(mask, 0, margins, loc), -1, false, loc);
  return reduce(fn, per_example, reduction, loc);
}

Tensor kl_divergence_loss(const Tensor& log_predictions, const Tensor& targets, bool log_target,
                          const std::string& reduction, Loc loc) {
  const char* fn = "kl_divergence_loss";
  const Tensor& q = float_argument(fn, "log_predictions", log_predictions, loc);
  Tensor t = same_shape_as(fn, "log_predictions", q, "targets", targets, loc);
  Tensor per_element;
  if (log_target) {
    per_element = multiply(exp(t, loc), subtract(t, q, loc), loc);
  } else {
    // t log t is taken as 0 where t is 0 (its limit); log of 1 there keeps the gradient finite.
    Tensor zero = symx::equal(t, 0, loc);
    Tensor t_log_t = where(zero, 0, multiply(t, log(where(zero, 1, t, loc), loc), loc), loc);
    per_element = subtract(t_log_t, multiply(t, q, loc), loc);
  }
  return reduce(fn, per_element, reduction, loc, true);
}

namespace {
// The mean of a bool tensor as the logits' float dtype (float32 for integer logits).
Tensor fraction(const Tensor& hits, const Tensor& logits, Loc loc) {
  DType dtype = is_floating(logits.dtype()) ? logits.dtype() : DType::f32;
  return mean(astype(hits, dtype, loc), {}, false, loc);
}
}  // namespace

Tensor accuracy(const Tensor& logits, const Tensor& labels, Loc loc) {
  const char* fn = "accuracy";
  if (logits.ndim() == 0)
    shape_error(fn, "logits is a scalar", describe("logits", logits),
                "Give the logits a class axis last, e.g. shape (N, C).", loc);
  Tensor predicted = argmax(logits, -1, false, loc);
  if (labels.ndim() == logits.ndim()) {
    same_shape_as(fn, "logits", logits, "labels", labels, loc);
    return fraction(symx::equal(predicted, argmax(labels, -1, false, loc), loc), logits, loc);
  }
  check_class_labels(fn, logits, labels, loc);
  return fraction(symx::equal(predicted, labels, loc), logits, loc);
}

Tensor top_k_accuracy(const Tensor& logits, const Tensor& labels, std::int64_t k, Loc loc) {
  const char* fn = "top_k_accuracy";
  if (k < 1)
    throw ValueError(std::string(fn) + ": k is " + std::to_string(k) + at_user_line(loc) +
                     "; it must be at least 1 (k = 1 is accuracy).");
  if (logits.ndim() == 0)
    shape_error(fn, "logits is a scalar", describe("logits", logits),
                "Give the logits a class axis last, e.g. shape (N, C).", loc);
  check_class_labels(fn, logits, labels, loc);
  // The label is in the top k when fewer than k logits are strictly larger than its own.
  Tensor own = logit_at_label(logits, label_mask(logits, labels, loc), loc);
  Tensor larger = sum(greater(logits, own, loc), -1, false, loc);
  return fraction(symx::less(larger, k, loc), logits, loc);
}

}  // namespace symx::nn::losses
