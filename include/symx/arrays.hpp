// symx/arrays.hpp: Array building and reshaping beyond ops.hpp (stacking and splitting, triangles and diagonals, index
// helpers, roll, rot90, polynomials, convolve) and the contractions (einsum, tensordot, inner, kron, vdot, matvec).
//
// Every function here is a composite: a graph of the primitives of ops.hpp (reshape, transpose, slice, concatenate,
// pad, take, where, matmul, sum, ...), so that elementwise parts fuse into kernels, products are library calls and the
// gradients are those of the primitives. Index helpers whose result depends only on shapes (tril_indices, indices,
// diag_indices, ...) are constants.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "symx/ops.hpp"

namespace symx {

// ---- conversion and creation ----
// a as a tensor, cast to `dtype` when given, as numpy.array (a tensor is returned as it is).
// Example: array([1, 2], dtype=float32).eval() is [1.0, 2.0]
Tensor array(const Tensor& a, std::optional<DType> dtype = std::nullopt, Loc loc = Loc::current());
// a as a tensor, cast to `dtype` when given, as numpy.asarray.
// Example: asarray(np.ones(3)) is a float64 constant
Tensor asarray(const Tensor& a, std::optional<DType> dtype = std::nullopt, Loc loc = Loc::current());
// A tensor of `shape` (zeros: a graph has no uninitialized memory), as numpy.empty; float32 by default.
// Example: empty((2, 3)) has shape (2, 3)
Tensor empty(Shape shape, DType dtype = DType::f32, Loc loc = Loc::current());
// A tensor of a's shape and dtype (or `dtype`), filled with zeros, as numpy.empty_like.
// Example: empty_like(x) has x's shape
Tensor empty_like(const Tensor& a, std::optional<DType> dtype = std::nullopt, Loc loc = Loc::current());
// A tensor of `shape` filled with fill_value (a number or a tensor broadcast to shape), as numpy.full. The dtype is
// `dtype`, else the tensor's, else int64 for an integer and float32 for a float number (symx's default float).
// Example: full((2,), 7).eval() is [7, 7]
Tensor full(Shape shape, const Operand& fill_value, std::optional<DType> dtype = std::nullopt,
            Loc loc = Loc::current());
// A tensor of a's shape filled with fill_value, of a's dtype unless `dtype` is given, as numpy.full_like.
// Example: full_like([1.0, 2.0], 3).eval() is [3.0, 3.0]
Tensor full_like(const Tensor& a, const Operand& fill_value, std::optional<DType> dtype = std::nullopt,
                 Loc loc = Loc::current());
// The n x n identity matrix, as numpy.identity; float32 by default.
// Example: identity(2).eval() is [[1, 0], [0, 1]]
Tensor identity(std::int64_t n, DType dtype = DType::f32, Loc loc = Loc::current());
// The lower triangle of ones: 1 where j <= i + k, an N x M matrix (M defaults to N), as numpy.tri; float32 by default.
// Example: tri(2).eval() is [[1, 0], [1, 1]]
Tensor tri(std::int64_t n, std::optional<std::int64_t> m = std::nullopt, std::int64_t k = 0, DType dtype = DType::f32,
           Loc loc = Loc::current());
// `num` values spaced evenly on a log scale from start to stop (both included when endpoint), as numpy.geomspace;
// start and stop must be nonzero and of one sign. float32 by default.
// Example: geomspace(1, 1000, 4).eval() is [1, 10, 100, 1000]
Tensor geomspace(double start, double stop, std::int64_t num = 50, bool endpoint = true, DType dtype = DType::f32,
                 Loc loc = Loc::current());
// base ** linspace(start, stop, num), as numpy.logspace; float32 by default.
// Example: logspace(0, 2, 3).eval() is [1, 10, 100]
Tensor logspace(double start, double stop, std::int64_t num = 50, bool endpoint = true, double base = 10.0,
                DType dtype = DType::f32, Loc loc = Loc::current());

// ---- dimensions ----
// a with at least one axis (a scalar becomes shape (1,)), as numpy.atleast_1d (Python: several arrays give a list).
// Example: atleast_1d(3.0) has shape (1,)
Tensor atleast_1d(const Tensor& a, Loc loc = Loc::current());
// a with at least two axes ((n,) becomes (1, n)), as numpy.atleast_2d.
// Example: atleast_2d([1, 2]) has shape (1, 2)
Tensor atleast_2d(const Tensor& a, Loc loc = Loc::current());
// a with at least three axes ((n,) becomes (1, n, 1), (m, n) becomes (m, n, 1)), as numpy.atleast_3d.
// Example: atleast_3d(x) of x with shape (2, 3) has shape (2, 3, 1)
Tensor atleast_3d(const Tensor& a, Loc loc = Loc::current());
// a with its axes `source` moved to positions `destination`, the others in their order, as numpy.moveaxis.
// Example: moveaxis(x, 0, -1) of x with shape (3, 4, 5) has shape (4, 5, 3)
Tensor moveaxis(const Tensor& a, const std::vector<int>& source, const std::vector<int>& destination,
                Loc loc = Loc::current());
// Axis `axis` rolled back to before position `start`, as numpy.rollaxis.
// Example: rollaxis(x, 2) of x with shape (3, 4, 5) has shape (5, 3, 4)
Tensor rollaxis(const Tensor& a, int axis, int start = 0, Loc loc = Loc::current());
// a with axes axis1 and axis2 exchanged, as numpy.swapaxes.
// Example: swapaxes(x, 0, 2) of x with shape (3, 4, 5) has shape (5, 4, 3)
Tensor swapaxes(const Tensor& a, int axis1, int axis2, Loc loc = Loc::current());
// The axes of x permuted, as numpy.permute_dims (the array API's transpose).
// Example: permute_dims(x, (1, 0)) of x with shape (2, 3) has shape (3, 2)
Tensor permute_dims(const Tensor& x, std::vector<int> axes, Loc loc = Loc::current());
// The transpose of the last two axes of x (ndim >= 2), as numpy.matrix_transpose.
// Example: matrix_transpose(x) of x with shape (5, 2, 3) has shape (5, 3, 2)
Tensor matrix_transpose(const Tensor& x, Loc loc = Loc::current());
// The elements of a as a 1-D tensor, as numpy.ravel.
// Example: ravel([[1, 2], [3, 4]]).eval() is [1, 2, 3, 4]
Tensor ravel(const Tensor& a, Loc loc = Loc::current());
// Axes rearranged Theano's way (SymJAX's dimshuffle): pattern lists the input axes in their new order, with -1
// (Python: 'x') for a new axis of size 1; input axes left out must have size 1 and are dropped.
// Example: dimshuffle(x, (1, 'x', 0)) of x with shape (2, 3) has shape (3, 1, 2)
Tensor dimshuffle(const Tensor& a, const std::vector<int>& pattern, Loc loc = Loc::current());
// x reshaped to (x.shape[0], -1), as SymJAX's flatten2d.
// Example: flatten2d(x) of x with shape (8, 3, 4) has shape (8, 12)
Tensor flatten2d(const Tensor& x, Loc loc = Loc::current());
// x reshaped to (x.shape[0], x.shape[1], -1), as SymJAX's flatten3d.
// Example: flatten3d(x) of x with shape (8, 3, 4, 5) has shape (8, 3, 20)
Tensor flatten3d(const Tensor& x, Loc loc = Loc::current());
// x reshaped to (x.shape[0], x.shape[1], x.shape[2], -1), as SymJAX's flatten4d.
// Example: flatten4d(x) of x with shape (2, 3, 4, 5, 6) has shape (2, 3, 4, 30)
Tensor flatten4d(const Tensor& x, Loc loc = Loc::current());
// A weight as the matrix of spectral normalization (SymJAX's reshape_weight_to_matrix): axis `dim` moved first, the
// rest flattened: shape (w.shape[dim], -1).
// Example: reshape_weight_to_matrix(w) of w with shape (16, 3, 3, 3) has shape (16, 27)
Tensor reshape_weight_to_matrix(const Tensor& w, int dim = 0, Loc loc = Loc::current());
// The elements of a in the given shape, repeated cyclically (or cut) to fill it, as numpy.resize.
// Example: resize([1, 2, 3], (2, 2)).eval() is [[1, 2], [3, 1]]
Tensor resize(const Tensor& a, Shape new_shape, Loc loc = Loc::current());

// ---- joining and splitting ----
// Tensors joined along an existing axis: the same function as concatenate (the array API's name).
// Example: concat([x, y], axis=0)
inline Tensor concat(const std::vector<Tensor>& xs, int axis = 0, Loc loc = Loc::current()) {
  return concatenate(xs, axis, loc);
}
// Tensors stacked horizontally: along axis 1, or axis 0 for 1-D ones, as numpy.hstack.
// Example: hstack([[1, 2], [3]]).eval() is [1, 2, 3]
Tensor hstack(const std::vector<Tensor>& xs, Loc loc = Loc::current());
// Tensors stacked vertically (atleast_2d, then along axis 0), as numpy.vstack.
// Example: vstack([[1, 2], [3, 4]]) has shape (2, 2)
Tensor vstack(const std::vector<Tensor>& xs, Loc loc = Loc::current());
// The same as vstack (NumPy's older name).
// Example: row_stack([[1, 2], [3, 4]]) has shape (2, 2)
inline Tensor row_stack(const std::vector<Tensor>& xs, Loc loc = Loc::current()) { return vstack(xs, loc); }
// Tensors stacked depth-wise (atleast_3d, then along axis 2), as numpy.dstack.
// Example: dstack([x, y]) of two (2, 3) tensors has shape (2, 3, 2)
Tensor dstack(const std::vector<Tensor>& xs, Loc loc = Loc::current());
// 1-D tensors as the columns of a 2-D one (2-D tensors joined along axis 1), as numpy.column_stack.
// Example: column_stack([[1, 2], [3, 4]]).eval() is [[1, 3], [2, 4]]
Tensor column_stack(const std::vector<Tensor>& xs, Loc loc = Loc::current());
// The tensors along `axis` of x, as a list (numpy.unstack).
// Example: unstack(x) of x with shape (3, 4) gives three tensors of shape (4,)
std::vector<Tensor> unstack(const Tensor& x, int axis = 0, Loc loc = Loc::current());
// Splits into `sections` parts along axis (numpy.array_split): when they do not divide the axis, the first
// (size % sections) parts have one more element.
// Example: array_split(arange(5), 3) gives tensors of 2, 2 and 1 elements
std::vector<Tensor> array_split(const Tensor& x, std::int64_t sections, int axis = 0, Loc loc = Loc::current());
// split along axis 1 (axis 0 for 1-D tensors), as numpy.hsplit with a number of sections.
// Example: hsplit(x, 2) of x with shape (3, 4) gives two (3, 2) tensors
std::vector<Tensor> hsplit(const Tensor& x, std::int64_t sections, Loc loc = Loc::current());
// split along axis 1 (axis 0 for 1-D tensors) at the given indices, as numpy.hsplit with a list.
// Example: hsplit(x, [1]) of x with shape (3, 4) gives tensors of shapes (3, 1) and (3, 3)
std::vector<Tensor> hsplit(const Tensor& x, const std::vector<std::int64_t>& indices, Loc loc = Loc::current());
// split along axis 0 (of a tensor with ndim >= 2), as numpy.vsplit with a number of sections.
// Example: vsplit(x, 2) of x with shape (4, 3) gives two (2, 3) tensors
std::vector<Tensor> vsplit(const Tensor& x, std::int64_t sections, Loc loc = Loc::current());
// split along axis 0 at the given indices, as numpy.vsplit with a list.
// Example: vsplit(x, [1]) of x with shape (4, 3) gives tensors of shapes (1, 3) and (3, 3)
std::vector<Tensor> vsplit(const Tensor& x, const std::vector<std::int64_t>& indices, Loc loc = Loc::current());
// split along axis 2 (of a tensor with ndim >= 3), as numpy.dsplit with a number of sections.
// Example: dsplit(x, 2) of x with shape (2, 2, 4) gives two (2, 2, 2) tensors
std::vector<Tensor> dsplit(const Tensor& x, std::int64_t sections, Loc loc = Loc::current());
// split along axis 2 at the given indices, as numpy.dsplit with a list.
// Example: dsplit(x, [1]) of x with shape (2, 2, 4) gives tensors of shapes (2, 2, 1) and (2, 2, 3)
std::vector<Tensor> dsplit(const Tensor& x, const std::vector<std::int64_t>& indices, Loc loc = Loc::current());
// values appended to arr along axis (both flattened when axis is None), as numpy.append.
// Example: append([1, 2], [3]).eval() is [1, 2, 3]
Tensor append(const Tensor& arr, const Tensor& values, std::optional<int> axis = std::nullopt,
              Loc loc = Loc::current());
// values inserted into arr before the given indices along axis (arr flattened when axis is None), as numpy.insert;
// obj: one index, or a list (each index refers to arr before insertion); values are broadcast.
// Example: insert([1, 2, 3], 1, 9).eval() is [1, 9, 2, 3]
Tensor insert(const Tensor& arr, const std::vector<std::int64_t>& obj, const Tensor& values,
              std::optional<int> axis = std::nullopt, bool scalar_obj = false, Loc loc = Loc::current());
// A nested list of tensors (the `Blocks` tree) assembled as numpy.block: the innermost lists are joined along the
// last axis, the next ones along the axis before it, ...
struct Blocks {
  std::optional<Tensor> leaf;
  std::vector<Blocks> items;
  Blocks(const Tensor& t) : leaf(t) {}                          // NOLINT: implicit by design
  Blocks(std::vector<Blocks> list) : items(std::move(list)) {}  // NOLINT
};
// A tensor assembled from nested lists of blocks, as numpy.block.
// Example: block([[a, b], [c, d]]) of four (2, 2) tensors has shape (4, 4)
Tensor block(const Blocks& arrays, Loc loc = Loc::current());
// The sum of a list of tensors of one shape (SymJAX's add_n); the shapes broadcast.
// Example: add_n([x, y, z]) is x + y + z
Tensor add_n(const std::vector<Tensor>& xs, Loc loc = Loc::current());
// The tensors broadcast against each other, as numpy.broadcast_arrays.
// Example: broadcast_arrays([x, y]) of shapes (3, 1) and (4,) gives two (3, 4) tensors
std::vector<Tensor> broadcast_arrays(const std::vector<Tensor>& xs, Loc loc = Loc::current());

// ---- flips, rolls, rotations ----
// a reversed along axis 1, as numpy.fliplr (ndim >= 2).
// Example: fliplr([[1, 2], [3, 4]]).eval() is [[2, 1], [4, 3]]
Tensor fliplr(const Tensor& a, Loc loc = Loc::current());
// a reversed along axis 0, as numpy.flipud (ndim >= 1).
// Example: flipud([1, 2, 3]).eval() is [3, 2, 1]
Tensor flipud(const Tensor& a, Loc loc = Loc::current());
// Elements shifted by `shift` along the axes (the flattened a when axis is empty/None), wrapping around, as
// numpy.roll; shift and axis: one value each, or lists of one length (one shift per axis).
// Example: roll([1, 2, 3, 4], 1).eval() is [4, 1, 2, 3]
Tensor roll(const Tensor& a, const std::vector<std::int64_t>& shift, const std::vector<int>& axis = {},
            Loc loc = Loc::current());
// a rotated by 90 degrees k times in the plane of `axes` (from the first axis towards the second), as numpy.rot90.
// Example: rot90([[1, 2], [3, 4]]).eval() is [[2, 4], [1, 3]]
Tensor rot90(const Tensor& m, int k = 1, std::vector<int> axes = {0, 1}, Loc loc = Loc::current());

// ---- diagonals and triangles ----
// The k-th diagonal of a 2-D a, or a 2-D matrix with the 1-D a on its k-th diagonal, as numpy.diag.
// Example: diag([1, 2]).eval() is [[1, 0], [0, 2]]
Tensor diag(const Tensor& v, std::int64_t k = 0, Loc loc = Loc::current());
// A 2-D matrix with the flattened v on its k-th diagonal, as numpy.diagflat.
// Example: diagflat([[1, 2]]) has shape (2, 2)
Tensor diagflat(const Tensor& v, std::int64_t k = 0, Loc loc = Loc::current());
// The diagonal at `offset` of the planes of axes (axis1, axis2), on a new last axis, as numpy.diagonal.
// Example: diagonal(x) of x with shape (3, 4) has shape (3,)
Tensor diagonal(const Tensor& a, std::int64_t offset = 0, int axis1 = 0, int axis2 = 1, Loc loc = Loc::current());
// The sum of the diagonal at `offset` of the planes of axes (axis1, axis2), as numpy.trace.
// Example: trace([[1, 2], [3, 4]]).eval() is 5
Tensor trace(const Tensor& a, std::int64_t offset = 0, int axis1 = 0, int axis2 = 1, Loc loc = Loc::current());
// a with its main diagonal set to val (functional, as jax.numpy.fill_diagonal; NumPy's writes in place): all axes of
// a must have one length unless it is 2-D; val is repeated cyclically; with `wrap`, a tall matrix's diagonal restarts
// after every n + 1 rows.
// Example: fill_diagonal(zeros((2, 2)), 5).eval() is [[5, 0], [0, 5]]
Tensor fill_diagonal(const Tensor& a, const Tensor& val, bool wrap = false, Loc loc = Loc::current());
// m with the elements above diagonal k of its last two axes zeroed, as numpy.tril.
// Example: tril([[1, 2], [3, 4]]).eval() is [[1, 0], [3, 4]]
Tensor tril(const Tensor& m, std::int64_t k = 0, Loc loc = Loc::current());
// m with the elements below diagonal k of its last two axes zeroed, as numpy.triu.
// Example: triu([[1, 2], [3, 4]]).eval() is [[1, 2], [0, 4]]
Tensor triu(const Tensor& m, std::int64_t k = 0, Loc loc = Loc::current());
// The (row, column) indices (int64 constants) of the main diagonal of an n x ... x n array of `ndim` axes: ndim
// copies of arange(n), as numpy.diag_indices.
// Example: diag_indices(3) gives two tensors [0, 1, 2]
std::vector<Tensor> diag_indices(std::int64_t n, int ndim = 2, Loc loc = Loc::current());
// diag_indices for a's shape (all its axes of one length, ndim >= 2), as numpy.diag_indices_from.
// Example: diag_indices_from(zeros((3, 3))) gives two tensors [0, 1, 2]
std::vector<Tensor> diag_indices_from(const Tensor& a, Loc loc = Loc::current());
// The (row, column) indices (int64 constants) of the lower triangle (j <= i + k) of an n x m matrix, as
// numpy.tril_indices.
// Example: tril_indices(2) gives [0, 1, 1] and [0, 0, 1]
std::vector<Tensor> tril_indices(std::int64_t n, std::int64_t k = 0, std::optional<std::int64_t> m = std::nullopt,
                                 Loc loc = Loc::current());
// The (row, column) indices (int64 constants) of the upper triangle (j >= i + k) of an n x m matrix, as
// numpy.triu_indices.
// Example: triu_indices(2) gives [0, 0, 1] and [0, 1, 1]
std::vector<Tensor> triu_indices(std::int64_t n, std::int64_t k = 0, std::optional<std::int64_t> m = std::nullopt,
                                 Loc loc = Loc::current());
// tril_indices for the last two axes of arr's shape, as numpy.tril_indices_from.
// Example: tril_indices_from(zeros((2, 2)))
std::vector<Tensor> tril_indices_from(const Tensor& arr, std::int64_t k = 0, Loc loc = Loc::current());
// triu_indices for the last two axes of arr's shape, as numpy.triu_indices_from.
// Example: triu_indices_from(zeros((2, 2)))
std::vector<Tensor> triu_indices_from(const Tensor& arr, std::int64_t k = 0, Loc loc = Loc::current());
// The (row, column) indices (int64 constants) where mask_func(ones((n, n)), k) is nonzero, as numpy.mask_indices
// (mask_func: triu, tril, or any function of a tensor and k; evaluated once, when called).
// Example: mask_indices(3, triu, 1) gives [0, 0, 1] and [1, 2, 2]
std::vector<Tensor> mask_indices(std::int64_t n, const std::function<Tensor(const Tensor&, std::int64_t)>& mask_func,
                                 std::int64_t k = 0, Loc loc = Loc::current());

// ---- index helpers ----
// The grid of indices of an array of shape `dimensions`: shape (len(dimensions), *dimensions), as numpy.indices;
// int64 by default. A constant.
// Example: indices((2, 3)) has shape (2, 2, 3)
Tensor indices(Shape dimensions, DType dtype = DType::i64, Loc loc = Loc::current());
// numpy.indices(dimensions, sparse=True): one arange per axis, of shape (1, ..., n_i, ..., 1).
// Example: sparse_indices((2, 3)) gives tensors of shapes (2, 1) and (1, 3)
std::vector<Tensor> sparse_indices(Shape dimensions, DType dtype = DType::i64, Loc loc = Loc::current());
// Open mesh from 1-D sequences: the i-th is reshaped to have its length on axis i and 1 elsewhere, as numpy.ix_.
// Example: ix_([0, 1], [2, 3, 4]) gives tensors of shapes (2, 1) and (1, 3)
std::vector<Tensor> ix_(const std::vector<Tensor>& args, Loc loc = Loc::current());
// The multi-indices (one int64 tensor per axis, each of indices' shape) of the flat `indices` into an array of
// `shape`, as numpy.unravel_index (indices out of range are not checked in a graph).
// Example: unravel_index(5, (2, 3)) gives 1 and 2
std::vector<Tensor> unravel_index(const Tensor& indices, Shape shape, Loc loc = Loc::current());
// The flat indices (int64) of multi-indices into an array of `dims`, as numpy.ravel_multi_index. mode: "raise" (not
// checked in a graph: out-of-range indices give out-of-range results, as jax.numpy), "wrap" or "clip", one for all
// axes.
// Example: ravel_multi_index(([1], [2]), (2, 3)).eval() is [5]
Tensor ravel_multi_index(const std::vector<Tensor>& multi_index, Shape dims, const std::string& mode = "raise",
                         Loc loc = Loc::current());

// ---- jax.lax-style indexing (SymJAX's names) ----
// The slice at `index` of axis `axis` (negative counts from the end), keeping the axis as size 1 when keepdims, as
// jax.lax.index_in_dim.
// Example: index_in_dim(x, 1, axis=0, keepdims=False) is x[1]
Tensor index_in_dim(const Tensor& operand, std::int64_t index, int axis = 0, bool keepdims = true,
                    Loc loc = Loc::current());
// operand indexed by the integer tensors idxs along `axes` (one per axis, broadcast together), as jax.lax.index_take:
// the result has the indices' shape followed by the remaining axes.
// Example: index_take(x, ([0, 2],), (1,)) of x with shape (3, 4) has shape (2, 3)
Tensor index_take(const Tensor& src, const std::vector<Tensor>& idxs, const std::vector<int>& axes,
                  Loc loc = Loc::current());
// The slice of `slice_sizes` starting at the tensor (or number) start_indices, one per axis, as
// jax.lax.dynamic_slice: each start is clamped to [0, size - slice_size], as JAX does.
// Example: dynamic_slice(x, (i, 0), (2, 4)) of x with shape (5, 4) is x[i:i+2] (i clamped to [0, 3])
Tensor dynamic_slice(const Tensor& operand, const std::vector<Tensor>& start_indices, Shape slice_sizes,
                     Loc loc = Loc::current());
// `slice_size` elements of `axis` from the (clamped) tensor start_index, as jax.lax.dynamic_slice_in_dim.
// Example: dynamic_slice_in_dim(x, i, 2, axis=1)
Tensor dynamic_slice_in_dim(const Tensor& operand, const Tensor& start_index, std::int64_t slice_size, int axis = 0,
                            Loc loc = Loc::current());
// The slice at the (clamped) tensor index of `axis`, kept as size 1 when keepdims, as jax.lax.dynamic_index_in_dim.
// Example: dynamic_index_in_dim(x, i, keepdims=False) is x[i]
Tensor dynamic_index_in_dim(const Tensor& operand, const Tensor& index, int axis = 0, bool keepdims = true,
                            Loc loc = Loc::current());

// ---- differences, sums, vectors ----
// The n-th discrete difference along axis, after prepending/appending values (broadcast to a's shape with size 1
// along axis when they are scalars), as numpy.diff. Booleans give not_equal, as NumPy.
// Example: diff([1, 4, 9]).eval() is [3, 5]
Tensor diff(const Tensor& a, int n = 1, int axis = -1, std::optional<Tensor> prepend = std::nullopt,
            std::optional<Tensor> append = std::nullopt, Loc loc = Loc::current());
// The differences of the flattened ary with to_begin and to_end (flattened) around them, as numpy.ediff1d.
// Example: ediff1d([1, 2, 4], to_end=[0]).eval() is [1, 2, 0]
Tensor ediff1d(const Tensor& ary, std::optional<Tensor> to_end = std::nullopt,
               std::optional<Tensor> to_begin = std::nullopt, Loc loc = Loc::current());
// Phase p unwrapped along axis: jumps larger than max(discont, period / 2) are replaced by their complement modulo
// period, as numpy.unwrap (period 2 pi by default). Returns a float dtype.
// Example: unwrap([0.0, 6.0]).eval() is [0.0, 6.0 - 2 pi]
Tensor unwrap(const Tensor& p, std::optional<double> discont = std::nullopt, int axis = -1,
              double period = 6.283185307179586, Loc loc = Loc::current());
// The integral of y along axis by the trapezoidal rule, with sample points x (any shape broadcastable along axis,
// or 1-D of the axis' length) or spacing dx, as numpy.trapezoid.
// Example: trapezoid([1.0, 2.0, 3.0]).eval() is 4.0
Tensor trapezoid(const Tensor& y, std::optional<Tensor> x = std::nullopt, double dx = 1.0, int axis = -1,
                 Loc loc = Loc::current());
// Cross product of 3-vectors (or 2-vectors, whose z is 0) along the given axes, as numpy.cross; axis, when given,
// sets all three. 2-vectors crossed with 2-vectors give their scalar z component.
// Example: cross([1, 0, 0], [0, 1, 0]).eval() is [0, 0, 1]
Tensor cross(const Tensor& a, const Tensor& b, int axisa = -1, int axisb = -1, int axisc = -1,
             std::optional<int> axis = std::nullopt, Loc loc = Loc::current());
// The discrete linear convolution of 1-D a and v, as numpy.convolve; mode "full", "same" or "valid".
// Example: convolve([1, 2, 3], [0, 1, 0.5]).eval() is [0, 1, 2.5, 4, 1.5]
Tensor convolve(const Tensor& a, const Tensor& v, const std::string& mode = "full", Loc loc = Loc::current());
// The cross-correlation of 1-D a and v, as numpy.correlate (real inputs); mode "valid" (default), "same" or "full".
// Example: correlate([1, 2, 3], [0, 1, 0.5]).eval() is [3.5]
Tensor correlate(const Tensor& a, const Tensor& v, const std::string& mode = "valid", Loc loc = Loc::current());
// The Vandermonde matrix of 1-D x with N columns (len(x) by default): x ** (N-1), ..., x ** 0 (increasing: reversed),
// as numpy.vander.
// Example: vander([1, 2], 3).eval() is [[1, 1, 1], [4, 2, 1]]
Tensor vander(const Tensor& x, std::optional<std::int64_t> n = std::nullopt, bool increasing = false,
              Loc loc = Loc::current());

// ---- polynomials (1-D coefficients, highest power first, as numpy.poly*) ----
// The sum of two polynomials, as numpy.polyadd.
// Example: polyadd([1, 2], [1, 0, 0]).eval() is [1, 1, 2]
Tensor polyadd(const Tensor& a1, const Tensor& a2, Loc loc = Loc::current());
// The difference of two polynomials, as numpy.polysub.
// Example: polysub([1, 2], [1]).eval() is [1, 1]
Tensor polysub(const Tensor& a1, const Tensor& a2, Loc loc = Loc::current());
// The product of two polynomials (their convolution), as numpy.polymul.
// Example: polymul([1, 1], [1, -1]).eval() is [1, 0, -1]
Tensor polymul(const Tensor& a1, const Tensor& a2, Loc loc = Loc::current());
// The m-th derivative of a polynomial, as numpy.polyder.
// Example: polyder([1, 1, 1]).eval() is [2, 1]
Tensor polyder(const Tensor& p, int m = 1, Loc loc = Loc::current());
// The m-th antiderivative of a polynomial, with integration constants k (one number used for every order, as
// jax.numpy), as numpy.polyint.
// Example: polyint([3.0, 0.0]).eval() is [1.5, 0, 0]
Tensor polyint(const Tensor& p, int m = 1, double k = 0.0, Loc loc = Loc::current());
// The polynomial p evaluated at x (Horner's scheme), as numpy.polyval.
// Example: polyval([1, 0, -1], 3).eval() is 8
Tensor polyval(const Tensor& p, const Tensor& x, Loc loc = Loc::current());
// Quotient and remainder of polynomial division u / v, as jax.numpy.polydiv (the remainder keeps u's length, leading
// zeros included, as JAX's default trim_leading_zeros=False). Returns float tensors.
// Example: polydiv([1, 0, -1], [1, 1]) gives [1, -1] and [0, 0, 0]
std::pair<Tensor, Tensor> polydiv(const Tensor& u, const Tensor& v, Loc loc = Loc::current());
// The coefficients of the monic polynomial with the 1-D seq_of_zeros as roots, as numpy.poly (real roots).
// Example: poly([1, 2]).eval() is [1, -3, 2]
Tensor poly(const Tensor& seq_of_zeros, Loc loc = Loc::current());

// ---- contractions ----
// Einstein summation, as numpy.einsum: subscripts such as "ij,jk->ik", "bhqd,bhkd->bhqk", "ii", "...ij,...jk" (an
// ellipsis for broadcast axes, repeated labels in one operand for diagonals, implicit output: the labels seen once,
// sorted). The operands are contracted pairwise in the order opt_einsum's greedy algorithm picks (or `path`, pairs of
// positions in the list of remaining operands, as einsum_path returns), each pair by a transpose/reshape and one
// batched matmul library call (transposes of the last two axes are read through the GEMM's flags).
// Example: einsum("ij,jk->ik", {a, b}) is matmul(a, b)
Tensor einsum(const std::string& subscripts, const std::vector<Tensor>& operands,
              const std::vector<std::vector<int>>& path = {}, Loc loc = Loc::current());
// The contraction order einsum takes (opt_einsum's greedy) and a description of it with its costs, as
// numpy.einsum_path: pairs of positions in the list of remaining operands.
// Example: einsum_path("ij,jk,kl->il", {a, b, c}).first is {{0, 1}, {0, 1}}
std::pair<std::vector<std::vector<int>>, std::string> einsum_path(const std::string& subscripts,
                                                                  const std::vector<Tensor>& operands,
                                                                  Loc loc = Loc::current());
// Sum of products over the last `axes` axes of a and the first of b, as numpy.tensordot with an int.
// Example: tensordot(a, b, 1) of shapes (2, 3) and (3, 4) has shape (2, 4)
Tensor tensordot(const Tensor& a, const Tensor& b, std::int64_t axes = 2, Loc loc = Loc::current());
// Sum of products over the listed axes of a and b (pairwise), as numpy.tensordot with a pair of lists.
// Example: tensordot(a, b, ([0], [1])) of shapes (3, 2) and (4, 3) has shape (2, 4)
Tensor tensordot(const Tensor& a, const Tensor& b, const std::vector<int>& axes_a, const std::vector<int>& axes_b,
                 Loc loc = Loc::current());
// Sum of products over the last axes of a and b, as numpy.inner (a scalar operand multiplies).
// Example: inner(a, b) of shapes (2, 3) and (4, 3) has shape (2, 4)
Tensor inner(const Tensor& a, const Tensor& b, Loc loc = Loc::current());
// The Kronecker product: blocks a[i, j] * b, as numpy.kron.
// Example: kron(eye(2), ones((2, 2))) has shape (4, 4)
Tensor kron(const Tensor& a, const Tensor& b, Loc loc = Loc::current());
// The dot product of the flattened a and b, as numpy.vdot (real operands).
// Example: vdot([[1, 2]], [[3, 4]]).eval() is 11
Tensor vdot(const Tensor& a, const Tensor& b, Loc loc = Loc::current());
// Matrix-vector products (..., m, n) x (..., n) -> (..., m), broadcasting the batch axes, as numpy.matvec.
// Example: matvec(a, v) of shapes (5, 2, 3) and (3,) has shape (5, 2)
Tensor matvec(const Tensor& x1, const Tensor& x2, Loc loc = Loc::current());
// Vector-matrix products (..., n) x (..., n, m) -> (..., m), broadcasting the batch axes, as numpy.vecmat.
// Example: vecmat(v, a) of shapes (3,) and (5, 3, 2) has shape (5, 2)
Tensor vecmat(const Tensor& x1, const Tensor& x2, Loc loc = Loc::current());
// Dot products of vectors along `axis`, broadcasting the others, as numpy.vecdot (real operands).
// Example: vecdot(a, b) of shapes (5, 3) and (3,) has shape (5,)
Tensor vecdot(const Tensor& x1, const Tensor& x2, int axis = -1, Loc loc = Loc::current());

namespace linalg {
// SymJAX's linalg.singular_vectors_power_iteration: approximations (u, v) of the leading left and
// right singular vectors of the matrix `weight` (2-D), by n_iters steps of the power iteration from
// normal draws (fresh on each evaluation, as SymJAX's): v = normalize(W^T u), u = normalize(W v). More
// steps give closer vectors. (axis is accepted for SymJAX's signature and unused, as in SymJAX.)
// Example: auto [u, v] = linalg::singular_vectors_power_iteration(w, 0, 20); dot(u, matmul(w, v)) ~ sigma_max
// Python: u, v = sx.linalg.singular_vectors_power_iteration(w, n_iters=20)
std::pair<Tensor, Tensor> singular_vectors_power_iteration(const Tensor& weight, int axis = 0, int n_iters = 1,
                                                           Loc loc = Loc::current());
}  // namespace linalg

namespace normalization {
// SymJAX's normalization.spectral_normalize: weight / sigma, sigma the estimate u^T W v of the largest
// singular value of W = reshape_weight_to_matrix(weight, axis) from singular_vectors_power_iteration
// (u and v held constant for the gradient, as SymJAX and PyTorch's spectral_norm do).
// Example: normalization::spectral_normalize(w, 0, 20) has the shape of w and spectral norm ~1
// Python: sx.normalization.spectral_normalize(w, axis=0, n_iters=20)
Tensor spectral_normalize(const Tensor& weight, int axis = 0, int n_iters = 1, Loc loc = Loc::current());
}  // namespace normalization

}  // namespace symx
