// Library calls: BLAS for matrix products, oneDNN for convolutions and average pooling, and
// parallel loops for max pooling and its gradient.
//
// A bias add and a ReLU that follow a matrix product or convolution (a step's epilogue, chosen by
// the fusion plan) run inside the call: a float32 product with a ReLU on oneDNN's matmul primitive
// (bias argument and eltwise post-ops, applied while each output tile is in registers); a product
// with a bias alone on the gemm, accumulating onto the bias (float32 and float64); a float32
// convolution's bias as the oneDNN primitive's bias argument. Plain products keep the gemm calls.
//
// Every call is prepared once, when the program is built: symx's buffers have plain layouts
// (ncw/nchw/ncdhw data, oiw/oihw/oidhw or grouped goi* weights); memory objects are created
// without a handle and pointed at the program's buffers on each run; the scratchpad is owned by
// the call (scratchpad_mode::user). Most primitives run on those plain layouts. Convolutions
// where oneDNN's direct kernels beat its im2col + gemm ones run on the layouts oneDNN picks
// (channel-blocked, nChw16c / OIhw16i16o): the call then reorders its inputs into, and its
// output out of, blocked buffers it allocated at build time (see prefers_blocked_layouts).
//
// Max pooling is not given to oneDNN: the reference takes the first maximum in row-major window
// order and lets NaN win, and its gradient routes to that same cell. A direct loop reproduces both
// exactly (for float32 and float64), where oneDNN's tie-breaking and NaN handling are unspecified.
#include "runtime/library_calls.hpp"

#include <cblas.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <dnnl.hpp>
#include <limits>
#include <mutex>
#include <stdexcept>
#include <vector>

#include "ops/op_table.hpp"

namespace symx::runtime {
namespace {

using dnnl::memory;

// One engine for the process, never destroyed: primitives and memories of programs that outlive
// static destruction still refer to it. One stream per thread: a oneDNN stream is not meant to be
// used by several threads at once, and calls of functions may run concurrently.
dnnl::engine& cpu_engine() {
  static auto* engine = new dnnl::engine(dnnl::engine::kind::cpu, 0);
  return *engine;
}
dnnl::stream& cpu_stream() {
  static thread_local dnnl::stream stream(cpu_engine());
  return stream;
}

bool any_empty(const Tensor& node) {
  if (node.size() == 0) return true;
  for (const Tensor& in : node.node().inputs)
    if (in.size() == 0) return true;
  return false;
}

// ---- oneDNN primitives ----

memory::dims dims_of(const Shape& s) { return memory::dims(s.begin(), s.end()); }

memory::desc plain(const memory::dims& d, memory::format_tag tag) { return memory::desc(d, memory::data_type::f32, tag); }

// A call's attributes: its own scratchpad, and a ReLU on the result when `relu`.
//
// The ReLU must equal the reference's maximum(x, 0) on every value, and oneDNN's eltwise_relu
// (a vmaxps against 0) turns NaN into 0 where maximum propagates it. Three post-ops are exact
// instead: elu with the smallest denormal alpha keeps x > 0 and NaN and maps every other value,
// -inf included, into [-alpha, 0]; leaky relu with the same alpha underflows those to -0; adding
// 0 makes -0 into +0. They run in registers on the output tile of the matmul primitive, at the
// cost of about one memory pass; oneDNN's gemm-based convolutions run such chains in a reference
// loop (2.5x the convolution's own time, measured), so convolutions fuse the bias only.
dnnl::primitive_attr call_attr(bool relu = false) {
  dnnl::primitive_attr attr;
  attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);
  if (relu) {
    const float tiny = std::numeric_limits<float>::denorm_min();
    dnnl::post_ops ops;
    ops.append_eltwise(1.f, dnnl::algorithm::eltwise_elu, tiny, 0.f);
    ops.append_eltwise(1.f, dnnl::algorithm::eltwise_relu, tiny, 0.f);
    ops.append_eltwise(1.f, dnnl::algorithm::eltwise_linear, 1.f, 0.f);
    attr.set_post_ops(ops);
  }
  return attr;
}

// ", A transposed": which operands a matrix product reads through its transpose flag.
std::string transposes_text(std::array<bool, 2> transposed) {
  if (transposed[0] && transposed[1]) return ", A and B transposed";
  return transposed[0] ? ", A transposed" : transposed[1] ? ", B transposed" : "";
}

// " + bias + relu": what an epilogue adds to a call's description.
std::string epilogue_text(const codegen::Epilogue* e) {
  if (!e) return "";
  return std::string(e->bias.defined() ? " + bias" : "") + (e->relu ? " + relu" : "");
}

// A primitive whose arguments are bound once. Slot i names the oneDNN argument (DNNL_ARG_*) that
// reads p[i] of run() and its plain layout there; the last slot is the output. Where the
// primitive descriptor wants another layout for a slot, the call owns a buffer in that layout and
// reorders into it before the primitive (inputs) or out of it after (the output); the reorders
// are created here and share the call's scratchpad with the primitive.
class DnnlCall final : public LibraryCall {
 public:
  DnnlCall(std::string what, const dnnl::primitive_desc& pd, const std::vector<std::pair<int, memory::desc>>& slots)
      : what_(std::move(what) + ", " + pd.impl_info_str()) {
    std::vector<std::pair<int, memory>> bound;  // the primitive's arguments
    std::vector<Step> before, after;
    std::string reordered;
    for (std::size_t i = 0; i < slots.size(); ++i) {
      const auto& [arg, plain_md] = slots[i];
      user_.emplace_back(plain_md, cpu_engine(), static_cast<void*>(DNNL_MEMORY_NONE));
      memory::desc wanted = pd.query_md(dnnl::query::exec_arg_md, arg);
      if (wanted == plain_md) {
        bound.push_back({arg, user_.back()});
        continue;
      }
      memory inner(wanted, cpu_engine());  // allocated here, once
      bound.push_back({arg, inner});
      bool input = i + 1 < slots.size();
      (input ? before : after).push_back(input ? reorder_step(user_.back(), inner) : reorder_step(inner, user_.back()));
      reordered += std::string(reordered.empty() ? "" : ", ") + arg_name(arg);
    }
    if (!reordered.empty()) what_ += ", blocked (reorders " + reordered + ")";
    steps_ = std::move(before);
    steps_.push_back({dnnl::primitive(pd), pd.scratchpad_desc(), bound, {}});
    for (Step& s : after) steps_.push_back(std::move(s));
    bind_scratchpad();
  }

