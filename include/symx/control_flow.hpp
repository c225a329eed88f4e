// symx/control_flow.hpp: loops and conditionals as graph ops: scan, map, fori_loop, while_loop,
// cond and switch_ (Python: switch). SymJAX's signatures (symjax.tensor.scan, ...), JAX's semantics
// (jax.lax.scan, ...).
//
// A body is a function of tensors that the op calls once, when the node is built, with fresh
// placeholders of its arguments' types: what it builds is a *region*, a sub-graph over those
// placeholders that the node owns. A body may read any outer tensor or variable directly (closed
// over, as in JAX) or get it through non_sequences (SymJAX's way); either way the outer value
// becomes an input of the node, read once per call, and work in the body that depends only on
// such values (a weight's transpose, a bias broadcast) is computed once, outside the loop. Bodies
// nest (a scan in a scan, a cond in a scan).
//
// A loop node has several results (final carries, stacked outputs); each is a tensor of its own
// (a `part` of the node), so they are used like any other tensor. Gradients flow through scan,
// fori_loop with a static trip count, map, cond and switch (the branch taken); while_loop has no
// reverse-mode gradient, as in JAX. Random draws inside a body are refused: draw them outside
// with a leading axis of the loop's length and pass them as a sequence.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "symx/loop_spec.hpp"
#include "symx/tensor.hpp"

