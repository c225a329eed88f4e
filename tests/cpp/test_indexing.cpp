// The C++ API of symx/indexing.hpp and the random distributions of issue 21: at(x, index) with basic
// and advanced entries, the index_* functions, a compiled function of scatters against the reference
// evaluator, per-op seeds (Python's tests check the values against NumPy and SciPy).
#include <gtest/gtest.h>

#include "symx/indexing.hpp"
#include "symx/symx.hpp"

namespace sx = symx;

namespace {

sx::Tensor ints(std::vector<std::int64_t> v) {
  auto n = static_cast<std::int64_t>(v.size());
  return sx::constant(sx::Array::from_vector<std::int64_t>(v, {n}));
}

TEST(Indexing, AtAndIndexFunctions) {
  sx::reset_default_graph();
  sx::Tensor x = sx::zeros({3, 4});
  auto a = sx::at(x, {1, sx::Index::range(1, 3)}).set(5.0).eval();
  EXPECT_EQ(a.at<float>({1, 1}), 5.0f);
  EXPECT_EQ(a.at<float>({1, 3}), 0.0f);
  auto b = sx::index_add(x, {ints({0, 0, 2}), sx::Index::all()}, 1.0).eval();
  EXPECT_EQ(b.at<float>({0, 2}), 2.0f);
  EXPECT_EQ(b.at<float>({2, 0}), 1.0f);
  auto c = sx::at(sx::ones({4}), {ints({1, 1})}).multiply(3.0).eval();
  EXPECT_EQ(c.at<float>({1}), 9.0f);
  auto d = sx::index_get(sx::reshape(sx::arange(0, 12), {3, 4}), {ints({2, 0}), ints({1, 3})}).eval();
  EXPECT_EQ(d.at<float>({0}), 9.0f);
  EXPECT_EQ(d.at<float>({1}), 3.0f);
  EXPECT_THROW(sx::index_update(x, {0, 0, 0}, 1.0), sx::ShapeError);
}

TEST(Indexing, CompiledScattersMatchTheReference) {
  sx::reset_default_graph();
  sx::Tensor x = sx::placeholder({6}, sx::f64);
  sx::Tensor i = sx::placeholder({4}, sx::i64);
  std::vector<sx::Tensor> outs = {sx::index_update(x, {i}, 2.0), sx::index_min(x, {i}, 0.0),
                                  sx::index_max(x, {i}, 0.5) * 2, sx::index_multiply(x, {i}, -1.5),
                                  sx::index_divide(x, {i}, 4.0)};
  std::vector<sx::Array> args = {sx::Array::from_vector<double>({1, -2, 3, -4, 5, -6}, {6}),
                                 sx::Array::from_vector<std::int64_t>({0, 5, -1, 2}, {4})};
  auto compiled = sx::function({x, i}, outs, {}, {sx::Backend::compiled})(args);
  auto reference = sx::function({x, i}, outs, {}, {sx::Backend::reference})(args);
  for (std::size_t k = 0; k < outs.size(); ++k)
    for (std::int64_t e = 0; e < 6; ++e) EXPECT_DOUBLE_EQ(compiled[k].get_flat(e), reference[k].get_flat(e));
  EXPECT_DOUBLE_EQ(reference[3].get_flat(5), -6 * 2.25);  // two updates at position 5
}

TEST(Indexing, SizeArguments) {
  sx::reset_default_graph();
  sx::Tensor p = sx::placeholder({5}, sx::i64);
  EXPECT_THROW(sx::nonzero(p), sx::ValueError);
  auto idx = sx::flatnonzero(p, 3, -1);
  auto v = idx.eval({{p, sx::Array::from_vector<std::int64_t>({0, 7, 0, 0, 1}, {5})}});
  EXPECT_EQ(v.get_flat(0), 1);
  EXPECT_EQ(v.get_flat(1), 4);
  EXPECT_EQ(v.get_flat(2), -1);
}

// Tensor::operator[] of an index list: basic entries slice, tensors index as NumPy's x[...] (the same as
// index_get), with gradients to x; a position out of range is an error naming x.
TEST(Indexing, SubscriptOperatorTakesNumpyIndices) {
  sx::reset_default_graph();
  sx::Tensor x = sx::reshape(sx::arange(0, 60, 1, sx::f64), {3, 4, 5});
  // x[1, 2:4] (basic: a slice node), x[:, [3, 0]], x[[0, 2], :, [4, 1]] (apart: the broadcast axis first)
  auto basic = x[{1, sx::Index::range(2, 4)}];
  EXPECT_EQ(basic.shape(), (sx::Shape{2, 5}));
  EXPECT_EQ(basic.eval().get_flat(0), 30.0);
  auto b = x[{sx::Index::all(), ints({3, 0})}].eval();
  EXPECT_EQ(b.shape(), (sx::Shape{3, 2, 5}));
  EXPECT_EQ(b.at<double>({1, 0, 2}), 20 + 15 + 2);
  EXPECT_EQ(b.at<double>({2, 1, 4}), 40 + 0 + 4);
  auto c = x[{ints({0, 2}), sx::Index::all(), ints({4, 1})}].eval();
  EXPECT_EQ(c.shape(), (sx::Shape{2, 4}));
  EXPECT_EQ(c.at<double>({1, 3}), 40 + 15 + 1);
  // One entry: x[t] and x[mask] of a constant mask.
  auto d = x[ints({2, -3})].eval();
  EXPECT_EQ(d.shape(), (sx::Shape{2, 4, 5}));
  EXPECT_EQ(d.at<double>({1, 0, 0}), 0.0);
  sx::Tensor mask = sx::constant(sx::Array::from_vector<bool>({true, false, true}, {3}));
  EXPECT_EQ(x[mask].shape(), (sx::Shape{2, 4, 5}));
  EXPECT_EQ(x[mask].eval().at<double>({1, 0, 0}), 40.0);
  // The gradient accumulates over duplicate indices.
  sx::Tensor p = sx::placeholder({4}, sx::f64);
  auto g = sx::grad(sx::sum(p[ints({1, 1, 3})]), {p})[0];
  auto gv = g.eval({{p, sx::Array::from_vector<double>({1, 2, 3, 4}, {4})}});
  EXPECT_EQ(gv.get_flat(0), 0.0);
  EXPECT_EQ(gv.get_flat(1), 2.0);
  EXPECT_EQ(gv.get_flat(3), 1.0);
  // Errors name the indexed tensor and the valid range.
  sx::Tensor w = sx::placeholder({3, 4}, sx::f32, "w");
  try {
    (void)w[{sx::Index::all(), ints({0, 4})}];
    ADD_FAILURE() << "no error";
  } catch (const sx::ShapeError& e) {
    std::string m = e.what();
    EXPECT_NE(m.find("index 4 is out of bounds for axis 1 of 'w' of shape (3, 4), whose size is 4"), std::string::npos)
        << m;
    EXPECT_NE(m.find("[-4, 4)"), std::string::npos) << m;
  }
  try {
    (void)sx::at(w, {5}).set(1.0);
    ADD_FAILURE() << "no error";
  } catch (const sx::ShapeError& e) {
    std::string m = e.what();
    EXPECT_NE(m.find("index 5 is out of bounds for axis 0 of 'w'"), std::string::npos) << m;
  }
  EXPECT_THROW((void)w[sx::placeholder({3}, sx::bool_)], sx::ValueError);  // a symbolic mask
}

TEST(Random, PerOpSeedsAndDistributions) {
  sx::reset_default_graph();
  auto a = sx::random::gamma(2.0, sx::Shape{4}, sx::f32, 7).eval();
  auto g = sx::random::beta(sx::constant(2.0), 3.0, sx::Shape{3}).eval();
  EXPECT_EQ(g.shape(), (sx::Shape{3}));
  sx::reset_default_graph();
  sx::random::seed(99);
  auto b = sx::random::gamma(2.0, sx::Shape{4}, sx::f32, 7).eval();
  for (std::int64_t e = 0; e < 4; ++e) EXPECT_EQ(a.get_flat(e), b.get_flat(e));
  auto k = sx::random::poisson(sx::constant(sx::Array::from_vector<double>({0.0, 3.0}, {2}))).eval();
  EXPECT_EQ(k.dtype(), sx::i64);
  EXPECT_EQ(k.get_flat(0), 0);
}

}  // namespace
