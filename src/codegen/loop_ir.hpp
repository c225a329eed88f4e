// The loop-nest kernel IR: what one generated kernel does, as loops and statements, independent of
// the language it is spelled in.
//
// A fused kernel (codegen::Kernel: a root node, the materialized nodes it loads and the nodes
// computed inline) goes through three steps on its way to C++:
//   1. lower() (loop_ir.cpp) writes it as a plain loop nest: one parallel loop over the rows of the
//      output (every axis but the last), an inner loop over the last axis, and in that loop the
//      inlined expression tree as statements: each elementwise node a local definition, each
//      inlined reduction an accumulator with its own loops over the reduced axes, then one store
//      into the output. Ops that have a row kernel (softmax cross-entropy) lower to one call.
//   2. schedule() (schedule.cpp) transforms that nest: column-reduction blocking, chunks of few
//      long rows, the OpenMP schedule of the parallel loop and the vectorization annotations. Every
//      performance decision of a kernel is made there, on this IR.
//   3. emit_kernel() (emit_cpp.cpp) spells the result as C++, one statement or loop at a time; it
//      decides nothing.
// to_text() prints the IR (SYMX_DUMP_DIR writes it as <key>.ir next to each <key>.cpp).
//
// The pieces, bottom up:
//   Var     every name a kernel defines: index variables (loop counters, row/column indices),
//           values (elementwise results), accumulators and their NaN flags. Most are numbered
//           (v3, acc4, r5): number_vars() numbers them in definition order once the IR is final,
//           so transformations add, drop and move definitions freely.
//   Index   an integer index expression: constants, variables, +, *, /, %, and the length of a
//           piece of a split loop. Loads and the store address memory with a sum of Index terms
//           (flat offsets into the row-major buffers).
//   Expr    a value: a load (buffer + offset), a literal constant, a local value, an elementwise op
//           (OpKind + operands, output and operand dtype), a cast, or the result of an
//           accumulator (its value, or NaN when its NaN flag is set).
//   Stmt    a loop (variable, extent, body; annotations: parallel with its schedule and work
//           threshold, vector with its reductions), an index definition, a value definition, an
//           accumulator's declaration / reset / update, the store into the output, or a call of
//           a row kernel (kernel_rows.hpp).
//
// What another back end would reuse: a CUDA emitter would take the same scheduled IR and map the
// parallel loop to the grid (its `work` says whether a launch pays), the vector loop to threads
// of a block, accumulators with vector reductions to warp/block reductions, and spell Expr ops in
// CUDA instead of C++; only emit_cpp.cpp is C++-specific. Lowering of control flow (a loop or a
// condition around kernels) would add Stmt kinds (a sequential loop over a kernel's body, a
// branch) around the same statements, and reuse lower() for the bodies.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "codegen/kernel.hpp"

namespace symx::codegen::ir {

using VarId = int;

struct Var {
  std::string name{};     // a fixed name, or the prefix of a numbered one
  bool numbered = false;  // the name is `name` followed by its number (number_vars)
  int number = -1;
  DType dtype = DType::i64;  // index variables: i64; values and accumulators: their type
  // Accumulators only: the reduction (Sum, Prod, Max or Min), the dtype of its result, the NaN
  // flag (a Var, -1: none) and the array length (0: a scalar; > 0: one per column of a block).
  OpKind reduce = OpKind::Sum;
  DType result = DType::f64;
  VarId nan = -1;
  std::int64_t size = 0;
  // Loop variables of a reduction: the reduced axis of the reduction's input.
  int axis = -1;
};

struct Index {
  enum class Kind { constant, var, add, mul, div, mod, piece_extent };
  Kind kind = Kind::constant;
  std::int64_t value = 0;     // constant; piece_extent: the piece's length
  VarId var = -1;             // var; piece_extent: the piece counter
  std::vector<Index> args{};  // add, mul, div, mod: two operands
  // piece_extent: the length of piece `var` of a loop split into `pieces` pieces of `value`
  // elements, the last of `last` elements.
  std::int64_t pieces = 0, last = 0;

