// The SymJAX paper's first example: the density of a multivariate normal, written with the
// distribution stats::MultivariateNormal (whose log_prob goes through the Cholesky factor of the
// covariance), evaluated lazily and through a compiled function, on the 5x5 grid of
// linspace(-5, 5, 5)^2.
#include <cmath>
#include <cstdio>
#include <numbers>

#include <symx/stats.hpp>
#include <symx/symx.hpp>

namespace sx = symx;

int main() {
  sx::Tensor axis = sx::linspace(-5, 5, 5);
  std::vector<sx::Tensor> grid = sx::meshgrid({axis, axis});
  sx::Tensor points = sx::stack({sx::reshape(grid[0], {25}), sx::reshape(grid[1], {25})}, 1);
  sx::Tensor mu = sx::placeholder({2}, sx::f32, "mu");
  sx::Tensor cov = sx::placeholder({2, 2}, sx::f32, "cov");
  sx::Tensor pdf = sx::reshape(sx::stats::MultivariateNormal(mu, cov).prob(points), {5, 5});

  sx::Array mean = sx::Array::zeros({2});
  sx::Array identity = sx::Array({{1, 0}, {0, 1}});
  sx::Array lazy = pdf.eval({{mu, mean}, {cov, identity}});
  sx::Function f = sx::function({mu, cov}, {pdf});
  sx::Array compiled = f({mean, identity})[0];

  int failures = 0;
  std::printf("mvn_pdf on the 5x5 grid of linspace(-5, 5, 5) (rounded to 2 decimals):\n");
  for (std::int64_t i = 0; i < 5; ++i) {
    for (std::int64_t j = 0; j < 5; ++j) {
      double v = compiled.at<float>({i, j});
      std::printf("%s%.2f", j ? " " : "  ", v);
      double px = -5 + 2.5 * static_cast<double>(j), py = -5 + 2.5 * static_cast<double>(i);
      double exact = std::exp(-(px * px + py * py) / 2) / (2 * std::numbers::pi);
      if (std::fabs(v - exact) > 1e-6 || std::fabs(lazy.at<float>({i, j}) - exact) > 1e-6) ++failures;
    }
    std::printf("\n");
  }
  std::printf(failures ? "MISMATCH with the closed form in %d cells\n" : "matches the closed form to 1e-6\n", failures);
  return failures ? 1 : 0;
}
