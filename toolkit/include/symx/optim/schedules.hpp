// symx/optim/schedules.hpp: learning-rate schedules. A schedule is a function of a step tensor
// (the number of updates done so far: 0 for the first update) that returns the learning rate as a
// float64 tensor of the step's shape, built from public ops. An optimizer evaluates its schedule at
// its own step counter, a variable that its updates advance, so a compiled training function uses
// a new rate on every call. Evaluated at a vector of steps, a schedule gives the whole curve at once.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "symx/symx.hpp"

namespace symx::optim::schedules {

// A learning rate as a function of the step: call it with a step tensor (any int or float dtype,
// any shape) to get the rate, float64, of the step's shape. Made by the functions below, or from
// any function of the step (in Python, a callable step -> tensor or number).
// Example: s = Schedule(lambda step: 0.1 / (1 + step)); s(np.arange(3)).eval() is [0.1, 0.05, 0.0333]
class Schedule {
 public:
  using Function = std::function<Tensor(const Tensor& step, Loc loc)>;
  // A schedule computing fn(step) with step cast to float64.
  // Example: Schedule([](const Tensor& step, Loc) { return 0.1 / (1.0 + step); })
  // Python: Schedule(lambda step: 0.1 / (1.0 + step))
  explicit Schedule(Function fn);
  explicit Schedule(std::function<Tensor(const Tensor& step)> fn);
  // The learning rate at `step` (float64, the step's shape).
  // Example: exponential_decay(0.1, 10, 0.5)(np.array([0, 10, 20])).eval() is [0.1, 0.05, 0.025]
  Tensor operator()(const Tensor& step, Loc loc = Loc::current()) const;

 private:
  Function fn_;
};

// The same rate at every step.
// Example: constant(0.1)(np.arange(3)).eval() is [0.1, 0.1, 0.1]
Schedule constant(double value);

// Goes linearly from init_value (step 0) to end_value (step transition_steps), then stays there.
// transition_steps > 0.
// Example: linear(0.0, 1.0, 4)(np.array([0, 2, 4, 9])).eval() is [0.0, 0.5, 1.0, 1.0]
Schedule linear(double init_value, double end_value, std::int64_t transition_steps);

// values[0] before boundaries[0], values[i] for boundaries[i-1] <= step < boundaries[i], and the
// last value from the last boundary on (the step at a boundary takes the next value, as PyTorch's
// MultiStepLR). boundaries: increasing steps; values: one more than boundaries.
// Example: piecewise_constant([10, 20], [0.1, 0.01, 0.001])(np.array([9, 10, 25])).eval() is [0.1, 0.01, 0.001]
Schedule piecewise_constant(const std::vector<std::int64_t>& boundaries, const std::vector<double>& values);

// initial * decay_rate ** (step / decay_steps), with floor(step / decay_steps) when staircase (as
// TensorFlow's ExponentialDecay). decay_steps > 0, decay_rate > 0. With decay_steps=1 it is
// PyTorch's ExponentialLR(gamma=decay_rate).
// Example: exponential_decay(0.1, 10, 0.5)(np.array([0, 5, 10])).eval() is [0.1, 0.0707, 0.05]
Schedule exponential_decay(double initial, std::int64_t decay_steps, double decay_rate, bool staircase = false);

// Cosine decay from initial to initial * alpha over decay_steps, then constant (TensorFlow's
// CosineDecay): initial * ((1 - alpha) * 0.5 * (1 + cos(pi * min(step, decay_steps) / decay_steps)) + alpha).
// decay_steps > 0.
// Example: cosine_decay(1.0, 10)(np.array([0, 5, 10, 20])).eval() is [1.0, 0.5, 0.0, 0.0]
Schedule cosine_decay(double initial, std::int64_t decay_steps, double alpha = 0);

// Cosine decay with warm restarts (SGDR, Loshchilov and Hutter; TensorFlow's CosineDecayRestarts):
// the first period lasts first_decay_steps, each next one t_mul times longer; in period i the rate
// is initial * ((1 - alpha) * m_mul^i * 0.5 * (1 + cos(pi * f)) + alpha) at fraction f of the period.
// first_decay_steps > 0, t_mul >= 1, m_mul >= 0.
// Example: cosine_decay_restarts(1.0, 10)(np.array([0, 5, 10, 20, 30])).eval() is [1.0, 0.5, 1.0, 0.5, 1.0]
Schedule cosine_decay_restarts(double initial, std::int64_t first_decay_steps, double t_mul = 2, double m_mul = 1,
                               double alpha = 0);

// Runs schedules[0] before boundaries[0], then schedules[i] for boundaries[i-1] <= step < boundaries[i],
// each seen from its own step 0 (it gets step - boundaries[i-1]), as optax.join_schedules.
// boundaries: increasing; one fewer than schedules.
// Example: join({linear(0.0, 0.1, 5), cosine_decay(0.1, 95)}, {5}) warms up over 5 steps, then decays
Schedule join(const std::vector<Schedule>& schedules, const std::vector<std::int64_t>& boundaries);

// A linear warm-up before `schedule`: from init_value at step 0 up to schedule's first rate at
// step warmup_steps, then `schedule` from its own step 0 (join of linear and schedule).
// warmup_steps > 0.
// Example: linear_warmup(cosine_decay(0.1, 90), 10)(np.array([0, 5, 10])).eval() is [0.0, 0.05, 0.1]
Schedule linear_warmup(const Schedule& schedule, std::int64_t warmup_steps, double init_value = 0);

}  // namespace symx::optim::schedules
