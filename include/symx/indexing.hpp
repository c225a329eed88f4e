// symx/indexing.hpp: Indexed updates (index_update/index_add/..., Tensor.at), put_along_axis, bincount, histogram, and
// functions with data-dependent output shapes (nonzero, argwhere, unique: a static size=).
//
// Indexed updates follow JAX (x.at[idx].set(v) is jax's, index_update(x, idx, v) SymJAX's): they
// return a new tensor and never change x. An index is what NumPy's x[idx] takes: integers, slices,
// newaxis (None), an ellipsis, integer tensors (advanced indexing: they broadcast together and their
// dimensions go where NumPy puts them) and boolean masks. A boolean mask whose values are known when
// the graph is built (a constant) is turned into the integer indices of its true elements; a symbolic
// mask (one that depends on a placeholder) works in the updates when it is the whole index (x.at[m]),
// as where(m, v, x) does, but not in get (its result shape would depend on the data).
// Duplicate indices: add and multiply combine every update at a position, min and max keep the
// extreme one, set keeps the last one in row-major order of the index (JAX leaves this unspecified);
// the gradient of set goes to that last update only. Out-of-range indices are an error (as NumPy's;
// JAX clamps or drops them).
// Primitives: scatter_set, scatter_mul, scatter_min, scatter_max (and the existing scatter_add); the
// rest are composites.
#pragma once

#include <optional>
#include <utility>
#include <variant>
#include <vector>

#include "symx/ops.hpp"

namespace symx {

// One entry of an index for the indexed updates: a basic entry (an integer, a slice, newaxis or an
// ellipsis) or a tensor of integers or booleans.
class IndexItem {
 public:
  IndexItem(const Index& i) : value_(i) {}         // NOLINT: implicit by design
  IndexItem(std::int64_t i) : value_(Index(i)) {}  // NOLINT
  IndexItem(int i) : value_(Index(i)) {}           // NOLINT
  IndexItem(const Tensor& t) : value_(t) {}        // NOLINT
  bool is_tensor() const { return std::holds_alternative<Tensor>(value_); }
  const Tensor& tensor() const { return std::get<Tensor>(value_); }
  const Index& index() const { return std::get<Index>(value_); }

 private:
  std::variant<Index, Tensor> value_;
};
using IndexList = std::vector<IndexItem>;

// x[index] with NumPy's full indexing (basic and advanced), as x.at[index].get() in JAX.
// Example: index_get(x, ([1, 0], 2)) is x[[1, 0], 2], as x.at[[1, 0], 2].get()
Tensor index_get(const Tensor& x, const IndexList& index, Loc loc = Loc::current());
// A copy of x with x[index] replaced by values (broadcast to x[index]'s shape, cast to x's dtype), as
// jax.ops.index_update and x.at[index].set(values). With duplicate indices the last update wins.
// Example: index_update(zeros((3,)), 1, 5.0).eval() is [0, 5, 0]
Tensor index_update(const Tensor& x, const IndexList& index, const Operand& values, Loc loc = Loc::current());
// x with values added at x[index] (duplicates accumulate), as jax.ops.index_add and x.at[index].add(values).
// Example: index_add(zeros((3,)), ([0, 0],), 1.0).eval() is [2, 0, 0]
Tensor index_add(const Tensor& x, const IndexList& index, const Operand& values, Loc loc = Loc::current());
// x with x[index] multiplied by values (duplicates multiply), as x.at[index].multiply(values).
// Example: index_multiply(ones((3,)), 2, 4.0).eval() is [1, 1, 4]
Tensor index_multiply(const Tensor& x, const IndexList& index, const Operand& values, Loc loc = Loc::current());
// x with x[index] divided by values, as x.at[index].divide(values) (x / scatter_mul(ones, index, values)).
// Example: index_divide(ones((3,)), 2, 4.0).eval() is [1, 1, 0.25]
Tensor index_divide(const Tensor& x, const IndexList& index, const Operand& values, Loc loc = Loc::current());
// x with x[index] replaced by minimum(x[index], values), as jax.ops.index_min and x.at[index].min(values).
// Example: index_min(ones((3,)), 0, -2.0).eval() is [-2, 1, 1]
Tensor index_min(const Tensor& x, const IndexList& index, const Operand& values, Loc loc = Loc::current());
// x with x[index] replaced by maximum(x[index], values), as jax.ops.index_max and x.at[index].max(values).
// Example: index_max(zeros((3,)), 0, 2.0).eval() is [2, 0, 0]
Tensor index_max(const Tensor& x, const IndexList& index, const Operand& values, Loc loc = Loc::current());

// JAX's x.at[index]: the indexed updates as methods (at(x, {1}).set(5.0)). In Python, x.at[index].
class IndexedRef {
 public:
  IndexedRef(Tensor x, IndexList index) : x_(std::move(x)), index_(std::move(index)) {}
  Tensor get(Loc loc = Loc::current()) const { return index_get(x_, index_, loc); }
  Tensor set(const Operand& v, Loc loc = Loc::current()) const { return index_update(x_, index_, v, loc); }
  Tensor add(const Operand& v, Loc loc = Loc::current()) const { return index_add(x_, index_, v, loc); }
  Tensor multiply(const Operand& v, Loc loc = Loc::current()) const { return index_multiply(x_, index_, v, loc); }
  Tensor divide(const Operand& v, Loc loc = Loc::current()) const { return index_divide(x_, index_, v, loc); }
  Tensor min(const Operand& v, Loc loc = Loc::current()) const { return index_min(x_, index_, v, loc); }
  Tensor max(const Operand& v, Loc loc = Loc::current()) const { return index_max(x_, index_, v, loc); }

