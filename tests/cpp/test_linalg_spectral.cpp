// The spectral decompositions (symx/linalg.hpp): the compiled backend's LAPACK calls (ssyevd / dsyevd,
// sgesdd / dgesdd, one workspace per thread, a batch of small matrices in parallel) against the
// reference evaluator, reconstructions a = v diag(w) v^T and a = u diag(s) vh with hand-made spectra,
// and the errors (NaN input naming the op, the batch element and the line; shapes; full_matrices
// gradients).
#include <cmath>
#include <limits>

#include "symx/linalg.hpp"
#include "test_util.hpp"

namespace symx {
namespace {

using testing::expect_backends_agree;
using testing::expect_close;
using testing::expect_error;
using testing::expect_gradients_match;
using testing::random_array;

Tensor mT(const Tensor& x) {
  std::vector<int> perm;
  for (int i = 0; i < x.ndim(); ++i) perm.push_back(i);
  std::swap(perm[perm.size() - 1], perm[perm.size() - 2]);
  return transpose(x, perm);
}

// A symmetric (batch..., n, n) matrix with the eigenvalues 1, 2.5, 4, ... (about 1.5 apart) in a random basis,
// from Gram-Schmidt on random columns.
Array spread_symmetric(std::int64_t n, unsigned seed, Shape batch = {}, DType dtype = DType::f64) {
  std::int64_t count = num_elements(batch);
  Shape shape = batch;
  shape.push_back(n);
  shape.push_back(n);
  Array out(shape, DType::f64);
  for (std::int64_t b = 0; b < count; ++b) {
    Array r = random_array({n, n}, -1, 1, seed + static_cast<unsigned>(b));
    std::vector<double> q(static_cast<std::size_t>(n * n));
    for (std::int64_t j = 0; j < n; ++j) {
      for (std::int64_t i = 0; i < n; ++i) q[static_cast<std::size_t>(i * n + j)] = r.get_flat(i * n + j);
      for (std::int64_t k = 0; k < j; ++k) {
        double d = 0;
        for (std::int64_t i = 0; i < n; ++i)
          d += q[static_cast<std::size_t>(i * n + j)] * q[static_cast<std::size_t>(i * n + k)];
        for (std::int64_t i = 0; i < n; ++i)
          q[static_cast<std::size_t>(i * n + j)] -= d * q[static_cast<std::size_t>(i * n + k)];
      }
      double norm = 0;
      for (std::int64_t i = 0; i < n; ++i)
        norm += q[static_cast<std::size_t>(i * n + j)] * q[static_cast<std::size_t>(i * n + j)];
      for (std::int64_t i = 0; i < n; ++i) q[static_cast<std::size_t>(i * n + j)] /= std::sqrt(norm);
    }
    for (std::int64_t i = 0; i < n; ++i)
      for (std::int64_t j = 0; j < n; ++j) {
        double s = 0;
        for (std::int64_t k = 0; k < n; ++k)
          s += q[static_cast<std::size_t>(i * n + k)] * (1 + 1.5 * static_cast<double>(k)) *
               q[static_cast<std::size_t>(j * n + k)];
        out.set_flat(b * n * n + i * n + j, s);
      }
  }
  return out.astype(dtype);
}

TEST(LinalgSpectral, EighOfAKnownSpectrum) {
  reset_default_graph();
  Array a = spread_symmetric(5, 3);
  auto [w, v] = linalg::eigh(constant(a));
  expect_close(w.eval(), {1, 2.5, 4, 5.5, 7}, 1e-12, 1e-12);
  Tensor rebuilt = matmul(v * expand_dims(w, 0), transpose(v));
  expect_close(rebuilt.eval(), a, 1e-12, 1e-12);
  expect_close(linalg::eigvalsh(constant(a)).eval(), {1, 2.5, 4, 5.5, 7}, 1e-12, 1e-12);
}

TEST(LinalgSpectral, SvdOfAKnownSpectrum) {
  reset_default_graph();
  // a = diag(3, -2) padded to 3 x 2: singular values 3, 2
  Array a = Array::from_vector(std::vector<double>{3, 0, 0, -2, 0, 0}, {3, 2});
  auto [u, s, vh] = linalg::svd(constant(a), false);
  expect_close(s.eval(), {3, 2}, 1e-14, 1e-14);
  expect_close(matmul(u * expand_dims(s, 0), vh).eval(), a, 1e-14, 1e-14);
  auto [uf, sf, vhf] = linalg::svd(constant(a), true);
  EXPECT_EQ(uf.shape(), (Shape{3, 3}));
  EXPECT_EQ(vhf.shape(), (Shape{2, 2}));
  expect_close(matmul(transpose(uf), uf).eval(), {1, 0, 0, 0, 1, 0, 0, 0, 1}, 1e-14, 1e-14);
  expect_close(linalg::svdvals(constant(a)).eval(), {3, 2}, 1e-14, 1e-14);
  expect_close(linalg::matrix_norm(constant(a), "2").eval(), {3}, 1e-14);
  expect_close(linalg::matrix_norm(constant(a), "nuc").eval(), {5}, 1e-14);
}

// Every route of the call: float32 and float64, one matrix (OpenBLAS's threads) and batches of small ones
// (one per thread), square and not.
TEST(LinalgSpectral, CompiledCallsMatchTheReference) {
  for (DType dt : {DType::f32, DType::f64}) {
    for (Shape batch : {Shape{}, Shape{7}, Shape{2, 3}}) {
      for (std::int64_t n : {4, 140}) {
        if (n == 140 && !batch.empty() && batch.size() > 1) continue;
        reset_default_graph();
        Shape shape = batch;
        shape.push_back(n);
        shape.push_back(n);
        Array a = spread_symmetric(n, 11, batch, dt);
        Tensor x = placeholder(shape, dt, "x");
        auto [w, v] = linalg::eigh(x);
        double tol = dt == DType::f32 ? 2e-4 * static_cast<double>(n) : 1e-10;
        std::string text = expect_backends_agree({x}, {w, v, linalg::eigvalsh(x)}, {a}, tol, tol);
        EXPECT_NE(text.find(dt == DType::f32 ? "LAPACK ssyevd" : "LAPACK dsyevd"), std::string::npos) << text;
        if (num_elements(batch) > 1 && n == 4) {
          EXPECT_NE(text.find("threads"), std::string::npos) << text;
        }
      }
      for (auto [m, n] : {std::pair<std::int64_t, std::int64_t>{5, 3}, {3, 6}, {130, 129}}) {
        if (m == 130 && batch.size() > 1) continue;
        reset_default_graph();
        Shape shape = batch;
        shape.push_back(m);
        shape.push_back(n);
        Array a = random_array(shape, -1, 1, 5, dt);
        Tensor x = placeholder(shape, dt, "x");
        auto [u, s, vh] = linalg::svd(x, false);
        auto [uf, sf, vhf] = linalg::svd(x, true);
        // The products u diag(s) vh, u u^T and vh^T vh: the same in both backends whatever the vectors' rotation
        // where singular values are close in float32.
        Tensor rebuilt = matmul(u * expand_dims(s, -2), vh);
        double tol = dt == DType::f32 ? 1e-4 : 1e-10;
        std::string text =
            expect_backends_agree({x}, {s, rebuilt, linalg::svdvals(x), sf, matmul(mT(uf), uf)}, {a}, tol, tol);
        EXPECT_NE(text.find(dt == DType::f32 ? "LAPACK sgesdd" : "LAPACK dgesdd"), std::string::npos) << text;
        EXPECT_NE(text.find("(full)"), std::string::npos) << text;
        EXPECT_NE(text.find("(values)"), std::string::npos) << text;
        if (dt == DType::f64) {
          expect_backends_agree({x}, {u, vh, uf, vhf}, {a}, 1e-9, 1e-9);
        }
      }
    }
  }
}

TEST(LinalgSpectral, NanInputIsAValueErrorNamingTheBatchElementAndTheLine) {
  for (Backend backend : {Backend::reference, Backend::compiled}) {
    for (DType dt : {DType::f32, DType::f64}) {
      reset_default_graph();
      Array a = spread_symmetric(3, 1, {3}, dt);
      a.set_flat(2 * 9 + 3, std::numeric_limits<double>::quiet_NaN());  // element 2, row 1, column 0
      Tensor x = placeholder({3, 3, 3}, dt, "x");
      Tensor w = linalg::eigvalsh(x);
      int line = __LINE__ - 1;
      Tensor s = linalg::svdvals(x);
      int line_s = __LINE__ - 1;
      auto f = function({x}, {w}, {}, {backend});
      expect_error<ValueError>([&] { f({a}); }, {"eigvalsh: the matrix (batch element 2) has a NaN or infinite entry",
                                                 "test_linalg_spectral.cpp:" + std::to_string(line), "LinAlgError"});
      auto g = function({x}, {s}, {}, {backend});
      expect_error<ValueError>([&] { g({a}); }, {"svdvals: the matrix (batch element 2)",
                                                 "test_linalg_spectral.cpp:" + std::to_string(line_s)});
    }
  }
}

TEST(LinalgSpectral, ShapeErrors) {
  reset_default_graph();
  expect_error<ShapeError>([] { linalg::eigh(placeholder({3, 4}, DType::f32)); }, {"eigh", "square", "(3, 4)"});
  expect_error<ShapeError>([] { linalg::svd(placeholder({4}, DType::f32)); }, {"svd", "at least 2 dimensions"});
  expect_error<ValueError>([] { linalg::eigvalsh(placeholder({2, 2}, DType::f32), "Q"); }, {"UPLO must be 'L' or 'U'"});
}

TEST(LinalgSpectral, FullMatricesGradientsOfTheVectorsAreAnError) {
  reset_default_graph();
  Tensor x = placeholder({4, 3}, DType::f64, "x");
  auto [u, s, vh] = linalg::svd(x, true);
  expect_error<ValueError>([&] { grad(sum(u), {x}); }, {"svd", "full_matrices=False"});
  Array a = random_array({4, 3}, -1, 1, 9);
  expect_gradients_match([](const std::vector<Tensor>& in) { return std::get<1>(linalg::svd(in[0], true)); }, {a});
}

TEST(LinalgSpectral, GradientsMatchFiniteDifferences) {
  reset_default_graph();
  Array a = spread_symmetric(4, 2);
  expect_gradients_match([](const std::vector<Tensor>& in) { return linalg::eigvalsh(in[0]); }, {a});
  expect_gradients_match([](const std::vector<Tensor>& in) { return linalg::eigh(in[0]).second; }, {a}, 1e-5, 1e-6);
  Array b = random_array({2, 5, 3}, -1, 1, 4);
  expect_gradients_match([](const std::vector<Tensor>& in) { return std::get<0>(linalg::svd(in[0], false)); }, {b},
                         1e-5, 1e-6);
  expect_gradients_match([](const std::vector<Tensor>& in) { return linalg::pinv(in[0]); }, {b}, 1e-5, 1e-6);
}

}  // namespace
}  // namespace symx
