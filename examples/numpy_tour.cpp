// The README's NumPy quick start in C++: sorting, running products, indexed updates, einsum, special
// functions and per-op seeds, each a graph op with its gradient, compiled by sx::function.
#include <iostream>

#include <symx/symx.hpp>

namespace sx = symx;
using sx::Tensor;

int main() {
  Tensor x = sx::placeholder({4}, sx::f32, "x");
  Tensor dx = sx::grad(sx::sum(sx::cumprod(x)), {x})[0];
  sx::Function f = sx::function({x}, {sx::sort(x), sx::median(x), sx::cumprod(x), dx});
  sx::Array data = sx::Array::from_vector<float>({3, 0, 2, 1}, {4});
  for (const sx::Array& out : f({data})) std::cout << out << "\n";  // [0 1 2 3], 1.5, [3 0 0 0], [1 15 0 0]

  // at(x, index) is JAX's x.at[index]: an updated copy; repeated indices add up.
  Tensor where = sx::constant(sx::Array::from_vector<std::int64_t>({1, 3, 1}, {3}));
  std::cout << sx::at(sx::zeros({4}), {where}).add(1.0).eval() << "\n";  // [0 2 0 1]

  // einsum contracts through one batched matrix product; special functions are fused kernels.
  Tensor q = sx::placeholder({2, 3, 4}, sx::f32, "q");
  std::cout << sx::einsum("bqd,bkd->bqk", {q, q}).shape().size() << " axes, ";
  std::cout << sx::special::gammaln(sx::constant(5.0f)).eval() << "\n";  // 3 axes, log(24)

  // A draw with its own seed is reproducible whatever the global seed; size= makes nonzero compilable.
  std::cout << sx::random::gamma(2.0, sx::Shape{3}, sx::f32, 7).eval() << "\n";
  std::cout << sx::nonzero(x > 1, 3, -1)[0].eval({{x, data}}) << "\n";  // [0 2 -1]
}
