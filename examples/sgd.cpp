// The SymJAX paper's second example: gradient descent on cost = exp(-(mu - 1)^2) with the update
// mu <- mu - 0.2 * dcost/dmu applied by a function, ten calls.
#include <cmath>
#include <cstdio>

#include <symx/symx.hpp>

namespace sx = symx;

int main() {
  sx::Tensor mu = sx::variable(sx::Array::scalar(-1.1842843f), "mu");
  sx::Tensor cost = sx::exp(-sx::square(mu - 1));
  sx::Tensor dmu = sx::grad(cost, {mu})[0];
  sx::Function step = sx::function({}, {cost}, {{mu, mu - 0.2f * dmu}});

  const double expected[10] = {0.008471076, 0.008201109,  0.007946267, 0.007705368, 0.0074773384,
                               0.007261208, 0.0070561105, 0.006861261, 0.006675923, 0.006499458};
  int failures = 0;
  for (int i = 0; i < 10; ++i) {
    double c = step({})[0].item<double>();
    bool ok = std::fabs(c - expected[i]) <= 1e-5 * expected[i];
    failures += !ok;
    std::printf("step %d: cost %.10g%s\n", i + 1, c, ok ? "" : "   <- expected different value");
  }
  std::printf(failures ? "%d costs differ from the paper's\n" : "all ten costs match the paper's within 1e-5\n",
              failures);
  return failures ? 1 : 0;
}
