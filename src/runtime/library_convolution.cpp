// Convolutions on oneDNN: forward (with a fused bias), backward data and backward weights, float32,
// 1-D to 3-D, grouped or not.
//
// Most run on symx's plain layouts. Those where oneDNN's direct kernels beat its im2col + gemm
// ones run on the layouts oneDNN picks (channel-blocked, nChw16c / OIhw16i16o): the call then
// reorders its inputs into, and its output out of, blocked buffers it allocated at build time
// (see prefers_blocked_layouts).
#include <string>

#include "runtime/library_internal.hpp"
#include "symx/error.hpp"

namespace symx::runtime::detail {
namespace {

// The three convolution tensors of one ConvAttr, as oneDNN plain descriptors.
struct ConvGeometry {
  memory::desc src, weights, dst;
  memory::dims strides, dilates, pad_l, pad_r;
};

ConvGeometry conv_geometry(const Shape& x, const Shape& w, const Shape& y, const ConvAttr& a) {
  using tag = memory::format_tag;
  std::size_t sd = x.size() - 2;
  static const tag data_tags[] = {tag::ncw, tag::nchw, tag::ncdhw};
  static const tag weight_tags[] = {tag::oiw, tag::oihw, tag::oidhw};
  static const tag group_tags[] = {tag::goiw, tag::goihw, tag::goidhw};
  ConvGeometry g;
  g.src = plain(dims_of(x), data_tags[sd - 1]);
  g.dst = plain(dims_of(y), data_tags[sd - 1]);
  if (a.groups == 1) {
    g.weights = plain(dims_of(w), weight_tags[sd - 1]);
  } else {
    // (O, C/g, *k) contiguous is (g, O/g, C/g, *k) contiguous.
    memory::dims gw{a.groups, w[0] / a.groups};
    gw.insert(gw.end(), w.begin() + 1, w.end());
    g.weights = plain(gw, group_tags[sd - 1]);
  }
  g.strides.assign(a.strides.begin(), a.strides.end());
  for (std::int64_t d : a.dilation) g.dilates.push_back(d - 1);  // oneDNN counts the holes
  g.pad_l.assign(a.pad_low.begin(), a.pad_low.end());
  g.pad_r.assign(a.pad_high.begin(), a.pad_high.end());
  return g;
}

// With `bias` (one value per output channel) and `relu` for a forward convolution's epilogue.
dnnl::convolution_forward::primitive_desc conv_forward_pd(const ConvGeometry& g, dnnl::prop_kind kind,
                                                          const memory::desc* bias = nullptr, bool relu = false) {
  using forward = dnnl::convolution_forward;
  auto algorithm = dnnl::algorithm::convolution_direct;
  forward::desc d =
      bias ? forward::desc(kind, algorithm, g.src, g.weights, *bias, g.dst, g.strides, g.dilates, g.pad_l, g.pad_r)
           : forward::desc(kind, algorithm, g.src, g.weights, g.dst, g.strides, g.dilates, g.pad_l, g.pad_r);
  return {d, call_attr(relu), cpu_engine()};
}

// `g` with every tensor in the layout oneDNN prefers (format_tag::any).
ConvGeometry with_any_layouts(ConvGeometry g) {
  for (memory::desc* md : {&g.src, &g.weights, &g.dst})
    *md = memory::desc(md->dims(), memory::data_type::f32, memory::format_tag::any);
  return g;
}

// Whether a convolution runs on the layouts oneDNN picks (channel-blocked, reordered from and to
// symx's plain buffers inside the call) rather than on the plain ones, where oneDNN 2.6 runs
// im2col + gemm. Measured on the CIFAR CNN's convolutions (3->32 on 32x32 and 32->64 on 16x16,
// 3x3, batch 32 and 128, AVX-512, reorders included): blocked forward and filter gradient are
// 1.3-3.7x faster (a tie for the 3-channel forward at batch 128, where the output's reorder eats
// the gain), blocked backward data 1.5x faster with 32 input channels but 2-3x slower with 3.
// A blocked tensor pads its channels to 16: the output (forward) and the output gradient are
// always blocked, and the source too except for few channels, where the forward and filter
// gradient keep it plain (oneDNN's first-layer kernels) and backward data has no such kernel.
// Grouped convolutions, not measured, stay plain.
bool prefers_blocked_layouts(ConvDirection direction, const Shape& x, const Shape& y, const ConvAttr& a) {
  constexpr std::int64_t block = 16;
  if (a.groups != 1 || y[1] < block) return false;
  return direction != ConvDirection::backward_data || x[1] >= block;
}

// The primitive descriptor of a convolution of `direction` on `g`; `bias`, `relu`: a forward convolution's
// epilogue. Backward ones take the forward descriptor as their hint.
dnnl::primitive_desc conv_pd(ConvDirection direction, const ConvGeometry& g, const memory::desc* bias, bool relu) {
  auto algorithm = dnnl::algorithm::convolution_direct;
  // Training and inference convolutions compute the same values; on blocked layouts oneDNN picks
  // brgconv for inference, which also blocks a 3-channel source and ran 1.1-1.7x slower than the
  // jit kernels it picks for training (measured as in prefers_blocked_layouts).
  auto hint = conv_forward_pd(g, dnnl::prop_kind::forward_training, bias, relu);
  if (direction == ConvDirection::forward) return hint;
  if (direction == ConvDirection::backward_data) {
    dnnl::convolution_backward_data::desc d(algorithm, g.src, g.weights, g.dst, g.strides, g.dilates, g.pad_l, g.pad_r);
    return dnnl::convolution_backward_data::primitive_desc(d, call_attr(), cpu_engine(), hint);
  }
  dnnl::convolution_backward_weights::desc d(algorithm, g.src, g.weights, g.dst, g.strides, g.dilates, g.pad_l,
                                             g.pad_r);
  return dnnl::convolution_backward_weights::primitive_desc(d, call_attr(), cpu_engine(), hint);
}

// A convolution's slots in run()'s order (its inputs, then its output), on plain layouts.
Slots conv_slots(ConvDirection direction, const ConvGeometry& g, const memory::desc* bias) {
  switch (direction) {
    case ConvDirection::forward: {  // conv(x, w) [+ bias] -> y
      Slots slots{{DNNL_ARG_SRC, g.src}, {DNNL_ARG_WEIGHTS, g.weights}};
      if (bias) slots.push_back({DNNL_ARG_BIAS, *bias});
      slots.push_back({DNNL_ARG_DST, g.dst});
      return slots;
    }
    case ConvDirection::backward_data:  // bi(gy, w) -> gx
      return {{DNNL_ARG_DIFF_DST, g.dst}, {DNNL_ARG_WEIGHTS, g.weights}, {DNNL_ARG_DIFF_SRC, g.src}};
    case ConvDirection::backward_weights:  // bf(x, gy) -> gw
      return {{DNNL_ARG_SRC, g.src}, {DNNL_ARG_DIFF_DST, g.dst}, {DNNL_ARG_DIFF_WEIGHTS, g.weights}};
  }
  throw InternalError("conv_slots: unknown convolution direction");
}

}  // namespace

std::unique_ptr<LibraryCall> make_conv_call(const Tensor& node, ConvDirection direction,
                                            const codegen::Epilogue* epilogue) {
  const bool forward = direction == ConvDirection::forward, backward_data = direction == ConvDirection::backward_data;
  if (node.ndim() < 3 || node.ndim() > 5) return nullptr;
  const auto& in = node.node().inputs;
  const ConvAttr& a = std::get<ConvAttr>(node.node().attr);
  // The forward convolution's x (N, C, ...), w and y (N, O, ...).
  const Shape& x = backward_data ? node.shape() : in[0].shape();
  const Shape& w = direction == ConvDirection::backward_weights ? node.shape() : in[1].shape();
  const Shape& y = forward ? node.shape() : in[backward_data ? 0 : 1].shape();
  ConvGeometry g = conv_geometry(x, w, y, a);
  memory::desc bias_md = plain({y[1]}, memory::format_tag::a);
  const memory::desc* bias = epilogue && epilogue->bias.defined() ? &bias_md : nullptr;
  bool relu = epilogue && epilogue->relu;
  std::string what = forward         ? "oneDNN convolution" + epilogue_text(epilogue)
                     : backward_data ? "oneDNN convolution backward data"
                                     : "oneDNN convolution backward weights";
  if (prefers_blocked_layouts(direction, x, y, a)) {
    try {
      dnnl::primitive_desc pd = conv_pd(direction, with_any_layouts(g), bias, relu);
      // A gemm implementation gains nothing from the reorders.
      if (std::string(pd.impl_info_str()).find("gemm") == std::string::npos)
        return std::make_unique<DnnlCall>(what, pd, conv_slots(direction, g, bias));
    } catch (const dnnl::error&) {
      // no direct implementation for these attributes: the plain layouts below
    }
  }
  return std::make_unique<DnnlCall>(what, conv_pd(direction, g, bias, relu), conv_slots(direction, g, bias));
}

}  // namespace symx::runtime::detail
