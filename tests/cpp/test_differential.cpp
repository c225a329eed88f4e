// Differential testing of the compiled backend: random graphs (5-40 nodes; mixed shapes,
// broadcasting, views, reductions, dtypes) are run on both backends and must agree.
// `make test` runs 1,000 graphs from a fixed seed; SYMX_FUZZ_GRAPHS=N runs N, SYMX_FUZZ_SEED=S
// picks another seed. Random loops (a scan or a cond whose bodies are such random graphs, over
// the loop's carry and slice and captured inputs) are compared the same way: 60 by default,
// SYMX_FUZZ_LOOPS=N for N.
#include <cstdlib>
#include <random>

#include "passes/passes.hpp"
#include "test_util.hpp"

namespace sx = symx;

namespace {

class RandomGraph {
 public:
  explicit RandomGraph(std::uint64_t seed) : gen_(seed) {}

  // Builds one scan (elementwise or matrix-product body, forward or reverse, 1-4 steps) or cond
  // whose bodies are random graphs grown from their params; returns its outputs.
  std::vector<sx::Tensor> build_loop(std::vector<sx::Tensor>& inputs, std::vector<sx::Array>& values) {
    inputs_ = &inputs;
    values_ = &values;
    nodes_.clear();
    sx::Shape shape = random_shape();
    if (coin(0.5)) return {build_cond(shape)};
    const std::int64_t length = pick(1, 4);  // (bodies may reduce any input, the sequence too)
    sx::Shape seq_shape = shape;
    seq_shape.insert(seq_shape.begin(), length);
    sx::Tensor init = sx::cast(new_input(shape), sx::f32);
    sx::Tensor seq = new_input(seq_shape);
    const bool product = !shape.empty() && coin();
    sx::Tensor weight = product ? sx::cast(new_input({shape.back(), shape.back()}), sx::f32) * 0.3 : sx::Tensor();
    sx::ScanOptions options;
    options.reverse = coin(0.3);
    sx::ScanResult r = sx::scan(
        [&](const std::vector<sx::Tensor>& c, const std::vector<sx::Tensor>& xs, const std::vector<sx::Tensor>&) {
          sx::Tensor last = grow_body({c[0], xs[0]});
          sx::Tensor mixed = sx::cast(sx::mean(as_float(last)), sx::f32);
          sx::Tensor h = product ? sx::matmul(c[0], weight) : c[0] * 0.5;
          return sx::ScanResult{{sx::tanh(h + sx::cast(xs[0], sx::f32) * 0.25 + mixed)}, {last}};
        },
        {init}, {seq}, {}, options);
    return {r.carry[0], r.ys[0]};
  }

  // Builds one graph; returns its outputs. Placeholders and their values go to inputs/values.
  std::vector<sx::Tensor> build(std::vector<sx::Tensor>& inputs, std::vector<sx::Array>& values) {
    inputs_ = &inputs;
    values_ = &values;
    nodes_.clear();
    int target = pick(5, 40);
    for (int i = 0; i < 2; ++i) nodes_.push_back(new_input(random_shape()));
    while (static_cast<int>(nodes_.size()) < target) {
      sx::Tensor t = grow();
      if (t.defined()) nodes_.push_back(t);
    }
    std::vector<sx::Tensor> outs{nodes_.back()};
    for (int i = 0; i < 2; ++i)
      outs.push_back(nodes_[static_cast<std::size_t>(pick(0, static_cast<int>(nodes_.size()) - 1))]);
    return outs;
  }

 private:
  std::mt19937_64 gen_;
  std::vector<sx::Tensor>* inputs_ = nullptr;
  std::vector<sx::Array>* values_ = nullptr;
  std::vector<sx::Tensor> nodes_;

  // A random graph grown from `params` (a body's) and the inputs it reads; returns its last node.
  // The loop's own nodes are kept aside meanwhile.
  sx::Tensor grow_body(const std::vector<sx::Tensor>& params) {
    std::vector<sx::Tensor> outer = std::move(nodes_);
    nodes_ = params;
    const int target = static_cast<int>(params.size()) + pick(1, 8);
    while (static_cast<int>(nodes_.size()) < target) {
      sx::Tensor t = grow();
      if (t.defined()) nodes_.push_back(t);
    }
    sx::Tensor last = nodes_.back();
    nodes_ = std::move(outer);
    return last;
  }

  // cond(input > 0, branch, branch) over an operand of `shape`; each branch a random graph. (The
  // predicate compares an input, which both backends hold exactly.)
  sx::Tensor build_cond(const sx::Shape& shape) {
    sx::Tensor operand = sx::cast(new_input(shape), sx::f32);
    sx::Tensor pred = sx::cast(new_input({}), sx::f32) > 0;
    auto branch = [&](const std::vector<sx::Tensor>& o) {
      sx::Tensor last = grow_body({o[0]});
      return std::vector<sx::Tensor>{o[0] * 0.5 + sx::cast(sx::mean(as_float(last)), sx::f32)};
    };
    return sx::cond(pred, branch, branch, {operand})[0];
  }

