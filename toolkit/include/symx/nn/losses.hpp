// symx/nn/losses.hpp: losses and metrics (symx.nn.losses in Python), written with the public ops so
// that they fuse and differentiate like any other graph. Each loss matches the function of
// torch.nn.functional named in its comment, in value and in gradient, and stays finite for logits of
// +-1e4. Losses take logits (unnormalized scores) where that applies, and are computed from them
// stably; classes lie along the last axis (PyTorch's dim 1, which is the same for (N, C) logits).
//
// reduction: "mean" (the default: the mean over every loss element, computed by the graph, so it
// also holds when the batch size is only known when the graph runs), "sum", or "none" (the
// elementwise or per-example losses); anything else is a ValueError.
// Integer labels are int32 or int64 class indices in [0, C). A label outside that range is not
// checked when the graph runs (its one-hot row is all zeros): it is the caller's to avoid.
// Shape and dtype errors name the offending argument; float arguments must be float32 or float64.
#pragma once

#include <string>

#include "symx/symx.hpp"

namespace symx::nn::losses {

// Softmax cross-entropy from logits, as F.cross_entropy(logits, labels, label_smoothing=...).
// logits: float (..., C). labels: integer class indices of shape (...), or probabilities (one-hot or
// soft labels) of the logits' shape. label_smoothing in [0, 1] mixes the labels with the uniform
// distribution: (1 - label_smoothing) * labels + label_smoothing / C. Returns the per-example losses
// (shape (...)) reduced by `reduction`. Built on nn::softmax_cross_entropy (one fused primitive).
// Example: losses.softmax_cross_entropy_loss(logits, labels) of logits (32, 10) and int64 labels (32,) is a scalar
Tensor softmax_cross_entropy_loss(const Tensor& logits, const Tensor& labels, double label_smoothing = 0,
                                  const std::string& reduction = "mean", Loc loc = Loc::current());
// Binary cross-entropy of sigmoid(logits) against labels, as F.binary_cross_entropy_with_logits:
// -pos_weight * y * log(sigmoid(x)) - (1 - y) * log(1 - sigmoid(x)), computed stably.
// logits: float, any shape; labels: probabilities (any numeric dtype, cast to the logits' dtype) of
// the logits' shape; pos_weight: optional (an undefined Tensor, None in Python) weight of the
// positive term, broadcast against the logits (e.g. one per class, shape (C,)). Returns the
// elementwise losses reduced by `reduction`.
// Example: losses.sigmoid_binary_cross_entropy_loss([0.0], [1.0]).eval() is 0.693...
Tensor sigmoid_binary_cross_entropy_loss(const Tensor& logits, const Tensor& labels, const Tensor& pos_weight = {},
                                         const std::string& reduction = "mean", Loc loc = Loc::current());
// Squared error (predictions - targets)**2, as F.mse_loss. predictions: float; targets: the same
// shape (no broadcasting, which would silently pair (N, 1) with (N,)), cast to the predictions' dtype.
// Example: losses.mean_squared_error_loss([1.0, 2.0], [1.0, 4.0]).eval() is 2.0
Tensor mean_squared_error_loss(const Tensor& predictions, const Tensor& targets, const std::string& reduction = "mean",
                               Loc loc = Loc::current());
// Absolute error |predictions - targets|, as F.l1_loss (its gradient at 0 is 0). Arguments as
// mean_squared_error_loss.
// Example: losses.mean_absolute_error_loss([1.0, 2.0], [1.0, 4.0]).eval() is 1.0
Tensor mean_absolute_error_loss(const Tensor& predictions, const Tensor& targets, const std::string& reduction = "mean",
                                Loc loc = Loc::current());
// Huber loss, as F.huber_loss: 0.5 * d**2 where |d| < delta, else delta * (|d| - 0.5 * delta), with
// d = predictions - targets. delta: positive (ValueError otherwise). Arguments as mean_squared_error_loss.
// Example: losses.huber_loss([0.5, 3.0], [0.0, 0.0]).eval() is (0.125 + 2.5) / 2
Tensor huber_loss(const Tensor& predictions, const Tensor& targets, double delta = 1.0,
                  const std::string& reduction = "mean", Loc loc = Loc::current());
// Binary hinge loss max(0, 1 - y * scores) (optax's hinge_loss, sklearn's hinge_loss) with y = +1 where
// labels > 0 and y = -1 elsewhere, so that labels may be given in {-1, 1} or in {0, 1}.
// scores: float, any shape (one raw score per example, not a probability); labels: any numeric dtype,
// the scores' shape. PyTorch has no binary hinge in torch.nn.functional; the tests compare with
// torch.clamp(1 - y * scores, min=0).
// Example: losses.hinge_loss([0.5, -2.0], [1, 0]).eval() is 0.25
Tensor hinge_loss(const Tensor& scores, const Tensor& labels, const std::string& reduction = "mean",
                  Loc loc = Loc::current());
// Multiclass hinge loss, as F.multi_margin_loss(logits, labels, p, margin):
// sum over i != label of max(0, margin - logits[label] + logits[i])**p, divided by C.
// logits: float (..., C); labels: integer class indices of shape (...); p: 1 or 2 (ValueError otherwise).
// Returns the per-example losses (shape (...)) reduced by `reduction`.
// Example: losses.multiclass_hinge_loss([[0.1, 0.2, 0.4]], [2]).eval() is (0.7 + 0.8) / 3
Tensor multiclass_hinge_loss(const Tensor& logits, const Tensor& labels, double margin = 1.0, int p = 1,
                             const std::string& reduction = "mean", Loc loc = Loc::current());
// Kullback-Leibler divergence KL(targets || predictions) elementwise, as F.kl_div(log_predictions,
// targets, log_target=...): targets * (log(targets) - log_predictions), 0 where targets is 0
// (with log_target, exp(targets) * (targets - log_predictions)). log_predictions: float log-probabilities
// (e.g. log_softmax(logits)); targets: probabilities (log-probabilities with log_target) of the same
// shape. reduction: "mean" (over every element, as PyTorch's), "batchmean" (the sum divided by the
// size of axis 0, which is the true KL divergence per example), "sum" or "none".
// Example: losses.kl_divergence_loss(nn.log_softmax(logits), p, reduction="batchmean")
Tensor kl_divergence_loss(const Tensor& log_predictions, const Tensor& targets, bool log_target = false,
                          const std::string& reduction = "mean", Loc loc = Loc::current());
// The fraction of examples whose largest logit is at their label (no gradient).
// logits: (..., C); labels: integer class indices of shape (...), or one-hot rows of the logits'
// shape (their argmax is the class). Returns a scalar of the logits' float dtype (float32 for others).
// Example: losses.accuracy([[0.1, 0.9], [0.8, 0.2]], [1, 1]).eval() is 0.5
Tensor accuracy(const Tensor& logits, const Tensor& labels, Loc loc = Loc::current());
// The fraction of examples whose label is among their k largest logits (no gradient); a label whose
// logit ties with others counts as ranked before them. logits: (..., C); labels: integer class
// indices of shape (...); k >= 1 (ValueError otherwise; k >= C gives 1). Returns a scalar as accuracy.
// Example: losses.top_k_accuracy([[0.1, 0.5, 0.4]], [2], k=2).eval() is 1.0
Tensor top_k_accuracy(const Tensor& logits, const Tensor& labels, std::int64_t k = 5, Loc loc = Loc::current());

}  // namespace symx::nn::losses
