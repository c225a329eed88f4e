// Linear algebra: matmul (batched, broadcasting, 1-D operands, promotion), dot, outer, inv, det,
// slogdet, cholesky, solve and triangular_solve: values, gradients (also second order) and errors.
#include <cmath>
#include <limits>

#include "test_util.hpp"

namespace symx {
namespace {

using testing::expect_close;
using testing::expect_error;
using testing::expect_gradients_match;
using testing::random_array;

// Naive (..., m, k) x (..., k, n) product of two arrays with equal batch dims, in double.
Array naive_matmul(const Array& a, const Array& b) {
  std::int64_t m = a.shape()[a.ndim() - 2], k = a.shape()[a.ndim() - 1], n = b.shape()[b.ndim() - 1];
  Shape out_shape(a.shape().begin(), a.shape().end() - 2);
  std::int64_t batch = num_elements(out_shape);
  out_shape.push_back(m);
  out_shape.push_back(n);
  Array out(out_shape, DType::f64);
  for (std::int64_t bi = 0; bi < batch; ++bi)
    for (std::int64_t i = 0; i < m; ++i)
      for (std::int64_t j = 0; j < n; ++j) {
        double s = 0;
        for (std::int64_t p = 0; p < k; ++p)
          s += a.get_flat(bi * m * k + i * k + p) * b.get_flat(bi * k * n + p * n + j);
        out.set_flat(bi * m * n + i * n + j, s);
      }
  return out;
}

// A well-conditioned (n, n) matrix: random plus n on the diagonal.
Array well_conditioned(std::int64_t n, unsigned seed, Shape batch = {}) {
  Shape shape = batch;
  shape.push_back(n);
  shape.push_back(n);
  Array a = random_array(shape, -1, 1, seed);
  for (std::int64_t b = 0; b < num_elements(batch); ++b)
    for (std::int64_t i = 0; i < n; ++i)
      a.set_flat(b * n * n + i * n + i, a.get_flat(b * n * n + i * n + i) + static_cast<double>(n));
  return a;
}

// A symmetric positive-definite (n, n) matrix M M^T + n I.
Array spd(std::int64_t n, unsigned seed) {
  Array m = random_array({n, n}, -1, 1, seed);
  Array a({n, n}, DType::f64);
  for (std::int64_t i = 0; i < n; ++i)
    for (std::int64_t j = 0; j < n; ++j) {
      double s = i == j ? static_cast<double>(n) : 0.0;
      for (std::int64_t p = 0; p < n; ++p) s += m.get_flat(i * n + p) * m.get_flat(j * n + p);
      a.set_flat(i * n + j, s);
    }
  return a;
}

Array identity(std::int64_t n) {
  Array a({n, n}, DType::f64);
  for (std::int64_t i = 0; i < n; ++i) a.set_flat(i * n + i, 1);
  return a;
}

Tensor mT(const Tensor& x) {
  std::vector<int> perm;
  for (int i = 0; i < x.ndim(); ++i) perm.push_back(i);
  std::swap(perm[perm.size() - 1], perm[perm.size() - 2]);
  return transpose(x, perm);
}

// ---- matmul, dot, outer ----

TEST(LinalgMatmul, HandWorked2x2) {
  Tensor a = constant(Array({{1, 2}, {3, 4}}));
  Tensor b = constant(Array({{5, 6}, {7, 8}}));
  Tensor c = matmul(a, b);
  EXPECT_EQ(c.dtype(), DType::f32);
  expect_close(c.eval(), std::vector<double>{19, 22, 43, 50});
}

TEST(LinalgMatmul, BatchBroadcasting) {
  Array a = random_array({2, 1, 2, 3}, -1, 1, 1);
  Array b = random_array({3, 3, 4}, -1, 1, 2);
  Tensor c = matmul(constant(a), constant(b));
  ASSERT_EQ(c.shape(), (Shape{2, 3, 2, 4}));
  Array got = c.eval();
  for (std::int64_t i = 0; i < 2; ++i)
    for (std::int64_t j = 0; j < 3; ++j) {
      Array ai = Array::from_buffer(a.data<double>() + i * 6, {2, 3}, DType::f64);
      Array bj = Array::from_buffer(b.data<double>() + j * 12, {3, 4}, DType::f64);
      Array want = naive_matmul(ai, bj);
      Array slice_ij = Array::from_buffer(got.data<double>() + (i * 3 + j) * 8, {2, 4}, DType::f64);
      expect_close(slice_ij, want, 1e-12, 1e-12);
    }
}

TEST(LinalgMatmul, OneDimensionalOperands) {
  Tensor v = constant(Array({1, 2, 3}));
  Tensor m = constant(Array({{1, 0}, {0, 1}, {1, 1}}));
  Tensor vm = matmul(v, m);
  EXPECT_EQ(vm.shape(), (Shape{2}));
  expect_close(vm.eval(), std::vector<double>{4, 5});
  Tensor mv = matmul(constant(Array({{1, 2, 3}, {4, 5, 6}})), v);
  EXPECT_EQ(mv.shape(), (Shape{2}));
  expect_close(mv.eval(), std::vector<double>{14, 32});
  Tensor vv = matmul(v, v);
  EXPECT_EQ(vv.shape(), (Shape{}));
  EXPECT_DOUBLE_EQ(vv.eval().item<double>(), 14);
  // A batched matrix times a vector broadcasts the vector.
  Tensor bv = matmul(constant(Array::ones({4, 2, 3})), v);
  EXPECT_EQ(bv.shape(), (Shape{4, 2}));
  expect_close(bv.eval(), std::vector<double>(8, 6));
}

TEST(LinalgMatmul, IntegerAndPromotion) {
  Tensor a = constant(Array::from_vector<std::int32_t>({1, 2, 3, 4, 5, 6}, {2, 3}));
  Tensor b = constant(Array::from_vector<std::int32_t>({1, -1, 2, 0, 0, 3}, {3, 2}));
  Tensor c = matmul(a, b);
  EXPECT_EQ(c.dtype(), DType::i32);
  Array got = c.eval();
  EXPECT_EQ(got.at<std::int32_t>({0, 0}), 5);
  EXPECT_EQ(got.at<std::int32_t>({0, 1}), 8);
  EXPECT_EQ(got.at<std::int32_t>({1, 0}), 14);
  EXPECT_EQ(got.at<std::int32_t>({1, 1}), 14);
  EXPECT_EQ(matmul(placeholder({2, 2}, f32), placeholder({2, 2}, f64)).dtype(), DType::f64);
  EXPECT_EQ(matmul(placeholder({2, 2}, i32), placeholder({2, 2}, f32)).dtype(), DType::f64);
}

TEST(LinalgMatmul, DotAndOuter) {
  Tensor v = constant(Array({1, 2, 3}));
  EXPECT_DOUBLE_EQ(dot(v, v).eval().item<double>(), 14);
  expect_close(dot(constant(Array({{1, 2}, {3, 4}})), constant(Array({1, 1}))).eval(), std::vector<double>{3, 7});
  expect_close(dot(constant(2.0), v).eval(), std::vector<double>{2, 4, 6});
  Tensor o = outer(constant(Array({1, 2})), v);
  EXPECT_EQ(o.shape(), (Shape{2, 3}));
  expect_close(o.eval(), std::vector<double>{1, 2, 3, 2, 4, 6});
}

TEST(LinalgMatmul, ShapeErrors) {
  Graph graph;  // a fresh graph, so that placeholder names are not uniquified
  DefaultGraph guard(graph);
  Tensor x = placeholder({32, 10}, f32, "x");
  Tensor w = placeholder({5, 1}, f32, "w");
  expect_error<ShapeError>([&] { matmul(x, w); },
                           {"matmul: operand shapes (32, 10) and (5, 1) do not match on the contracted axis (10 vs 5)",
                            "'x' (32, 10) float32",
                            "test_linalg.cpp:", "Transpose the second operand or check the layer sizes."});
  expect_error<ShapeError>(
      [&] {
        matmul(placeholder({2, 3, 4}), placeholder({5, 4, 2}));
      },
      {"batch dimensions (2,) and (5,)"});
  expect_error<ShapeError>([&] { matmul(placeholder({}), placeholder({3})); }, {"scalar"});
  expect_error<ShapeError>([&] { dot(placeholder({2, 2, 2}), placeholder({2, 2})); }, {"dot:", "matmul"});
}

TEST(LinalgMatmul, Gradients) {
  expect_gradients_match([](const auto& x) { return matmul(x[0], x[1]); },
                         {random_array({2, 3}, -1, 1, 1), random_array({3, 4}, -1, 1, 2)});
  expect_gradients_match([](const auto& x) { return matmul(x[0], x[1]); },
                         {random_array({2, 1, 2, 3}, -1, 1, 3), random_array({3, 3, 2}, -1, 1, 4)});
  expect_gradients_match([](const auto& x) { return matmul(x[0], x[1]); },
                         {random_array({3}, -1, 1, 5), random_array({2, 3, 4}, -1, 1, 6)});
  expect_gradients_match([](const auto& x) { return dot(x[0], x[1]); },
                         {random_array({3}, -1, 1, 7), random_array({3}, -1, 1, 8)});
  expect_gradients_match([](const auto& x) { return outer(x[0], x[1]); },
                         {random_array({3}, -1, 1, 9), random_array({2}, -1, 1, 10)});
}

TEST(LinalgMatmul, SecondOrder) {
  // The gradient of sum(matmul(a, b)^2) with respect to a, differentiated again.
  expect_gradients_match([](const auto& x) { return grad(sum(square(matmul(x[0], x[1]))), {x[0]})[0]; },
                         {random_array({2, 3}, -1, 1, 11), random_array({3, 2}, -1, 1, 12)});
}

// ---- inv, det, slogdet ----

TEST(LinalgInv, TimesInverseIsIdentity) {
  for (DType dtype : {f32, f64}) {
    Array a = well_conditioned(4, 1, {2}).astype(dtype);
    Tensor t = constant(a);
    Tensor inv = linalg::inv(t);
    EXPECT_EQ(inv.dtype(), dtype);
    Array prod = matmul(t, inv).eval().astype(f64);
    double tol = dtype == f32 ? 1e-5 : 1e-12;
    for (std::int64_t b = 0; b < 2; ++b)
      expect_close(Array::from_buffer(prod.data<double>() + b * 16, {4, 4}, f64), identity(4), 0, tol);
  }
}

TEST(LinalgInv, IntegerInputComputesInFloat32) {
  Tensor inv = linalg::inv(constant(Array::from_vector<std::int32_t>({2, 0, 0, 4}, {2, 2})));
  EXPECT_EQ(inv.dtype(), f32);
  expect_close(inv.eval(), std::vector<double>{0.5, 0, 0, 0.25});
}

TEST(LinalgInv, SingularAndShapeErrors) {
  Graph graph;  // a fresh graph, so that placeholder names are not uniquified
  DefaultGraph guard(graph);
  Tensor s = linalg::inv(constant(Array({{1, 2}, {2, 4}})));
  expect_error<ValueError>([&] { s.eval(); }, {"inv: the matrix is singular", "test_linalg.cpp:"});
  expect_error<ShapeError>(
      [&] {
        linalg::inv(placeholder({2, 3}, f32, "a"));
      },
      {"inv: ", "square", "(2, 3)", "'a' (2, 3) float32"});
  expect_error<ShapeError>([&] { linalg::det(placeholder({3})); }, {"det: ", "at least 2 dimensions"});
}

TEST(LinalgDet, KnownMatrices) {
  expect_close(linalg::det(constant(Array({{1, 2}, {3, 4}}))).eval(), std::vector<double>{-2}, 1e-6);
  // A permutation matrix (odd permutation) and a triangular matrix, batched.
  Array batch = Array::from_vector<double>({0, 1, 0, 1, 0, 0, 0, 0, 1,  //
                                            2, 5, 7, 0, 3, 1, 0, 0, -4},
                                           {2, 3, 3});
  Tensor d = linalg::det(constant(batch));
  EXPECT_EQ(d.shape(), (Shape{2}));
  expect_close(d.eval(), std::vector<double>{-1, -24}, 1e-12);
  expect_close(linalg::det(constant(Array({{1, 2}, {2, 4}}))).eval(), std::vector<double>{0}, 0, 1e-12);
}

TEST(LinalgDet, Slogdet) {
  auto [sign, logabs] =
      linalg::slogdet(constant(Array::from_vector<double>({1, 2, 3, 4, 2, 0, 0, 3, 1, 2, 2, 4}, {3, 2, 2})));
  EXPECT_EQ(sign.shape(), (Shape{3}));
  EXPECT_EQ(logabs.shape(), (Shape{3}));
  Array s = sign.eval(), l = logabs.eval();
  expect_close(s, std::vector<double>{-1, 1, 0});
  EXPECT_NEAR(l.get_flat(0), std::log(2.0), 1e-12);
  EXPECT_NEAR(l.get_flat(1), std::log(6.0), 1e-12);
  EXPECT_EQ(l.get_flat(2), -std::numeric_limits<double>::infinity());
}

TEST(LinalgDet, Gradients) {
  expect_gradients_match([](const auto& x) { return linalg::inv(x[0]); }, {well_conditioned(3, 2, {2})});
  expect_gradients_match([](const auto& x) { return linalg::det(x[0]); }, {well_conditioned(3, 3, {2})}, 1e-5, 1e-5);
  expect_gradients_match([](const auto& x) { return linalg::slogdet(x[0]).second; }, {well_conditioned(3, 4, {2})});
  // A negative determinant: log|det| still has gradient inv(A)^T.
  Array neg = well_conditioned(3, 5);
  for (std::int64_t j = 0; j < 3; ++j) neg.set_flat(j, -neg.get_flat(j));
  expect_gradients_match([](const auto& x) { return linalg::slogdet(x[0]).second; }, {neg});
}

TEST(LinalgDet, SecondOrder) {
  expect_gradients_match([](const auto& x) { return grad(linalg::det(x[0]), {x[0]})[0]; }, {well_conditioned(3, 6)},
                         1e-5, 1e-5);
  expect_gradients_match([](const auto& x) { return grad(sum(linalg::inv(x[0])), {x[0]})[0]; },
                         {well_conditioned(3, 7)});
}

// ---- cholesky ----

TEST(LinalgCholesky, ReconstructsAndIsLower) {
  for (DType dtype : {f32, f64}) {
    Array a = spd(4, 1).astype(dtype);
    Tensor L = linalg::cholesky(constant(a));
    Array l = L.eval();
    EXPECT_EQ(l.dtype(), dtype);
    for (std::int64_t i = 0; i < 4; ++i) {
      EXPECT_GT(l.get_flat(i * 4 + i), 0);
      for (std::int64_t j = i + 1; j < 4; ++j) EXPECT_EQ(l.get_flat(i * 4 + j), 0);
    }
    expect_close(matmul(L, mT(L)).eval().astype(f64), a.astype(f64), dtype == f32 ? 1e-5 : 1e-12, 1e-12);
  }
  // Hand-worked: [[4, 2], [2, 5]] = [[2, 0], [1, 2]] [[2, 1], [0, 2]].
  expect_close(linalg::cholesky(constant(Array({{4, 2}, {2, 5}}))).eval(), std::vector<double>{2, 0, 1, 2});
}

TEST(LinalgCholesky, NotPositiveDefinite) {
  Tensor L = linalg::cholesky(constant(Array({{1, 2}, {2, 1}})));
  expect_error<ValueError>([&] { L.eval(); },
                           {"cholesky: the matrix is not positive definite", "test_linalg.cpp:", "eps * I"});
}

TEST(LinalgCholesky, Gradients) {
  expect_gradients_match([](const auto& x) { return linalg::cholesky(x[0]); }, {spd(3, 2)});
  // Through a parametrization that keeps the input symmetric positive definite.
  expect_gradients_match([](const auto& x) { return linalg::cholesky(matmul(x[0], mT(x[0])) + constant(identity(3))); },
                         {random_array({3, 3}, -1, 1, 3)});
  expect_gradients_match([](const auto& x) { return grad(sum(square(linalg::cholesky(x[0]))), {x[0]})[0]; },
                         {spd(3, 4)}, 1e-5, 1e-5);
}

// ---- solve and triangular_solve ----

TEST(LinalgSolve, Residuals) {
  Array a = well_conditioned(4, 1, {2});
  Array b = random_array({2, 4, 3}, -1, 1, 2);
  Tensor x = linalg::solve(constant(a), constant(b));
  EXPECT_EQ(x.shape(), (Shape{2, 4, 3}));
  expect_close(matmul(constant(a), x).eval(), b, 1e-10, 1e-12);
  // Vector right-hand sides: (n,) and a batch (2, n).
  Array v = random_array({4}, -1, 1, 3);
  Tensor xv = linalg::solve(constant(a), constant(v));
  EXPECT_EQ(xv.shape(), (Shape{2, 4}));
  Tensor xb = linalg::solve(constant(a), constant(random_array({2, 4}, -1, 1, 4)));
  EXPECT_EQ(xb.shape(), (Shape{2, 4}));
  expect_close(linalg::solve(constant(Array({{2, 0}, {0, 4}})), constant(Array({2, 2}))).eval(),
               std::vector<double>{1, 0.5});
}

TEST(LinalgSolve, Errors) {
  Tensor x = linalg::solve(constant(Array({{1, 2}, {2, 4}})), constant(Array({1, 1})));
  expect_error<ValueError>([&] { x.eval(); }, {"solve: the coefficient matrix is singular"});
  expect_error<ShapeError>(
      [&] {
        linalg::solve(placeholder({3, 3}), placeholder({4, 2}));
      },
      {"solve: ", "3x3", "4 rows"});
}

TEST(LinalgSolve, Gradients) {
  expect_gradients_match([](const auto& x) { return linalg::solve(x[0], x[1]); },
                         {well_conditioned(3, 5), random_array({3, 2}, -1, 1, 6)});
  expect_gradients_match([](const auto& x) { return linalg::solve(x[0], x[1]); },
                         {well_conditioned(3, 7), random_array({3}, -1, 1, 8)});
  // Batch broadcasting: one matrix, two right-hand sides.
  expect_gradients_match([](const auto& x) { return linalg::solve(x[0], x[1]); },
                         {well_conditioned(3, 9), random_array({2, 3, 2}, -1, 1, 10)});
  expect_gradients_match([](const auto& x) { return grad(sum(square(linalg::solve(x[0], x[1]))), {x[0]})[0]; },
                         {well_conditioned(3, 11), random_array({3, 2}, -1, 1, 12)});
}

TEST(LinalgTriangularSolve, AllVariants) {
  Array a = well_conditioned(4, 1);
  Array b = random_array({4, 2}, -1, 1, 2);
  for (bool lower : {true, false})
    for (bool trans : {false, true})
      for (bool unit : {false, true}) {
        SCOPED_TRACE("lower=" + std::to_string(lower) + " trans=" + std::to_string(trans) +
                     " unit=" + std::to_string(unit));
        // The triangle that is read, as a full matrix, with a unit diagonal when asked.
        Array t = a.copy();
        for (std::int64_t i = 0; i < 4; ++i)
          for (std::int64_t j = 0; j < 4; ++j) {
            if ((lower && j > i) || (!lower && j < i)) t.set_flat(i * 4 + j, 0);
            if (unit && i == j) t.set_flat(i * 4 + j, 1);
          }
        Tensor x = linalg::triangular_solve(constant(a), constant(b), lower, trans, unit);
        Tensor op_t = trans ? mT(constant(t)) : constant(t);
        expect_close(matmul(op_t, x).eval(), b, 1e-10, 1e-12);
        expect_gradients_match([&](const auto& v) { return linalg::triangular_solve(v[0], v[1], lower, trans, unit); },
                               {a, b});
      }
  Tensor xv = linalg::triangular_solve(constant(Array({{2, 0}, {1, 1}})), constant(Array({2, 3})));
  EXPECT_EQ(xv.shape(), (Shape{2}));
  expect_close(xv.eval(), std::vector<double>{1, 2});
}

TEST(LinalgTriangularSolve, SingularDiagonal) {
  Tensor x = linalg::triangular_solve(constant(Array({{1, 0}, {1, 0}})), constant(Array({1, 1})));
  expect_error<ValueError>([&] { x.eval(); }, {"triangular_solve: the triangular matrix is singular"});
}

}  // namespace
}  // namespace symx