  int pick(int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(gen_); }
  bool coin(double p = 0.5) { return std::bernoulli_distribution(p)(gen_); }

  sx::Shape random_shape() {
    static const std::int64_t dims[] = {1, 2, 3, 4, 5, 7, 16, 33};
    sx::Shape s(static_cast<std::size_t>(pick(0, 3)));
    for (auto& d : s) d = dims[pick(0, 7)];
    return s;
  }

  sx::Tensor new_input(const sx::Shape& shape) {
    static const sx::DType dtypes[] = {sx::f32, sx::f32, sx::f32, sx::f64, sx::i32, sx::bool_};
    sx::DType dtype = dtypes[pick(0, 5)];
    sx::Tensor p = sx::placeholder(shape, dtype, "in" + std::to_string(inputs_->size()));
    double lo = dtype == sx::bool_ ? 0 : -3, hi = dtype == sx::bool_ ? 2 : 3;
    sx::Array v = sx::testing::random_array(shape, lo, hi, static_cast<unsigned>(gen_()), sx::f64);
    if (!sx::is_floating(dtype)) v = sx::Array::from_vector(std::vector<double>(v.to_vector()), shape);
    for (std::int64_t i = 0; i < v.size() && !sx::is_floating(dtype); ++i) v.set_flat(i, std::floor(v.get_flat(i)));
    inputs_->push_back(p);
    values_->push_back(v.astype(dtype));
    return p;
  }

  sx::Tensor any() { return nodes_[static_cast<std::size_t>(pick(0, static_cast<int>(nodes_.size()) - 1))]; }
  // Discontinuous ops (comparisons, rounding, float-to-int casts, mod) turn the last-bit
  // differences of two correct backends into large ones, so they only see inputs, which both
  // backends hold exactly.
  sx::Tensor any_input() {
    return (*inputs_)[static_cast<std::size_t>(pick(0, static_cast<int>(inputs_->size()) - 1))];
  }
  // A float view of a node (math ops need floats; keeps magnitudes bounded).
  sx::Tensor as_float(const sx::Tensor& t) {
    return sx::is_floating(t.dtype()) ? sx::tanh(t) * 3 : sx::cast(t, sx::f32);
  }

  // A partner for a binary op: an existing node whose shape broadcasts with t's, or a new input.
  sx::Tensor partner(const sx::Tensor& t) {
    for (int tries = 0; tries < 6; ++tries) {
      sx::Tensor c = any();
      if (broadcastable(c.shape(), t.shape()) && c.ndim() <= t.ndim()) return c;
    }
    sx::Shape s = t.shape();
    for (auto& d : s)
      if (coin(0.3)) d = 1;
    if (!s.empty() && coin(0.3)) s.erase(s.begin());
    return new_input(s);
  }

  static bool broadcastable(const sx::Shape& a, const sx::Shape& b) {
    for (std::size_t i = 0; i < std::min(a.size(), b.size()); ++i) {
      auto x = a[a.size() - 1 - i], y = b[b.size() - 1 - i];
      if (x != y && x != 1 && y != 1) return false;
    }
    return true;
  }

