// The README's loops quick start in C++: scan with its gradient, a while_loop and a cond, bodies
// as lambdas, each compiled once into a function whose loop runs without recompiling.
#include <iostream>

#include <symx/symx.hpp>

namespace sx = symx;
using sx::Tensor;

int main() {
  // A running sum and the sum of squares of its steps.
  Tensor xs = sx::placeholder({sx::kDynamic}, sx::f32, "xs");  // a sequence of any length
  sx::ScanResult r = sx::scan(
      [](const std::vector<Tensor>& s, const std::vector<Tensor>& x, const std::vector<Tensor>&) {
        Tensor next = s[0] + x[0];
        return sx::ScanResult{{next}, {next}};
      },
      {sx::constant(0.0)}, {xs});
  Tensor loss = sx::sum(r.ys[0] * r.ys[0]);
  Tensor g = sx::grad(loss, {xs})[0];  // a reverse scan
  sx::Function f = sx::function({xs}, {r.carry[0], r.ys[0], g});
  for (const sx::Array& out : f({sx::Array::arange(1, 5)})) std::cout << out << "\n";  // 10, [1 3 6 10], [40 38 32 20]

  // Newton's iteration for sqrt(a) until it converges.
  Tensor a = sx::placeholder({}, sx::f32, "a");
  std::vector<Tensor> root =
      sx::while_loop([&](const std::vector<Tensor>& c) { return sx::abs(c[0] * c[0] - a) > 1e-6f * a; },
                     [&](const std::vector<Tensor>& c) { return std::vector<Tensor>{(c[0] + a / c[0]) / 2.0f}; }, {a});
  std::cout << sx::function({a}, root)({sx::Array::scalar(2.0f)})[0] << "\n";  // 1.41421

  // Only the branch taken runs, and only it is differentiated: no NaN from log at x <= 0.
  Tensor x = sx::placeholder({}, sx::f32, "x");
  Tensor y = sx::cond(
      x > 0.0f, [](const std::vector<Tensor>& o) { return std::vector<Tensor>{sx::log(o[0])}; },
      [](const std::vector<Tensor>& o) { return std::vector<Tensor>{o[0]}; }, {x})[0];
  for (const sx::Array& out : sx::function({x}, {y, sx::grad(y, {x})[0]})({sx::Array::scalar(-2.0f)}))
    std::cout << out << "\n";  // -2, 1
  return 0;
}
