// Shape and indexing ops and constants: values (checked against NumPy's), gradients (incl. second
// order) and error messages.
#include <cmath>

#include "test_util.hpp"

namespace symx {
namespace {

using testing::expect_error;
using testing::expect_gradients_match;
using testing::random_array;

Array iota(const Shape& shape, DType dtype = DType::f64) {
  return Array::arange(0, static_cast<double>(num_elements(shape)), 1, dtype).reshape(shape);
}
Array f64(const std::vector<double>& v, const Shape& shape) { return Array::from_vector(v, shape); }
Array i64(const std::vector<std::int64_t>& v, const Shape& shape) { return Array::from_vector(v, shape); }

// Expects `t` to evaluate to `shape` holding `values` (row-major).
void expect_tensor(const Tensor& t, const Shape& shape, const std::vector<double>& values) {
  Array a = t.eval();
  EXPECT_EQ(a.shape(), shape) << shape_string(a.shape()) << " vs " << shape_string(shape);
  EXPECT_EQ(t.shape(), shape);
  testing::expect_close(a, values);
}

using R = Index;

// ---- forward values ----

TEST(ShapeForward, ReshapeTransposeBroadcast) {
  Tensor x = constant(iota({2, 3, 4}));
  expect_tensor(reshape(x, {4, -1}), {4, 6}, iota({24}).to_vector());
  EXPECT_EQ(reshape(x, {-1}).shape(), Shape{24});
  EXPECT_EQ(x.reshape({2, 12}).shape(), (Shape{2, 12}));
  EXPECT_EQ(reshape(constant(iota({0, 3})), {3, -1}).shape(), (Shape{3, 0}));
  expect_tensor(transpose(x, {2, 0, 1}), {4, 2, 3},
                {0, 4, 8, 12, 16, 20, 1, 5, 9, 13, 17, 21, 2, 6, 10, 14, 18, 22, 3, 7, 11, 15, 19, 23});
  expect_tensor(x.T(), {4, 3, 2},
                {0, 12, 4, 16, 8, 20, 1, 13, 5, 17, 9, 21, 2, 14, 6, 18, 10, 22, 3, 15, 7, 19, 11, 23});
  EXPECT_EQ(transpose(x, {-1, 0, 1}).shape(), (Shape{4, 2, 3}));
  expect_tensor(broadcast_to(constant(f64({1, 2}, {2, 1})), {3, 2, 2}), {3, 2, 2},
                {1, 1, 2, 2, 1, 1, 2, 2, 1, 1, 2, 2});
  EXPECT_EQ(broadcast_to(constant(iota({3})), {0, 3}).eval().shape(), (Shape{0, 3}));
  // int64 values move bit for bit.
  Array big = i64({(1LL << 60) + 1, -3}, {2});
  EXPECT_EQ(transpose(broadcast_to(constant(big), {3, 2})).eval().at<std::int64_t>({0, 1}), (1LL << 60) + 1);
}

TEST(ShapeForward, ExpandSqueeze) {
  Tensor x = constant(iota({2, 3}));
  EXPECT_EQ(expand_dims(x, 0).shape(), (Shape{1, 2, 3}));
  EXPECT_EQ(expand_dims(x, -1).shape(), (Shape{2, 3, 1}));
  EXPECT_EQ(expand_dims(x, 1).shape(), (Shape{2, 1, 3}));
  Tensor y = constant(iota({1, 2, 1, 3}));
  EXPECT_EQ(squeeze(y).shape(), (Shape{2, 3}));
  EXPECT_EQ(squeeze(y, {-2}).shape(), (Shape{1, 2, 3}));
  EXPECT_EQ(squeeze(y, {0, 2}).shape(), (Shape{2, 3}));
  expect_tensor(squeeze(y), {2, 3}, {0, 1, 2, 3, 4, 5});
}

TEST(ShapeForward, ConcatenateStackSplit) {
  Tensor a = constant(iota({2, 3}));
  Tensor b = constant(f64({6, 7, 8, 9}, {2, 2}));
  expect_tensor(concatenate({a, b}, 1), {2, 5}, {0, 1, 2, 6, 7, 3, 4, 5, 8, 9});
  expect_tensor(concatenate({a, a}, -2), {4, 3}, {0, 1, 2, 3, 4, 5, 0, 1, 2, 3, 4, 5});
  // Dtypes promote as NumPy.
  Tensor ints = constant(iota({1, 3}, DType::i32));
  EXPECT_EQ(concatenate({ints, constant(iota({1, 3}, DType::f32))}).dtype(), DType::f64);
  EXPECT_EQ(concatenate({ints, constant(iota({2, 3}, DType::i64))}).dtype(), DType::i64);
  expect_tensor(stack({a, a * 10}, 1), {2, 2, 3}, {0, 1, 2, 0, 10, 20, 3, 4, 5, 30, 40, 50});
  EXPECT_EQ(stack({a, a, a}).shape(), (Shape{3, 2, 3}));
  EXPECT_EQ(stack({a, a}, -1).shape(), (Shape{2, 3, 2}));
  auto parts = split(constant(iota({6, 2})), 3);
  ASSERT_EQ(parts.size(), 3u);
  expect_tensor(parts[1], {2, 2}, {4, 5, 6, 7});
  auto cols = split(a, 3, 1);
  expect_tensor(cols[2], {2, 1}, {2, 5});
  auto pieces = split(constant(iota({7})), std::vector<std::int64_t>{2, 5, 10});
  ASSERT_EQ(pieces.size(), 4u);
  expect_tensor(pieces[0], {2}, {0, 1});
  expect_tensor(pieces[1], {3}, {2, 3, 4});
  expect_tensor(pieces[2], {2}, {5, 6});
  expect_tensor(pieces[3], {0}, {});
}

TEST(ShapeForward, BasicIndexing) {
  Tensor x = constant(iota({2, 3, 4}));
  expect_tensor(slice(x, {1}), {3, 4}, {12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23});
  expect_tensor(x[1], {3, 4}, {12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23});
  expect_tensor(x[-2][2], {4}, {8, 9, 10, 11});
  expect_tensor(slice(x, {R::all(), R::range({}, {}, -1)}), {2, 3, 4},
                {8, 9, 10, 11, 4, 5, 6, 7, 0, 1, 2, 3, 20, 21, 22, 23, 16, 17, 18, 19, 12, 13, 14, 15});
  expect_tensor(slice(x, {R::ellipsis(), 1}), {2, 3}, {1, 5, 9, 13, 17, 21});
  expect_tensor(slice(x, {R::newaxis(), 0, R::range(1, 3), -1}), {1, 2}, {7, 11});
  expect_tensor(slice(x, {R::all(), R::range(-100, 100, 2)}), {2, 2, 4},
                {0, 1, 2, 3, 8, 9, 10, 11, 12, 13, 14, 15, 20, 21, 22, 23});
  expect_tensor(slice(x, {1, R::range(2, 0, -1), R::range(-1, 0, -2)}), {2, 2}, {23, 21, 19, 17});
  expect_tensor(slice(x, {R::ellipsis(), R::newaxis(), R::range({}, {}, 3)}), {2, 3, 1, 2},
                {0, 3, 4, 7, 8, 11, 12, 15, 16, 19, 20, 23});
  expect_tensor(slice(x, {R::all(), R::range(5, 1)}), {2, 0, 4}, {});
  expect_tensor(slice(x, {-1, R::all(), R::range(3, -5, -1)}), {3, 4},
                {15, 14, 13, 12, 19, 18, 17, 16, 23, 22, 21, 20});
  expect_tensor(slice(x, {0, 0, 0}), {}, {0});
  // Identity indexing builds no node.
  EXPECT_EQ(slice(x, {R::all(), R::ellipsis()}), x);
  // Integer indexing of a scalar-free 1-d tensor of int32 keeps the dtype.
  EXPECT_EQ(slice(constant(iota({3}, DType::i32)), {2}).eval().item<std::int32_t>(), 2);
}

TEST(ShapeForward, TakeAndTakeAlongAxis) {
  Tensor x = constant(iota({2, 3, 4}));
  expect_tensor(take(x, constant(i64({2, -1, 0}, {3})), 1), {2, 3, 4},
                {8, 9, 10, 11, 8, 9, 10, 11, 0, 1, 2, 3, 20, 21, 22, 23, 20, 21, 22, 23, 12, 13, 14, 15});
  expect_tensor(take(x, constant(i64({5, 0, 23, 1}, {2, 2}))), {2, 2}, {5, 0, 23, 1});
  EXPECT_EQ(take(x, constant(Array::scalar<std::int32_t>(1)), 2).shape(), (Shape{2, 3}));
  Tensor a = constant(iota({2, 3}));
  expect_tensor(take_along_axis(a, constant(i64({0, 2, 1, 1, 1, 0}, {2, 3})), 1), {2, 3}, {0, 2, 1, 4, 4, 3});
  expect_tensor(take_along_axis(a, constant(i64({1, 0}, {2, 1})), 1), {2, 1}, {1, 3});
  // Indices broadcast against the other axes.
  expect_tensor(take_along_axis(a, constant(i64({-1}, {1, 1})), 1), {2, 1}, {2, 5});
}

TEST(ShapeForward, PadFlipTileRepeat) {
  Tensor a = constant(iota({2, 3}));
  expect_tensor(pad(a, {{1, 0}, {0, 2}}, 9), {3, 5}, {9, 9, 9, 9, 9, 0, 1, 2, 9, 9, 3, 4, 5, 9, 9});
  expect_tensor(pad(a, {{1, 1}}), {4, 5}, {0, 0, 0, 0, 0, 0, 0, 1, 2, 0, 0, 3, 4, 5, 0, 0, 0, 0, 0, 0});
  Tensor x = constant(iota({2, 3, 4}));
  expect_tensor(flip(x, {0, 2}), {2, 3, 4},
                {15, 14, 13, 12, 19, 18, 17, 16, 23, 22, 21, 20, 3, 2, 1, 0, 7, 6, 5, 4, 11, 10, 9, 8});
  expect_tensor(flip(a), {2, 3}, {5, 4, 3, 2, 1, 0});
  expect_tensor(tile(constant(f64({1, 2}, {2})), {2, 3}), {2, 6}, {1, 2, 1, 2, 1, 2, 1, 2, 1, 2, 1, 2});
  expect_tensor(tile(a, {2}), {2, 6}, {0, 1, 2, 0, 1, 2, 3, 4, 5, 3, 4, 5});
  expect_tensor(repeat(a, 2, 1), {2, 6}, {0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5});
  expect_tensor(repeat(a, 2), {12}, {0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5});
  EXPECT_EQ(repeat(a, 0, 0).shape(), (Shape{0, 3}));
}

TEST(ShapeForward, Constants) {
  expect_tensor(eye(3, 4, 1), {3, 4}, {0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1});
  expect_tensor(eye(2, std::nullopt, -1), {2, 2}, {0, 0, 1, 0});
  EXPECT_EQ(eye(2, 2, 0, DType::i32).dtype(), DType::i32);
  expect_tensor(linspace(0, 1, 5), {5}, {0, 0.25, 0.5, 0.75, 1});
  expect_tensor(linspace(0, 1, 4, false), {4}, {0, 0.25, 0.5, 0.75});
  expect_tensor(linspace(3, 7, 1), {1}, {3});
  expect_tensor(arange(5, -1, -2, DType::f64), {3}, {5, 3, 1});
  EXPECT_EQ(arange(0, 3, 1, DType::i64).dtype(), DType::i64);
  expect_tensor(zeros({2, 2}), {2, 2}, {0, 0, 0, 0});
  expect_tensor(ones({3}, DType::i32), {3}, {1, 1, 1});
  EXPECT_EQ(ones({3}, DType::i32).dtype(), DType::i32);
  expect_tensor(ones({}), {}, {1});
  Tensor p = placeholder({2, 3}, DType::f64);
  EXPECT_EQ(zeros_like(p).type(), p.type());
  expect_tensor(ones_like(p), {2, 3}, {1, 1, 1, 1, 1, 1});
  Array oh = one_hot(constant(i64({2, 0, 5, -1}, {4})), 3).eval();
  EXPECT_EQ(oh.dtype(), DType::f32);
  testing::expect_close(oh, std::vector<double>{0, 0, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0});
  EXPECT_EQ(one_hot(constant(i64({1, 0}, {2, 1})), 4, DType::i64).shape(), (Shape{2, 1, 4}));
}

TEST(ShapeForward, Meshgrid) {
  Tensor a = constant(f64({1, 2, 3}, {3})), b = constant(f64({4, 5}, {2}));
  auto xy = meshgrid({a, b});
  expect_tensor(xy[0], {2, 3}, {1, 2, 3, 1, 2, 3});
  expect_tensor(xy[1], {2, 3}, {4, 4, 4, 5, 5, 5});
  auto ij = meshgrid({a, b}, "ij");
  expect_tensor(ij[0], {3, 2}, {1, 1, 2, 2, 3, 3});
  expect_tensor(ij[1], {3, 2}, {4, 5, 4, 5, 4, 5});
  auto three = meshgrid({a, b, constant(f64({7, 8, 9, 10}, {4}))});
  EXPECT_EQ(three[2].shape(), (Shape{2, 3, 4}));
}

TEST(ShapeForward, TakeOutOfRangeIsAnEvaluationError) {
  Tensor x = constant(iota({2, 3}));
  Tensor bad = take(x, constant(i64({0, 3}, {2})), 1);
  expect_error<ValueError>([&] { bad.eval(); }, {"take", "index 3 is out of bounds for axis 1 with size 3", "[-3, 3)"});
  Tensor neg = take_along_axis(x, constant(i64({-4}, {1, 1})), 1);
  expect_error<ValueError>([&] { neg.eval(); }, {"take_along_axis", "index -4", "size 3"});
}

// ---- gradients ----

TEST(ShapeGrad, ReshapeTransposeBroadcast) {
  Array x = random_array({2, 3, 4});
  expect_gradients_match([](const auto& v) { return reshape(v[0], {4, -1}); }, {x});
  expect_gradients_match([](const auto& v) { return transpose(v[0], {1, 2, 0}); }, {x});
  expect_gradients_match([](const auto& v) { return transpose(v[0]); }, {x});
  expect_gradients_match([](const auto& v) { return broadcast_to(v[0], {2, 2, 3, 1}); }, {random_array({2, 3, 1})});
  expect_gradients_match([](const auto& v) { return squeeze(expand_dims(v[0], 1) * 2.0); }, {x});
}

TEST(ShapeGrad, ConcatenateStackSplit) {
  Array a = random_array({2, 3}, -1, 1, 1), b = random_array({2, 2}, -1, 1, 2);
  expect_gradients_match([](const auto& v) { return concatenate({v[0], v[1], v[0]}, 1); }, {a, b});
  expect_gradients_match([](const auto& v) { return stack({v[0], v[0] * v[0]}, 2); }, {a});
  expect_gradients_match([](const auto& v) { return split(v[0], std::vector<std::int64_t>{1}, 1)[1] * 3.0; }, {a});
}

TEST(ShapeGrad, SlicingAndPadding) {
  Array x = random_array({3, 4, 2});
  expect_gradients_match([](const auto& v) { return slice(v[0], {R::range(2, {}, -1), 1}); }, {x});
  expect_gradients_match(
      [](const auto& v) {
        return slice(v[0], {R::ellipsis(), R::range(0, {}, 2), R::newaxis()});
      },
      {x});
  expect_gradients_match([](const auto& v) { return v[0][1]; }, {x});
  expect_gradients_match([](const auto& v) { return flip(v[0], {1}); }, {x});
  expect_gradients_match([](const auto& v) { return pad(v[0], {{1, 0}, {2, 1}, {0, 0}}, 5); }, {x});
  expect_gradients_match([](const auto& v) { return tile(v[0], {2, 1, 2}); }, {x});
  expect_gradients_match([](const auto& v) { return repeat(v[0], 3, 1); }, {x});
}

TEST(ShapeGrad, GatherScatter) {
  Array x = random_array({3, 4});
  // Repeated indices accumulate their cotangents.
  Tensor idx = constant(i64({2, 0, 2, -1}, {2, 2}));
  expect_gradients_match([&](const auto& v) { return take(v[0], idx, 1); }, {x});
  expect_gradients_match([&](const auto& v) { return take(v[0], idx); }, {x});
  Tensor along = constant(i64({0, 0, 3, 1, 2, 2}, {3, 2}));
  expect_gradients_match([&](const auto& v) { return take_along_axis(v[0], along, 1); }, {x});
  expect_gradients_match([&](const auto& v) { return take_along_axis(v[0], constant(i64({1, -1}, {2, 1})), 0); }, {x});
  Tensor p = placeholder({3}, DType::f64);
  Array g = grad(sum(take(p, constant(i64({0, 0, 2}, {3})))), {p})[0].eval({{p, f64({1, 2, 3}, {3})}});
  testing::expect_close(g, std::vector<double>{2, 0, 1});
}

TEST(ShapeGrad, SecondOrderThroughShapeOps) {
  // f(x) = sum(take(x, i)^2 * flip(x)) over a small vector, Hessian vs finite differences.
  Tensor p = placeholder({3}, DType::f64);
  Tensor idx = constant(i64({0, 2, 2}, {3}));
  auto f = [&](const Tensor& t) {
    Tensor g = take(t, idx);
    Tensor s = pad(slice(t, {R::range(1, {})}), {{1, 0}});
    return sum(square(g) * flip(t) + take_along_axis(t, idx, 0) * t) + sum(concatenate({s, t}) * tile(t, {2}));
  };
  Array x = f64({0.5, -1.0, 2.0}, {3});
  Array h = hessian(f(p), p).eval({{p, x}});
  Tensor gfun = grad(f(p), {p})[0];
  for (std::int64_t j = 0; j < 3; ++j) {
    Array plus = x.copy(), minus = x.copy();
    plus.set_flat(j, x.get_flat(j) + 1e-6);
    minus.set_flat(j, x.get_flat(j) - 1e-6);
    Array gp = gfun.eval({{p, plus}}), gm = gfun.eval({{p, minus}});
    for (std::int64_t i = 0; i < 3; ++i)
      EXPECT_NEAR(h.get_flat(i * 3 + j), (gp.get_flat(i) - gm.get_flat(i)) / 2e-6, 1e-5) << i << "," << j;
  }
  // The Jacobian of a slice is a selection matrix.
  Array jac = jacobian(slice(p, {R::range({}, {}, -2)}), p).eval({{p, x}});
  testing::expect_close(jac, std::vector<double>{0, 0, 1, 1, 0, 0});
}

// ---- errors ----

TEST(ShapeErrors, Reshape) {
  Graph graph;  // a fresh graph, so placeholder names are not uniquified
  DefaultGraph guard(graph);
  Tensor y = placeholder({2, 3}, DType::f32, "y");
  expect_error<ShapeError>(
      [&] {
        reshape(y, {4, 2});
      },
      {"reshape:", "cannot reshape 6 elements into shape (4, 2)", "'y' (2, 3) float32",
       "test_shape.cpp:", "Choose a shape with the same number of elements, or use -1"});
  expect_error<ShapeError>([&] { reshape(y, {4, -1}); }, {"reshape:", "(4, -1)", "divide"});
  expect_error<ValueError>([&] { reshape(y, {-1, -1}); }, {"reshape:", "more than one -1"});
  expect_error<ShapeError>([&] { reshape(y, {-2, 3}); }, {"reshape:", "negative dimension"});
}

TEST(ShapeErrors, TransposeBroadcastSqueeze) {
  Graph graph;  // a fresh graph, so placeholder names are not uniquified
  DefaultGraph guard(graph);
  Tensor y = placeholder({2, 3}, DType::f32, "y");
  expect_error<ShapeError>(
      [&] {
        transpose(y, {0, 0});
      },
      {"transpose:", "not a permutation", "(2, 3)", "exactly once"});
  expect_error<ShapeError>([&] { transpose(y, {0, 1, 2}); }, {"transpose:", "not a permutation"});
  expect_error<ShapeError>(
      [&] {
        broadcast_to(y, {3, 3});
      },
      {"broadcast_to:", "cannot broadcast shape (2, 3) to (3, 3)", "expand_dims"});
  expect_error<ShapeError>([&] { broadcast_to(y, {3}); }, {"broadcast_to:", "(2, 3) to (3,)"});
  expect_error<ShapeError>([&] { squeeze(y, {1}); }, {"squeeze:", "cannot squeeze axis 1 of size 3", "size-1"});
  expect_error<ShapeError>([&] { expand_dims(y, 3); }, {"expand_dims:", "axis 3 is out of range", "[-3, 3)"});
}

TEST(ShapeErrors, ConcatenateStackSplit) {
  Graph graph;  // a fresh graph, so placeholder names are not uniquified
  DefaultGraph guard(graph);
  Tensor a = placeholder({2, 3}, DType::f32, "a"), b = placeholder({3, 3}, DType::f32, "b");
  expect_error<ShapeError>(
      [&] {
        concatenate({a, b}, 1);
      },
      {"concatenate:", "input 1 has shape (3, 3) but input 0 has (2, 3)", "'a' (2, 3) float32", "'b' (3, 3) float32",
       "concatenate along a different axis"});
  expect_error<ShapeError>([&] { concatenate({a, placeholder({3})}); }, {"concatenate:", "dimensions"});
  expect_error<ShapeError>([&] { concatenate({placeholder({})}); }, {"concatenate:", "zero-dimensional"});
  expect_error<ValueError>([&] { concatenate({}); }, {"concatenate:", "at least one"});
  expect_error<ShapeError>([&] { stack({a, b}); }, {"stack:", "input 1 has shape (3, 3)", "same shape"});
  expect_error<ShapeError>([&] { split(a, 2, 1); }, {"split:", "size 3 does not split into 2 equal sections"});
}

TEST(ShapeErrors, Indexing) {
  Graph graph;  // a fresh graph, so placeholder names are not uniquified
  DefaultGraph guard(graph);
  Tensor x = placeholder({2, 3}, DType::f32, "x");
  expect_error<ShapeError>(
      [&] {
        slice(x, {0, 3});
      },
      {"slice:", "index 3 is out of bounds for axis 1 with size 3", "'x' (2, 3)", "[-3, 3)"});
  expect_error<ShapeError>([&] { x[-3]; }, {"index -3 is out of bounds for axis 0 with size 2"});
  expect_error<ShapeError>([&] { slice(x, {0, 0, 0}); }, {"slice:", "too many indices: 3", "2 dimensions"});
  expect_error<ValueError>([&] { slice(x, {R::range(0, 2, 0)}); }, {"slice:", "step cannot be zero"});
  expect_error<ValueError>([&] { slice(x, {R::ellipsis(), R::ellipsis()}); }, {"slice:", "one ellipsis"});
  expect_error<DTypeError>([&] { take(x, placeholder({2}, DType::f32)); }, {"take:", "integer dtype", "astype(int64)"});
  expect_error<ShapeError>([&] { take(x, placeholder({2}, DType::i64), 2); }, {"take:", "axis 2 is out of range"});
  expect_error<ShapeError>([&] { take_along_axis(x, placeholder({2}, DType::i64), 1); },
                           {"take_along_axis:", "1 dimensions but the tensor has 2"});
  expect_error<ShapeError>(
      [&] {
        take_along_axis(x, placeholder({3, 1}, DType::i64), 1);
      },
      {"take_along_axis:", "does not broadcast"});
  expect_error<ValueError>([&] { pad(x, {{-1, 0}, {0, 0}}); }, {"pad:", "negative pad width", "use slice"});
  expect_error<ShapeError>([&] { pad(x, {{1, 0}, {0, 0}, {0, 0}}); }, {"pad:", "3 (before, after) pairs"});
  expect_error<ValueError>([&] { meshgrid({x}, "yx"); }, {"meshgrid:", "unknown indexing 'yx'"});
  expect_error<DTypeError>([&] { one_hot(x, 3); }, {"one_hot:", "integer dtype"});
  expect_error<ValueError>([&] { arange(0, 1, 0); }, {"arange:", "non-zero step"});
  expect_error<ShapeError>([&] { zeros({2, -1}); }, {"zeros:", "negative dimension"});
}

// ---- element-count overflow (issue 7, point 2) ----

constexpr std::int64_t k31 = std::int64_t{1} << 31, k62 = std::int64_t{1} << 62;

TEST(ShapeOverflow, HugeShapesFailWhenTheNodeIsBuilt) {
  // 2^31 * 2^31 elements of float32 are 2^64 bytes: the product wraps in int64 arithmetic.
  expect_error<ShapeError>([] { ones({k31, k31}); }, {"ones:", "(2147483648, 2147483648)", "2^48", "test_shape.cpp:"});
  // 2^62 * 4 wraps to 0 elements.
  expect_error<ShapeError>(
      [] {
        placeholder({k62, 4}, DType::f32, "big");
      },
      {"placeholder 'big':", "(4611686018427387904, 4)", "64-bit integer"});
  expect_error<ShapeError>([] { zeros({k62, k62, 0}); }, {"zeros:", "(4611686018427387904, 4611686018427387904, 0)"});
  expect_error<ShapeError>([] { eye(k31, k31); }, {"eye:", "2^48"});
  // Just over the limit, without any overflow: 2^46 float64 elements are 2^49 bytes.
  expect_error<ShapeError>([] { placeholder({std::int64_t{1} << 46}, DType::f64); }, {"placeholder:", "2^48"});
  EXPECT_EQ(placeholder({std::int64_t{1} << 46}, DType::f32).size(), std::int64_t{1} << 46);  // 2^48 bytes: allowed
}

TEST(ShapeOverflow, ReshapeOfAnEmptyTensorToAWrappedSizeFails) {
  Graph graph;  // a fresh graph, so that the placeholder names the messages check are not uniquified
  DefaultGraph guard(graph);
  Tensor x = placeholder({0}, DType::f32, "empty");
  expect_error<ShapeError>([&] { reshape(x, {k62, 4}); }, {"reshape:", "(4611686018427387904, 4)", "'empty' (0,)"});
  expect_error<ShapeError>([&] { reshape(x, {-1, k62, 4}); }, {"reshape:", "(-1, 4611686018427387904, 4)"});
  expect_error<ShapeError>([&] { broadcast_to(x, {k62, 4, 0}); }, {"broadcast_to:", "(4611686018427387904, 4, 0)"});
  EXPECT_EQ(reshape(x, {0, k31}).shape(), (Shape{0, k31}));  // a legitimately empty shape still works
}

TEST(ShapeOverflow, BroadcastingTwoLargeShapesFails) {
  Graph graph;  // a fresh graph, so that the placeholder names the messages check are not uniquified
  DefaultGraph guard(graph);
  Tensor a = placeholder({k31, 1}, DType::f32, "a"), b = placeholder({1, k31}, DType::f32, "b");
  expect_error<ShapeError>([&] { a + b; },
                           {"add:", "result shape (2147483648, 2147483648)", "'a' (2147483648, 1)", "2^48"});
  Tensor c = placeholder({std::int64_t{1} << 20, 1, 1}, DType::f64),
         d = placeholder({1, std::int64_t{1} << 20, std::int64_t{1} << 20}, DType::f64);
  expect_error<ShapeError>([&] { multiply(c, d); }, {"multiply:", "(1048576, 1048576, 1048576)"});
}

TEST(ShapeOverflow, ArraysCheckTheirShapes) {
  expect_error<ShapeError>([] { Array({k31, k31}, DType::f32); }, {"Array:", "(2147483648, 2147483648)"});
  expect_error<ShapeError>([] { Array::empty({k62, 4}); }, {"Array::empty:", "64-bit integer"});
  expect_error<ShapeError>([] { Array({2, -3}, DType::f32); }, {"Array:", "negative dimension -3"});
  expect_error<ShapeError>(
      [] {
        Array::zeros({0}).reshape({k62, 4});
      },
      {"Array::reshape:", "(4611686018427387904, 4)"});
  expect_error<ShapeError>([] { Array::arange(0, 1e30); }, {"arange:", "2^48"});
  expect_error<ShapeError>([] { Array::wrap(nullptr, {k62, 8}, DType::u8, nullptr); }, {"Array::wrap:"});
}

TEST(ShapeOverflow, FailedAllocationNamesTheShape) {
#if defined(__SANITIZE_ADDRESS__)
  GTEST_SKIP() << "AddressSanitizer aborts on allocations this large instead of returning null";
#else
  // 2^47 bytes pass the limit, but no machine this runs on has 128 TiB to give.
  try {
    Array a({std::int64_t{1} << 44}, DType::f64);
    GTEST_SKIP() << "the system granted 128 TiB";
  } catch (const OutOfMemory& e) {
    EXPECT_NE(std::string(e.what()).find("(17592186044416,)"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("140737488355328 bytes"), std::string::npos) << e.what();
  }
#endif
}

TEST(ShapeOverflow, AxesBeyondIntAreCheckedBeforeNarrowing) {
  Graph graph;  // a fresh graph, so that the placeholder names the messages check are not uniquified
  DefaultGraph guard(graph);
  Tensor x = placeholder({2, 3}, DType::f32, "x");
  const std::int64_t big = std::int64_t{1} << 32;  // narrowed to int it would be axis 0
  expect_error<ShapeError>([&] { sum(x, Axes(std::vector<std::int64_t>{big})); },
                           {"sum:", "axis 4294967296 is out of range for a tensor with 2 dimensions"});
  expect_error<ShapeError>([&] { max(x, Axes(big + 1)); }, {"max:", "axis 4294967297"});
  expect_error<ShapeError>([&] { mean(x, Axes(std::vector<std::int64_t>{0, -big})); }, {"mean:", "axis -4294967296"});
  EXPECT_EQ(sum(x, Axes(std::vector<std::int64_t>{-1})).shape(), (Shape{2}));
}

}  // namespace
}  // namespace symx