  void run(char* const* p) override {
    // The memories' handles, the blocked buffers and the scratchpad belong to the call, so
    // concurrent calls of one program take turns here (other steps still run in parallel).
    std::lock_guard lock(mutex_);
    for (std::size_t i = 0; i < user_.size(); ++i) check(dnnl_memory_set_data_handle_v2(user_[i].get(), p[i], nullptr));
    // The C entry point takes the prebuilt argument arrays; the C++ one builds a map per call.
    for (Step& s : steps_)
      check(dnnl_primitive_execute(s.primitive.get(), cpu_stream().get(), static_cast<int>(s.args.size()), s.args.data()));
    check(dnnl_stream_wait(cpu_stream().get()));
  }

  std::string describe() const override { return what_; }

 private:
  struct Step {
    dnnl::primitive primitive;
    memory::desc scratch_md;
    std::vector<std::pair<int, memory>> memories;  // kept alive for `args`
    std::vector<dnnl_exec_arg_t> args;
  };

  static Step reorder_step(const memory& from, const memory& to) {
    dnnl::reorder::primitive_desc pd(cpu_engine(), from.get_desc(), cpu_engine(), to.get_desc(), call_attr());
    return {dnnl::reorder(pd), pd.scratchpad_desc(), {{DNNL_ARG_FROM, from}, {DNNL_ARG_TO, to}}, {}};
  }

  // One scratchpad, as large as the largest step's, for the steps run one after another.
  void bind_scratchpad() {
    std::size_t largest = 0;
    for (const Step& s : steps_) largest = std::max(largest, s.scratch_md.get_size());
    if (largest > 0)
      scratchpad_ = memory({{static_cast<memory::dim>(largest)}, memory::data_type::u8, memory::format_tag::a}, cpu_engine());
    for (Step& s : steps_) {
      for (const auto& [arg, m] : s.memories) s.args.push_back({arg, m.get()});
      if (s.scratch_md.get_size() > 0) s.args.push_back({DNNL_ARG_SCRATCHPAD, scratchpad_.get()});
    }
  }

