// symx.distributed: data-parallel training over MPI (symx/distributed.hpp), and
// DistributedOptimizer, Python's name for optim::make_distributed.
#include "binding_common.hpp"
#include "symx/distributed.hpp"
#include "symx/optim.hpp"

namespace sd = symx::distributed;

namespace {

sd::Reduction reduction_from(const std::string& op) {
  if (op == "sum") return sd::Reduction::sum;
  if (op == "mean") return sd::Reduction::mean;
  if (op == "max") return sd::Reduction::max;
  throw symx::ValueError("symx.distributed: op '" + op + "' is not a reduction; use 'sum', 'mean' or 'max'.");
}

// A collective's Python form: on a Tensor, the graph node (at the caller's line); on anything else
// (NumPy arrays, numbers, lists), the collective on the array now, without the GIL.
template <class OnTensor, class OnArray>
nb::object on_tensor_or_array(nb::handle x, OnTensor on_tensor, OnArray on_array) {
  if (nb::isinstance<symx::Tensor>(x)) {
    PyLocation here;
    return nb::cast(on_tensor(nb::cast<symx::Tensor>(x)));
  }
  symx::Array a = array_from_python_values(x);
  symx::Array out;
  {
    nb::gil_scoped_release release;
    out = on_array(a);
  }
  return array_to_python(out);
}

}  // namespace

void bind_distributed(nb::module_& m) {
  m.def(
      "init",
      [](std::optional<double> timeout) {
        // 0 means "the default" in C++; from Python only None does.
        if (timeout && !(*timeout > 0))
          throw symx::ValueError("symx.distributed.init: timeout=" + std::to_string(*timeout) +
                                 " is not a positive number of seconds. Pass e.g. timeout=60, or None for "
                                 "SYMX_DIST_TIMEOUT (default 300).");
        sd::init({.timeout_seconds = timeout.value_or(0)});
      },
      "timeout"_a = nb::none(), DOC(distributed_init));
  m.def("initialized", &sd::initialized, DOC(distributed_initialized));
  m.def("rank", &sd::rank, DOC(distributed_rank));
  m.def("world_size", &sd::world_size, DOC(distributed_world_size));
  m.def("local_rank", &sd::local_rank, DOC(distributed_local_rank));
  m.def("local_size", &sd::local_size, DOC(distributed_local_size));
  m.def(
      "barrier",
      [] {
        nb::gil_scoped_release release;
        sd::barrier();
      },
      DOC(distributed_barrier));
  m.def(
      "abort", [](const std::string& message, int code) { sd::abort(message, code); }, "message"_a, "code"_a = 1,
      DOC(distributed_abort));
  m.def("timeout_seconds", &sd::timeout_seconds, DOC(distributed_timeout_seconds));

  m.def(
      "all_reduce",
      [](nb::handle x, const std::string& op) {
        sd::Reduction r = reduction_from(op);
        return on_tensor_or_array(
            x, [r](const symx::Tensor& t) { return sd::all_reduce(t, r); },
            [r](const symx::Array& a) { return sd::all_reduce(a, r); });
      },
      "x"_a, "op"_a = "sum", DOC(distributed_all_reduce));
  m.def(
      "broadcast",
      [](nb::handle x, int root) {
        return on_tensor_or_array(
            x, [root](const symx::Tensor& t) { return sd::broadcast(t, root); },
            [root](const symx::Array& a) { return sd::broadcast(a, root); });
      },
      "x"_a, "root"_a = 0, DOC(distributed_broadcast));
  m.def(
      "all_gather",
      [](nb::handle x) {
        return on_tensor_or_array(
            x, [](const symx::Tensor& t) { return sd::all_gather(t); },
            [](const symx::Array& a) { return sd::all_gather(a); });
      },
      "x"_a, DOC(distributed_all_gather));
  m.def(
      "broadcast_variables",
      [](std::optional<TensorList> variables, int root) {
        std::vector<symx::Tensor> vars = variables ? variables->v : std::vector<symx::Tensor>{};
        nb::gil_scoped_release release;
        sd::broadcast_variables(vars, root);
      },
      "variables"_a = nb::none(), "root"_a = 0, DOC(distributed_broadcast_variables));
  m.def(
      "average_gradients",
      [](TensorList grads, double bucket_mb, bool average, bool overlap) {
        PyLocation here;
        return sd::average_gradients(grads.v, {.bucket_mb = bucket_mb, .average = average, .overlap = overlap});
      },
      "grads"_a, "bucket_mb"_a = 25.0, "average"_a = true, "overlap"_a = true, DOC(distributed_average_gradients));
  m.def(
      "DistributedOptimizer",
      [](nb::handle optimizer, double bucket_mb, bool overlap) {
        auto* opt = nb::cast<symx::optim::Optimizer*>(optimizer);
        symx::optim::make_distributed(*opt, {.bucket_mb = bucket_mb, .overlap = overlap});
        return nb::borrow(optimizer);
      },
      "optimizer"_a, "bucket_mb"_a = 25.0, "overlap"_a = true, DOC(distributed_DistributedOptimizer));
  m.def(
      "gradient_stats",
      [] {
        sd::GradientStats s = sd::gradient_stats();
        nb::dict out;
        out["buckets"] = s.buckets;
        out["bytes"] = s.bytes;
        out["comm_seconds"] = s.comm_seconds;
        out["wait_seconds"] = s.wait_seconds;
        return out;
      },
      DOC(distributed_gradient_stats));
  m.def("reset_gradient_stats", &sd::reset_gradient_stats, DOC(distributed_reset_gradient_stats));
}
