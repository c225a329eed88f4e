#include "symx/optim/schedules.hpp"

#include <cmath>
#include <numbers>
#include <string>
#include <utility>

namespace symx::optim::schedules {

namespace {

void require(bool ok, const std::string& what, const std::string& fix) {
  if (!ok) throw ValueError(what + ". " + fix);
}

void require_increasing(const std::vector<std::int64_t>& boundaries, const char* fn) {
  for (std::size_t i = 0; i < boundaries.size(); ++i) {
    require(boundaries[i] >= 0, std::string(fn) + ": boundary " + std::to_string(boundaries[i]) + " is negative",
            "Boundaries are step numbers, 0 or more.");
    require(i == 0 || boundaries[i] > boundaries[i - 1],
            std::string(fn) + ": boundaries must increase, got " + std::to_string(boundaries[i - (i > 0)]) + " then " +
                std::to_string(boundaries[i]),
            "Sort the boundaries and remove repeated ones.");
  }
}

// A rate of the step's shape, float64, equal to `value` everywhere.
Tensor filled(const Tensor& step, double value, Loc loc) { return add(multiply(step, 0.0, loc), value, loc); }

}  // namespace

Schedule::Schedule(Function fn) : fn_(std::move(fn)) {
  if (!fn_) throw ValueError("Schedule: the function is empty. Pass a function of the step that returns the rate.");
}

Schedule::Schedule(std::function<Tensor(const Tensor& step)> fn)
    : Schedule(fn ? Function([fn](const Tensor& step, Loc) { return fn(step); }) : Function()) {}

Tensor Schedule::operator()(const Tensor& step, Loc loc) const {
  if (!is_floating(step.dtype()) && step.dtype() != DType::i32 && step.dtype() != DType::i64)
    throw DTypeError("Schedule: the step '" + step.label() + "' has dtype " + std::string(dtype_name(step.dtype())) +
                     "; a step is an int or float tensor. Pass the step count (an optimizer's `step`).");
  Tensor s = step.dtype() == DType::f64 ? step : astype(step, DType::f64, loc);
  Tensor rate = fn_(s, loc);
  if (!rate.defined() || !is_floating(rate.dtype()))
    throw ValueError(
        "Schedule: the schedule's function returned " +
        (rate.defined() ? "a " + std::string(dtype_name(rate.dtype())) + " tensor" : std::string("nothing")) +
        " for step '" + step.label() + "'. A schedule returns the rate as a float tensor.");
  return rate.dtype() == DType::f64 ? rate : astype(rate, DType::f64, loc);
}

Schedule constant(double value) {
  return Schedule([value](const Tensor& s, Loc loc) { return filled(s, value, loc); });
}

Schedule linear(double init_value, double end_value, std::int64_t transition_steps) {
  require(transition_steps > 0, "linear: transition_steps is " + std::to_string(transition_steps),
          "It is the number of steps from init_value to end_value, at least 1.");
  double steps = static_cast<double>(transition_steps);
  return Schedule([=](const Tensor& s, Loc loc) {
    Tensor fraction = divide(clip(s, 0.0, steps, loc), steps, loc);
    return add(multiply(fraction, end_value - init_value, loc), init_value, loc);
  });
}

Schedule piecewise_constant(const std::vector<std::int64_t>& boundaries, const std::vector<double>& values) {
  require(values.size() == boundaries.size() + 1,
          "piecewise_constant: " + std::to_string(values.size()) + " values for " + std::to_string(boundaries.size()) +
              " boundaries",
          "Give one value more than boundaries: the value before the first boundary, then one from each boundary on.");
  require_increasing(boundaries, "piecewise_constant");
  return Schedule([=](const Tensor& s, Loc loc) {
    Tensor rate = filled(s, values[0], loc);
    for (std::size_t i = 0; i < boundaries.size(); ++i)
      rate = where(greater_equal(s, static_cast<double>(boundaries[i]), loc), values[i + 1], rate, loc);
    return rate;
  });
}

Schedule exponential_decay(double initial, std::int64_t decay_steps, double decay_rate, bool staircase) {
  require(decay_steps > 0, "exponential_decay: decay_steps is " + std::to_string(decay_steps),
          "It is the number of steps over which the rate is multiplied by decay_rate, at least 1.");
  require(decay_rate > 0, "exponential_decay: decay_rate is " + std::to_string(decay_rate),
          "Use a positive factor, such as 0.96 (below 1 decays).");
  double steps = static_cast<double>(decay_steps);
  return Schedule([=](const Tensor& s, Loc loc) {
    Tensor p = divide(s, steps, loc);
    if (staircase) p = floor(p, loc);
    return multiply(power(decay_rate, p, loc), initial, loc);
  });
}

namespace {

// The cosine decay of one period, at `fraction` in [0, 1] of it: 1 at 0, alpha at 1.
Tensor cosine_factor(const Tensor& fraction, double alpha, Loc loc) {
  Tensor cosine = multiply(add(cos(multiply(fraction, std::numbers::pi, loc), loc), 1.0, loc), 0.5, loc);
  return add(multiply(cosine, 1 - alpha, loc), alpha, loc);
}

// The number of restarts before `fraction` (the step in units of the first period) for periods
// growing by t_mul > 1: the largest i with start(i) = (t_mul^i - 1) / (t_mul - 1) <= fraction.
// The logarithm's guess is corrected by one either way, so that a step exactly at a restart
// belongs to the new period whatever the rounding of log.
std::pair<Tensor, Tensor> restart_and_start(const Tensor& fraction, double t_mul, Loc loc) {
  auto start = [&](const Tensor& i) { return divide(subtract(power(t_mul, i, loc), 1.0, loc), t_mul - 1, loc); };
  Tensor guess = floor(divide(log(add(multiply(fraction, t_mul - 1, loc), 1.0, loc), loc), std::log(t_mul), loc), loc);
  Tensor i = where(less(fraction, start(guess), loc), subtract(guess, 1.0, loc), guess, loc);
  i = where(greater_equal(fraction, start(add(i, 1.0, loc)), loc), add(i, 1.0, loc), i, loc);
  return {i, start(i)};
}

}  // namespace

Schedule cosine_decay(double initial, std::int64_t decay_steps, double alpha) {
  require(decay_steps > 0, "cosine_decay: decay_steps is " + std::to_string(decay_steps),
          "It is the number of steps from the initial rate to initial * alpha, at least 1.");
  double steps = static_cast<double>(decay_steps);
  return Schedule([=](const Tensor& s, Loc loc) {
    Tensor fraction = divide(clip(s, 0.0, steps, loc), steps, loc);
    return multiply(cosine_factor(fraction, alpha, loc), initial, loc);
  });
}

Schedule cosine_decay_restarts(double initial, std::int64_t first_decay_steps, double t_mul, double m_mul,
                               double alpha) {
  require(first_decay_steps > 0, "cosine_decay_restarts: first_decay_steps is " + std::to_string(first_decay_steps),
          "It is the length of the first period, at least 1 step.");
  require(t_mul >= 1, "cosine_decay_restarts: t_mul is " + std::to_string(t_mul),
          "Each period is t_mul times the previous one: use t_mul >= 1 (1 for equal periods).");
  require(m_mul >= 0, "cosine_decay_restarts: m_mul is " + std::to_string(m_mul),
          "Each restart's peak is m_mul times the previous one: use m_mul >= 0.");
  double first = static_cast<double>(first_decay_steps);
  return Schedule([=](const Tensor& s, Loc loc) {
    Tensor fraction = divide(maximum(s, 0.0, loc), first, loc);
    Tensor restart, within;
    if (t_mul == 1) {
      restart = floor(fraction, loc);
      within = subtract(fraction, restart, loc);
    } else {
      auto [i, start] = restart_and_start(fraction, t_mul, loc);
      restart = i;
      within = divide(subtract(fraction, start, loc), power(t_mul, i, loc), loc);
    }
    // As TensorFlow: m_mul scales the cosine part only, so every period still ends at initial * alpha.
    Tensor cosine = multiply(add(cos(multiply(within, std::numbers::pi, loc), loc), 1.0, loc), 0.5, loc);
    Tensor decayed = add(multiply(multiply(power(m_mul, restart, loc), cosine, loc), 1 - alpha, loc), alpha, loc);
    return multiply(decayed, initial, loc);
  });
}

Schedule join(const std::vector<Schedule>& schedules, const std::vector<std::int64_t>& boundaries) {
  require(!schedules.empty() && boundaries.size() + 1 == schedules.size(),
          "join: " + std::to_string(schedules.size()) + " schedules for " + std::to_string(boundaries.size()) +
              " boundaries",
          "Give one boundary fewer than schedules: the step at which each schedule after the first takes over.");
  require_increasing(boundaries, "join");
  return Schedule([=](const Tensor& s, Loc loc) {
    Tensor rate = schedules[0](s, loc);
    for (std::size_t i = 0; i < boundaries.size(); ++i) {
      double b = static_cast<double>(boundaries[i]);
      Tensor later = schedules[i + 1](maximum(subtract(s, b, loc), 0.0, loc), loc);
      rate = where(greater_equal(s, b, loc), later, rate, loc);
    }
    return rate;
  });
}

Schedule linear_warmup(const Schedule& schedule, std::int64_t warmup_steps, double init_value) {
  require(warmup_steps > 0, "linear_warmup: warmup_steps is " + std::to_string(warmup_steps),
          "It is the number of warm-up steps, at least 1 (without warm-up, use the schedule itself).");
  double steps = static_cast<double>(warmup_steps);
  Schedule warm([=](const Tensor& s, Loc loc) {
    Tensor peak = schedule(multiply(s, 0.0, loc), loc);
    Tensor fraction = divide(clip(s, 0.0, steps, loc), steps, loc);
    return add(multiply(subtract(peak, init_value, loc), fraction, loc), init_value, loc);
  });
  return join({warm, schedule}, {warmup_steps});
}

}  // namespace symx::optim::schedules
