// python/binding_common.hpp: what the files that define the `symx._symx` module share: the
// conversions (casters.hpp), DOC (a docstring from the public headers' comments), LOC (binding a C++
// function that takes a Loc), and the function each file defines to fill its part of the module.
#pragma once

#include <cstddef>
#include <optional>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "casters.hpp"
#include "docstrings.hpp"  // generated from the header comments by cmake/docstrings.py

// The docstring of a bound name: its comment in include/symx/*.hpp (qualified names spelled with
// "_": DOC(nn_conv2d), DOC(Tensor_eval)). The build fails when a comment is missing.
#define DOC(name) symx::doc::name

namespace symx_binding {

// ---------------------------------------------------------------------------------------------
// Binding a C++ free function whose last parameter is `Loc`: the Python callable takes the
// other parameters (wrapped where Python needs more flexible conversions) and sets the Python
// location around the call.

template <class T> struct Map { using type = T; };
template <> struct Map<const symx::Tensor&> { using type = TensorArg; };
template <> struct Map<const std::vector<symx::Tensor>&> { using type = TensorList; };
template <> struct Map<symx::Shape> { using type = IntList; };
template <> struct Map<const symx::Shape&> { using type = IntList; };
template <> struct Map<std::vector<int>> { using type = AxisList; };
template <> struct Map<int> { using type = AxisInt; };
template <> struct Map<std::optional<int>> { using type = OptionalAxisInt; };

inline const symx::Tensor& unwrap(TensorArg&& a) { return a.t; }
inline std::vector<symx::Tensor> unwrap(TensorList&& a) { return std::move(a.v); }
inline std::vector<std::int64_t> unwrap(IntList&& a) { return std::move(a.v); }
inline std::vector<int> unwrap(AxisList&& a) { return std::move(a.v); }
inline int unwrap(AxisInt&& a) { return a.v; }
inline std::optional<int> unwrap(OptionalAxisInt&& a) { return a.v; }
template <class T> T&& unwrap(T&& v) { return std::forward<T>(v); }

template <auto F, class Sig = decltype(F)> struct Located;
template <auto F, class R, class... A> struct Located<F, R (*)(A...)> {
  using Args = std::tuple<A...>;
  static constexpr std::size_t N = sizeof...(A) - 1;
  static_assert(std::is_same_v<std::tuple_element_t<N, Args>, symx::Loc>, "last parameter must be Loc");
  template <std::size_t... I> static auto make(std::index_sequence<I...>) {
    return [](typename Map<std::tuple_element_t<I, Args>>::type... a) -> R {
      PyLocation here;
      return F(unwrap(std::move(a))..., symx::Loc::current());
    };
  }
  static auto fn() { return make(std::make_index_sequence<N>{}); }
};

}  // namespace symx_binding

#define LOC(f) Located<&f>::fn()

// The parts of the module, each bound in its own file and called from NB_MODULE in binding.cpp with
// the module it fills.
void bind_control_flow(nb::module_& m);  // binding_control_flow.cpp: scan, while_loop, switch
void bind_ops(nb::module_& m);           // binding_ops.cpp: the NumPy-like functions (symx/ops.hpp)
void bind_linalg(nb::module_& linalg);   // binding_ops.cpp: symx.linalg
void bind_random(nb::module_& random);   // binding_ops.cpp: symx.random
void bind_special(nb::module_& m);       // binding_special.cpp: symx/special.hpp (m: the top module)
void bind_signal(nb::module_& m);        // binding_signal.cpp: symx.signal (symx/signal.hpp)
void bind_fft(nb::module_& m);           // binding_fft.cpp: symx.fft (symx/fft.hpp)
void bind_sorting(nb::module_& m);       // binding_sorting.cpp: symx/sorting.hpp
void bind_indexing(nb::module_& m);      // binding_indexing.cpp: symx/indexing.hpp
void bind_numpy(nb::module_& m);         // binding_numpy.cpp: symx/numpy.hpp
void bind_arrays(nb::module_& m);        // binding_arrays.cpp: symx/arrays.hpp
void bind_nn(
    nb::module_& nn);  // binding_nn.cpp: nn ops, activations and nn.losses (symx/nn/activations.hpp, losses.hpp)
void bind_layers(nb::module_& nn);    // binding_layers.cpp: nn.init and nn.layers (symx/nn/init.hpp, layers.hpp)
void bind_optim(nb::module_& optim);  // binding_optim.cpp: optimizers, clipping, schedules (symx/optim.hpp)
void bind_stats(nb::module_& stats);  // binding_stats.cpp: distributions (symx/stats.hpp)
void bind_data(
    nb::module_& data);  // binding_data.cpp: readers, splits, transforms, BatchIterator, download (symx/data.hpp)
void bind_train(nb::module_& train);    // binding_train.cpp: fit, callbacks, checkpoints, models (symx/train.hpp)
void bind_distributed(nb::module_& m);  // binding_distributed.cpp: symx.distributed (symx/distributed.hpp)
void bind_cli(nb::module_& m);          // binding_train.cpp: _cli_run, what `python -m symx` calls (symx/cli.hpp)
