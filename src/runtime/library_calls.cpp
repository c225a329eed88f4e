// Library calls: BLAS for matrix products, oneDNN for convolutions and average pooling, and
// parallel loops for max pooling and its gradient.
//
// A bias add and a ReLU that follow a matrix product or convolution (a step's epilogue, chosen by
// the fusion plan) run inside the call: a float32 product with a ReLU on oneDNN's matmul primitive
// (bias argument and eltwise post-ops, applied while each output tile is in registers); a product
// with a bias alone on the gemm, accumulating onto the bias (float32 and float64); a float32
// convolution's bias as the oneDNN primitive's bias argument. Plain products keep the gemm calls.
//
// Every call is prepared once, when the program is built: oneDNN primitives are created on plain
// layouts (ncw/nchw/ncdhw data, oiw/oihw/oidhw or grouped goi* weights), which are exactly how
// symx lays out contiguous buffers, so no reorder is ever needed; memory objects are created
// without a handle and pointed at the program's buffers on each run; the scratchpad is owned by
// the call (scratchpad_mode::user).
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
#include <stdexcept>
#include <vector>

#include "ops/op_table.hpp"

namespace symx::runtime {
namespace {

using dnnl::memory;

// One engine and stream for the process, never destroyed: primitives and memories of programs
// that outlive static destruction still refer to them.
dnnl::engine& cpu_engine() {
  static auto* engine = new dnnl::engine(dnnl::engine::kind::cpu, 0);
  return *engine;
}
dnnl::stream& cpu_stream() {
  static auto* stream = new dnnl::stream(cpu_engine());
  return *stream;
}

bool any_empty(const Tensor& node) {
  if (node.size() == 0) return true;
  for (const Tensor& in : node.node().inputs)
    if (in.size() == 0) return true;
  return false;
}

// ---- oneDNN primitives ----

// A primitive whose arguments are bound once: argument i (a oneDNN DNNL_ARG_*) reads or writes
// p[i] of run(), then the call's own scratchpad.
class DnnlCall final : public LibraryCall {
 public:
  DnnlCall(std::string what, const dnnl::primitive_desc& pd, const std::vector<std::pair<int, memory::desc>>& slots)
      : what_(std::move(what) + ", " + pd.impl_info_str()), primitive_(pd) {
    for (const auto& [arg, md] : slots) memories_.emplace_back(md, cpu_engine(), static_cast<void*>(DNNL_MEMORY_NONE));
    memory::desc scratch_md = pd.scratchpad_desc();
    if (scratch_md.get_size() > 0) scratchpad_ = memory(scratch_md, cpu_engine());  // allocated here, once
    for (std::size_t i = 0; i < slots.size(); ++i) args_.push_back({slots[i].first, memories_[i].get()});
    if (scratchpad_) args_.push_back({DNNL_ARG_SCRATCHPAD, scratchpad_.get()});
  }

  void run(char* const* p) override {
    for (std::size_t i = 0; i < memories_.size(); ++i)
      check(dnnl_memory_set_data_handle_v2(memories_[i].get(), p[i], nullptr));
    // The C entry point takes the prebuilt argument array; the C++ one builds a vector per call.
    check(dnnl_primitive_execute(primitive_.get(), cpu_stream().get(), static_cast<int>(args_.size()), args_.data()));
    check(dnnl_stream_wait(cpu_stream().get()));
  }

  std::string describe() const override { return what_; }

 private:
  void check(dnnl_status_t status) const {
    if (status != dnnl_success) throw std::runtime_error(what_ + " failed (oneDNN status " + std::to_string(status) + ")");
  }

  std::string what_;
  dnnl::primitive primitive_;
  std::vector<memory> memories_;
  memory scratchpad_;
  std::vector<dnnl_exec_arg_t> args_;
};

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

// `epilogue`: the step's fused bias and ReLU when `node` is its (forward) convolution.
std::unique_ptr<LibraryCall> make_conv_call(const Tensor& node, const codegen::Epilogue* epilogue = nullptr) {
  const auto& in = node.node().inputs;
  const ConvAttr& a = std::get<ConvAttr>(node.node().attr);
  std::size_t rank = node.shape().size();
  if (rank < 3 || rank > 5) return nullptr;
  switch (node.op()) {
    case OpKind::Conv: {  // conv(x, w) [+ bias] -> y
      ConvGeometry g = conv_geometry(in[0].shape(), in[1].shape(), node.shape(), a);
      Slots slots{{DNNL_ARG_SRC, g.src}, {DNNL_ARG_WEIGHTS, g.weights}};
      bool bias = epilogue && epilogue->bias.defined();
      if (bias) slots.push_back({DNNL_ARG_BIAS, plain({node.shape()[1]}, memory::format_tag::a)});
      slots.push_back({DNNL_ARG_DST, g.dst});
      auto pd = conv_forward_pd(g, dnnl::prop_kind::forward_inference, bias ? &slots[2].second : nullptr,
                                epilogue && epilogue->relu);
      return std::make_unique<DnnlCall>("oneDNN convolution" + epilogue_text(epilogue), pd, slots);
    }
    case OpKind::ConvBackwardInput: {  // bi(gy, w) -> gx
      ConvGeometry g = conv_geometry(node.shape(), in[1].shape(), in[0].shape(), a);
      auto hint = conv_forward_pd(g, dnnl::prop_kind::forward_training);
      dnnl::convolution_backward_data::desc d(dnnl::algorithm::convolution_direct, g.src, g.weights, g.dst, g.strides,
                                              g.dilates, g.pad_l, g.pad_r);
      dnnl::convolution_backward_data::primitive_desc pd(d, call_attr(), cpu_engine(), hint);
      return std::make_unique<DnnlCall>("oneDNN convolution backward data", pd,
                                        std::vector<std::pair<int, memory::desc>>{
                                            {DNNL_ARG_DIFF_DST, g.dst}, {DNNL_ARG_WEIGHTS, g.weights}, {DNNL_ARG_DIFF_SRC, g.src}});
    }
    case OpKind::ConvBackwardFilter: {  // bf(x, gy) -> gw
      ConvGeometry g = conv_geometry(in[0].shape(), node.shape(), in[1].shape(), a);
      auto hint = conv_forward_pd(g, dnnl::prop_kind::forward_training);
      dnnl::convolution_backward_weights::desc d(dnnl::algorithm::convolution_direct, g.src, g.weights, g.dst, g.strides,
                                                 g.dilates, g.pad_l, g.pad_r);
      dnnl::convolution_backward_weights::primitive_desc pd(d, call_attr(), cpu_engine(), hint);
      return std::make_unique<DnnlCall>("oneDNN convolution backward weights", pd,
                                        std::vector<std::pair<int, memory::desc>>{
                                            {DNNL_ARG_SRC, g.src}, {DNNL_ARG_DIFF_DST, g.dst}, {DNNL_ARG_DIFF_WEIGHTS, g.weights}});
    }
    default: return nullptr;
  }
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
  }

  void run(char* const* p) override {
    const T* x = reinterpret_cast<const T*>(p[0]);
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

  std::string describe() const override { return grad_ ? "max pooling gradient loop" : "max pooling loop"; }

 private:
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
