// toolkit/src/data/transforms.cpp: the portable shuffle, splits, per-channel statistics and
// standardization, one-hot encoding, and the row gathering the batch iterator shares.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <numeric>

#include "data_internal.hpp"

namespace symx::data {

namespace detail {

std::uint64_t derive_seed(std::uint64_t seed, Stream stream, std::uint64_t a, std::uint64_t b) {
  SplitMix64 mix(seed ^ (static_cast<std::uint64_t>(stream) * 0xD1B54A32D192ED03ULL));
  std::uint64_t h = mix();
  h = SplitMix64(h ^ a)();
  return SplitMix64(h ^ (b * 0x9E3779B97F4A7C15ULL + 0x632BE59BD9B4E019ULL))();
}

std::size_t row_bytes(const Array& array) {
  if (array.ndim() == 0 || array.shape()[0] == 0) return 0;
  return array.nbytes() / static_cast<std::size_t>(array.shape()[0]);
}

Array gather_rows(const Array& array, const std::int64_t* indices, std::int64_t count) {
  Shape shape = array.shape();
  shape[0] = count;
  Array out = Array::empty(shape, array.dtype());
  const std::size_t row = row_bytes(array);
  const auto* in = static_cast<const unsigned char*>(array.raw_data());
  auto* o = static_cast<unsigned char*>(out.raw_data());
  for (std::int64_t i = 0; i < count; ++i)
    std::memcpy(o + static_cast<std::size_t>(i) * row, in + static_cast<std::size_t>(indices[i]) * row, row);
  return out;
}

std::string bytes_text(std::uint64_t n) { return std::to_string(n) + (n == 1 ? " byte" : " bytes"); }

}  // namespace detail

std::vector<std::int64_t> permutation(std::int64_t n, std::uint64_t seed) {
  if (n < 0) throw ValueError("permutation: n is " + std::to_string(n) + "; it must be >= 0.");
  std::vector<std::int64_t> order(static_cast<std::size_t>(n));
  std::iota(order.begin(), order.end(), std::int64_t{0});
  detail::SplitMix64 rng(seed);
  for (std::int64_t i = n - 1; i > 0; --i) {
    const auto j = static_cast<std::int64_t>(rng.below(static_cast<std::uint64_t>(i) + 1));
    std::swap(order[static_cast<std::size_t>(i)], order[static_cast<std::size_t>(j)]);
  }
  return order;
}

namespace {

void check_dataset(const Dataset& data, const std::string& op) {
  if (data.x.ndim() == 0) throw ShapeError(op + ": the examples x are a scalar; they need a first axis of examples.");
  if (data.y.size() != 0 && (data.y.ndim() != 1 || data.y.shape()[0] != data.x.shape()[0]))
    throw ShapeError(op + ": labels y of shape " + shape_string(data.y.shape()) + " do not match examples x of shape " +
                     shape_string(data.x.shape()) + "; y must be (N,) with N = x's first axis, or empty.");
}

// The labels as int64 values, checked to be integers.
std::vector<std::int64_t> label_values(const Array& y, const std::string& op) {
  if (!is_integer(y.dtype()) && y.dtype() != DType::b8)
    throw DTypeError(op + ": labels y are " + std::string(dtype_name(y.dtype())) +
                     " but must be integers. Convert them "
                     "with astype(int64).");
  Array y64 = y.astype(DType::i64);
  const auto* p = y64.data<std::int64_t>();
  return std::vector<std::int64_t>(p, p + y64.size());
}

// Splits the test count among the classes in proportion to their sizes (largest remainder; ties
// go to the smaller label), then draws each class's test examples with its own shuffle.
std::vector<std::int64_t> stratified_test_indices(const std::vector<std::int64_t>& labels, std::int64_t test_size,
                                                  std::uint64_t seed) {
  std::vector<std::int64_t> classes = labels;
  std::sort(classes.begin(), classes.end());
  classes.erase(std::unique(classes.begin(), classes.end()), classes.end());
  const auto n = static_cast<std::int64_t>(labels.size());
  std::vector<std::vector<std::int64_t>> members(classes.size());
  for (std::int64_t i = 0; i < n; ++i) {
    auto c = std::lower_bound(classes.begin(), classes.end(), labels[static_cast<std::size_t>(i)]) - classes.begin();
    members[static_cast<std::size_t>(c)].push_back(i);
  }
  std::vector<std::int64_t> take(classes.size());
  std::vector<std::pair<std::int64_t, std::size_t>> remainders;  // (remainder numerator, class)
  std::int64_t given = 0;
  for (std::size_t c = 0; c < classes.size(); ++c) {
    // test_size * n_c / n exactly, as quotient and remainder (both < 2^63 for n < 2^31).
    const auto share = static_cast<__int128>(test_size) * static_cast<__int128>(members[c].size());
    take[c] = static_cast<std::int64_t>(share / n);
    remainders.emplace_back(static_cast<std::int64_t>(share % n), c);
    given += take[c];
  }
  std::sort(remainders.begin(), remainders.end(),
            [](const auto& a, const auto& b) { return a.first != b.first ? a.first > b.first : a.second < b.second; });
  for (std::size_t k = 0; given < test_size; ++k, ++given) take[remainders[k].second] += 1;
  std::vector<std::int64_t> test;
  for (std::size_t c = 0; c < classes.size(); ++c) {
    const auto order =
        permutation(static_cast<std::int64_t>(members[c].size()),
                    detail::derive_seed(seed, detail::Stream::stratum, static_cast<std::uint64_t>(classes[c])));
    for (std::int64_t k = 0; k < take[c]; ++k)
      test.push_back(members[c][static_cast<std::size_t>(order[static_cast<std::size_t>(k)])]);
  }
  return test;
}

}  // namespace

Dataset take(const Dataset& data, const std::vector<std::int64_t>& indices) {
  check_dataset(data, "take");
  const std::int64_t n = data.size();
  for (std::size_t k = 0; k < indices.size(); ++k)
    if (indices[k] < 0 || indices[k] >= n)
      throw ValueError("take: index " + std::to_string(indices[k]) + " (position " + std::to_string(k) +
                       ") is outside [0, " + std::to_string(n) + ").");
  const auto count = static_cast<std::int64_t>(indices.size());
  Dataset out;
  out.x = detail::gather_rows(data.x, indices.data(), count);
  out.y = data.y.size() == 0 ? data.y : detail::gather_rows(data.y, indices.data(), count);
  return out;
}

std::pair<Dataset, Dataset> train_test_split(const Dataset& data, std::int64_t test_size, std::uint64_t seed,
                                             bool stratify) {
  check_dataset(data, "train_test_split");
  const std::int64_t n = data.size();
  if (test_size < 0 || test_size > n)
    throw ValueError("train_test_split: test_size is " + std::to_string(test_size) + " but the data set has " +
                     std::to_string(n) + " examples. Pass a test_size between 0 and " + std::to_string(n) + ".");
  std::vector<std::int64_t> test;
  if (stratify) {
    if (data.y.size() == 0)
      throw ValueError("train_test_split: stratify needs labels, but y is empty. Pass stratify=false.");
    test = stratified_test_indices(label_values(data.y, "train_test_split"), test_size, seed);
    // Mix the classes, so that the test part is not sorted by label.
    const auto order = permutation(test_size, detail::derive_seed(seed, detail::Stream::split, 1));
    std::vector<std::int64_t> mixed(test.size());
    for (std::size_t k = 0; k < test.size(); ++k) mixed[k] = test[static_cast<std::size_t>(order[k])];
    test = std::move(mixed);
  } else {
    const auto order = permutation(n, detail::derive_seed(seed, detail::Stream::split, 0));
    test.assign(order.begin(), order.begin() + test_size);
  }
  std::vector<char> in_test(static_cast<std::size_t>(n), 0);
  for (std::int64_t i : test) in_test[static_cast<std::size_t>(i)] = 1;
  // The training part in a shuffled order too (as scikit-learn returns it).
  std::vector<std::int64_t> train;
  const auto order = permutation(n, detail::derive_seed(seed, detail::Stream::split, 2));
  for (std::int64_t i : order)
    if (!in_test[static_cast<std::size_t>(i)]) train.push_back(i);
  return {take(data, train), take(data, test)};
}

namespace {

struct ChannelLayout {
  std::int64_t outer, channels, inner;  // x viewed as (outer, channels, inner)
};

ChannelLayout channel_layout(const Array& x, const std::string& op) {
  if (x.ndim() < 2)
    throw ShapeError(op + ": x has shape " + shape_string(x.shape()) +
                     " but needs at least 2 axes (N, C, ...); "
                     "channels are axis 1.");
  std::int64_t inner = 1;
  for (int a = 2; a < x.ndim(); ++a) inner *= x.shape()[static_cast<std::size_t>(a)];
  return {x.shape()[0], x.shape()[1], inner};
}

// Calls fn(c, value) for every element of x, with its channel c.
template <class F> void for_each_in_channels(const Array& x, const ChannelLayout& l, F&& fn) {
  visit_dtype(x.dtype(), [&]<class T>() {
    const T* p = static_cast<const T*>(x.raw_data());
    for (std::int64_t o = 0; o < l.outer; ++o)
      for (std::int64_t c = 0; c < l.channels; ++c) {
        const T* row = p + (o * l.channels + c) * l.inner;
        for (std::int64_t k = 0; k < l.inner; ++k) fn(c, static_cast<double>(row[k]));
      }
  });
}

}  // namespace

std::pair<Array, Array> channel_stats(const Array& x) {
  const ChannelLayout l = channel_layout(x, "channel_stats");
  const std::int64_t count = l.outer * l.inner;
  if (count == 0)
    throw ValueError("channel_stats: x of shape " + shape_string(x.shape()) + " has no elements per channel.");
  // Two passes (mean, then squared deviations) in double: exact enough for uint8 images of any count.
  std::vector<double> sum(static_cast<std::size_t>(l.channels), 0.0), dev(sum);
  for_each_in_channels(x, l, [&](std::int64_t c, double v) { sum[static_cast<std::size_t>(c)] += v; });
  for (double& s : sum) s /= static_cast<double>(count);
  for_each_in_channels(x, l, [&](std::int64_t c, double v) {
    const double d = v - sum[static_cast<std::size_t>(c)];
    dev[static_cast<std::size_t>(c)] += d * d;
  });
  Array mean({l.channels}, DType::f32), std({l.channels}, DType::f32);
  for (std::int64_t c = 0; c < l.channels; ++c) {
    mean.data<float>()[c] = static_cast<float>(sum[static_cast<std::size_t>(c)]);
    std.data<float>()[c] = static_cast<float>(std::sqrt(dev[static_cast<std::size_t>(c)] / static_cast<double>(count)));
  }
  return {mean, std};
}

Array standardize(const Array& x, const Array& mean, const Array& std) {
  const ChannelLayout l = channel_layout(x, "standardize");
  for (const auto& [name, a] : {std::pair<const char*, const Array*>{"mean", &mean}, {"std", &std}})
    if (a->ndim() != 1 || a->shape()[0] != l.channels)
      throw ShapeError(std::string("standardize: ") + name + " has shape " + shape_string(a->shape()) +
                       " but x of shape " + shape_string(x.shape()) + " has " + std::to_string(l.channels) +
                       " channels (axis 1); pass (" + std::to_string(l.channels) + ",) as channel_stats returns.");
  std::vector<double> m(static_cast<std::size_t>(l.channels)), sd(m.size());
  for (std::int64_t c = 0; c < l.channels; ++c) {
    const double s = std.get_flat(c);
    if (!(s > 0) || !std::isfinite(s))
      throw ValueError("standardize: std[" + std::to_string(c) + "] is " + std::to_string(s) +
                       "; every channel's standard deviation must be positive and finite (a constant channel "
                       "cannot be standardized).");
    m[static_cast<std::size_t>(c)] = mean.get_flat(c);
    sd[static_cast<std::size_t>(c)] = s;
  }
  Array out = Array::empty(x.shape(), DType::f32);
  float* o = out.data<float>();
  std::int64_t k = 0;
  for_each_in_channels(x, l, [&](std::int64_t c, double v) {
    o[k++] = static_cast<float>((v - m[static_cast<std::size_t>(c)]) / sd[static_cast<std::size_t>(c)]);
  });
  return out;
}

Array one_hot(const Array& labels, std::int64_t classes, DType dtype) {
  if (labels.ndim() != 1)
    throw ShapeError("one_hot: labels have shape " + shape_string(labels.shape()) + " but must be (N,).");
  if (classes <= 0) throw ValueError("one_hot: classes is " + std::to_string(classes) + "; it must be positive.");
  const std::vector<std::int64_t> values = label_values(labels, "one_hot");
  Array out = Array::zeros({labels.shape()[0], classes}, dtype);
  for (std::size_t i = 0; i < values.size(); ++i) {
    if (values[i] < 0 || values[i] >= classes)
      throw ValueError("one_hot: label " + std::to_string(values[i]) + " at index " + std::to_string(i) +
                       " is outside [0, " + std::to_string(classes) + "). Pass classes > the largest label.");
    out.set_flat(static_cast<std::int64_t>(i) * classes + values[i], 1.0);
  }
  return out;
}

namespace {

void check_index(const std::vector<Array>& batch, std::size_t index, const char* op) {
  if (index >= batch.size())
    throw ValueError(std::string(op) + ": the transform works on array " + std::to_string(index) +
                     " but the batch has " + std::to_string(batch.size()) +
                     " arrays. Pass the index of the examples' array.");
}

}  // namespace

Transform divide_by_max(std::size_t index) {
  return [index](std::vector<Array> batch, std::uint64_t) {
    check_index(batch, index, "divide_by_max");
    const Array& x = batch[index];
    if (x.ndim() == 0) throw ShapeError("divide_by_max: the examples are a scalar; they need a first axis.");
    const std::int64_t n = x.shape()[0], per = n == 0 ? 0 : x.size() / n;
    Array out = Array::empty(x.shape(), DType::f32);
    float* o = out.data<float>();
    visit_dtype(x.dtype(), [&]<class T>() {
      const T* p = static_cast<const T*>(x.raw_data());
      for (std::int64_t i = 0; i < n; ++i) {
        const T* row = p + i * per;
        T top = per > 0 ? row[0] : T{};
        for (std::int64_t k = 1; k < per; ++k) top = row[k] > top ? row[k] : top;
        const float divisor = static_cast<float>(top);
        if (top > T{})
          for (std::int64_t k = 0; k < per; ++k) o[i * per + k] = static_cast<float>(row[k]) / divisor;
        else
          for (std::int64_t k = 0; k < per; ++k) o[i * per + k] = 0.0f;
      }
    });
    batch[index] = out;
    return batch;
  };
}

Transform to_float32(double scale, std::size_t index) {
  return [scale, index](std::vector<Array> batch, std::uint64_t) {
    check_index(batch, index, "to_float32");
    const Array& x = batch[index];
    Array out = Array::empty(x.shape(), DType::f32);
    float* o = out.data<float>();
    visit_dtype(x.dtype(), [&]<class T>() {
      const T* p = static_cast<const T*>(x.raw_data());
      for (std::int64_t k = 0; k < x.size(); ++k) o[k] = static_cast<float>(static_cast<double>(p[k]) * scale);
    });
    batch[index] = out;
    return batch;
  };
}

Transform standardize_channels(Array mean, Array std, std::size_t index) {
  return [mean, std, index](std::vector<Array> batch, std::uint64_t) {
    check_index(batch, index, "standardize_channels");
    batch[index] = standardize(batch[index], mean, std);
    return batch;
  };
}

}  // namespace symx::data
