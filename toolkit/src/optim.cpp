#include "symx/optim.hpp"

#include <cmath>
#include <cstdio>
#include <string>
#include <utility>

namespace symx::optim {

namespace {

std::string number(double v) {
  char text[32];
  std::snprintf(text, sizeof text, "%.10g", v);
  return text;
}

void require(bool ok, const std::string& owner, const std::string& what, const std::string& fix) {
  if (!ok) throw ValueError(owner + ": " + what + ". " + fix);
}

void require_non_negative(double v, const std::string& owner, const char* name) {
  require(v >= 0 && std::isfinite(v), owner, std::string(name) + " is " + number(v),
          std::string("Use a finite ") + name + " >= 0 (0 turns it off).");
}

void require_beta(double v, const std::string& owner, const char* name) {
  require(v >= 0 && v < 1, owner, std::string(name) + " is " + number(v) + "; it must lie in [0, 1)",
          "It is the decay of a running average: use a value such as 0.9 or 0.999.");
}

void require_eps(double v, const std::string& owner) {
  require(v > 0 && std::isfinite(v), owner, "eps is " + number(v),
          "Use a small positive eps, such as 1e-8: it keeps the denominator away from 0.");
}

void check_clipping(const Clipping& c, const std::string& owner) {
  if (c.clip_norm)
    require(*c.clip_norm > 0, owner, "clip_norm is " + number(*c.clip_norm),
            "It is the largest global gradient norm kept: use a positive value, or leave it unset.");
  if (c.clip_value)
    require(*c.clip_value > 0, owner, "clip_value is " + number(*c.clip_value),
            "Gradients are clipped to [-clip_value, clip_value]: use a positive value, or leave it unset.");
}

Initializer filled_with(double value) {
  return [value](const Shape& shape, DType dtype) { return Array::full(shape, value, dtype); };
}

// a + weight * (b - a), rounded as PyTorch's lerp_ for the weights of running averages (< 0.5), so
// that the ill-conditioned centered variance s - a^2 of RMSprop follows PyTorch's to the last bits.
Tensor lerp(const Tensor& a, const Tensor& b, double weight, Loc loc) {
  if (weight < 0.5) return add(a, multiply(subtract(b, a, loc), weight, loc), loc);
  return subtract(b, multiply(subtract(b, a, loc), 1 - weight, loc), loc);
}

std::string where_suffix(const Tensor& t) { return t.node().where.empty() ? "" : " (made at " + t.node().where + ")"; }

// The first trainable variable that `t` is computed from, or an undefined tensor.
Tensor trainable_dependency(const Tensor& t) {
  for (const Tensor& n : topological_order({t}))
    if (n.op() == OpKind::Variable && n.trainable()) return n;
  return {};
}

// A learning rate computed from trainable variables is not a hyperparameter but a function of the
// model: most often the loss, passed first in SymJAX's order (SGD(loss, 0.1)), where symx's
// optimizers take the hyperparameters and minimize takes the loss. Throws TypeError naming `owner`.
void require_hyperparameter(const Tensor& rate, const std::string& owner, const char* source) {
  Tensor variable = trainable_dependency(rate);
  if (!variable.defined()) return;
  const std::string example = owner + (owner == "SGD" ? "(0.1)" : "(0.001)") + ".minimize(loss)";
  throw TypeError(owner + ": the learning rate " + source + "'" + rate.label() + "'" + where_suffix(rate) +
                  " depends on the trainable variable '" + variable.label() +
                  "', so it is computed from the model, not a hyperparameter. Was the loss passed first, in "
                  "SymJAX's order (" +
                  owner +
                  "(loss, ...))? symx's optimizers take the hyperparameters and minimize takes the loss: " + example +
                  ". A learning-rate tensor may depend on placeholders, non-trainable variables and the step "
                  "counter only.");
}

}  // namespace

// ---- learning rates ----

Tensor LearningRate::at(const Tensor& step, DType dtype, Loc loc) const {
  if (const double* v = std::get_if<double>(&value_)) return constant(*v, dtype, loc);
  Tensor rate =
      std::holds_alternative<Tensor>(value_) ? std::get<Tensor>(value_) : std::get<Schedule>(value_)(step, loc);
  return rate.dtype() == dtype ? rate : astype(rate, dtype, loc);
}

void LearningRate::check(const std::string& owner) const {
  if (const double* v = std::get_if<double>(&value_))
    require(*v > 0 && std::isfinite(*v), owner, "learning_rate is " + number(*v),
            "The learning rate is the step size: use a positive number such as 0.01, a schedule, or a scalar tensor.");
  const Tensor* t = std::get_if<Tensor>(&value_);
  if (t != nullptr && t->defined()) check_rate(*t, owner);
  if (t == nullptr || (t->defined() && t->ndim() == 0 && is_floating(t->dtype()))) return;
  std::string what = t->defined() ? "'" + t->label() + "' has shape " + shape_string(t->shape()) + " and dtype " +
                                        std::string(dtype_name(t->dtype()))
                                  : std::string("is undefined");
  require(false, owner, "the learning-rate tensor " + what,
          "Use a float scalar tensor (shape ()), such as placeholder((), float32) or a variable.");
}

void LearningRate::check_rate(const Tensor& rate, const std::string& owner) const {
  require_hyperparameter(rate, owner, std::holds_alternative<Schedule>(value_) ? "from the schedule, " : "");
}

// ---- clipping ----

Tensor global_norm(const std::vector<Tensor>& grads, Loc loc) {
  if (grads.empty()) throw ValueError("global_norm: no gradients given. Pass the list of gradients.");
  Tensor total;
  for (const Tensor& g : grads) {
    Tensor s = sum(square(g, loc), {}, false, loc);
    total = total.defined() ? add(total, s, loc) : s;
  }
  return sqrt(total, loc);
}

std::vector<Tensor> clip_by_global_norm(const std::vector<Tensor>& grads, double max_norm, Loc loc) {
  require(max_norm > 0, "clip_by_global_norm", "max_norm is " + number(max_norm),
          "It is the largest global norm kept: use a positive value.");
  // PyTorch's clip_grad_norm_: the 1e-6 keeps the division finite for zero gradients.
  Tensor factor = minimum(divide(max_norm, add(global_norm(grads, loc), 1e-6, loc), loc), 1.0, loc);
  std::vector<Tensor> out;
  for (const Tensor& g : grads)
    out.push_back(multiply(g, factor.dtype() == g.dtype() ? factor : astype(factor, g.dtype(), loc), loc));
  return out;
}

std::vector<Tensor> clip_by_value(const std::vector<Tensor>& grads, double clip_value, Loc loc) {
  require(clip_value > 0, "clip_by_value", "clip_value is " + number(clip_value),
          "Gradients are limited to [-clip_value, clip_value]: use a positive value.");
  std::vector<Tensor> out;
  for (const Tensor& g : grads) out.push_back(clip(g, -clip_value, clip_value, loc));
  return out;
}

// ---- the optimizer ----

Optimizer::Optimizer(std::string kind, LearningRate learning_rate, std::string name, Clipping clipping)
    : kind_(std::move(kind)), learning_rate_(std::move(learning_rate)), name_(std::move(name)), clipping_(clipping) {
  require(!name_.empty(), kind_, "the name is empty",
          "Give a name for the scope of its state variables, such as \"adam\".");
  learning_rate_.check(kind_);
  check_clipping(clipping_, kind_);
}

Tensor Optimizer::learning_rate(Loc loc) const {
  Tensor step = step_.defined() ? step_ : constant(0.0, DType::f64, loc);
  return learning_rate_.at(step, DType::f64, loc);
}

void Optimizer::ensure_scope() {
  if (step_.defined()) return;
  Graph& g = default_graph();
  std::string prefix = g.current_scope();
  name_ = g.unique_name(name_);  // "adam", or "adam_1" when taken: two optimizers never share state
  scope_ = name_.substr(prefix.size());
  Scope scope(scope_);
  step_ = variable(filled_with(0), Shape{}, DType::i64, "step", false);
  variables_.push_back(step_);
}

Tensor Optimizer::slot(const Tensor& param, const std::string& slot, double init) {
  auto key = std::make_pair(param.node_ptr().get(), slot);
  auto it = slots_.find(key);
  if (it != slots_.end()) return it->second;
  Tensor v = variable(filled_with(init), param.shape(), param.dtype(), slot + "/" + param.name(), false);
  variables_.push_back(v);
  slots_.emplace(key, v);
  return v;
}

Updates Optimizer::minimize(const Tensor& loss, const std::vector<Tensor>& params, Loc loc) {
  const std::string owner = kind_ + ".minimize";
  require(loss.defined(), owner, "the loss is undefined", "Pass the scalar loss tensor.");
  require(loss.ndim() == 0, owner,
          "the loss '" + loss.label() + "' has shape " + shape_string(loss.shape()) + where_suffix(loss) +
              "; it must be a scalar (shape ())",
          "Reduce it to one number, e.g. mean(loss) or sum(loss).");
  require(is_floating(loss.dtype()), owner,
          "the loss '" + loss.label() + "' has dtype " + std::string(dtype_name(loss.dtype())),
          "A loss to minimize is a float scalar: cast it with astype(loss, float32).");
  std::vector<Tensor> chosen = params;
  if (chosen.empty())
    for (const Tensor& t : topological_order({loss}))
      if (t.op() == OpKind::Variable && t.trainable() && is_floating(t.dtype())) chosen.push_back(t);
  require(!chosen.empty(), owner,
          "the loss '" + loss.label() + "' depends on no trainable variable" + where_suffix(loss) +
              ", so there is nothing to optimize",
          "Build the loss from variables made with trainable=true, or pass the variables to optimize as params.");
  return apply_gradients(grad(loss, chosen, loc), chosen, loc);
}

Updates Optimizer::apply_gradients(const std::vector<Tensor>& grads, const std::vector<Tensor>& params, Loc loc) {
  const std::string owner = kind_;
  require(!params.empty() && grads.size() == params.size(), owner,
          std::to_string(grads.size()) + " gradients for " + std::to_string(params.size()) + " parameters",
          "Give one gradient per parameter, in the same order.");
  for (std::size_t i = 0; i < params.size(); ++i) {
    const Tensor& p = params[i];
    require(p.defined() && p.op() == OpKind::Variable, owner,
            "parameter " + std::to_string(i) + (p.defined() ? " ('" + p.label() + "')" : "") + " is not a variable",
            "Only variables can be optimized: pass variables made with variable(...).");
    require(is_floating(p.dtype()), owner,
            "parameter '" + p.label() + "' has dtype " + std::string(dtype_name(p.dtype())),
            "Only float variables can be optimized by gradient steps.");
    require(grads[i].defined() && grads[i].shape() == p.shape(), owner,
            "the gradient of '" + p.label() + "' has shape " +
                (grads[i].defined() ? shape_string(grads[i].shape()) : std::string("(undefined)")) + ", not " +
                shape_string(p.shape()),
            "Each gradient has its parameter's shape.");
  }
  ensure_scope();
  std::vector<Tensor> g = grads;
  if (transform_) {
    g = transform_(grads, params);
    require(g.size() == params.size(), owner,
            "the gradient transform returned " + std::to_string(g.size()) + " gradients for " +
                std::to_string(params.size()) + " parameters",
            "Return one gradient per parameter from the function given to set_gradient_transform.");
    for (std::size_t i = 0; i < params.size(); ++i)
      require(g[i].defined() && g[i].shape() == params[i].shape(), owner,
              "the gradient transform returned a gradient of '" + params[i].label() + "' of shape " +
                  (g[i].defined() ? shape_string(g[i].shape()) : std::string("(undefined)")) + ", not " +
                  shape_string(params[i].shape()),
              "Return each gradient with its parameter's shape.");
  }
  if (clipping_.clip_value) g = clip_by_value(g, *clipping_.clip_value, loc);
  if (clipping_.clip_norm) g = clip_by_global_norm(g, *clipping_.clip_norm, loc);
  Updates out, state;
  std::map<DType, std::pair<Tensor, Tensor>> rate_and_t;  // one rate and step number per dtype
  {
    Scope scope(scope_);
    for (std::size_t i = 0; i < params.size(); ++i) {
      DType dtype = params[i].dtype();
      Tensor gi = g[i].dtype() == dtype ? g[i] : astype(g[i], dtype, loc);
      auto& [lr, t] = rate_and_t[dtype];
      if (!lr.defined()) {
        lr = learning_rate_.at(step_, dtype, loc);
        learning_rate_.check_rate(lr, kind_);        // a schedule's rate too
        t = astype(add(step_, 1, loc), dtype, loc);  // 1 for the first update, as PyTorch's step
      }
      out.emplace_back(params[i], update(params[i], gi, lr, t, state, loc));
    }
  }
  out.insert(out.end(), state.begin(), state.end());
  out.emplace_back(step_, add(step_, 1, loc));
  add_updates(out, loc);
  return out;
}

Optimizer& make_distributed(Optimizer& optimizer, distributed::GradientOptions options) {
  if (!(options.bucket_mb > 0))
    throw ValueError("make_distributed: bucket_mb is " + std::to_string(options.bucket_mb) +
                     "; it must be a positive size in MiB (PyTorch's default is 25).");
  optimizer.set_gradient_transform([options](const std::vector<Tensor>& grads, const std::vector<Tensor>& params) {
    distributed::broadcast_variables(params);
    return distributed::average_gradients(grads, options);
  });
  return optimizer;
}

// ---- the update rules ----

SGD::SGD(LearningRate learning_rate, SGDOptions options)
    : Optimizer("SGD", std::move(learning_rate), options.name, options.clipping), options_(std::move(options)) {
  require_non_negative(options_.momentum, kind_, "momentum");
  require_non_negative(options_.dampening, kind_, "dampening");
  require_non_negative(options_.weight_decay, kind_, "weight_decay");
  require(!options_.nesterov || (options_.momentum > 0 && options_.dampening == 0), kind_,
          "nesterov momentum needs momentum > 0 and dampening 0 (momentum is " + number(options_.momentum) +
              ", dampening " + number(options_.dampening) + ")",
          "Set momentum (e.g. 0.9) and dampening 0, or nesterov false.");
}

Tensor SGD::update(const Tensor& p, const Tensor& grad, const Tensor& lr, const Tensor& t, Updates& state, Loc loc) {
  Tensor g = grad;
  if (options_.weight_decay != 0) g = add(g, multiply(p, options_.weight_decay, loc), loc);
  if (options_.momentum != 0) {
    Tensor buf = slot(p, "momentum");
    Tensor next = add(multiply(buf, options_.momentum, loc), multiply(g, 1 - options_.dampening, loc), loc);
    // PyTorch starts the buffer at the first gradient itself, undamped.
    if (options_.dampening != 0) next = where(equal(t, 1, loc), g, next, loc);
    state.emplace_back(buf, next);
    g = options_.nesterov ? add(g, multiply(next, options_.momentum, loc), loc) : next;
  }
  return subtract(p, multiply(g, lr, loc), loc);
}

Adam::Adam(LearningRate learning_rate, AdamOptions options)
    : Adam(std::move(learning_rate), std::move(options), false) {}

Adam::Adam(LearningRate learning_rate, AdamOptions options, bool decoupled)
    : Optimizer(decoupled ? "AdamW" : "Adam", std::move(learning_rate), options.name, options.clipping),
      options_(std::move(options)),
      decoupled_(decoupled) {
  require_beta(options_.beta1, kind_, "beta1");
  require_beta(options_.beta2, kind_, "beta2");
  require_eps(options_.eps, kind_);
  require_non_negative(options_.weight_decay, kind_, "weight_decay");
}

Tensor Adam::update(const Tensor& p, const Tensor& grad, const Tensor& lr, const Tensor& t, Updates& state, Loc loc) {
  const double b1 = options_.beta1, b2 = options_.beta2, wd = options_.weight_decay;
  Tensor g = grad, start = p;
  if (wd != 0 && !decoupled_) g = add(g, multiply(p, wd, loc), loc);
  if (wd != 0 && decoupled_) start = multiply(p, subtract(1, multiply(lr, wd, loc), loc), loc);
  Tensor m = slot(p, "m"), v = slot(p, "v");
  Tensor m1 = lerp(m, g, 1 - b1, loc);
  Tensor v1 = add(multiply(v, b2, loc), multiply(square(g, loc), 1 - b2, loc), loc);
  state.emplace_back(m, m1);
  state.emplace_back(v, v1);
  Tensor second = v1;
  if (options_.amsgrad) {
    Tensor v_max = slot(p, "v_max");
    second = maximum(v_max, v1, loc);
    state.emplace_back(v_max, second);
  }
  Tensor correction1 = subtract(1, power(b1, t, loc), loc);
  Tensor correction2 = subtract(1, power(b2, t, loc), loc);
  Tensor denominator = add(divide(sqrt(second, loc), sqrt(correction2, loc), loc), options_.eps, loc);
  return subtract(start, multiply(divide(lr, correction1, loc), divide(m1, denominator, loc), loc), loc);
}

namespace {
AdamOptions as_adam(AdamWOptions o) {
  return {o.beta1, o.beta2, o.eps, o.weight_decay, o.amsgrad, o.clipping, std::move(o.name)};
}
}  // namespace

AdamW::AdamW(LearningRate learning_rate, AdamWOptions options)
    : Adam(std::move(learning_rate), as_adam(std::move(options)), true) {}

RMSprop::RMSprop(LearningRate learning_rate, RMSpropOptions options)
    : Optimizer("RMSprop", std::move(learning_rate), options.name, options.clipping), options_(std::move(options)) {
  require_beta(options_.alpha, kind_, "alpha");
  require_eps(options_.eps, kind_);
  require_non_negative(options_.momentum, kind_, "momentum");
  require_non_negative(options_.weight_decay, kind_, "weight_decay");
}

Tensor RMSprop::update(const Tensor& p, const Tensor& grad, const Tensor& lr, const Tensor&, Updates& state, Loc loc) {
  const double alpha = options_.alpha;
  Tensor g = grad;
  if (options_.weight_decay != 0) g = add(g, multiply(p, options_.weight_decay, loc), loc);
  Tensor square_avg = slot(p, "square_avg");
  Tensor s1 = add(multiply(square_avg, alpha, loc), multiply(square(g, loc), 1 - alpha, loc), loc);
  state.emplace_back(square_avg, s1);
  Tensor variance = s1;
  if (options_.centered) {
    Tensor grad_avg = slot(p, "grad_avg");
    Tensor a1 = lerp(grad_avg, g, 1 - alpha, loc);
    state.emplace_back(grad_avg, a1);
    variance = subtract(s1, square(a1, loc), loc);
  }
  Tensor direction = divide(g, add(sqrt(variance, loc), options_.eps, loc), loc);
  if (options_.momentum != 0) {
    Tensor buf = slot(p, "momentum");
    direction = add(multiply(buf, options_.momentum, loc), direction, loc);
    state.emplace_back(buf, direction);
  }
  return subtract(p, multiply(direction, lr, loc), loc);
}

Adagrad::Adagrad(LearningRate learning_rate, AdagradOptions options)
    : Optimizer("Adagrad", std::move(learning_rate), options.name, options.clipping), options_(std::move(options)) {
  require_non_negative(options_.lr_decay, kind_, "lr_decay");
  require_non_negative(options_.initial_accumulator_value, kind_, "initial_accumulator_value");
  require_eps(options_.eps, kind_);
  require_non_negative(options_.weight_decay, kind_, "weight_decay");
}

Tensor Adagrad::update(const Tensor& p, const Tensor& grad, const Tensor& lr, const Tensor& t, Updates& state,
                       Loc loc) {
  Tensor g = grad;
  if (options_.weight_decay != 0) g = add(g, multiply(p, options_.weight_decay, loc), loc);
  Tensor rate = lr;
  if (options_.lr_decay != 0)
    rate = divide(lr, add(multiply(subtract(t, 1, loc), options_.lr_decay, loc), 1, loc), loc);
  Tensor sum_sq = slot(p, "sum", options_.initial_accumulator_value);
  Tensor s1 = add(sum_sq, square(g, loc), loc);
  state.emplace_back(sum_sq, s1);
  return subtract(p, multiply(divide(g, add(sqrt(s1, loc), options_.eps, loc), loc), rate, loc), loc);
}

}  // namespace symx::optim