  sx::Tensor grow() {
    sx::Tensor t = any();
    switch (pick(0, 14)) {
      case 0: {  // bounded unary math
        sx::Tensor f = as_float(t);
        switch (pick(0, 7)) {
          case 0: return sx::exp(f);
          case 1: return sx::log(1 + f * f);
          case 2: return sx::sqrt(f * f + 0.5);
          case 3: return sx::sin(f) + sx::cos(f);
          case 4: return sx::sigmoid(f);
          case 5: return sx::erf(f) + sx::arctan(f);
          case 6: return sx::expm1(f) - sx::log1p(sx::abs(f));
          default: {
            sx::Tensor x = any_input();
            if (x.dtype() == sx::bool_) x = sx::cast(x, sx::i32);
            return sx::floor(x) + sx::round(x) - sx::ceil(x);
          }
        }
      }
      case 1:
      case 2: {  // arithmetic with broadcasting
        sx::Tensor u = partner(t);
        if (t.dtype() == sx::bool_ || u.dtype() == sx::bool_) return sx::logical_or(t, u);
        switch (pick(0, 5)) {
          case 0: return t + u;
          case 1: return t - u;
          case 2: return sx::is_floating(t.dtype()) || sx::is_floating(u.dtype()) ? t * u : sx::maximum(t, u);
          case 3: return as_float(t) / (1 + sx::square(as_float(u)));
          case 4: return sx::minimum(t, u);
          default: {
            sx::Tensor x = any_input();
            return sx::mod(x, x.dtype() == sx::bool_ ? 2 : 3);
          }
        }
      }
      case 3: {  // comparisons and where
        t = any_input();
        sx::Tensor u = any_input();
        if (!broadcastable(t.shape(), u.shape())) u = t;
        if (t.dtype() == sx::bool_ || u.dtype() == sx::bool_) return sx::logical_and(t, sx::logical_not(u));
        sx::Tensor condition = t < u;
        sx::Tensor a = partner(condition);
        sx::Tensor b = partner(condition);
        if (!broadcastable(a.shape(), b.shape())) b = a;
        if (a.dtype() == sx::bool_ || b.dtype() == sx::bool_) return sx::logical_and(condition, sx::equal(t, t));
        return sx::where(condition, a, b);
      }
      case 4: {  // reductions
        if (t.ndim() == 0 || t.dtype() == sx::bool_) return sx::sum(t);
        int axis = pick(0, t.ndim() - 1);
        bool keep = coin();
        switch (pick(0, 4)) {
          case 0: return sx::sum(t, axis, keep);
          case 1: return sx::max(t, axis, keep);
          case 2: return sx::min(t, sx::Axes(), keep);
          case 3: return sx::mean(t, axis, keep);
          default: return sx::prod(sx::tanh(as_float(t)), axis, keep);
        }
      }
      case 5:  // transposes
        return t.ndim() < 2 ? sx::negative(as_float(t)) : sx::transpose(t);
      case 6: {  // slices with steps, including negative
        if (t.ndim() == 0) return sx::square(as_float(t));
        std::vector<sx::Index> index;
        for (int d = 0; d < t.ndim(); ++d)
          index.push_back(coin() ? sx::Index::all() : sx::Index::range({}, {}, coin() ? -1 : 2));
        return sx::slice(t, index);
      }
      case 7:  // broadcast to a larger shape
        return sx::broadcast_to(t, [&] {
          sx::Shape s = t.shape();
          s.insert(s.begin(), pick(1, 3));
          return s;
        }());
      case 8:  // reshape to flat and back
        return sx::reshape(sx::reshape(t, {t.size()}), t.shape()) * (t.dtype() == sx::bool_ ? 1 : 2);
      case 9:  // casts
        return coin() ? sx::cast(t, sx::f64) : sx::cast(any_input(), sx::i32);
      case 10:  // softmax-like reductions with their consumers
        return t.ndim() == 0 ? sx::exp(as_float(t)) : sx::nn::softmax(as_float(t), -1);
      case 11: {  // sorting and running scans (issue 21)
        if (t.ndim() == 0 || t.dtype() == sx::bool_) return sx::cumsum(t);
        int axis = pick(0, t.ndim() - 1);
        switch (pick(0, 6)) {
          case 0: return sx::sort(t, axis, true, coin());
          case 1: return sx::cast(sx::argsort(as_float(t), axis), sx::f32);
          case 2: return sx::cumprod(sx::tanh(as_float(t)), axis);
          case 3: return coin() ? sx::cummax(t, axis) : sx::cummin(t, axis);
          case 4: return sx::logcumsumexp(as_float(t), axis);
          case 5: return sx::partition(t, {0}, axis);
          default: return sx::median(as_float(t), axis);
        }
      }
      case 12: {  // indexed updates (issue 21): scatters with repeated positions
        if (t.ndim() == 0 || t.dtype() == sx::bool_) return sx::square(as_float(t));
        sx::Tensor f = as_float(t);
        std::int64_t n = f.shape()[0];
        sx::Tensor i = sx::constant(sx::Array::from_vector<std::int64_t>({0, n - 1, 0}, {3}));
        switch (pick(0, 4)) {
          case 0: return sx::index_update(f, {i}, 2.0);
          case 1: return sx::index_add(f, {i}, 1.5);
          case 2: return sx::index_multiply(f, {i}, -0.5);
          case 3: return sx::index_min(f, {i}, 0.0);
          default: return sx::index_max(f, {sx::Index::range({}, {}, 2)}, 0.25);
        }
      }
      case 13: {  // contractions and triangles (issue 21): a transposed batched gemm, trace, tril
        if (t.ndim() < 2 || t.dtype() == sx::bool_) return sx::nn::softmax(sx::reshape(as_float(t), {-1}), -1);
        sx::Tensor f = as_float(t);
        switch (pick(0, 2)) {
          case 0: return sx::einsum("...ij,...kj->...ik", {f, f});
          case 1: return sx::trace(f, pick(-1, 1), -2, -1);
          default: return sx::tril(f, pick(-1, 1));
        }
      }
      default:  // a reduction feeding an elementwise epilogue of its own shape
        return t.ndim() == 0 ? sx::tanh(as_float(t)) : sx::sum(as_float(t), -1) * 0.5 + 1;
    }
  }
};

void expect_agree(const sx::Array& c, const sx::Array& r, int graph, std::size_t output) {
  ASSERT_EQ(c.shape(), r.shape());
  ASSERT_EQ(c.dtype(), r.dtype());
  // float64 outputs may come from float32 intermediates (casts), so both get float32 tolerance.
  double tol = sx::is_floating(c.dtype()) ? 2e-4 : 0;
  for (std::int64_t i = 0; i < c.size(); ++i) {
    double a = c.get_flat(i), b = r.get_flat(i);
    if (std::isnan(a) && std::isnan(b)) continue;
    if (a == b) continue;
    ASSERT_LE(std::fabs(a - b), tol * (1 + std::fabs(b)))
        << "graph " << graph << ", output " << output << ", element " << i;
  }
}

}  // namespace

