// The README's C++ quick start, as a complete program: least squares by gradient descent.
#include <cmath>
#include <iostream>

#include <symx/symx.hpp>

namespace sx = symx;

int main() {
  // 32 examples of 10 features; the targets are a fixed linear function of the features.
  sx::Array xb({32, 10}, sx::f32), yb({32, 1}, sx::f32);
  for (int i = 0; i < 32; ++i) {
    float target = 0;
    for (int j = 0; j < 10; ++j) {
      float feature = std::sin(0.7f * static_cast<float>(i * 10 + j));
      xb.at<float>({i, j}) = feature;
      target += feature * static_cast<float>(j + 1) / 10;
    }
    yb.at<float>({i, 0}) = target;
  }

  auto x = sx::placeholder({32, 10}, sx::f32, "x");
  auto y = sx::placeholder({32, 1}, sx::f32, "y");
  auto w = sx::variable(sx::Array::zeros({10, 1}), "w");
  auto loss = sx::mean(sx::square(sx::matmul(x, w) - y));
  auto gw = sx::grad(loss, {w})[0];
  auto step = sx::function({x, y}, {loss}, {{w, w - 0.1f * gw}});
  for (int i = 0; i < 10; ++i) std::cout << "step " << i << ": loss " << step({xb, yb})[0] << "\n";
  std::cout << "final loss " << loss.eval({{x, xb}, {y, yb}}) << "\n";  // lazy evaluation, no function
}