  static Index constant(std::int64_t v);
  static Index variable(VarId v);
  static Index binary(Kind kind, Index a, Index b);
  bool is_zero() const { return kind == Kind::constant && value == 0; }
};

struct Expr {
  enum class Kind { load, literal, local, op, cast, result };
  Kind kind = Kind::literal;
  DType dtype = DType::f32;     // the value's type
  int buffer = -1;              // load: the input buffer
  std::vector<Index> offset{};  // load: the element, a sum of terms (empty: 0)
  double value = 0;             // literal
  VarId var = -1;               // local: the value; result: the accumulator
  std::optional<Index> at{};    // result: the element of an accumulator array
  OpKind op = OpKind::Add;      // op: an elementwise op
  DType in = DType::f32;        // op: the operands' dtype
  std::vector<Expr> args{};     // op: operands; cast: the value cast to `dtype`
};

struct Parallel {
  // static: each thread takes one equal share of the iterations; dynamic: threads take `piece`
  // iterations at a time until none are left.
  enum class Schedule { static_split, dynamic };
  Schedule schedule = Schedule::static_split;
  std::int64_t piece = 0;     // dynamic: iterations handed out at a time
  std::int64_t work = 0;      // elements of work of the whole loop
  std::int64_t min_work = 0;  // run in parallel only when work > min_work
};

struct Stmt {
  enum class Kind { loop, let_index, define, acc_declare, acc_reset, acc_update, store, call };
  // What a loop walks, for the transformations: the output's rows (the parallel loop), its last
  // axis (columns), a reduced axis, or anything else (other).
  enum class Role { rows, columns, reduce, other };
  Kind kind = Kind::define;
  VarId var = -1;  // loop, let_index, define: the variable defined; acc_*: the accumulator

  // loop
  Index extent;
  std::vector<Stmt> body;
  Role role = Role::other;
  std::optional<Parallel> parallel;
  bool vector = false;             // the iterations may run as SIMD lanes
  std::vector<VarId> reductions;   // vector: accumulators combined across lanes (and their NaN flags)
  VarId reduces = -1;              // reduce: the accumulator the loop feeds
  bool last_reduced_axis = false;  // reduce: the loop of the reduction's last listed axis
  bool one_line = false;           // a spelling hint: one statement, written on the loop's line

  Index index;                // let_index: the value
  Expr value;                 // define, acc_update, store: the value
  std::optional<Index> at;    // acc_reset, acc_update: the element of an accumulator array
  std::vector<Index> offset;  // store: the element of the output, a sum of terms

  // call: symx_kernel::<callee><dtype, contiguous>(inputs..., out, sizes...)
  std::string callee;
  DType call_dtype = DType::f32;
  bool contiguous = false;
  std::vector<int> inputs;
  std::vector<std::int64_t> sizes;
};

struct Buffer {
  DType dtype;
  Shape shape;
};

struct LoopKernel {
  std::string name;
  std::vector<Buffer> inputs;  // in0, in1, ... (Kernel::loads)
  Buffer output;
  bool no_alias = true;  // no two buffers overlap (false: an in-place update)
  std::vector<Var> vars;
  std::vector<Stmt> body;

  VarId add_var(Var v) {
    vars.push_back(std::move(v));
    return static_cast<VarId>(vars.size() - 1);
  }
  std::string name_of(VarId v) const;
};

// The kernel as a plain loop nest (step 1 above), unscheduled and unnumbered.
LoopKernel lower(const Kernel& kernel);

// Gives every numbered Var its number, in the order the statements define them.
void number_vars(LoopKernel& kernel);

// lower, schedule (schedule.hpp), number_vars: the IR that emit_kernel spells.
LoopKernel build(const Kernel& kernel);

// The C++ of one kernel: `extern "C" void <name>(char* const* b)` (emit_cpp.cpp).
std::string emit_kernel(const LoopKernel& kernel);

// A readable listing of the IR.
std::string to_text(const LoopKernel& kernel);
std::string to_text(const Index& index, const LoopKernel& kernel);

// Replaces variable `from` by `to` in an index expression.
Index substitute(const Index& index, VarId from, const Index& to);

}  // namespace symx::codegen::ir
