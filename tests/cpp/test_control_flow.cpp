// Control flow from C++ (symx/control_flow.hpp) with lambdas: scan against a plain C++ loop and its
// gradient against float64 central differences, while_loop, fori_loop, switch_ and cond, in both
// backends; request_interrupt() from another thread stops a loop that runs forever.
#include <atomic>
#include <chrono>
#include <thread>

#include "test_util.hpp"

namespace sx = symx;
using sx::testing::expect_close;
using sx::testing::expect_error;
using sx::testing::random_array;
using Tensors = std::vector<sx::Tensor>;

namespace {

// h_{t+1} = tanh(x_t * w + h_t * u); returns (the final h, sum over t of h_t^2 for the h entering t).
std::pair<std::vector<double>, double> rnn_by_hand(const sx::Array& x, const sx::Array& h0, double w, double u) {
  const std::int64_t steps = x.shape()[0], n = x.shape()[1];
  std::vector<double> h(static_cast<std::size_t>(n));
  for (std::int64_t j = 0; j < n; ++j) h[static_cast<std::size_t>(j)] = h0.get_flat(j);
  double squares = 0;
  for (std::int64_t t = 0; t < steps; ++t)
    for (std::int64_t j = 0; j < n; ++j) {
      double& v = h[static_cast<std::size_t>(j)];
      squares += v * v;
      v = std::tanh(x.get_flat(t * n + j) * w + v * u);
    }
  return {h, squares};
}

struct Rnn {
  sx::Tensor x, h0, w, u, final_h, squares;
};

Rnn build_rnn(std::int64_t steps, std::int64_t n, bool reverse = false) {
  Rnn r;
  r.x = sx::placeholder({steps, n}, sx::f64, "x");
  r.h0 = sx::placeholder({n}, sx::f64, "h0");
  r.w = sx::placeholder({}, sx::f64, "w");
  r.u = sx::placeholder({}, sx::f64, "u");
  sx::Tensor u = r.u;  // read by the body directly (a closure); w comes as a non_sequence
  sx::ScanOptions options;
  options.reverse = reverse;
  sx::ScanResult out = sx::scan(
      [u](const Tensors& carry, const Tensors& xs, const Tensors& ns) {
        return sx::ScanResult{{sx::tanh(xs[0] * ns[0] + carry[0] * u)}, {sx::sum(carry[0] * carry[0])}};
      },
      {r.h0}, {r.x}, {r.w}, options);
  r.final_h = out.carry[0];
  r.squares = sx::sum(out.ys[0]);
  return r;
}

}  // namespace

TEST(ControlFlow, ScanMatchesAPlainLoopInBothBackends) {
  sx::Graph graph;
  sx::DefaultGraph guard(graph);
  Rnn r = build_rnn(7, 3);
  sx::Array x = random_array({7, 3}, -1, 1, 1), h0 = random_array({3}, -1, 1, 2);
  sx::Array w = sx::Array::scalar<double>(0.8), u = sx::Array::scalar<double>(-0.6);
  auto [h, squares] = rnn_by_hand(x, h0, 0.8, -0.6);
  for (sx::Backend backend : {sx::Backend::reference, sx::Backend::compiled}) {
    SCOPED_TRACE(backend == sx::Backend::compiled ? "compiled" : "reference");
    auto f = sx::function({r.x, r.h0, r.w, r.u}, {r.final_h, r.squares}, {}, {backend});
    auto out = f({x, h0, w, u});
    expect_close(out[0], h, 1e-12, 1e-14);
    expect_close(out[1], {squares}, 1e-12, 1e-14);
  }
}

