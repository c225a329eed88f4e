// symx/optim.hpp: optimizers (SGD, Adam, AdamW, RMSprop, Adagrad) and gradient clipping. An
// optimizer turns a scalar loss into variable updates, SymJAX-style: `minimize(loss)` builds the
// gradients, the new parameter values and the new optimizer state as graph nodes, adds them to
// the graph's update collection and returns them, so that
// `function(inputs, outputs, get_updates())` is a training step. The update rules are PyTorch's
// (torch.optim), step for step. The optimizer's state (moments, step count) lives in
// non-trainable variables named under the optimizer's name ("adam/m/<param>", "adam/step"), so it
// is saved and restored with the model by save_variables/load_variables, and reset by
// reset_variables.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "symx/distributed.hpp"
#include "symx/optim/schedules.hpp"
#include "symx/symx.hpp"

namespace symx::optim {

using schedules::Schedule;

// A learning rate: a positive number, a scalar tensor (a placeholder to feed, a non-trainable
// variable to set), or a schedule of the optimizer's step (in Python also a callable step -> rate).
// A rate computed from trainable variables is refused (TypeError): it is the model, not a
// hyperparameter, most often the loss passed in SymJAX's order, SGD(loss, 0.1), for SGD(0.1).minimize(loss).
// Example: Adam(learning_rate=schedules.cosine_decay(1e-3, 1000))
class LearningRate {
 public:
  LearningRate(double value) : value_(value) {}                 // NOLINT: implicit by design
  LearningRate(const Tensor& value) : value_(value) {}          // NOLINT
  LearningRate(const Schedule& schedule) : value_(schedule) {}  // NOLINT
  // The rate for the update that follows `step` updates, as a scalar of `dtype`.
  // Example: LearningRate(0.1).at(opt.step(), DType::f32, Loc::current()) is constant(0.1f)
  Tensor at(const Tensor& step, DType dtype, Loc loc) const;
  // Throws ValueError naming `owner` when a number is not positive or a tensor is not a float scalar.
  // Example: LearningRate(-1.0).check("SGD") throws "SGD: learning_rate is -1. ..."
  void check(const std::string& owner) const;
  // Throws TypeError naming `owner` when `rate` (this rate, or a schedule's value at a step) depends
  // on a trainable variable.
  // Example: LearningRate(loss).check("SGD") throws "SGD: the learning rate 'loss' depends on ..."
  void check_rate(const Tensor& rate, const std::string& owner) const;

 private:
  std::variant<double, Tensor, Schedule> value_;
};

// The L2 norm of all the gradients together: sqrt(sum of sum(square(g))), float (the gradients'
// promoted dtype).
// Example: optim.global_norm([constant([3.0]), constant([4.0])]).eval() is 5.0
Tensor global_norm(const std::vector<Tensor>& grads, Loc loc = Loc::current());
// The gradients scaled together so that their global norm is at most max_norm, as PyTorch's
// clip_grad_norm_: each g times min(1, max_norm / (global_norm + 1e-6)). max_norm > 0.
// Example: optim.clip_by_global_norm([constant([3.0]), constant([4.0])], 1.0) is about [[0.6], [0.8]]
std::vector<Tensor> clip_by_global_norm(const std::vector<Tensor>& grads, double max_norm, Loc loc = Loc::current());
// Each gradient's elements limited to [-clip_value, clip_value], as PyTorch's clip_grad_value_.
// clip_value > 0.
// Example: optim.clip_by_value([constant([-3.0, 0.5])], 1.0)[0].eval() is [-1.0, 0.5]
std::vector<Tensor> clip_by_value(const std::vector<Tensor>& grads, double clip_value, Loc loc = Loc::current());

// Gradient clipping that an optimizer applies before its update rule: first by value, then by
// global norm (each only when set), as clip_by_value and clip_by_global_norm.
// Example: SGD(0.1, clip_norm=1.0)
struct Clipping {
  std::optional<double> clip_norm = std::nullopt;
  std::optional<double> clip_value = std::nullopt;
};

// The base of the optimizers: gradients, clipping, the step counter and the state variables.
// Subclasses give the update rule of one parameter.
// Example: opt = Adam(1e-3); opt.minimize(loss); train = function([x, y], [loss], get_updates())
class Optimizer {
 public:
  virtual ~Optimizer() = default;
  Optimizer(const Optimizer&) = delete;
  Optimizer& operator=(const Optimizer&) = delete;

  // The updates that take one optimization step on `loss` (a float scalar) over `params`
  // (variables; default: the trainable float variables the loss depends on, in graph order): new values
  // of the parameters and of the optimizer's state, including the step counter. They are added to
  // the graph's update collection (add_updates) and returned. Errors (ValueError): a loss that is
  // not a float scalar, no trainable variables, a parameter that is not a variable.
  // Example: opt.minimize(loss); train = function([x, y], [loss], updates=get_updates())
  Updates minimize(const Tensor& loss, const std::vector<Tensor>& params = {}, Loc loc = Loc::current());
  // The same from given gradients (one per parameter, of its shape), e.g. gradients computed
  // elsewhere or averaged over workers: clips them, then applies the update rule.
  // Example: opt.apply_gradients(grad(loss, [w]), [w])
  Updates apply_gradients(const std::vector<Tensor>& grads, const std::vector<Tensor>& params,
                          Loc loc = Loc::current());

