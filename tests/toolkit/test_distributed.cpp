// symx::distributed in a world of one (a process not started by mpirun), the C++ side of what
// tests/python/test_distributed.py runs under mpirun: collectives return their input, gradient
// averaging and make_distributed leave training as it was, synchronized batch norm is plain batch
// norm, and sharded batches together are the batches of one iterator.
#include <cmath>
#include <cstdlib>

#include "../cpp/test_util.hpp"
#include "symx/data.hpp"
#include "symx/distributed.hpp"
#include "symx/nn/layers.hpp"
#include "symx/nn/losses.hpp"
#include "symx/optim.hpp"

namespace sx = symx;
namespace dist = symx::distributed;
using sx::testing::expect_close;

TEST(Distributed, AWorldOfOneWithoutMpirun) {
  ASSERT_EQ(std::getenv("OMPI_COMM_WORLD_SIZE"), nullptr) << "run these tests without mpirun";
  dist::init();
  EXPECT_TRUE(dist::initialized());
  EXPECT_EQ(dist::rank(), 0);
  EXPECT_EQ(dist::world_size(), 1);
  EXPECT_EQ(dist::local_rank(), 0);
  EXPECT_EQ(dist::local_size(), 1);
  dist::barrier();
  sx::Array x = sx::testing::random_array({3, 2}, -1, 1, 4, sx::DType::f32);
  expect_close(dist::all_reduce(x), x, 0, 0);
  expect_close(dist::all_reduce(x, dist::Reduction::mean), x, 0, 0);
  expect_close(dist::broadcast(x, 0), x, 0, 0);
  sx::Array gathered = dist::all_gather(x);
  EXPECT_EQ(gathered.shape(), (sx::Shape{3, 2}));
  EXPECT_EQ(dist::all_gather(sx::Array::scalar<double>(2.5)).shape(), (sx::Shape{1}));
  EXPECT_THROW(dist::broadcast(x, 1), sx::ValueError);
  EXPECT_THROW(dist::all_reduce(sx::Array::from_vector<std::int64_t>({1}, {1}), dist::Reduction::mean), sx::ValueError);
  EXPECT_GT(dist::timeout_seconds(), 0);
}

// NaN once disabled every timeout (no wait is longer than NaN); invalid values are refused even
// after init, and a 9-axis array (shapes were compared on 8 axes) goes through.
TEST(Distributed, InvalidTimeoutsAreRefused) {
  for (double bad : {std::nan(""), HUGE_VAL, -1.0})
    sx::testing::expect_error<sx::ValueError>([&] { dist::init({.timeout_seconds = bad}); },
                                              {"is not a positive, finite number of seconds"});
  dist::init();
  EXPECT_TRUE(std::isfinite(dist::timeout_seconds()));
  sx::Array nine = sx::testing::random_array({1, 1, 1, 1, 1, 1, 1, 2, 3}, -1, 1, 5, sx::DType::f32);
  expect_close(dist::all_reduce(nine), nine, 0, 0);
  EXPECT_EQ(dist::all_gather(nine).shape(), nine.shape());
}

TEST(Distributed, TensorCollectivesAreIdentitiesWithTheirGradients) {
  sx::reset_default_graph();
  auto p = sx::placeholder({4}, sx::f64, "p");
  auto y = dist::all_reduce(p * 3.0, dist::Reduction::sum) + dist::all_gather(p) + dist::broadcast(p);
  auto g = sx::grad(sx::sum(sx::square(dist::all_reduce(p, dist::Reduction::mean))), {p})[0];
  sx::Array pv = sx::testing::random_array({4}, -1, 1, 9);
  auto out = sx::function({p}, {y, g})({pv});
  for (std::int64_t i = 0; i < 4; ++i) {
    EXPECT_DOUBLE_EQ(out[0].get_flat(i), 5 * pv.get_flat(i));
    EXPECT_DOUBLE_EQ(out[1].get_flat(i), 2 * pv.get_flat(i));
  }
  EXPECT_EQ(y.node().inputs[0].node().inputs[0].display_op(), "all_reduce_sum");
  // max has no gradient: differentiating through it names the call.
  auto m = dist::all_reduce(p, dist::Reduction::max);
  EXPECT_THROW(sx::grad(sx::sum(m), {p}), sx::ValueError);
}