 private:
  Tensor x_;
  IndexList index_;
};
// x.at[index] of JAX: at(x, {1, Index::all()}).add(1.0) is x.at[1, :].add(1).
// Example: at(x, {0}).set(1.0)
inline IndexedRef at(const Tensor& x, IndexList index) { return {x, std::move(index)}; }

// x with `values` put at `indices` along `axis`, as numpy.put_along_axis (jnp's, inplace=False): indices
// is an integer tensor of x's number of dimensions, broadcastable with x on the other axes; values
// broadcast to the indices' shape. Without axis, x is flattened (and the result is 1-D).
// Example: put_along_axis(x, argmax(x, axis=1, keepdims=True), 0.0, axis=1) zeroes each row's maximum
Tensor put_along_axis(const Tensor& x, const Tensor& indices, const Operand& values, std::optional<int> axis,
                      Loc loc = Loc::current());
// x with the flat positions `indices` set to `values`, as numpy.put (jnp's, inplace=False); values are
// repeated when shorter than indices. mode: "raise" (default: an out-of-range index is an error), "wrap"
// or "clip".
// Example: put(zeros((2, 2)), [0, 3], [1.0, 2.0]).eval() is [[1, 0], [0, 2]]
Tensor put(const Tensor& x, const Tensor& indices, const Tensor& values, const std::string& mode = "raise",
           Loc loc = Loc::current());
// x with the positions where mask is true set to vals, taken in order and repeated, as numpy.place
// (jnp's, inplace=False). mask: x's shape.
// Example: place(arange(5), arange(5) > 2, [0]) is [0, 1, 2, 0, 0]
Tensor place(const Tensor& x, const Tensor& mask, const Tensor& vals, Loc loc = Loc::current());

// Counts of each value of a non-negative integer tensor (sums of weights when given), as numpy.bincount;
// the result has max(x)+1 (at least minlength) elements. `length` fixes that size statically, as jnp's
// length= (values >= length are dropped); without it x's values must be known when the graph is built.
// Returns int64 counts, or the weights' dtype (float32 for integer weights).
// Example: bincount([0, 1, 1, 3]).eval() is [1, 2, 0, 1]
Tensor bincount(const Tensor& x, const std::optional<Tensor>& weights = std::nullopt, std::int64_t minlength = 0,
                std::optional<std::int64_t> length = std::nullopt, Loc loc = Loc::current());

// The bins of a histogram: a number of equal-width bins, or the bin edges (increasing).
class Bins {
 public:
  Bins(std::int64_t n) : value_(n) {}                    // NOLINT: implicit by design
  Bins(int n) : value_(static_cast<std::int64_t>(n)) {}  // NOLINT
  Bins(const Tensor& edges) : value_(edges) {}           // NOLINT
  bool is_count() const { return std::holds_alternative<std::int64_t>(value_); }
  std::int64_t count() const { return std::get<std::int64_t>(value_); }
  const Tensor& edges() const { return std::get<Tensor>(value_); }

