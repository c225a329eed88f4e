// Scheduling transformations of the loop-nest IR (schedule.hpp).
#include "codegen/schedule.hpp"

#include <algorithm>
#include <functional>

namespace symx::codegen::ir {
namespace {

using IK = Index::Kind;

// A parallel loop runs on the calling thread alone unless it has more than this many elements of
// work (the `if` clause of the OpenMP loop): below it, waking the team costs more than it saves.
constexpr std::int64_t kMinParallelWork = 32768;

// A float sum, max or min that keeps its input's last axis (e.g. a bias gradient, the sum over
// the batch): the general loop nest would walk each output's reduced elements with a stride.
// Instead each thread takes a block of up to kColumns outputs along that axis, holds their
// accumulators in an array, and sweeps the reduced axes with a vectorized inner loop over the
// block (contiguous reads). Only when no other reduction is inlined below it.
constexpr std::int64_t kColumns = 128;

Index add(Index a, Index b) { return Index::binary(IK::add, std::move(a), std::move(b)); }
Index mul(Index a, Index b) { return Index::binary(IK::mul, std::move(a), std::move(b)); }

void for_each_index(Expr& e, const std::function<void(Index&)>& f) {
  for (Index& i : e.offset) f(i);
  if (e.at) f(*e.at);
  for (Expr& a : e.args) for_each_index(a, f);
}

// Calls f on every index expression of the statements (loop extents, index definitions,
// accumulator elements, load and store offsets), nested loops included.
void for_each_index(std::vector<Stmt>& body, const std::function<void(Index&)>& f) {
  for (Stmt& s : body) {
    f(s.extent);
    f(s.index);
    if (s.at) f(*s.at);
    for (Index& i : s.offset) f(i);
    for_each_index(s.value, f);
    for_each_index(s.body, f);
  }
}

void substitute_all(std::vector<Stmt>& body, VarId from, const Index& to) {
  for_each_index(body, [&](Index& i) { i = substitute(i, from, to); });
}

// The length of piece `c` of a loop of `n` iterations split into pieces of `piece`.
Index piece_extent(VarId c, std::int64_t n, std::int64_t piece) {
  Index i;
  i.kind = IK::piece_extent;
  i.var = c;
  i.pieces = (n + piece - 1) / piece;
  i.value = piece;
  i.last = n - (i.pieces - 1) * piece;
  return i;
}

// Splits each row of the parallel loop `rows` into `pieces` pieces: the loop runs rows * pieces
// iterations, q = o / pieces is the row and c = o % pieces the piece (a new variable, returned).
VarId split_rows(LoopKernel& ir, Stmt& rows, std::int64_t pieces) {
  rows.extent = Index::constant(rows.extent.value * pieces);
  Stmt& q = rows.body.front();  // q = o / 1
  q.index.args[1] = Index::constant(pieces);
  if (pieces == 1) return -1;
  const VarId c = ir.add_var({.name = "c"});
  Stmt let;
  let.kind = Stmt::Kind::let_index;
  let.var = c;
  let.index = Index::binary(IK::mod, Index::variable(rows.var), Index::constant(pieces));
  rows.body.insert(rows.body.begin() + 1, std::move(let));
  return c;
}

bool contains_accumulator(const std::vector<Stmt>& body) {
  for (const Stmt& s : body)
    if (s.kind == Stmt::Kind::acc_declare || (s.kind == Stmt::Kind::loop && contains_accumulator(s.body))) return true;
  return false;
}

bool is_column_reduction(const Kernel& k) {
  const Tensor& root = k.root;
  OpKind op = root.op();
  if ((op != OpKind::Sum && op != OpKind::Max && op != OpKind::Min) || !is_floating(root.dtype())) return false;
  const Tensor& x = root.node().inputs[0];
  const auto& axes = std::get<ReduceAttr>(root.node().attr).axes;
  if (x.ndim() < 2 || axes.empty() || std::find(axes.begin(), axes.end(), x.ndim() - 1) != axes.end()) return false;
  if (x.shape().back() < 16 || root.size() == 0) return false;
  for (const Node* n : k.inlined)
    if (n != &root.node() && is_reduction(n->op)) return false;
  return true;
}

}  // namespace

// The lowering of a column reduction is
//   for o: q = o / 1; i<d> = ...; for j: [acc = init; for r..: { x; acc <- x }; out[q * n + j] = result(acc)]
// and becomes, with blocks of `block` columns (c the block when there are several):
//   for o < rows * blocks: q, c, i<d>; acc[block] = ...; for j < len: reset acc[j];
//     for r..: { for j < len (vector): { x; acc[j] <- x } }; for j < len: out[q * n + c * block + j] = result(acc[j])
bool block_columns(LoopKernel& ir, const Kernel& kernel) {
  if (!is_column_reduction(kernel)) return false;
  const Tensor& x = kernel.root.node().inputs[0];
  const std::int64_t inner = x.shape().back();
  const std::int64_t outer = kernel.root.size() / inner;
  const std::int64_t block = std::min(inner, kColumns);
  const std::int64_t blocks = (inner + block - 1) / block;
  Stmt& rows = ir.body.front();
  rows.extent = Index::constant(outer);
  rows.parallel = Parallel{.work = x.size()};
  const VarId c = split_rows(ir, rows, blocks);
  Stmt columns = std::move(rows.body.back());
  rows.body.pop_back();
  const VarId j = columns.var;
  const Index len = blocks > 1 ? piece_extent(c, inner, block) : Index::constant(inner);
  const Index column =
      blocks > 1 ? add(mul(Index::variable(c), Index::constant(block)), Index::variable(j)) : Index::variable(j);
  // columns.body: the accumulator's declaration, its loops over the reduced axes, the store.
  Stmt declare = std::move(columns.body[0]);
  Stmt reduce = std::move(columns.body[1]);
  const VarId acc = declare.var;
  Var& a = ir.vars[static_cast<std::size_t>(acc)];
  a.name = "acc";
  a.numbered = false;
  a.size = block;
  if (a.nan >= 0) {
    ir.vars[static_cast<std::size_t>(a.nan)].name = "nan";
    ir.vars[static_cast<std::size_t>(a.nan)].numbered = false;
  }
  // The reduced axes' loops, named by their axis, now only sweep; the vector loop is inside.
  Stmt* innermost = &reduce;
  for (;;) {
    Var& r = ir.vars[static_cast<std::size_t>(innermost->var)];
    r.name = "r" + std::to_string(r.axis);
    r.numbered = false;
    innermost->reduces = -1;
    if (innermost->body.size() != 1 || innermost->body[0].kind != Stmt::Kind::loop) break;
    innermost = &innermost->body[0];
  }
  std::vector<Stmt> body = std::move(innermost->body);
  substitute_all(body, j, column);
  Stmt& update = body.back();
  update.at = Index::variable(j);
  // The element is read once into a value (the extremum's comparison operand already is one).
  if (update.value.kind == Expr::Kind::local) {
    ir.vars[static_cast<std::size_t>(update.value.var)].name = "v";
  } else {
    const VarId v = ir.add_var({.name = "v", .numbered = true, .dtype = a.dtype});
    Stmt define;
    define.kind = Stmt::Kind::define;
    define.var = v;
    define.value = std::move(update.value);
    update.value = Expr{.kind = Expr::Kind::local, .dtype = a.dtype, .var = v};
    body.insert(body.end() - 1, std::move(define));
  }
  Stmt sweep;
  sweep.kind = Stmt::Kind::loop;
  sweep.var = j;
  sweep.extent = len;
  sweep.role = Stmt::Role::columns;
  sweep.body = std::move(body);
  innermost->body = {};
  innermost->body.push_back(std::move(sweep));

  Stmt reset;
  reset.kind = Stmt::Kind::acc_reset;
  reset.var = acc;
  reset.at = Index::variable(j);
  Stmt resets;
  resets.kind = Stmt::Kind::loop;
  resets.var = j;
  resets.extent = len;
  resets.body.push_back(std::move(reset));

  Stmt store;
  store.kind = Stmt::Kind::store;
  store.offset = {mul(Index::variable(rows.body.front().var), Index::constant(inner))};
  if (blocks > 1) store.offset.push_back(mul(Index::variable(c), Index::constant(block)));
  store.offset.push_back(Index::variable(j));
  store.value = Expr{.kind = Expr::Kind::result, .dtype = a.result, .var = acc, .at = Index::variable(j)};
  Stmt stores;
  stores.kind = Stmt::Kind::loop;
  stores.var = j;
  stores.extent = len;
  stores.one_line = true;
  stores.body.push_back(std::move(store));

  rows.body.push_back(std::move(declare));
  rows.body.push_back(std::move(resets));
  rows.body.push_back(std::move(reduce));
  rows.body.push_back(std::move(stores));
  return true;
}

// Few long rows: split the rows into chunks so that the outer loop has work to share.
bool chunk_long_rows(LoopKernel& ir) {
  Stmt& rows = ir.body.front();
  Stmt& columns = rows.body.back();
  const std::int64_t outer = rows.extent.value;
  const std::int64_t inner = columns.extent.value;
  const std::int64_t chunk = (outer < 64 && inner > 16384) ? 4096 : std::max<std::int64_t>(inner, 1);
  const std::int64_t chunks = (inner + chunk - 1) / chunk;
  if (chunks <= 1) return false;
  const VarId c = split_rows(ir, rows, chunks);
  Stmt& j_loop = rows.body.back();
  const VarId j = j_loop.var;
  j_loop.extent = piece_extent(c, inner, chunk);
  // The store addresses the chunk as a term of its own; every other index sees column c * chunk + j.
  Stmt store = std::move(j_loop.body.back());
  j_loop.body.pop_back();
  substitute_all(j_loop.body, j, add(mul(Index::variable(c), Index::constant(chunk)), Index::variable(j)));
  store.offset.insert(store.offset.end() - 1, mul(Index::variable(c), Index::constant(chunk)));
  for_each_index(store.value, [&](Index& i) {
    i = substitute(i, j, add(mul(Index::variable(c), Index::constant(chunk)), Index::variable(j)));
  });
  j_loop.body.push_back(std::move(store));
  return true;
}

void choose_parallel_schedule(LoopKernel& ir, const Kernel& kernel) {
  Stmt& rows = ir.body.front();
  std::int64_t work = num_elements(kernel.root.shape());
  for (const Node* n : kernel.inlined)
    for (const auto& in : n->inputs)
      if (is_reduction(n->op)) work = std::max(work, in.size());
  Parallel p{.work = work};
  // Large loops are handed out dynamically, in pieces of ~64K elements of work (a few hundred
  // per call): with a static split the loop ends when its slowest thread does, and a thread
  // that starts late (woken from a passive wait, OMP_WAIT_POLICY=passive as the Python package
  // sets it, or descheduled on a busy machine) delayed a 16M-element elementwise chain by ~20%.
  // Small loops keep the static split, which costs nothing per piece.
  const std::int64_t iterations = rows.extent.value;
  if (work >= (std::int64_t{1} << 20) && iterations >= 4) {
    p.schedule = Parallel::Schedule::dynamic;
    p.piece = std::max<std::int64_t>(1, (iterations * 65536 + work - 1) / work);
  }
  rows.parallel = p;
}

namespace {

void vectorize_block(LoopKernel& ir, std::vector<Stmt>& body) {
  for (Stmt& s : body) {
    if (s.kind != Stmt::Kind::loop) continue;
    vectorize_block(ir, s.body);
    if (s.role == Stmt::Role::columns) {
      // The loop over the output's last axis vectorizes unless a reduction runs per element.
      s.vector = !contains_accumulator(s.body);
    } else if (s.role == Stmt::Role::reduce && s.reduces >= 0 && s.last_reduced_axis) {
      // The innermost reduced loop of a sum or product vectorizes once reassociation is allowed;
      // a max or min (not over bool) too, with its NaN flag or-ed across lanes.
      const Var& acc = ir.vars[static_cast<std::size_t>(s.reduces)];
      const bool extremum = acc.reduce == OpKind::Max || acc.reduce == OpKind::Min;
      if (acc.size == 0 && (!extremum || acc.result != DType::b8)) {
        s.vector = true;
        s.reductions = {s.reduces};
      }
    }
  }
}

}  // namespace

void vectorize(LoopKernel& ir) { vectorize_block(ir, ir.body); }

void schedule(LoopKernel& ir, const Kernel& kernel) {
  // Row kernels (a call) and empty outputs have nothing to schedule.
  if (ir.body.empty() || ir.body.front().kind != Stmt::Kind::loop) return;
  if (!block_columns(ir, kernel)) {
    chunk_long_rows(ir);
    choose_parallel_schedule(ir, kernel);
  }
  ir.body.front().parallel->min_work = kMinParallelWork;
  vectorize(ir);
}

}  // namespace symx::codegen::ir