// One step of SGD on a small regression, with or without make_distributed: the same updates.
TEST(Distributed, MakeDistributedInAWorldOfOneChangesNothing) {
  sx::Array first, second;
  for (bool distributed : {false, true}) {
    sx::reset_default_graph();
    auto x = sx::placeholder({8, 3}, sx::f32, "x");
    auto w = sx::variable(sx::Array::full({3, 1}, 0.5), "w");
    auto loss = sx::mean(sx::square(sx::matmul(x, w) - 1.0));
    sx::optim::SGD sgd(0.1, {.momentum = 0.9});
    if (distributed) {
      sx::optim::make_distributed(sgd, {.bucket_mb = 0.001});
      EXPECT_TRUE(sgd.has_gradient_transform());
    }
    sgd.minimize(loss);
    auto step = sx::function({x}, {loss}, sx::get_updates());
    sx::Array xv = sx::testing::random_array({8, 3}, -1, 1, 2, sx::DType::f32);
    for (int i = 0; i < 3; ++i) step({xv});
    (distributed ? second : first) = w.value().copy();
  }
  expect_close(second, first, 0, 0);
  auto grads = std::vector<sx::Tensor>{sx::placeholder({2}, sx::f32, "g")};
  EXPECT_EQ(dist::average_gradients(grads)[0], grads[0]);
  EXPECT_THROW(dist::average_gradients(grads, {.bucket_mb = 0}), sx::ValueError);
  EXPECT_THROW(dist::average_gradients({sx::Tensor()}), sx::ValueError);
  sx::optim::SGD sgd(0.1);
  EXPECT_THROW(sx::optim::make_distributed(sgd, {.bucket_mb = -1}), sx::ValueError);
}

// A gradient transform that returns the wrong number of gradients is caught with the fix.
TEST(Distributed, GradientTransformErrorsNameTheOptimizer) {
  sx::reset_default_graph();
  auto w = sx::variable(sx::Array::ones({2}), "w");
  sx::optim::Adam adam(1e-3);
  adam.set_gradient_transform(
      [](const std::vector<sx::Tensor>&, const std::vector<sx::Tensor>&) { return std::vector<sx::Tensor>{}; });
  sx::testing::expect_error<sx::ValueError>([&] { adam.minimize(sx::sum(w * w)); },
                                            {"Adam", "the gradient transform returned 0 gradients for 1 parameters",
                                             "set_gradient_transform"});
}

TEST(Distributed, SyncBatchNormInAWorldOfOneIsBatchNorm) {
  sx::Array outputs[2];
  for (bool sync : {false, true}) {
    sx::reset_default_graph();
    auto x = sx::placeholder({6, 3}, sx::f32, "x");
    sx::nn::layers::BatchNorm bn({.sync = sync});
    auto y = bn(x, true);
    outputs[sync] =
        sx::function({x}, {y}, sx::get_updates())({sx::testing::random_array({6, 3}, -2, 2, 3, sx::f32)})[0];
  }
  expect_close(outputs[1], outputs[0], 0, 0);
}

TEST(Distributed, ShardedBatchesAreTheBatchesOfOneIterator) {
  sx::Array x = sx::Array::arange(0, 23, 1, sx::DType::i64);
  sx::data::BatchIterator whole({x}, {.batch_size = 8, .seed = 5, .prefetch = 0});
  std::vector<std::unique_ptr<sx::data::BatchIterator>> parts;
  for (std::int64_t k = 0; k < 2; ++k)
    parts.push_back(std::make_unique<sx::data::BatchIterator>(
        std::vector<sx::Array>{x},
        sx::data::BatchOptions{.batch_size = 4, .seed = 5, .prefetch = 2, .shard = k, .shards = 2}));
  EXPECT_EQ(parts[0]->batches_per_epoch(), 3);
  std::int64_t seen = 0;
  while (auto batch = whole.next()) {
    auto a = parts[0]->next(), b = parts[1]->next();
    ASSERT_TRUE(a && b);
    const std::int64_t n = (*batch)[0].size(), na = (*a)[0].size();
    ASSERT_EQ(na + (*b)[0].size(), n);
    for (std::int64_t i = 0; i < n; ++i)
      EXPECT_EQ((*batch)[0].get_flat(i), i < na ? (*a)[0].get_flat(i) : (*b)[0].get_flat(i - na));
    seen += n;
  }
  EXPECT_EQ(seen, 23);
  EXPECT_FALSE(parts[0]->next().has_value());
  sx::testing::expect_error<sx::ValueError>([&] { sx::data::BatchIterator({x}, {.shard = 2, .shards = 2}); },
                                            {"shard 2 of 2 shards", "world_size"});
}