  static const char* arg_name(int arg) {
    switch (arg) {
      case DNNL_ARG_SRC: return "src";
      case DNNL_ARG_WEIGHTS: return "weights";
      case DNNL_ARG_DST: return "dst";
      case DNNL_ARG_DIFF_SRC: return "diff_src";
      case DNNL_ARG_DIFF_WEIGHTS: return "diff_weights";
      case DNNL_ARG_DIFF_DST: return "diff_dst";
      default: return "argument";
    }
  }

  void check(dnnl_status_t status) const {
    if (status != dnnl_success) throw std::runtime_error(what_ + " failed (oneDNN status " + std::to_string(status) + ")");
  }

  std::string what_;
  std::vector<memory> user_;  // the program's buffers, one per slot
  std::vector<Step> steps_;   // input reorders, the primitive, the output's reorder
  memory scratchpad_;
  std::mutex mutex_;
};

using Slots = std::vector<std::pair<int, memory::desc>>;

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
  forward::desc d = bias ? forward::desc(kind, algorithm, g.src, g.weights, *bias, g.dst, g.strides, g.dilates, g.pad_l, g.pad_r)
                         : forward::desc(kind, algorithm, g.src, g.weights, g.dst, g.strides, g.dilates, g.pad_l, g.pad_r);
  return {d, call_attr(relu), cpu_engine()};
}