 private:
  std::variant<std::int64_t, Tensor> value_;
};
using Range = std::optional<std::pair<double, double>>;

// The bin edges numpy.histogram would use: bins+1 equal steps over `range` (default: x's min and max,
// widened by 0.5 each way when they are equal), or the given edges. Float32 for float32 and integer x.
// Example: histogram_bin_edges([0.0, 1.0], 2).eval() is [0, 0.5, 1]
Tensor histogram_bin_edges(const Tensor& x, const Bins& bins = 10, Range range = std::nullopt,
                           const std::optional<Tensor>& weights = std::nullopt, Loc loc = Loc::current());
// A histogram of x (flattened), as numpy.histogram: returns (counts, edges). Each bin is half-open
// [e_i, e_i+1) except the last, which includes its right edge; values outside the edges are not
// counted. counts is int64, or the weights' dtype with weights (float when density: the counts
// divided by their total and the bin widths).
// Example: histogram([0.0, 0.2, 0.9], 2) is ([2, 1], [0, 0.45, 0.9])
std::pair<Tensor, Tensor> histogram(const Tensor& x, const Bins& bins = 10, Range range = std::nullopt,
                                    const std::optional<Tensor>& weights = std::nullopt, bool density = false,
                                    Loc loc = Loc::current());
// A D-dimensional histogram of `sample` (N, D), as numpy.histogramdd: bins per dimension (one entry for
// all), ranges per dimension; returns the (bins_0, ..., bins_D-1) counts and the D edge tensors.
// Example: histogramdd(stack([x, y], 1), (4, 4)) gives counts of shape (4, 4) and two edge tensors
std::pair<Tensor, std::vector<Tensor>> histogramdd(const Tensor& sample, const std::vector<Bins>& bins = {10},
                                                   const std::vector<std::pair<double, double>>& ranges = {},
                                                   const std::optional<Tensor>& weights = std::nullopt,
                                                   bool density = false, Loc loc = Loc::current());
// A 2-D histogram of points (x, y), as numpy.histogram2d: returns (counts, xedges, yedges).
// Example: histogram2d(x, y, (5, 5))
std::vector<Tensor> histogram2d(const Tensor& x, const Tensor& y, const std::vector<Bins>& bins = {10},
                                const std::vector<std::pair<double, double>>& ranges = {},
                                const std::optional<Tensor>& weights = std::nullopt, bool density = false,
                                Loc loc = Loc::current());

// ---- data-dependent output shapes ----
// These results have as many elements as x has true (nonzero) values. With a static `size`, as JAX's
// size=, the result has exactly `size` entries: the first ones found, padded with `fill_value` (0 by
// default). Without size, x's values must be known when the graph is built (a constant: an eval of
// concrete values); a symbolic x (one that depends on a placeholder or variable) needs size=.

// The indices of the nonzero elements, one int64 tensor per dimension of x, as numpy.nonzero.
// Example: nonzero([0, 3, 0, 4]) is ([1, 3],)
std::vector<Tensor> nonzero(const Tensor& x, std::optional<std::int64_t> size = std::nullopt,
                            std::int64_t fill_value = 0, Loc loc = Loc::current());
// The indices of the nonzero elements as rows, shape (count, ndim) int64, as numpy.argwhere.
// Example: argwhere([[0, 1], [1, 0]]).eval() is [[0, 1], [1, 0]]
Tensor argwhere(const Tensor& x, std::optional<std::int64_t> size = std::nullopt, std::int64_t fill_value = 0,
                Loc loc = Loc::current());
// The indices of the nonzero elements of the flattened x, as numpy.flatnonzero.
// Example: flatnonzero([0, 3, 0, 4]).eval() is [1, 3]
Tensor flatnonzero(const Tensor& x, std::optional<std::int64_t> size = std::nullopt, std::int64_t fill_value = 0,
                   Loc loc = Loc::current());
// The slices of x along `axis` (of the flattened x without one) where condition (1-D, at most that long)
// is true, as numpy.compress; the padding of size= is fill_value.
// Example: compress([0, 1, 1], [1, 2, 3]).eval() is [2, 3]
Tensor compress(const Tensor& condition, const Tensor& x, std::optional<int> axis = std::nullopt,
                std::optional<std::int64_t> size = std::nullopt, double fill_value = 0, Loc loc = Loc::current());
// The elements of x (flattened) where condition (x's size) is true, as numpy.extract.
// Example: extract(x > 1, x) of x = [1, 2, 3] is [2, 3]
Tensor extract(const Tensor& condition, const Tensor& x, std::optional<std::int64_t> size = std::nullopt,
               double fill_value = 0, Loc loc = Loc::current());
// x (1-D) without its leading ("f") and/or trailing ("b") zeros, as numpy.trim_zeros.
// Example: trim_zeros([0, 1, 2, 0]).eval() is [1, 2]
Tensor trim_zeros(const Tensor& x, const std::string& trim = "fb", std::optional<std::int64_t> size = std::nullopt,
                  double fill_value = 0, Loc loc = Loc::current());

}  // namespace symx