// Builds `count` random graphs (or loops) with `build`, `per_function` of them in one function,
// and compares the compiled outputs with the reference evaluator's; the first disagreement stops
// with the seed that reproduces it and the failing graph.
template <class Build>
void compare_random(int count, int per_function, std::uint64_t seed, const char* what, Build build) {
  RandomGraph generator(seed);
  for (int start = 0; start < count; start += per_function) {
    sx::reset_default_graph();
    std::vector<sx::Tensor> inputs, outputs;
    std::vector<sx::Array> values;
    std::vector<int> owner;
    for (int g = start; g < std::min(count, start + per_function); ++g)
      for (const auto& out : build(generator, inputs, values)) {
        outputs.push_back(out);
        owner.push_back(g);
      }
    auto compiled = sx::function(inputs, outputs, {}, {sx::Backend::compiled});
    auto reference = sx::function(inputs, outputs, {}, {sx::Backend::reference});
    auto c = compiled(values);
    auto r = reference(values);
    for (std::size_t k = 0; k < outputs.size(); ++k) {
      expect_agree(c[k], r[k], owner[k], k);
      if (::testing::Test::HasFatalFailure()) {
        ADD_FAILURE() << "reproduce with SYMX_FUZZ_SEED=" << seed << "; the failing " << what << ":\n"
                      << sx::debugprint({outputs[k]});
        return;
      }
    }
  }
}

TEST(Differential, RandomGraphsCompiledMatchReference) {
  const char* count_env = std::getenv("SYMX_FUZZ_GRAPHS");
  const char* seed_env = std::getenv("SYMX_FUZZ_SEED");
  int graphs = count_env ? std::atoi(count_env) : 1000;
  std::uint64_t seed = seed_env ? std::strtoull(seed_env, nullptr, 10) : 20261130;
  // Many graphs share one function so that a few compiles cover all of them.
  compare_random(graphs, 50, seed, "graph",
                 [](RandomGraph& g, auto& inputs, auto& values) { return g.build(inputs, values); });
}

TEST(Differential, RandomLoopsCompiledMatchReference) {
  const int loops = static_cast<int>(sx::testing::env_int("SYMX_FUZZ_LOOPS", 60));
  const auto seed = static_cast<std::uint64_t>(sx::testing::env_int("SYMX_FUZZ_SEED", 20261202));
  // Each body is its own program: a function of 20 loops compiles them together.
  compare_random(loops, 20, seed, "loop",
                 [](RandomGraph& g, auto& inputs, auto& values) { return g.build_loop(inputs, values); });
}

// The rewrite pipeline alone, on the reference evaluator: optimized graphs compute the same values.
TEST(Differential, RewritesPreserveValues) {
  RandomGraph generator(424242);
  for (int g = 0; g < 300; ++g) {
    sx::reset_default_graph();
    std::vector<sx::Tensor> inputs;
    std::vector<sx::Array> values;
    std::vector<sx::Tensor> outputs = generator.build(inputs, values);
    sx::Feed feed;
    for (std::size_t i = 0; i < inputs.size(); ++i) feed.emplace_back(inputs[i], values[i]);
    std::vector<sx::Tensor> optimized = sx::passes::optimize(outputs);
    for (std::size_t k = 0; k < outputs.size(); ++k) {
      expect_agree(optimized[k].eval(feed), outputs[k].eval(feed), g, k);
      if (::testing::Test::HasFatalFailure()) {
        ADD_FAILURE() << "before:\n" << sx::debugprint({outputs[k]}) << "after:\n" << sx::debugprint({optimized[k]});
        return;
      }
    }
  }
}