// `g` with every tensor in the layout oneDNN prefers (format_tag::any).
ConvGeometry with_any_layouts(ConvGeometry g) {
  for (memory::desc* md : {&g.src, &g.weights, &g.dst}) *md = memory::desc(md->dims(), memory::data_type::f32, memory::format_tag::any);
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
bool prefers_blocked_layouts(OpKind op, const Shape& x, const Shape& y, const ConvAttr& a) {
  constexpr std::int64_t block = 16;
  if (a.groups != 1 || y[1] < block) return false;
  return op != OpKind::ConvBackwardInput || x[1] >= block;
}

// The primitive descriptor of a convolution op on `g`; `bias`, `relu`: a forward convolution's
// epilogue. Backward ones take the forward descriptor as their hint.
dnnl::primitive_desc conv_pd(OpKind op, const ConvGeometry& g, const memory::desc* bias, bool relu) {
  auto algorithm = dnnl::algorithm::convolution_direct;
  // Training and inference convolutions compute the same values; on blocked layouts oneDNN picks
  // brgconv for inference, which also blocks a 3-channel source and ran 1.1-1.7x slower than the
  // jit kernels it picks for training (measured as in prefers_blocked_layouts).
  auto hint = conv_forward_pd(g, dnnl::prop_kind::forward_training, bias, relu);
  if (op == OpKind::Conv) return hint;
  if (op == OpKind::ConvBackwardInput) {
    dnnl::convolution_backward_data::desc d(algorithm, g.src, g.weights, g.dst, g.strides, g.dilates, g.pad_l, g.pad_r);
    return dnnl::convolution_backward_data::primitive_desc(d, call_attr(), cpu_engine(), hint);
  }
  dnnl::convolution_backward_weights::desc d(algorithm, g.src, g.weights, g.dst, g.strides, g.dilates, g.pad_l, g.pad_r);
  return dnnl::convolution_backward_weights::primitive_desc(d, call_attr(), cpu_engine(), hint);
}

// A convolution op's slots in run()'s order (its inputs, then its output), on plain layouts.
Slots conv_slots(OpKind op, const ConvGeometry& g, const memory::desc* bias) {
  switch (op) {
    case OpKind::Conv: {  // conv(x, w) [+ bias] -> y
      Slots slots{{DNNL_ARG_SRC, g.src}, {DNNL_ARG_WEIGHTS, g.weights}};
      if (bias) slots.push_back({DNNL_ARG_BIAS, *bias});
      slots.push_back({DNNL_ARG_DST, g.dst});
      return slots;
    }
    case OpKind::ConvBackwardInput:  // bi(gy, w) -> gx
      return {{DNNL_ARG_DIFF_DST, g.dst}, {DNNL_ARG_WEIGHTS, g.weights}, {DNNL_ARG_DIFF_SRC, g.src}};
    default:  // bf(x, gy) -> gw
      return {{DNNL_ARG_SRC, g.src}, {DNNL_ARG_DIFF_DST, g.dst}, {DNNL_ARG_DIFF_WEIGHTS, g.weights}};
  }
}

// `epilogue`: the step's fused bias and ReLU when `node` is its (forward) convolution.
std::unique_ptr<LibraryCall> make_conv_call(const Tensor& node, const codegen::Epilogue* epilogue = nullptr) {
  OpKind op = node.op();
  if (op != OpKind::Conv && op != OpKind::ConvBackwardInput && op != OpKind::ConvBackwardFilter) return nullptr;
  if (node.ndim() < 3 || node.ndim() > 5) return nullptr;
  const auto& in = node.node().inputs;
  const ConvAttr& a = std::get<ConvAttr>(node.node().attr);
  // The forward convolution's x (N, C, ...), w and y (N, O, ...).
  const Shape& x = op == OpKind::ConvBackwardInput ? node.shape() : in[0].shape();
  const Shape& w = op == OpKind::ConvBackwardFilter ? node.shape() : in[1].shape();
  const Shape& y = op == OpKind::Conv ? node.shape() : in[op == OpKind::ConvBackwardInput ? 0 : 1].shape();
  ConvGeometry g = conv_geometry(x, w, y, a);
  memory::desc bias_md = plain({y[1]}, memory::format_tag::a);
  const memory::desc* bias = epilogue && epilogue->bias.defined() ? &bias_md : nullptr;
  bool relu = epilogue && epilogue->relu;
  std::string what = op == OpKind::Conv ? "oneDNN convolution" + epilogue_text(epilogue)
                     : op == OpKind::ConvBackwardInput ? "oneDNN convolution backward data"
                                                       : "oneDNN convolution backward weights";
  if (prefers_blocked_layouts(op, x, y, a)) {
    try {
      dnnl::primitive_desc pd = conv_pd(op, with_any_layouts(g), bias, relu);
      // A gemm implementation gains nothing from the reorders.
      if (std::string(pd.impl_info_str()).find("gemm") == std::string::npos) return std::make_unique<DnnlCall>(what, pd, conv_slots(op, g, bias));
    } catch (const dnnl::error&) {
      // no direct implementation for these attributes: the plain layouts below
    }
  }
  return std::make_unique<DnnlCall>(what, conv_pd(op, g, bias, relu), conv_slots(op, g, bias));
}

// Pooling over the last two axes of (..., H, W): the leading axes flattened into oneDNN's
// channel axis of a (1, planes, H, W) nchw tensor.
memory::desc pool_desc(const Shape& s) {
  std::int64_t planes = 1;
  for (std::size_t i = 0; i + 2 < s.size(); ++i) planes *= s[i];
  return plain({1, planes, s[s.size() - 2], s[s.size() - 1]}, memory::format_tag::nchw);
}

dnnl::pooling_forward::primitive_desc avg_pool_forward_pd(const memory::desc& src, const memory::desc& dst,
                                                          const PoolAttr& a, dnnl::prop_kind kind) {
  memory::dims strides(a.strides.begin(), a.strides.end()), kernel(a.window.begin(), a.window.end()),
      pad_l(a.pad_low.begin(), a.pad_low.end()), pad_r(a.pad_high.begin(), a.pad_high.end());
  dnnl::pooling_forward::desc d(kind, dnnl::algorithm::pooling_avg_exclude_padding, src, dst, strides, kernel, pad_l, pad_r);
  return {d, call_attr(), cpu_engine()};
}

std::unique_ptr<LibraryCall> make_avg_pool_call(const Tensor& node) {
  const PoolAttr& a = std::get<PoolAttr>(node.node().attr);
  const Tensor& in = node.node().inputs[0];
  if (node.op() == OpKind::AvgPool) {
    memory::desc src = pool_desc(in.shape()), dst = pool_desc(node.shape());
    auto pd = avg_pool_forward_pd(src, dst, a, dnnl::prop_kind::forward_inference);
    return std::make_unique<DnnlCall>("oneDNN average pooling", pd,
                                      std::vector<std::pair<int, memory::desc>>{{DNNL_ARG_SRC, src}, {DNNL_ARG_DST, dst}});
  }
  // avg_pool_grad(gy) -> gx
  memory::desc src = pool_desc(node.shape()), dst = pool_desc(in.shape());
  auto hint = avg_pool_forward_pd(src, dst, a, dnnl::prop_kind::forward_training);
  memory::dims strides(a.strides.begin(), a.strides.end()), kernel(a.window.begin(), a.window.end()),
      pad_l(a.pad_low.begin(), a.pad_low.end()), pad_r(a.pad_high.begin(), a.pad_high.end());
  dnnl::pooling_backward::desc d(dnnl::algorithm::pooling_avg_exclude_padding, src, dst, strides, kernel, pad_l, pad_r);
  dnnl::pooling_backward::primitive_desc pd(d, call_attr(), cpu_engine(), hint);
  return std::make_unique<DnnlCall>("oneDNN average pooling backward", pd,
                                    std::vector<std::pair<int, memory::desc>>{{DNNL_ARG_DIFF_DST, dst}, {DNNL_ARG_DIFF_SRC, src}});
}

// ---- max pooling: parallel loops with the reference's tie-breaking ----

template <class T> class MaxPoolCall final : public LibraryCall {
 public:
  MaxPoolCall(const Shape& x, const Shape& y, const PoolAttr& a, bool grad)
      : grad_(grad), kh_(a.window[0]), kw_(a.window[1]), sh_(a.strides[0]), sw_(a.strides[1]), ph_(a.pad_low[0]),
        pw_(a.pad_low[1]) {
    H_ = x[x.size() - 2];
    W_ = x[x.size() - 1];
    OH_ = y[y.size() - 2];
    OW_ = y[y.size() - 1];
    planes_ = num_elements(x) / (H_ * W_);
    pairs_ = kh_ == 2 && kw_ == 2 && sh_ == 2 && sw_ == 2 && ph_ == 0 && pw_ == 0 && H_ == 2 * OH_ && W_ == 2 * OW_;
  }

  void run(char* const* p) override {
    const T* x = reinterpret_cast<const T*>(p[0]);
    if (pairs_) {
      run_pairs(x, p);
      return;
    }
    if (!grad_) {
      T* y = reinterpret_cast<T*>(p[1]);
      std::int64_t rows = planes_ * OH_;
#pragma omp parallel for schedule(static)
      for (std::int64_t r = 0; r < rows; ++r) {
        std::int64_t plane = r / OH_, oh = r % OH_;
        const T* xp = x + plane * H_ * W_;
        for (std::int64_t ow = 0; ow < OW_; ++ow) y[r * OW_ + ow] = xp[argmax(xp, oh, ow)];
      }
    } else {
      const T* g = reinterpret_cast<const T*>(p[1]);
      T* out = reinterpret_cast<T*>(p[2]);
#pragma omp parallel for schedule(static)
      for (std::int64_t plane = 0; plane < planes_; ++plane) {
        const T* xp = x + plane * H_ * W_;
        const T* gp = g + plane * OH_ * OW_;
        T* op = out + plane * H_ * W_;
        for (std::int64_t i = 0; i < H_ * W_; ++i) op[i] = T(0);
        for (std::int64_t oh = 0; oh < OH_; ++oh)
          for (std::int64_t ow = 0; ow < OW_; ++ow) op[argmax(xp, oh, ow)] += gp[oh * OW_ + ow];
      }
    }
  }

  std::string describe() const override {
    return std::string(grad_ ? "max pooling gradient loop" : "max pooling loop") + (pairs_ ? ", 2x2 windows" : "");
  }

 private:
  // 2x2 windows with stride 2 and no padding tile the input, so each output row reads two input
  // rows once and the gradient writes every input cell exactly once (no zero fill, no
  // scatter); the loops over a row are branch-free and vectorize. Same first-max and NaN rules.
  void run_pairs(const T* x, char* const* p) const {
    const std::int64_t rows = planes_ * OH_;
    const T* g = grad_ ? reinterpret_cast<const T*>(p[1]) : nullptr;
    T* out = reinterpret_cast<T*>(p[grad_ ? 2 : 1]);
#pragma omp parallel for schedule(static) if (rows * OW_ >= 4096)
    for (std::int64_t r = 0; r < rows; ++r) {
      const std::int64_t plane = r / OH_, oh = r % OH_;
      const T* top = x + plane * H_ * W_ + 2 * oh * W_;
      const T* bottom = top + W_;
      if (!grad_) {
        T* y = out + r * OW_;
#pragma omp simd
        for (std::int64_t ow = 0; ow < OW_; ++ow) {
          const T a = top[2 * ow], b = top[2 * ow + 1], c = bottom[2 * ow], d = bottom[2 * ow + 1];
          const int k = cell_of_max(a, b, c, d);
          y[ow] = k == 0 ? a : k == 1 ? b : k == 2 ? c : d;
        }
        continue;
      }
      const T* gr = g + r * OW_;
      T* out_top = out + plane * H_ * W_ + 2 * oh * W_;
      T* out_bottom = out_top + W_;
#pragma omp simd
      for (std::int64_t ow = 0; ow < OW_; ++ow) {
        const int k = cell_of_max(top[2 * ow], top[2 * ow + 1], bottom[2 * ow], bottom[2 * ow + 1]);
        out_top[2 * ow] = k == 0 ? gr[ow] : T(0);
        out_top[2 * ow + 1] = k == 1 ? gr[ow] : T(0);
        out_bottom[2 * ow] = k == 2 ? gr[ow] : T(0);
        out_bottom[2 * ow + 1] = k == 3 ? gr[ow] : T(0);
      }
    }
  }

  // The first of the four cells (row-major) holding their maximum; the first NaN wins.
  static int cell_of_max(T a, T b, T c, T d) {
    int k = 0;
    T m = a;
    bool found_nan = a != a;
    const bool take_b = !found_nan && (b != b || b > m);
    k = take_b ? 1 : k;
    m = take_b ? b : m;
    found_nan = found_nan || b != b;
    const bool take_c = !found_nan && (c != c || c > m);
    k = take_c ? 2 : k;
    m = take_c ? c : m;
    found_nan = found_nan || c != c;
    const bool take_d = !found_nan && (d != d || d > m);
    return take_d ? 3 : k;
  }

  // The first cell of the window in row-major order holding its maximum; NaN wins.
  std::int64_t argmax(const T* xp, std::int64_t oh, std::int64_t ow) const {
    std::int64_t h0 = oh * sh_ - ph_, w0 = ow * sw_ - pw_;
    std::int64_t hb = std::max<std::int64_t>(h0, 0), he = std::min(h0 + kh_, H_);
    std::int64_t wb = std::max<std::int64_t>(w0, 0), we = std::min(w0 + kw_, W_);
    std::int64_t best = hb * W_ + wb;
    T b = xp[best];
    if (std::isnan(b)) return best;
    for (std::int64_t h = hb; h < he; ++h)
      for (std::int64_t w = wb; w < we; ++w) {
        T v = xp[h * W_ + w];
        if (std::isnan(v)) return h * W_ + w;
        if (v > b) {
          b = v;
          best = h * W_ + w;
        }
      }
    return best;
  }

  bool grad_;
  std::int64_t kh_, kw_, sh_, sw_, ph_, pw_, H_ = 0, W_ = 0, OH_ = 0, OW_ = 0, planes_ = 0;
  bool pairs_ = false;
};

std::unique_ptr<LibraryCall> make_max_pool_call(const Tensor& node) {
  const PoolAttr& a = std::get<PoolAttr>(node.node().attr);
  const Shape& x = node.node().inputs[0].shape();
  const Shape& y = node.op() == OpKind::MaxPool ? node.shape() : node.node().inputs[1].shape();
  bool grad = node.op() == OpKind::MaxPoolGrad;
  if (node.dtype() == DType::f32) return std::make_unique<MaxPoolCall<float>>(x, y, a, grad);
  return std::make_unique<MaxPoolCall<double>>(x, y, a, grad);
}

// ---- matrix products: one gemm per batch element (oneDNN sgemm, BLAS dgemm), operand offsets precomputed ----

// With `bias` (an epilogue without ReLU), p[2] holds N values added to every row: each output
// row starts as the bias and the gemm accumulates onto it (beta = 1), the bias fusion BLAS offers.
// It keeps the call free of allocations, which oneDNN's primitive execution is not (it builds an
// argument map per call). A transposed operand (Step::transposed) is read through the gemm's
// transpose flag from the buffer of the transpose's input.
template <class T> class MatmulCall final : public LibraryCall {
 public:
  MatmulCall(const Tensor& node, bool bias, std::array<bool, 2> transposed) : bias_(bias), transposed_(transposed) {
    const Shape& sa = node.node().inputs[0].shape();
    const Shape& sb = node.node().inputs[1].shape();
    const Shape& so = node.shape();
    m_ = static_cast<int>(sa[sa.size() - 2]);
    k_ = static_cast<int>(sa.back());
    n_ = static_cast<int>(sb.back());
    Shape batch_shape(so.begin(), so.end() - 2);
    auto stride_a = ops::broadcast_strides(Shape(sa.begin(), sa.end() - 2), batch_shape);
    auto stride_b = ops::broadcast_strides(Shape(sb.begin(), sb.end() - 2), batch_shape);
    auto own = ops::contiguous_strides(batch_shape);
    for (std::int64_t i = 0; i < num_elements(batch_shape); ++i) {
      std::int64_t ia = 0, ib = 0;
      for (std::size_t d = 0; d < batch_shape.size(); ++d) {
        std::int64_t idx = (i / own[d]) % batch_shape[d];
        ia += idx * stride_a[d];
        ib += idx * stride_b[d];
      }
      offset_a_.push_back(ia * m_ * k_);
      offset_b_.push_back(ib * k_ * n_);
    }
  }

  void run(char* const* p) override {
    const T* a = reinterpret_cast<const T*>(p[0]);
    const T* b = reinterpret_cast<const T*>(p[1]);
    const T* bias = bias_ ? reinterpret_cast<const T*>(p[2]) : nullptr;
    T* c = reinterpret_cast<T*>(p[bias_ ? 3 : 2]);
    const T beta = bias_ ? T(1) : T(0);
    for (std::size_t i = 0; i < offset_a_.size(); ++i) {
      T* out = c + static_cast<std::int64_t>(i) * m_ * n_;
      if (bias_) {
#pragma omp parallel for schedule(static) if (static_cast<std::int64_t>(m_) * n_ >= (1 << 15))
        for (int row = 0; row < m_; ++row) std::copy(bias, bias + n_, out + static_cast<std::int64_t>(row) * n_);
      }
      // float32 goes through oneDNN's sgemm, which runs on the same OpenMP pool as the
      // generated kernels; OpenBLAS's own pthread pool would compete with OpenMP's spinning
      // threads (measured: MLP step 144 ms with OpenBLAS, 14 ms without the contention).
      // Row-major leading dimensions: a (M, K) operand stored transposed is (K, M).
      const int lda = transposed_[0] ? m_ : k_, ldb = transposed_[1] ? k_ : n_;
      if constexpr (std::is_same_v<T, float>)
        dnnl_sgemm(transposed_[0] ? 'T' : 'N', transposed_[1] ? 'T' : 'N', m_, n_, k_, 1.f, a + offset_a_[i], lda,
                   b + offset_b_[i], ldb, beta, out, n_);
      else
        cblas_dgemm(CblasRowMajor, transposed_[0] ? CblasTrans : CblasNoTrans, transposed_[1] ? CblasTrans : CblasNoTrans,
                    m_, n_, k_, 1.0, a + offset_a_[i], lda, b + offset_b_[i], ldb, beta, out, n_);
    }
  }

  std::string describe() const override {
    return std::string(std::is_same_v<T, float> ? "oneDNN sgemm" : "BLAS dgemm") + (bias_ ? " + bias" : "") +
           transposes_text(transposed_);
  }

 private:
  bool bias_;
  std::array<bool, 2> transposed_;
  int m_ = 0, n_ = 0, k_ = 0;
  std::vector<std::int64_t> offset_a_, offset_b_;
};

// A float32 product with a ReLU epilogue, on oneDNN's matmul primitive. A matrix right operand makes
// (..., M, K) x (K, N) one (B*M, K) x (K, N) product; otherwise the batch shapes are equal
// (supports_epilogue) and it is a batched (B, M, K) x (B, K, N) product. The bias is a row
// broadcast over the rest.
// Transposed operands (only of 2-D products) are described as column-major (tag ba).
std::unique_ptr<LibraryCall> make_matmul_epilogue_call(const codegen::Epilogue& e, std::array<bool, 2> transposed) {
  const Shape& sa = e.product.node().inputs[0].shape();
  const Shape& sb = e.product.node().inputs[1].shape();
  std::int64_t m = sa[sa.size() - 2], k = sa.back(), n = sb.back(), batch = num_elements(sa) / (m * k);
  bool flat = sb.size() == 2;
  auto tag = flat ? memory::format_tag::ab : memory::format_tag::abc;
  auto dims = [&](std::int64_t rows, std::int64_t cols) { return flat ? memory::dims{batch * rows, cols} : memory::dims{batch, rows, cols}; };
  memory::desc src = plain(dims(m, k), transposed[0] ? memory::format_tag::ba : tag), dst = plain(dims(m, n), tag);
  memory::desc weights = plain(flat ? memory::dims{k, n} : dims(k, n), transposed[1] ? memory::format_tag::ba : tag);
  memory::desc bias = plain(flat ? memory::dims{1, n} : memory::dims{1, 1, n}, tag);
  Slots slots{{DNNL_ARG_SRC, src}, {DNNL_ARG_WEIGHTS, weights}};
  if (e.bias.defined()) slots.push_back({DNNL_ARG_BIAS, bias});
  slots.push_back({DNNL_ARG_DST, dst});
  dnnl::matmul::desc d = e.bias.defined() ? dnnl::matmul::desc(src, weights, bias, dst) : dnnl::matmul::desc(src, weights, dst);
  dnnl::matmul::primitive_desc pd(d, call_attr(e.relu), cpu_engine());
  return std::make_unique<DnnlCall>("oneDNN matmul" + epilogue_text(&e) + transposes_text(transposed), pd, slots);
}

std::unique_ptr<LibraryCall> make_matmul_call(const Tensor& product, bool bias, std::array<bool, 2> transposed) {
  if (product.dtype() == DType::f32) return std::make_unique<MatmulCall<float>>(product, bias, transposed);
  return std::make_unique<MatmulCall<double>>(product, bias, transposed);
}

std::unique_ptr<LibraryCall> make_epilogue_call(const codegen::Epilogue& e, std::array<bool, 2> transposed) {
  if (!supports_epilogue(e.product, e.relu)) return nullptr;
  if (e.product.op() == OpKind::Matmul && !e.relu) return make_matmul_call(e.product, true, transposed);
  try {
    return e.product.op() == OpKind::Matmul ? make_matmul_epilogue_call(e, transposed) : make_conv_call(e.product, &e);
  } catch (const dnnl::error&) {
    return nullptr;  // no implementation for these attributes: the reference evaluator runs the group
  }
}

}  // namespace