TEST(ControlFlow, ScanGradientMatchesFiniteDifferences) {
  for (bool reverse : {false, true}) {
    SCOPED_TRACE(reverse ? "reverse" : "forward");
    sx::Graph graph;
    sx::DefaultGraph guard(graph);
    Rnn r = build_rnn(5, 2, reverse);
    sx::Tensor loss = r.squares + sx::sum(r.final_h);
    std::vector<sx::Tensor> grads = sx::grad(loss, {r.x, r.h0, r.w, r.u});
    sx::Array x = random_array({5, 2}, -1, 1, 3), h0 = random_array({2}, -1, 1, 4);
    const double w = 0.7, u = 0.9;
    // The loss by hand (reverse: the same loop over the rows in reverse order).
    auto loss_of = [&](const sx::Array& xv, const sx::Array& hv, double wv, double uv) {
      sx::Array rows = xv.copy();
      if (reverse)
        for (std::int64_t t = 0; t < 5; ++t)
          for (std::int64_t j = 0; j < 2; ++j) rows.set_flat(t * 2 + j, xv.get_flat((4 - t) * 2 + j));
      auto [h, squares] = rnn_by_hand(rows, hv, wv, uv);
      return squares + h[0] + h[1];
    };
    const double eps = 1e-6;
    auto numeric_array = [&](const sx::Array& at, bool is_x) {
      sx::Array g(at.shape(), sx::f64);
      for (std::int64_t k = 0; k < at.size(); ++k) {
        sx::Array plus = at.copy(), minus = at.copy();
        plus.set_flat(k, at.get_flat(k) + eps);
        minus.set_flat(k, at.get_flat(k) - eps);
        g.set_flat(k, ((is_x ? loss_of(plus, h0, w, u) : loss_of(x, plus, w, u)) -
                       (is_x ? loss_of(minus, h0, w, u) : loss_of(x, minus, w, u))) /
                          (2 * eps));
      }
      return g;
    };
    const double dw = (loss_of(x, h0, w + eps, u) - loss_of(x, h0, w - eps, u)) / (2 * eps);
    const double du = (loss_of(x, h0, w, u + eps) - loss_of(x, h0, w, u - eps)) / (2 * eps);
    for (sx::Backend backend : {sx::Backend::reference, sx::Backend::compiled}) {
      auto f = sx::function({r.x, r.h0, r.w, r.u}, {loss, grads[0], grads[1], grads[2], grads[3]}, {}, {backend});
      auto out = f({x, h0, sx::Array::scalar<double>(w), sx::Array::scalar<double>(u)});
      expect_close(out[0], {loss_of(x, h0, w, u)}, 1e-12);
      expect_close(out[1], numeric_array(x, true), 1e-6, 1e-8);
      expect_close(out[2], numeric_array(h0, false), 1e-6, 1e-8);
      expect_close(out[3], {dw}, 1e-6, 1e-8);
      expect_close(out[4], {du}, 1e-6, 1e-8);
    }
  }
}

TEST(ControlFlow, MapAndForiLoop) {
  sx::Graph graph;
  sx::DefaultGraph guard(graph);
  auto xs = sx::placeholder({4, 3}, sx::f64, "xs");
  auto scale = sx::placeholder({3}, sx::f64, "scale");
  sx::Tensor sums =
      sx::map([](const Tensors& x, const Tensors& ns) { return Tensors{sx::sum(x[0] * ns[0])}; }, {xs}, {scale})[0];
  sx::Array xv = random_array({4, 3}, -1, 1, 5), sv = random_array({3}, -1, 1, 6);
  std::vector<double> want;
  for (std::int64_t t = 0; t < 4; ++t) {
    double s = 0;
    for (std::int64_t j = 0; j < 3; ++j) s += xv.get_flat(t * 3 + j) * sv.get_flat(j);
    want.push_back(s);
  }
  sx::testing::expect_backends_agree({xs, scale}, {sums}, {xv, sv}, 1e-12);
  expect_close(sums.eval({{xs, xv}, {scale, sv}}), want, 1e-12);

  // v <- v * 2 + i for i = 2..6: int bounds (a scan) and tensor bounds (a while_loop)
  auto v0 = sx::placeholder({}, sx::f64, "v0");
  auto body = [](const sx::Tensor& i, const Tensors& v) { return Tensors{v[0] * 2 + sx::astype(i, sx::f64)}; };
  sx::Tensor by_int = sx::fori_loop(2, 7, body, {v0})[0];
  auto lo = sx::placeholder({}, sx::i32, "lo"), hi = sx::placeholder({}, sx::i32, "hi");
  sx::Tensor by_tensor = sx::fori_loop(lo, hi, body, {v0})[0];
  double expected = 1.5;
  for (int i = 2; i < 7; ++i) expected = expected * 2 + i;
  auto f = sx::function({v0, lo, hi}, {by_int, by_tensor}, {}, {sx::Backend::compiled});
  auto out =
      f({sx::Array::scalar<double>(1.5), sx::Array::scalar<std::int32_t>(2), sx::Array::scalar<std::int32_t>(7)});
  expect_close(out[0], {expected}, 1e-12);
  expect_close(out[1], {expected}, 1e-12);
  // d v / d v0 = 2^5 through the scan; the while_loop has none
  expect_close(sx::grad(by_int, {v0})[0].eval({{v0, sx::Array::scalar<double>(1.5)}}), {32.0}, 1e-12);
  expect_error<sx::ValueError>([&] { sx::grad(by_tensor, {v0}); }, {"while_loop", "fori_loop", "scan"});
}

