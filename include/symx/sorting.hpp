// symx/sorting.hpp: Sorting and searching (sort, argsort, partition, top_k, searchsorted, unique, set functions,
// interp), order statistics (median, quantile, percentile) and cumulative ops (cumprod, cummax, cummin, logcumsumexp).
//
// The order is NumPy's: NaN after every number (before every number when descending), ties in index
// order (every sort is stable). Functions whose output size depends on the values (unique, the set
// functions) take a static `size` (and `fill_value` for the padding) as jax.numpy's; without `size`
// they evaluate their input now, which needs an input without placeholders.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "symx/ops.hpp"

namespace symx {

// ---- sorting and searching ----

// The elements sorted along `axis` (the flattened a when axis is None), as jax.numpy.sort: NaN last,
// stable; descending reverses the order (NaN first, ties still in index order). Gradient: the
// cotangent goes back to each element's source position.
// Example: sort([3, 1, 2]).eval() is [1, 2, 3]
Tensor sort(const Tensor& a, std::optional<int> axis = -1, bool stable = true, bool descending = false,
            Loc loc = Loc::current());

// The indices that sort a along `axis` (of the flattened a when axis is None), as jax.numpy.argsort:
// stable, NaN last; int64, no gradient.
// Example: argsort([3, 1, 2]).eval() is [1, 2, 0]
Tensor argsort(const Tensor& a, std::optional<int> axis = -1, bool stable = true, bool descending = false,
               Loc loc = Loc::current());

// The elements sorted along axis 0, as numpy.msort (sort(a, 0)).
// Example: msort([[2, 1], [1, 3]]).eval() is [[1, 1], [2, 3]]
Tensor msort(const Tensor& a, Loc loc = Loc::current());

// a rearranged along `axis` so that each position in kth holds the element a full sort puts there,
// smaller ones before it and larger ones after it, as numpy.partition (kth: ints in [-n, n)).
// Example: partition([3, 4, 1, 2], 1).eval()[1] is 2
Tensor partition(const Tensor& a, const std::vector<std::int64_t>& kth, std::optional<int> axis = -1,
                 Loc loc = Loc::current());

// The indices that partition a (see partition), as numpy.argpartition; int64, no gradient.
// Example: argpartition([3, 4, 1, 2], 0).eval()[0] is 2
Tensor argpartition(const Tensor& a, const std::vector<std::int64_t>& kth, std::optional<int> axis = -1,
                    Loc loc = Loc::current());

// The k largest elements over the last axis and their indices, largest first (ties: the lower
// index first), as jax.lax.top_k. Returns {values, indices (int64)}.
// Example: top_k([1, 3, 2], 2) is ([3, 2], [1, 2])
std::vector<Tensor> top_k(const Tensor& operand, std::int64_t k, Loc loc = Loc::current());

// Where the elements of v go in the sorted 1-D array a to keep it sorted, as numpy.searchsorted:
// side "left" (first suitable index) or "right" (last); sorter: indices that sort a. int64.
// Example: searchsorted([1, 2, 3], 2, "right").eval() is 2
Tensor searchsorted(const Tensor& a, const Tensor& v, const std::string& side = "left",
                    const std::optional<Tensor>& sorter = std::nullopt, Loc loc = Loc::current());

// The indices that sort by several keys, the last key primary, as numpy.lexsort (each key of one
// shape, sorted along `axis`); int64.
// Example: lexsort({b, a}) sorts by a, then by b
Tensor lexsort(const std::vector<Tensor>& keys, int axis = -1, Loc loc = Loc::current());

// ---- order statistics ----

// The median over `axis` (all axes by default), as numpy.median: NaN where a row has a NaN; integer
// inputs give float32. Computed with a selection (partition), not a full sort.
// Example: median([1, 3, 2, 4]).eval() is 2.5
Tensor median(const Tensor& a, Axes axis = {}, bool keepdims = false, Loc loc = Loc::current());

// The q-th quantiles (q in [0, 1], a scalar or 1-D: its axis comes first) over `axis`, as
// numpy.quantile. method: "linear" (default), "lower", "higher", "midpoint", "nearest", "hazen",
// "weibull", "median_unbiased", "normal_unbiased", "interpolated_inverted_cdf", "inverted_cdf".
// Example: quantile([1, 2, 3, 4], 0.5).eval() is 2.5
Tensor quantile(const Tensor& a, const Tensor& q, Axes axis = {}, const std::string& method = "linear",
                bool keepdims = false, Loc loc = Loc::current());

// The q-th percentiles (q in [0, 100]), as numpy.percentile: quantile(a, q / 100).
// Example: percentile([1, 2, 3, 4], 50).eval() is 2.5
Tensor percentile(const Tensor& a, const Tensor& q, Axes axis = {}, const std::string& method = "linear",
                  bool keepdims = false, Loc loc = Loc::current());

// The median ignoring NaN, as numpy.nanmedian (NaN for an all-NaN row).
// Example: nanmedian([1, nan, 3]).eval() is 2
Tensor nanmedian(const Tensor& a, Axes axis = {}, bool keepdims = false, Loc loc = Loc::current());

// The quantiles ignoring NaN, as numpy.nanquantile.
// Example: nanquantile([1, nan, 3], 0.5).eval() is 2
Tensor nanquantile(const Tensor& a, const Tensor& q, Axes axis = {}, const std::string& method = "linear",
                   bool keepdims = false, Loc loc = Loc::current());

// The percentiles ignoring NaN, as numpy.nanpercentile.
// Example: nanpercentile([1, nan, 3], 50).eval() is 2
Tensor nanpercentile(const Tensor& a, const Tensor& q, Axes axis = {}, const std::string& method = "linear",
                     bool keepdims = false, Loc loc = Loc::current());

// ---- unique and set functions ----

// The results of unique_all: the sorted unique values, the index of each one's first occurrence,
// the index of each element's unique value (a's shape) and each unique value's count.
struct UniqueResult {
  Tensor values, indices, inverse_indices, counts;
};

// The sorted unique elements of a (flattened), as jax.numpy.unique; NaNs count as one value
// (equal_nan; the array-API names unique_values, unique_counts, ... keep them apart, as NumPy's). With
// return_index / return_inverse / return_counts, also the first indices, the inverse (ar's shape) and the
// counts, in that order. size: a static length (padded with fill_value, default the smallest value;
// indices and counts with 0); without it a is evaluated now, which needs an input without placeholders.
// axis: the unique slices along that axis instead (numpy.unique(axis=)): rows for axis 0 of a matrix, in
// lexicographic order (NaN last); slices holding NaN never merge, as NumPy's (equal_nan is ignored). The
// inverse is then 1-D (one entry per slice), size counts slices and their padding is fill_value
// everywhere (default: the first unique slice).
// Example: unique([3, 1, 3]) is [[1, 3]]; the values of unique([[1, 2], [0, 5], [1, 2]], axis=0) are [[0, 5], [1, 2]]
std::vector<Tensor> unique(const Tensor& ar, bool return_index = false, bool return_inverse = false,
                           bool return_counts = false, bool equal_nan = true,
                           std::optional<std::int64_t> size = std::nullopt,
                           std::optional<double> fill_value = std::nullopt, std::optional<int> axis = std::nullopt,
                           Loc loc = Loc::current());

// The sorted unique values, as numpy.unique_values (see unique for size and fill_value).
// Example: unique_values([3, 1, 3]).eval() is [1, 3]
Tensor unique_values(const Tensor& x, std::optional<std::int64_t> size = std::nullopt,
                     std::optional<double> fill_value = std::nullopt, Loc loc = Loc::current());

// The unique values and their counts, as numpy.unique_counts.
// Example: unique_counts([3, 1, 3]).counts is [1, 2]
UniqueResult unique_counts(const Tensor& x, std::optional<std::int64_t> size = std::nullopt,
                           std::optional<double> fill_value = std::nullopt, Loc loc = Loc::current());

// The unique values and the inverse indices (x's shape), as numpy.unique_inverse.
// Example: unique_inverse([3, 1, 3]).inverse_indices is [1, 0, 1]
UniqueResult unique_inverse(const Tensor& x, std::optional<std::int64_t> size = std::nullopt,
                            std::optional<double> fill_value = std::nullopt, Loc loc = Loc::current());

// The unique values, first indices, inverse indices (x's shape) and counts, as numpy.unique_all.
// Example: unique_all([3, 1, 3]).indices is [1, 0]
UniqueResult unique_all(const Tensor& x, std::optional<std::int64_t> size = std::nullopt,
                        std::optional<double> fill_value = std::nullopt, Loc loc = Loc::current());

// Whether each element of `element` is in test_elements, as numpy.isin (invert: whether not); bool.
// Example: isin([1, 2, 3], [2, 5]).eval() is [False, True, False]
Tensor isin(const Tensor& element, const Tensor& test_elements, bool assume_unique = false, bool invert = false,
            Loc loc = Loc::current());

// isin over the flattened ar1, as numpy.in1d.
// Example: in1d([1, 2], [2]).eval() is [False, True]
Tensor in1d(const Tensor& ar1, const Tensor& ar2, bool assume_unique = false, bool invert = false,
            Loc loc = Loc::current());

// The sorted unique values in both arrays, as jax.numpy.intersect1d (size, fill_value: see unique).
// Example: intersect1d([1, 2, 3], [2, 3, 4]).eval() is [2, 3]
Tensor intersect1d(const Tensor& ar1, const Tensor& ar2, bool assume_unique = false,
                   std::optional<std::int64_t> size = std::nullopt, std::optional<double> fill_value = std::nullopt,
                   Loc loc = Loc::current());

// The sorted unique values of ar1 not in ar2, as jax.numpy.setdiff1d (size, fill_value: see unique).
// Example: setdiff1d([1, 2, 3], [2]).eval() is [1, 3]
Tensor setdiff1d(const Tensor& ar1, const Tensor& ar2, bool assume_unique = false,
                 std::optional<std::int64_t> size = std::nullopt, std::optional<double> fill_value = std::nullopt,
                 Loc loc = Loc::current());

// The sorted unique values in exactly one of the arrays, as jax.numpy.setxor1d.
// Example: setxor1d([1, 2], [2, 3]).eval() is [1, 3]
Tensor setxor1d(const Tensor& ar1, const Tensor& ar2, bool assume_unique = false,
                std::optional<std::int64_t> size = std::nullopt, std::optional<double> fill_value = std::nullopt,
                Loc loc = Loc::current());

// The sorted unique values in either array, as jax.numpy.union1d.
// Example: union1d([1, 2], [2, 3]).eval() is [1, 2, 3]
Tensor union1d(const Tensor& ar1, const Tensor& ar2, std::optional<std::int64_t> size = std::nullopt,
               std::optional<double> fill_value = std::nullopt, Loc loc = Loc::current());

// Piecewise-linear interpolation of the points (xp, fp) at x, as jax.numpy.interp: xp increasing;
// left / right: the values below xp[0] / above xp[-1] (default fp[0] / fp[-1]); period: x and xp
// are taken modulo it (left and right then unused). Float dtype of the operands (float32 for ints).
// Example: interp([1.5], [1, 2], [10, 20]).eval() is [15.]
Tensor interp(const Tensor& x, const Tensor& xp, const Tensor& fp, std::optional<double> left = std::nullopt,
              std::optional<double> right = std::nullopt, std::optional<double> period = std::nullopt,
              Loc loc = Loc::current());

// ---- cumulative ops ----

// Running product along `axis` (of the flattened a when axis is None), as numpy.cumprod; bool,
// uint8 and int32 accumulate in int64. Its gradient is exact with zeros in a.
// Example: cumprod([1, 2, 3]).eval() is [1, 2, 6]
Tensor cumprod(const Tensor& a, std::optional<int> axis = std::nullopt, Loc loc = Loc::current());

// NumPy's other name of cumprod.
// Example: cumproduct([1, 2, 3]).eval() is [1, 2, 6]
inline Tensor cumproduct(const Tensor& a, std::optional<int> axis = std::nullopt, Loc loc = Loc::current()) {
  return cumprod(a, axis, loc);
}

// Running maximum along `axis` (of the flattened a when axis is None), as jax.lax.cummax; NaN
// propagates. Gradient: to the latest position holding the maximum so far (torch.cummax's index).
// Example: cummax([1, 3, 2]).eval() is [1, 3, 3]
Tensor cummax(const Tensor& a, std::optional<int> axis = std::nullopt, Loc loc = Loc::current());

// Running minimum along `axis`, as jax.lax.cummin (see cummax).
// Example: cummin([3, 1, 2]).eval() is [3, 1, 1]
Tensor cummin(const Tensor& a, std::optional<int> axis = std::nullopt, Loc loc = Loc::current());

// log(cumsum(exp(a))) along `axis`, computed stably, as torch.logcumsumexp (jax.lax.cumlogsumexp);
// integer inputs give float32.
// Example: logcumsumexp([0, 0]).eval() is [0, log(2)]
Tensor logcumsumexp(const Tensor& a, std::optional<int> axis = std::nullopt, Loc loc = Loc::current());

// cumsum with NaN counted as 0, as numpy.nancumsum.
// Example: nancumsum([1, nan, 2]).eval() is [1, 1, 3]
Tensor nancumsum(const Tensor& a, std::optional<int> axis = std::nullopt, Loc loc = Loc::current());

// cumprod with NaN counted as 1, as numpy.nancumprod.
// Example: nancumprod([2, nan, 3]).eval() is [2, 2, 6]
Tensor nancumprod(const Tensor& a, std::optional<int> axis = std::nullopt, Loc loc = Loc::current());

// Running sum, as numpy.cumulative_sum (NumPy 2): axis may be omitted only for 1-D x;
// include_initial puts a 0 first.
// Example: cumulative_sum([1, 2], include_initial=true).eval() is [0, 1, 3]
// Python: sx.cumulative_sum([1, 2], include_initial=True).eval() is [0, 1, 3]
Tensor cumulative_sum(const Tensor& x, std::optional<int> axis = std::nullopt, bool include_initial = false,
                      Loc loc = Loc::current());

// Running product, as numpy.cumulative_prod (NumPy 2): include_initial puts a 1 first.
// Example: cumulative_prod([2, 3], include_initial=true).eval() is [1, 2, 6]
// Python: sx.cumulative_prod([2, 3], include_initial=True).eval() is [1, 2, 6]
Tensor cumulative_prod(const Tensor& x, std::optional<int> axis = std::nullopt, bool include_initial = false,
                       Loc loc = Loc::current());

}  // namespace symx
