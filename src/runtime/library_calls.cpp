// Library calls: BLAS for matrix products, oneDNN for convolutions and average pooling, and
// parallel loops for max pooling and its gradient.
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

#include <cmath>
#include <dnnl.hpp>
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

dnnl::primitive_attr user_scratchpad() {
  dnnl::primitive_attr attr;
  attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);
  return attr;
}

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

dnnl::convolution_forward::primitive_desc conv_forward_pd(const ConvGeometry& g, dnnl::prop_kind kind) {
  dnnl::convolution_forward::desc d(kind, dnnl::algorithm::convolution_direct, g.src, g.weights, g.dst, g.strides,
                                    g.dilates, g.pad_l, g.pad_r);
  return {d, user_scratchpad(), cpu_engine()};
}

std::unique_ptr<LibraryCall> make_conv_call(const Tensor& node) {
  const auto& in = node.node().inputs;
  const ConvAttr& a = std::get<ConvAttr>(node.node().attr);
  std::size_t rank = node.shape().size();
  if (rank < 3 || rank > 5) return nullptr;
  switch (node.op()) {
    case OpKind::Conv: {  // conv(x, w) -> y
      ConvGeometry g = conv_geometry(in[0].shape(), in[1].shape(), node.shape(), a);
      auto pd = conv_forward_pd(g, dnnl::prop_kind::forward_inference);
      return std::make_unique<DnnlCall>(
          "oneDNN convolution", pd,
          std::vector<std::pair<int, memory::desc>>{{DNNL_ARG_SRC, g.src}, {DNNL_ARG_WEIGHTS, g.weights}, {DNNL_ARG_DST, g.dst}});
    }
    case OpKind::ConvBackwardInput: {  // bi(gy, w) -> gx
      ConvGeometry g = conv_geometry(node.shape(), in[1].shape(), in[0].shape(), a);
      auto hint = conv_forward_pd(g, dnnl::prop_kind::forward_training);
      dnnl::convolution_backward_data::desc d(dnnl::algorithm::convolution_direct, g.src, g.weights, g.dst, g.strides,
                                              g.dilates, g.pad_l, g.pad_r);
      dnnl::convolution_backward_data::primitive_desc pd(d, user_scratchpad(), cpu_engine(), hint);
      return std::make_unique<DnnlCall>("oneDNN convolution backward data", pd,
                                        std::vector<std::pair<int, memory::desc>>{
                                            {DNNL_ARG_DIFF_DST, g.dst}, {DNNL_ARG_WEIGHTS, g.weights}, {DNNL_ARG_DIFF_SRC, g.src}});
    }
    case OpKind::ConvBackwardFilter: {  // bf(x, gy) -> gw
      ConvGeometry g = conv_geometry(in[0].shape(), node.shape(), in[1].shape(), a);
      auto hint = conv_forward_pd(g, dnnl::prop_kind::forward_training);
      dnnl::convolution_backward_weights::desc d(dnnl::algorithm::convolution_direct, g.src, g.weights, g.dst, g.strides,
                                                 g.dilates, g.pad_l, g.pad_r);
      dnnl::convolution_backward_weights::primitive_desc pd(d, user_scratchpad(), cpu_engine(), hint);
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
  return {d, user_scratchpad(), cpu_engine()};
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
  dnnl::pooling_backward::primitive_desc pd(d, user_scratchpad(), cpu_engine(), hint);
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

template <class T> class MatmulCall final : public LibraryCall {
 public:
  explicit MatmulCall(const Tensor& node) {
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
    T* c = reinterpret_cast<T*>(p[2]);
    for (std::size_t i = 0; i < offset_a_.size(); ++i) {
      T* out = c + static_cast<std::int64_t>(i) * m_ * n_;
      // float32 goes through oneDNN's sgemm, which runs on the same OpenMP pool as the
      // generated kernels; OpenBLAS's own pthread pool would compete with OpenMP's spinning
      // threads (measured: MLP step 144 ms with OpenBLAS, 14 ms without the contention).
      if constexpr (std::is_same_v<T, float>)
        dnnl_sgemm('N', 'N', m_, n_, k_, 1.f, a + offset_a_[i], k_, b + offset_b_[i], n_, 0.f, out, n_);
      else
        cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, m_, n_, k_, 1.0, a + offset_a_[i], k_, b + offset_b_[i], n_,
                    0.0, out, n_);
    }
  }

  std::string describe() const override { return std::is_same_v<T, float> ? "oneDNN sgemm" : "BLAS dgemm"; }

 private:
  int m_ = 0, n_ = 0, k_ = 0;
  std::vector<std::int64_t> offset_a_, offset_b_;
};

}  // namespace

bool library_handles(OpKind op) {
  switch (op) {
    case OpKind::Matmul: case OpKind::Conv: case OpKind::ConvBackwardInput: case OpKind::ConvBackwardFilter:
    case OpKind::MaxPool: case OpKind::MaxPoolGrad: case OpKind::AvgPool: case OpKind::AvgPoolGrad:
      return true;
    default: return false;
  }
}

std::unique_ptr<LibraryCall> make_library_call(const Tensor& node) {
  if (!library_handles(node.op())) return nullptr;
  for (const Tensor& in : node.node().inputs)
    if (in.dtype() != node.dtype()) return nullptr;
  DType dt = node.dtype();
  if (dt != DType::f32 && dt != DType::f64) return nullptr;
  switch (node.op()) {
    case OpKind::Matmul:
      if (node.shape().size() < 2 || any_empty(node)) return nullptr;
      if (dt == DType::f32) return std::make_unique<MatmulCall<float>>(node);
      return std::make_unique<MatmulCall<double>>(node);
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