bool library_handles(OpKind op) {
  switch (op) {
    case OpKind::Matmul: case OpKind::Conv: case OpKind::ConvBackwardInput: case OpKind::ConvBackwardFilter:
    case OpKind::MaxPool: case OpKind::MaxPoolGrad: case OpKind::AvgPool: case OpKind::AvgPoolGrad:
      return true;
    default: return false;
  }
}

bool supports_epilogue(const Tensor& product, bool relu) {
  DType dt = product.dtype();
  if ((dt != DType::f32 && dt != DType::f64) || any_empty(product)) return false;
  for (const Tensor& in : product.node().inputs)
    if (in.dtype() != dt) return false;
  if (product.op() == OpKind::Conv) return dt == DType::f32 && !relu && product.ndim() >= 3 && product.ndim() <= 5;
  if (product.op() != OpKind::Matmul) return false;
  const Shape& sa = product.node().inputs[0].shape();
  const Shape& sb = product.node().inputs[1].shape();
  if (sa.size() < 2 || sb.size() < 2) return false;
  if (!relu) return true;  // the gemm loop takes any batch broadcasting, and float64
  return dt == DType::f32 && (sb.size() == 2 || Shape(sa.begin(), sa.end() - 2) == Shape(sb.begin(), sb.end() - 2));
}