  // The step counter: an int64 scalar variable ("<name>/step") holding the number of updates
  // done; undefined (None in Python) before the first minimize.
  // Example: opt.step.value is 10 after ten calls of the training function
  const Tensor& step() const { return step_; }
  // The learning rate of the next update (a float64 scalar tensor), evaluated at the step counter.
  // Example: opt.learning_rate().eval()
  Tensor learning_rate(Loc loc = Loc::current()) const;
  // The optimizer's state variables (moments, the step counter), in creation order.
  // Example: save_variables("opt.safetensors", opt.variables)
  const std::vector<Tensor>& variables() const { return variables_; }
  // A function of the gradients applied before clipping and the update rule (by apply_gradients,
  // and so by minimize): averaging them over processes (make_distributed), adding noise...; it
  // returns one gradient per parameter, of its shape. An empty function removes it.
  // Example: opt.set_gradient_transform([](auto& grads, auto&) { return distributed::average_gradients(grads); })
  using GradientTransform =
      std::function<std::vector<Tensor>(const std::vector<Tensor>& grads, const std::vector<Tensor>& params)>;
  void set_gradient_transform(GradientTransform transform) { transform_ = std::move(transform); }
  // Whether a gradient transform is set (make_distributed sets one).
  bool has_gradient_transform() const { return static_cast<bool>(transform_); }
  // The scope of the state variables ("adam", or "adam_1" when that name was taken).
  // Example: opt.name is "adam"
  const std::string& name() const { return name_; }

 protected:
  // `kind` names the optimizer in messages ("Adam"); checks the learning rate and clipping.
  Optimizer(std::string kind, LearningRate learning_rate, std::string name, Clipping clipping);
  // The new value of `param` given its (clipped) gradient, the learning rate of this update and
  // the 1-based step number t (both scalars of the parameter's dtype); appends the new values of
  // the state variables it uses to `state`.
  virtual Tensor update(const Tensor& param, const Tensor& grad, const Tensor& lr, const Tensor& t, Updates& state,
                        Loc loc) = 0;
  // The state variable `slot` of `param` ("<name>/<slot>/<param name>"), created on first use
  // with the parameter's shape and dtype, filled with `init`.
  Tensor slot(const Tensor& param, const std::string& slot, double init = 0);
  const std::string kind_;

 private:
  void ensure_scope();
  LearningRate learning_rate_;
  std::string name_;
  std::string scope_;  // name_ below the scope that was current at the first minimize
  Clipping clipping_;
  GradientTransform transform_;
  Tensor step_;
  std::vector<Tensor> variables_;
  std::map<std::pair<const Node*, std::string>, Tensor> slots_;
};

// Options of SGD, torch.optim.SGD's: momentum >= 0; dampening of the momentum buffer;
// nesterov momentum (needs momentum > 0 and dampening 0); weight_decay >= 0 adds
// weight_decay * param to the gradient (L2).
// Example: SGD(0.1, {.momentum = 0.9, .nesterov = true})
// Python: sx.optim.SGD(0.1, momentum=0.9, nesterov=True)
struct SGDOptions {
  double momentum = 0;
  double dampening = 0;
  bool nesterov = false;
  double weight_decay = 0;
  Clipping clipping = {};
  std::string name = "sgd";
};

// Stochastic gradient descent with optional (Nesterov) momentum, as torch.optim.SGD:
// buf = momentum * buf + (1 - dampening) * g (buf = g at the first step); p -= lr * (g + momentum
// * buf if nesterov else buf). State: "sgd/momentum/<param>" when momentum > 0.
// Example: opt = SGD(0.1, momentum=0.9); opt.minimize(loss)
class SGD : public Optimizer {
 public:
  explicit SGD(LearningRate learning_rate, SGDOptions options = {});

 private:
  Tensor update(const Tensor& param, const Tensor& grad, const Tensor& lr, const Tensor& t, Updates& state,
                Loc loc) override;
  SGDOptions options_;
};

// Options of Adam and AdamW, torch.optim.Adam's: beta1, beta2 in [0, 1); eps > 0 added to the
// denominator; weight_decay >= 0 (Adam: L2 added to the gradient; AdamW: decoupled, p *= 1 - lr *
// weight_decay); amsgrad keeps the maximum of the second moments.
// Example: Adam(1e-3, {.beta2 = 0.99, .amsgrad = true})
// Python: sx.optim.Adam(1e-3, beta2=0.99, amsgrad=True)
struct AdamOptions {
  double beta1 = 0.9;
  double beta2 = 0.999;
  double eps = 1e-8;
  double weight_decay = 0;
  bool amsgrad = false;
  Clipping clipping = {};
  std::string name = "adam";
};

// Adam with bias correction (Kingma and Ba), as torch.optim.Adam: m = b1 m + (1 - b1) g,
// v = b2 v + (1 - b2) g^2, p -= lr / (1 - b1^t) * m / (sqrt(v) / sqrt(1 - b2^t) + eps), with v
// replaced by its running maximum under amsgrad. State: "adam/m/<param>", "adam/v/<param>"
// ("adam/v_max/<param>" with amsgrad) and "adam/step".
// Example: opt = Adam(1e-3); opt.minimize(loss)
class Adam : public Optimizer {
 public:
  explicit Adam(LearningRate learning_rate = 1e-3, AdamOptions options = {});

