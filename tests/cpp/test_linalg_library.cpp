// The LAPACK library calls of the compiled backend (runtime/library_linalg.cpp) against the
// reference evaluator, for every linear-algebra row but matmul (inv, det, slogdet, cholesky, solve,
// triangular_solve, qr, lu_factor), in float32 and float64, batched and broadcast, forward and
// through gradients; and the singular-matrix errors of the compiled path, which must be the
// reference's (the op, the batch element, the user's line).
#include <string>

#include "test_util.hpp"

namespace sx = symx;
using sx::testing::random_array;

namespace {

bool contains(const std::string& text, const std::string& what) { return text.find(what) != std::string::npos; }

// a + shift * I for a random a: well conditioned.
sx::Array shifted(const sx::Shape& shape, unsigned seed, sx::DType dt, double shift = 3) {
  sx::Array a = random_array(shape, -1, 1, seed, sx::f64);
  std::int64_t n = shape.back(), count = a.size() / (n * n);
  for (std::int64_t b = 0; b < count; ++b)
    for (std::int64_t i = 0; i < n; ++i) a.set_flat(b * n * n + i * n + i, a.get_flat(b * n * n + i * n + i) + shift);
  return a.astype(dt);
}

double rtol_of(sx::DType dt) { return dt == sx::f32 ? 2e-4 : 1e-10; }
double atol_of(sx::DType dt) { return dt == sx::f32 ? 2e-5 : 1e-11; }

// Both backends agree; the compiled program runs every listed call as a LAPACK library call.
void check(const std::vector<sx::Tensor>& in, const std::vector<sx::Tensor>& out, const std::vector<sx::Array>& values,
           sx::DType dt, const std::vector<std::string>& calls) {
  std::string text = sx::testing::expect_backends_agree(in, out, values, rtol_of(dt), atol_of(dt));
  for (const auto& c : calls)
    EXPECT_TRUE(contains(text, std::string("library call (LAPACK ") + (dt == sx::f32 ? "float32 " : "float64 ") + c))
        << "missing " << c << " in\n"
        << text;
}

class LinalgLibrary : public ::testing::TestWithParam<sx::DType> {};

}  // namespace

TEST_P(LinalgLibrary, InvDetSlogdet) {
  const sx::DType dt = GetParam();
  sx::reset_default_graph();
  auto a = sx::placeholder({2, 3, 4, 4}, dt, "a");
  auto inv = sx::linalg::inv(a);
  auto det = sx::linalg::det(a);
  auto [sign, logabs] = sx::linalg::slogdet(a);
  auto g = sx::grad(sx::sum(inv * 0.5) + sx::sum(det) + sx::sum(logabs), {a});
  check({a}, {inv, det, sign, logabs, g[0]}, {shifted({2, 3, 4, 4}, 1, dt)}, dt, {"getrf + getri", "getrf)"});
}

TEST_P(LinalgLibrary, CholeskyReadsTheSymmetricPart) {
  const sx::DType dt = GetParam();
  sx::reset_default_graph();
  auto b = sx::placeholder({3, 5, 5}, dt, "b");
  // Not symmetric: both backends factor (b + b^T) / 2.
  auto l = sx::linalg::cholesky(b);
  auto g = sx::grad(sx::sum(l * l), {b});
  check({b}, {l, g[0]}, {shifted({3, 5, 5}, 2, dt, 6)}, dt, {"potrf"});
}

TEST_P(LinalgLibrary, SolveBroadcastsBatches) {
  const sx::DType dt = GetParam();
  sx::reset_default_graph();
  auto a = sx::placeholder({2, 1, 4, 4}, dt, "a");
  auto b = sx::placeholder({1, 3, 4, 2}, dt, "b");
  auto x = sx::linalg::solve(a, b);  // (2, 3, 4, 2)
  auto g = sx::grad(sx::sum(x * x), {a, b});
  check({a, b}, {x, g[0], g[1]}, {shifted({2, 1, 4, 4}, 3, dt), random_array({1, 3, 4, 2}, -1, 1, 4, dt)}, dt,
        {"getrf + trsm"});
}

TEST_P(LinalgLibrary, TriangularSolveEveryVariant) {
  const sx::DType dt = GetParam();
  for (bool lower : {true, false})
    for (bool trans : {false, true})
      for (bool unit : {false, true}) {
        SCOPED_TRACE(std::string("lower ") + (lower ? "1" : "0") + " trans " + (trans ? "1" : "0") + " unit " +
                     (unit ? "1" : "0"));
        sx::reset_default_graph();
        auto a = sx::placeholder({2, 4, 4}, dt, "a");
        auto b = sx::placeholder({2, 4, 3}, dt, "b");
        auto x = sx::linalg::triangular_solve(a, b, lower, trans, unit);
        auto g = sx::grad(sx::sum(x * x), {a, b});
        check({a, b}, {x, g[0], g[1]}, {shifted({2, 4, 4}, 5, dt), random_array({2, 4, 3}, -1, 1, 6, dt)}, dt,
              {"trsm"});
      }
}