namespace symx {

// ---- scan ----
struct ScanOptions {
  // Iterations; required when there are no sequences, else it must equal their first axis.
  std::optional<std::int64_t> length;
  // Iterate from the last slice to the first; outputs are stacked in the sequences' order.
  bool reverse = false;
  // The gradient recomputes the body (from the saved carries) instead of saving its intermediate
  // values: less memory, one more forward pass of the body (JAX's remat / checkpoint).
  bool checkpoint = false;
};
struct ScanResult {
  std::vector<Tensor> carry;  // the final carries
  std::vector<Tensor> ys;     // each output stacked along a new first axis of size length
};
// fn(carry, xs, non_sequences) -> {new carry, ys}: carry (a list) has the types of `init`, xs one
// slice of each sequence (its first axis removed), non_sequences as given. New carries must keep
// their carry's shape and dtype (a ShapeError / DTypeError names the carry and the body's line).
using ScanBody = std::function<ScanResult(const std::vector<Tensor>& carry, const std::vector<Tensor>& xs,
                                          const std::vector<Tensor>& non_sequences)>;
// Scans fn over the first axis of `sequences` while carrying state, as jax.lax.scan (SymJAX's
// scan). Returns the final carries and the stacked outputs. The body is compiled once and run in a
// loop; its gradient is a reverse scan (backpropagation through time).
// Example: auto r = scan([](auto& c, auto& x, auto&) { return ScanResult{{c[0] + x[0]}, {c[0]}}; }, {zero}, {xs})
// Python: carry, ys = sx.scan(lambda c, x: (c + x, c), 0.0, sequences=[xs])
ScanResult scan(const ScanBody& fn, const std::vector<Tensor>& init, const std::vector<Tensor>& sequences = {},
                const std::vector<Tensor>& non_sequences = {}, ScanOptions options = {}, Loc loc = Loc::current());

// fn(xs, non_sequences) -> ys, applied to each slice of `sequences` (a scan without a carry):
// returns the outputs stacked along a new first axis, as SymJAX's map / jax.lax.map.
// Example: auto squares = map([](auto& x, auto&) { return std::vector<Tensor>{x[0] * x[0]}; }, {xs})[0]
// Python: squares = sx.map(lambda x: x * x, [xs])
using MapBody =
    std::function<std::vector<Tensor>(const std::vector<Tensor>& xs, const std::vector<Tensor>& non_sequences)>;
std::vector<Tensor> map(const MapBody& fn, const std::vector<Tensor>& sequences,
                        const std::vector<Tensor>& non_sequences = {}, Loc loc = Loc::current());

// body(i, values) -> new values for i = lower, ..., upper - 1 (i an int32 scalar tensor), as
// jax.lax.fori_loop: a scan of upper - lower iterations (differentiable).
// Example: auto v = fori_loop(0, 10, [](const Tensor& i, auto& v) { return std::vector<Tensor>{v[0] * 2}; }, {one})
// Python: v = sx.fori_loop(0, 10, lambda i, v: v * 2, 1.0)
using ForiBody = std::function<std::vector<Tensor>(const Tensor& i, const std::vector<Tensor>& values)>;
std::vector<Tensor> fori_loop(std::int64_t lower, std::int64_t upper, const ForiBody& body,
                              const std::vector<Tensor>& init, Loc loc = Loc::current());
// The same with bounds known only when the function runs (int scalar tensors): a while_loop, which
// has no reverse-mode gradient (as in JAX).
std::vector<Tensor> fori_loop(const Tensor& lower, const Tensor& upper, const ForiBody& body,
                              const std::vector<Tensor>& init, Loc loc = Loc::current());

// Repeats body(values) -> new values while cond(values) (a bool scalar) holds, as
// jax.lax.while_loop. No reverse-mode gradient (asking for one is a ValueError that suggests
// fori_loop or scan with a length). Ctrl-C (a KeyboardInterrupt in Python) stops a running loop.
// Example: auto v = while_loop([](auto& v) { return v[0] < 100; }, [](auto& v) { return std::vector<Tensor>{v[0] * 2};
// }, {one}) Python: v = sx.while_loop(lambda v: v < 100, lambda v: v * 2, 1.0)
using LoopCond = std::function<Tensor(const std::vector<Tensor>& values)>;
using LoopBody = std::function<std::vector<Tensor>(const std::vector<Tensor>& values)>;
std::vector<Tensor> while_loop(const LoopCond& cond, const LoopBody& body, const std::vector<Tensor>& init,
                               Loc loc = Loc::current());

// branches[clamp(index, 0, n - 1)](operands), as jax.lax.switch: only the branch taken runs, and
// only it is differentiated. Every branch must return the same number of tensors of the same types.
// Example: auto y = switch_(k, {[](auto& x) { return std::vector<Tensor>{x[0]}; }, [](auto& x) { return
// std::vector<Tensor>{-x[0]}; }}, {x})[0] Python: y = sx.switch(k, [lambda x: x, lambda x: -x], x)
using Branch = std::function<std::vector<Tensor>(const std::vector<Tensor>& operands)>;
std::vector<Tensor> switch_(const Tensor& index, const std::vector<Branch>& branches,
                            const std::vector<Tensor>& operands, Loc loc = Loc::current());
// true_fn(operands) if pred else false_fn(operands), as jax.lax.cond (a switch on a bool scalar).
// Example: auto y = cond(x > 0, [](auto& o) { return std::vector<Tensor>{log(o[0])}; }, [](auto& o) { return
// std::vector<Tensor>{o[0]}; }, {x})[0] Python: y = sx.cond(x > 0, lambda x: sx.log(x), lambda x: x, x)
std::vector<Tensor> cond(const Tensor& pred, const Branch& true_fn, const Branch& false_fn,
                         const std::vector<Tensor>& operands, Loc loc = Loc::current());

// Stops the loops running in this process at their next check (within about a millisecond): the
// call running one throws Interrupted and changes no variable. Async-signal-safe: a SIGINT handler
// may call it. Python's Ctrl-C does the same (a KeyboardInterrupt). A request made while no loop
// runs stops the next loop that reaches a check.
// Example: std::thread([] { std::this_thread::sleep_for(std::chrono::seconds(1)); request_interrupt(); }).detach();
// Python: threading.Timer(1.0, sx.request_interrupt).start()
void request_interrupt();

namespace detail {
// For language bindings: a function that running loops call every so often (about every thousand
// iterations) and that throws to stop them (Python's checks for Ctrl-C).
using InterruptCheck = void (*)();
void set_interrupt_check(InterruptCheck check);
// Throws Interrupted after request_interrupt(), then calls the binding's check.
void poll_interrupt();
}  // namespace detail

}  // namespace symx