std::unique_ptr<LibraryCall> make_library_call(const codegen::Step& step) {
  if (step.epilogue) return make_epilogue_call(*step.epilogue, step.transposed);
  const Tensor& node = step.node;
  if (!library_handles(node.op())) return nullptr;
  for (const Tensor& in : node.node().inputs)
    if (in.dtype() != node.dtype()) return nullptr;
  DType dt = node.dtype();
  if (dt != DType::f32 && dt != DType::f64) return nullptr;
  switch (node.op()) {
    case OpKind::Matmul:
      if (node.shape().size() < 2 || any_empty(node)) return nullptr;
      return make_matmul_call(node, false, step.transposed);
    case OpKind::MaxPool: case OpKind::MaxPoolGrad:
      if (any_empty(node)) return nullptr;
      return make_max_pool_call(node);
    default: break;
  }
  if (dt != DType::f32 || any_empty(node)) return nullptr;  // oneDNN on the CPU: float32 only
  try {
    if (node.op() == OpKind::AvgPool || node.op() == OpKind::AvgPoolGrad) return make_avg_pool_call(node);
    return make_conv_call(node);
  } catch (const dnnl::error&) {
    return nullptr;  // no implementation for these attributes: the reference evaluator runs it
  }
}

}  // namespace symx::runtime
