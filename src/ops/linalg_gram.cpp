// src/ops/linalg_gram.cpp: SymJAX's orthogonalization helpers (symx/linalg.hpp): gram_schmidt,
// modified_gram_schmidt and eigenvector_power_iteration, composites unrolled over the rows (the shapes are
// known), so they fuse and differentiate as their dot products do. A row whose remainder is zero stays
// zero (its norm is guarded as SymJAX's 1e-28 guards the projections).
#include <cstdint>
#include <string>
#include <vector>

#include "ops/op_table.hpp"
#include "symx/arrays.hpp"
#include "symx/linalg.hpp"

namespace symx::linalg {
namespace {

std::vector<Tensor> rows_of(const char* name, const Tensor& V_in, Loc loc, Tensor& V) {
  if (V_in.ndim() != 2)
    ops::raise(name, {V_in},
               {ops::TypeProblem::Kind::shape,
                "expects a matrix (k, n) of row vectors, got shape " + shape_string(V_in.shape()),
                "Put the vectors to orthogonalize in the rows of a 2-D tensor."},
               loc);
  if (has_symbols(V_in.shape()))
    ops::raise(name, {V_in},
               {ops::TypeProblem::Kind::shape, "needs known sizes, got shape " + shape_string(V_in.shape()),
                "Give the placeholder fixed sizes."},
               loc);
  V = is_floating(V_in.dtype()) ? V_in : cast(V_in, DType::f32, loc);
  std::vector<Tensor> rows;
  for (std::int64_t i = 0; i < V.shape()[0]; ++i) rows.push_back(slice(V, {Index(i)}, loc));
  return rows;
}

// u / |u|_2, 0 for u = 0 (with a zero gradient there).
Tensor unit_or_zero(const Tensor& u, Loc loc) {
  Tensor n2 = sum(u * u, {}, false, loc);
  Tensor zero = equal(n2, 0, loc);
  return where(zero, 0, u / sqrt(where(zero, 1, n2, loc), loc), loc);
}

// v - (u . v) / (u . u + 1e-28) u, SymJAX's projection.
Tensor remove_projection(const Tensor& v, const Tensor& u, Loc loc) {
  return v - u * (dot(u, v, loc) / (dot(u, u, loc) + 1e-28));
}

}  // namespace

Tensor gram_schmidt(const Tensor& V_in, bool normalize, Loc loc) {
  Tensor V;
  std::vector<Tensor> v = rows_of("gram_schmidt", V_in, loc, V);
  if (v.empty()) return V;
  std::vector<Tensor> u;
  for (const Tensor& row : v) {
    Tensor p = row;
    for (const Tensor& prev : u) p = p - prev * (dot(prev, row, loc) / (dot(prev, prev, loc) + 1e-28));
    u.push_back(normalize ? unit_or_zero(p, loc) : p);
  }
  return named_composite("gram_schmidt", stack(u, 0, loc));
}

Tensor modified_gram_schmidt(const Tensor& V_in, Loc loc) {
  Tensor V;
  std::vector<Tensor> v = rows_of("modified_gram_schmidt", V_in, loc, V);
  if (v.empty()) return V;
  std::vector<Tensor> u;
  for (const Tensor& row : v) {
    Tensor p = row;
    for (const Tensor& prev : u) p = remove_projection(p, prev, loc);
    u.push_back(unit_or_zero(p, loc));
  }
  return named_composite("modified_gram_schmidt", stack(u, 0, loc));
}

Tensor eigenvector_power_iteration(const Tensor& weight_in, int, int n_iters, Loc loc) {
  const char* name = "eigenvector_power_iteration";
  if (weight_in.ndim() != 2 || weight_in.shape()[0] != weight_in.shape()[1])
    ops::raise(name, {weight_in},
               {ops::TypeProblem::Kind::shape, "expects a square matrix, got shape " + shape_string(weight_in.shape()),
                "Pass an (n, n) matrix (for a rectangular one, singular_vectors_power_iteration)."},
               loc);
  if (n_iters < 1)
    ops::raise(name, {weight_in},
               {ops::TypeProblem::Kind::value, "n_iters must be at least 1, got " + std::to_string(n_iters),
                "Pass n_iters=1 or more (more steps give a closer vector)."},
               loc);
  Tensor w = is_inexact(weight_in.dtype()) ? weight_in : cast(weight_in, DType::f32, loc);
  Tensor u = unit_or_zero(random::normal({w.shape()[0]}, 0, 1, w.dtype(), loc), loc);
  for (int k = 0; k < n_iters; ++k) u = unit_or_zero(matmul(u, w, loc), loc);  // W^T u
  return named_composite(name, u);
}

}  // namespace symx::linalg
