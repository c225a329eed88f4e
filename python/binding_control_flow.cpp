// python/binding_control_flow.cpp: scan, while_loop and switch (symx/control_flow.hpp) for
// symx/_control_flow.py, which turns Python's nested carries (tuples, lists, dicts) into the flat
// lists these take. A body is a Python callable, called once while the node is built; Ctrl-C stops
// a running loop (the interrupt check polls Python's signal handlers).
#include <cstdint>
#include <optional>

#include "binding_common.hpp"

namespace {

using symx::Tensor;

std::vector<Tensor> tensors_of(nb::handle h, const char* what) {
  try {
    return nb::cast<std::vector<Tensor>>(h);
  } catch (const nb::cast_error&) {
    throw symx::ValueError(std::string(what) + " must be a list of tensors (got " +
                           nb::cast<std::string>(nb::str(nb::handle(reinterpret_cast<PyObject*>(Py_TYPE(h.ptr()))))) +
                           ").");
  }
}

// Called by running loops every so often: a pending Ctrl-C raises KeyboardInterrupt.
void check_python_signals() {
  if (!Py_IsInitialized()) return;
  nb::gil_scoped_acquire gil;
  if (PyErr_CheckSignals() != 0) throw nb::python_error();
}

}  // namespace

void bind_control_flow(nb::module_& m) {
  symx::detail::set_interrupt_check(check_python_signals);
  m.def(
      "_scan",
      [](nb::callable fn, std::vector<Tensor> init, std::vector<Tensor> sequences, std::vector<Tensor> non_sequences,
         std::optional<std::int64_t> length, bool reverse, bool checkpoint) {
        PyLocation here;
        symx::ScanBody body = [&fn](const std::vector<Tensor>& carry, const std::vector<Tensor>& xs,
                                    const std::vector<Tensor>& ns) {
          nb::object r = fn(carry, xs, ns);
          auto t = nb::cast<nb::tuple>(r);
          return symx::ScanResult{tensors_of(t[0], "the body's carry"), tensors_of(t[1], "the body's outputs")};
        };
        symx::ScanOptions options;
        options.length = length;
        options.reverse = reverse;
        options.checkpoint = checkpoint;
        symx::ScanResult r = symx::scan(body, init, sequences, non_sequences, options);
        return nb::make_tuple(r.carry, r.ys);
      },
      "fn"_a, "init"_a, "sequences"_a, "non_sequences"_a, "length"_a.none(), "reverse"_a, "checkpoint"_a);
  m.def(
      "_while_loop",
      [](nb::callable cond_fn, nb::callable body_fn, std::vector<Tensor> init) {
        PyLocation here;
        return symx::while_loop(
            [&cond_fn](const std::vector<Tensor>& v) {
              nb::object r = cond_fn(v);
              if (!nb::isinstance<Tensor>(r))
                throw symx::DTypeError(
                    "while_loop: the condition returns a " +
                    nb::cast<std::string>(nb::str(nb::handle(reinterpret_cast<PyObject*>(Py_TYPE(r.ptr()))))) +
                    ", not a bool scalar tensor. Return a comparison of the loop's values (v < 10).");
              return nb::cast<Tensor>(r);
            },
            [&body_fn](const std::vector<Tensor>& v) { return tensors_of(body_fn(v), "the body's new values"); }, init);
      },
      "cond_fn"_a, "body_fn"_a, "init"_a);
  m.def(
      "_switch",
      [](Tensor index, std::vector<nb::callable> branches, std::vector<Tensor> operands, bool is_cond) {
        PyLocation here;
        std::vector<symx::Branch> bs;
        for (nb::callable& b : branches)
          bs.push_back([&b](const std::vector<Tensor>& o) { return tensors_of(b(o), "a branch's results"); });
        if (is_cond) return symx::cond(index, bs[1], bs[0], operands);
        return symx::switch_(index, bs, operands);
      },
      "index"_a, "branches"_a, "operands"_a, "is_cond"_a);
  m.def("request_interrupt", &symx::request_interrupt, DOC(request_interrupt));
}