TEST_P(LinalgLibrary, QrEveryModeAndShape) {
  const sx::DType dt = GetParam();
  for (sx::Shape shape : {sx::Shape{5, 3}, sx::Shape{3, 3}, sx::Shape{2, 3, 5}})
    for (const char* mode : {"reduced", "complete", "r"}) {
      SCOPED_TRACE(sx::shape_string(shape) + " " + mode);
      sx::reset_default_graph();
      auto a = sx::placeholder(shape, dt, "a");
      auto parts = sx::linalg::qr(a, mode);
      std::vector<sx::Tensor> outs(parts.begin(), parts.end());
      bool differentiable = std::string(mode) != "complete" || shape[shape.size() - 2] <= shape.back();
      if (differentiable) {
        sx::Tensor cost = sx::sum(parts.back() * parts.back());
        if (parts.size() == 2) cost = cost + sx::sum(sx::sin(parts[0]));
        outs.push_back(sx::grad(cost, {a})[0]);
      }
      check({a}, outs, {random_array(shape, -1, 1, 7, dt)}, dt,
            {std::string(mode) == "r" ? "geqrf)" : "geqrf + orgqr"});
    }
}

TEST_P(LinalgLibrary, LuFactorTallWideAndBatched) {
  const sx::DType dt = GetParam();
  for (sx::Shape shape : {sx::Shape{4, 4}, sx::Shape{5, 3}, sx::Shape{3, 5}, sx::Shape{2, 3, 3}}) {
    SCOPED_TRACE(sx::shape_string(shape));
    sx::reset_default_graph();
    auto a = sx::placeholder(shape, dt, "a");
    auto [lu, piv] = sx::linalg::lu_factor(a);
    auto plu = sx::linalg::lu(a);
    auto g = sx::grad(sx::sum(lu * lu) + sx::sum(sx::sin(plu[2])), {a});
    check({a}, {lu, piv, plu[0], plu[1], plu[2], g[0]}, {random_array(shape, -1, 1, 8, dt)}, dt, {"getrf)"});
  }
}

INSTANTIATE_TEST_SUITE_P(Dtypes, LinalgLibrary, ::testing::Values(sx::f32, sx::f64),
                         [](const auto& info) { return std::string(sx::dtype_name(info.param)); });

// Singular and indefinite inputs: the compiled call raises the reference's ValueError, word for word.
TEST(LinalgLibraryErrors, SingularMatricesNameTheOpTheBatchElementAndTheLine) {
  for (sx::DType dt : {sx::f32, sx::f64}) {
    sx::reset_default_graph();
    auto a = sx::placeholder({2, 2, 2}, dt, "a");
    sx::Array v = sx::Array::from_vector(std::vector<double>{1, 0, 0, 1, 1, 2, 2, 4}, {2, 2, 2})
                      .astype(dt);  // element 1 singular
    sx::Array spd_not = sx::Array::from_vector(std::vector<double>{2, 0, 0, 2, 1, 2, 2, 1}, {2, 2, 2}).astype(dt);
    auto rhs = sx::constant(sx::Array::from_vector(std::vector<double>{1, 1}, {2}).astype(dt));
    auto tri = sx::constant(sx::Array::from_vector(std::vector<double>{1, 0, 0, 1, 1, 0, 3, 0}, {2, 2, 2}).astype(dt));
    struct Case {
      sx::Tensor y;
      sx::Array value;
      std::string words;
    };
    std::vector<Case> cases = {
        {sx::linalg::inv(a), v, "inv: the matrix is singular (batch element 1) (pivot 2 is zero), at "},
        {sx::linalg::solve(a, rhs), v,
         "solve: the coefficient matrix is singular (batch element 1) (pivot 2 is zero), at "},
        {sx::linalg::cholesky(a), spd_not,
         "cholesky: the matrix is not positive definite (batch element 1) (the leading minor of order 2 is not "
         "positive), at "},
        {sx::linalg::triangular_solve(a * tri, rhs), v,
         "triangular_solve: the triangular matrix is singular (batch element 1) (diagonal element 1 is zero), at "},
    };
    for (auto& c : cases) {
      SCOPED_TRACE(c.words);
      std::string reference, compiled;
      try {
        sx::function({a}, {c.y}, {}, {sx::Backend::reference})({c.value});
      } catch (const sx::ValueError& e) {
        reference = e.what();
      }
      try {
        sx::function({a}, {c.y}, {}, {sx::Backend::compiled})({c.value});
      } catch (const sx::ValueError& e) {
        compiled = e.what();
      }
      EXPECT_TRUE(contains(reference, c.words)) << reference;
      EXPECT_TRUE(contains(reference, "test_linalg_library.cpp:")) << reference;
      EXPECT_EQ(compiled, reference);
    }
  }
}

// det and slogdet of a singular matrix are 0 and (0, -inf) on both backends (no error, as NumPy).
TEST(LinalgLibraryErrors, SingularDeterminantsAreZero) {
  for (sx::DType dt : {sx::f32, sx::f64}) {
    sx::reset_default_graph();
    auto a = sx::placeholder({2, 2}, dt, "a");
    auto [sign, logabs] = sx::linalg::slogdet(a);
    sx::Array v = sx::Array::from_vector(std::vector<double>{1, 2, 2, 4}, {2, 2}).astype(dt);
    auto out = sx::function({a}, {sx::linalg::det(a), sign, logabs}, {}, {sx::Backend::compiled})({v});
    EXPECT_EQ(out[0].get_flat(0), 0.0);
    EXPECT_EQ(out[1].get_flat(0), 0.0);
    EXPECT_EQ(out[2].get_flat(0), -std::numeric_limits<double>::infinity());
  }
}