TEST(ControlFlow, WhileLoopCountsToALimit) {
  sx::Graph graph;
  sx::DefaultGraph guard(graph);
  auto limit = sx::placeholder({}, sx::f64, "limit");
  Tensors out = sx::while_loop([&](const Tensors& v) { return v[1] < limit; },
                               [](const Tensors& v) {
                                 return Tensors{v[0] + 1, v[1] * 3};
                               },
                               {sx::constant(0, sx::i32), sx::constant(1.0, sx::f64)});
  auto f = sx::function({limit}, out, {}, {sx::Backend::compiled});
  for (double lim : {0.5, 1.0, 100.0, 1e6}) {
    int n = 0;
    double v = 1;
    while (v < lim) ++n, v *= 3;
    auto got = f({sx::Array::scalar<double>(lim)});
    EXPECT_EQ(got[0].item<std::int32_t>(), n) << lim;
    expect_close(got[1], {v}, 1e-12);
    EXPECT_EQ(out[0].eval({{limit, sx::Array::scalar<double>(lim)}}).item<std::int32_t>(), n);
  }
}

TEST(ControlFlow, SwitchAndCondRunOnlyTheBranchTaken) {
  sx::Graph graph;
  sx::DefaultGraph guard(graph);
  auto k = sx::placeholder({}, sx::i32, "k");
  auto x = sx::placeholder({2}, sx::f64, "x");
  sx::Tensor z = sx::switch_(k,
                             {[](const Tensors& a) { return Tensors{a[0] * 2}; },
                              [](const Tensors& a) { return Tensors{sx::sqrt(a[0])}; },
                              [](const Tensors& a) { return Tensors{-a[0]}; }},
                             {x})[0];
  sx::Tensor gz = sx::grad(sx::sum(z), {x})[0];
  auto f = sx::function({k, x}, {z, gz}, {}, {sx::Backend::compiled});
  sx::Array xv = sx::Array::zeros({2}, sx::f64);
  xv.set_flat(0, -4);
  xv.set_flat(1, 9);
  // index -> (values, gradient); out-of-range indices clamp to the first and last branch
  for (int index : {-2, 0, 2, 7}) {
    auto got = f({sx::Array::scalar<std::int32_t>(index), xv});
    const bool first = index <= 0;
    expect_close(got[0], first ? std::vector<double>{-8, 18} : std::vector<double>{4, -9});
    expect_close(got[1], first ? std::vector<double>{2, 2} : std::vector<double>{-1, -1});
  }
  // sqrt's branch, at a positive point
  sx::Array pos = xv.copy();
  pos.set_flat(0, 4);
  auto got = f({sx::Array::scalar<std::int32_t>(1), pos});
  expect_close(got[0], {2, 3});
  expect_close(got[1], {0.25, 1.0 / 6});

  // cond(x > 0, log(x), x): no NaN from the branch not taken at x < 0
  auto s = sx::placeholder({}, sx::f64, "s");
  sx::Tensor c = sx::cond(
      s > 0, [](const Tensors& a) { return Tensors{sx::log(a[0])}; }, [](const Tensors& a) { return Tensors{a[0]}; },
      {s})[0];
  sx::Tensor gc = sx::grad(c, {s})[0];
  for (sx::Backend backend : {sx::Backend::reference, sx::Backend::compiled}) {
    auto fc = sx::function({s}, {c, gc}, {}, {backend});
    auto neg = fc({sx::Array::scalar<double>(-2.0)});
    expect_close(neg[0], {-2.0});
    expect_close(neg[1], {1.0});
    auto positive = fc({sx::Array::scalar<double>(2.0)});
    expect_close(positive[0], {std::log(2.0)}, 1e-12);
    expect_close(positive[1], {0.5}, 1e-12);
  }
}