 protected:
  Adam(LearningRate learning_rate, AdamOptions options, bool decoupled);
  Tensor update(const Tensor& param, const Tensor& grad, const Tensor& lr, const Tensor& t, Updates& state,
                Loc loc) override;
  AdamOptions options_;
  bool decoupled_ = false;
};

// Options of AdamW: Adam's, with PyTorch's default weight_decay of 0.01 (decoupled).
// Example: AdamW(1e-3, {.weight_decay = 0.05})
// Python: sx.optim.AdamW(1e-3, weight_decay=0.05)
struct AdamWOptions {
  double beta1 = 0.9;
  double beta2 = 0.999;
  double eps = 1e-8;
  double weight_decay = 0.01;
  bool amsgrad = false;
  Clipping clipping = {};
  std::string name = "adamw";
};

// Adam with decoupled weight decay (Loshchilov and Hutter), as torch.optim.AdamW: before the Adam
// step, p *= 1 - lr * weight_decay. State as Adam's, under "adamw".
// Example: opt = AdamW(1e-3, weight_decay=0.01); opt.minimize(loss)
class AdamW : public Adam {
 public:
  explicit AdamW(LearningRate learning_rate = 1e-3, AdamWOptions options = {});
};

// Options of RMSprop, torch.optim.RMSprop's: alpha in [0, 1) the smoothing of the squared
// gradients; eps > 0; momentum >= 0; centered divides by the estimated variance instead of the
// second moment; weight_decay >= 0 (L2).
// Example: RMSprop(0.01, {.momentum = 0.9, .centered = true})
// Python: sx.optim.RMSprop(0.01, momentum=0.9, centered=True)
struct RMSpropOptions {
  double alpha = 0.99;
  double eps = 1e-8;
  double momentum = 0;
  bool centered = false;
  double weight_decay = 0;
  Clipping clipping = {};
  std::string name = "rmsprop";
};

// RMSprop (Hinton), as torch.optim.RMSprop: s = alpha s + (1 - alpha) g^2; d = sqrt(s - a^2) + eps
// with a = alpha a + (1 - alpha) g when centered, else sqrt(s) + eps; with momentum
// b = momentum b + g / d and p -= lr b, else p -= lr g / d. State: "rmsprop/square_avg/<param>"
// (and grad_avg, momentum).
// Example: opt = RMSprop(0.01); opt.minimize(loss)
class RMSprop : public Optimizer {
 public:
  explicit RMSprop(LearningRate learning_rate = 0.01, RMSpropOptions options = {});

 private:
  Tensor update(const Tensor& param, const Tensor& grad, const Tensor& lr, const Tensor& t, Updates& state,
                Loc loc) override;
  RMSpropOptions options_;
};

// Options of Adagrad, torch.optim.Adagrad's: lr_decay >= 0 (rate lr / (1 + (t - 1) lr_decay));
// initial_accumulator_value >= 0 fills the sum of squares; eps > 0; weight_decay >= 0 (L2).
// Example: Adagrad(0.1, {.initial_accumulator_value = 0.1})
// Python: sx.optim.Adagrad(0.1, initial_accumulator_value=0.1)
struct AdagradOptions {
  double lr_decay = 0;
  double initial_accumulator_value = 0;
  double eps = 1e-10;
  double weight_decay = 0;
  Clipping clipping = {};
  std::string name = "adagrad";
};

// Adagrad (Duchi et al.), as torch.optim.Adagrad: s += g^2; p -= lr / (1 + (t - 1) lr_decay) * g /
// (sqrt(s) + eps). State: "adagrad/sum/<param>" and "adagrad/step".
// Example: opt = Adagrad(0.1); opt.minimize(loss)
class Adagrad : public Optimizer {
 public:
  explicit Adagrad(LearningRate learning_rate = 0.01, AdagradOptions options = {});

 private:
  Tensor update(const Tensor& param, const Tensor& grad, const Tensor& lr, const Tensor& t, Updates& state,
                Loc loc) override;
  AdagradOptions options_;
};

// Makes `optimizer` data-parallel (Horovod's DistributedOptimizer; Python
// sx.distributed.DistributedOptimizer): its gradients are averaged over the processes of the
// distributed run before clipping and its update rule (distributed::average_gradients with
// `options`: buckets all-reduced while the backward pass runs), and each minimize first sets the
// parameters to rank 0's values (distributed::broadcast_variables) so that every process starts
// identical. Returns the optimizer. In a world of one it changes nothing.
// Example: auto& opt = optim::make_distributed(adam, {.bucket_mb = 4}); opt.minimize(loss);
Optimizer& make_distributed(Optimizer& optimizer, distributed::GradientOptions options = {});

}  // namespace symx::optim