TEST(ControlFlow, ScanErrorsNameTheCarry) {
  sx::Graph graph;
  sx::DefaultGraph guard(graph);
  auto xs = sx::placeholder({4, 3}, sx::f64, "xs");
  auto h = sx::placeholder({3}, sx::f64, "h");
  expect_error<sx::ShapeError>(
      [&] {
        sx::scan(
            [](const Tensors& c, const Tensors& x, const Tensors&) {
              return sx::ScanResult{{sx::concatenate({c[0], x[0]})}, {}};
            },
            {h}, {xs});
      },
      {"scan: carry 0 ('h')", "(3,) float64", "(6,) float64", "test_control_flow.cpp:"});
  expect_error<sx::DTypeError>(
      [&] {
        sx::scan(
            [](const Tensors& c, const Tensors&, const Tensors&) {
              return sx::ScanResult{{sx::astype(c[0], sx::f32)}, {}};
            },
            {h}, {xs});
      },
      {"carry 0 ('h')", "float32", "astype"});
  expect_error<sx::ValueError>(
      [&] {
        sx::scan(
            [](const Tensors& c, const Tensors&, const Tensors&) {
              return sx::ScanResult{{c[0], c[0]}, {}};
            },
            {h}, {xs});
      },
      {"returns 2 carries for 1"});
  expect_error<sx::ValueError>(
      [&] {
        sx::scan([](const Tensors& c, const Tensors&, const Tensors&) { return sx::ScanResult{{c[0]}, {}}; }, {h});
      },
      {"no sequences and no length"});
}

// A while_loop that never ends, stopped by request_interrupt() from another thread: the call throws
// Interrupted within a second, and the variable the function would update keeps its value.
TEST(ControlFlow, RequestInterruptStopsALoopThatRunsForever) {
  for (sx::Backend backend : {sx::Backend::compiled, sx::Backend::reference}) {
    SCOPED_TRACE(backend == sx::Backend::compiled ? "compiled" : "reference");
    sx::Graph graph;
    sx::DefaultGraph guard(graph);
    auto counter = sx::variable(sx::Array::scalar<double>(5.0), "counter");
    Tensors forever = sx::while_loop([](const Tensors& v) { return v[0] >= 0.0; },  // always true
                                     [](const Tensors& v) { return Tensors{sx::minimum(v[0] + 1, 1e9)}; },
                                     {sx::constant(0.0, sx::f64)});
    auto f = sx::function({}, {forever[0]}, {{counter, counter + forever[0]}}, {backend});
    std::atomic<bool> started{false};
    std::chrono::steady_clock::time_point requested;
    std::thread stopper([&] {
      while (!started.load()) std::this_thread::yield();
      std::this_thread::sleep_for(std::chrono::milliseconds(200));
      requested = std::chrono::steady_clock::now();
      sx::request_interrupt();
    });
    bool interrupted = false;
    started.store(true);
    try {
      f({});
    } catch (const sx::Interrupted& e) {
      interrupted = true;
      EXPECT_NE(std::string(e.what()).find("changed no variable"), std::string::npos) << e.what();
    }
    const auto stopped = std::chrono::steady_clock::now();
    stopper.join();
    EXPECT_TRUE(interrupted);
    EXPECT_LT(std::chrono::duration<double>(stopped - requested).count(), 1.0);
    EXPECT_EQ(counter.value().item<double>(), 5.0);
  }
  // The request was consumed: the next loop runs to its end.
  sx::Graph graph;
  sx::DefaultGraph guard(graph);
  Tensors v = sx::while_loop([](const Tensors& c) { return c[0] < 5000; },
                             [](const Tensors& c) { return Tensors{c[0] + 1}; }, {sx::constant(0, sx::i32)});
  EXPECT_EQ(sx::function({}, v, {}, {sx::Backend::compiled})({})[0].item<std::int32_t>(), 5000);
}

TEST(ControlFlow, PrintersShowTheRegions) {
  sx::Graph graph;
  sx::DefaultGraph guard(graph);
  auto xs = sx::placeholder({5, 2}, sx::f64, "xs");
  sx::ScanResult r = sx::scan(
      [](const Tensors& c, const Tensors& x, const Tensors&) {
        return sx::ScanResult{{sx::tanh(c[0]) + x[0]}, {sx::exp(c[0])}};
      },
      {sx::zeros({2}, sx::f64)}, {xs});
  std::string text = sx::debugprint({r.ys[0]});
  for (const char* want : {"[body of scan#", "params:", "results:", "tanh#", "exp#"})
    EXPECT_NE(text.find(want), std::string::npos) << want << " in\n" << text;
  std::string dot = sx::to_dot({r.ys[0]});
  EXPECT_NE(dot.find("subgraph cluster_"), std::string::npos) << dot;
  EXPECT_NE(dot.find("label=\"body\""), std::string::npos) << dot;
  auto f = sx::function({xs}, {r.ys[0]}, {}, {sx::Backend::compiled});
  f({sx::Array::zeros({5, 2}, sx::f64)});
  std::string described = f.describe();
  EXPECT_NE(described.find("body of scan#"), std::string::npos) << described;
  EXPECT_NE(described.find("holds tanh#"), std::string::npos) << described;
}
