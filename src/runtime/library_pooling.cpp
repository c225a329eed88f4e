// Pooling: average pooling and its gradient on oneDNN (float32), and max pooling and its gradient
// as parallel loops (float32 and float64).
//
// Max pooling is not given to oneDNN: the reference takes the first maximum in row-major window
// order and lets NaN win, and its gradient routes to that same cell. A direct loop reproduces both
// exactly (for float32 and float64), where oneDNN's tie-breaking and NaN handling are unspecified.
#include <algorithm>
#include <cmath>

#include "runtime/library_internal.hpp"

namespace symx::runtime::detail {
namespace {

// ---- average pooling: oneDNN ----

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
  dnnl::pooling_forward::desc d(kind, dnnl::algorithm::pooling_avg_exclude_padding, src, dst, strides, kernel, pad_l,
                                pad_r);
  return {d, call_attr(), cpu_engine()};
}

// ---- max pooling: parallel loops with the reference's tie-breaking ----

template <class T> class MaxPoolCall final : public LibraryCall {
 public:
  MaxPoolCall(const Shape& x, const Shape& y, const PoolAttr& a, bool grad)
      : grad_(grad),
        kh_(a.window[0]),
        kw_(a.window[1]),
        sh_(a.strides[0]),
        sw_(a.strides[1]),
        ph_(a.pad_low[0]),
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

}  // namespace

std::unique_ptr<LibraryCall> make_avg_pool_call(const Tensor& node, bool grad) {
  const PoolAttr& a = std::get<PoolAttr>(node.node().attr);
  const Tensor& in = node.node().inputs[0];
  if (!grad) {
    memory::desc src = pool_desc(in.shape()), dst = pool_desc(node.shape());
    auto pd = avg_pool_forward_pd(src, dst, a, dnnl::prop_kind::forward_inference);
    return std::make_unique<DnnlCall>("oneDNN average pooling", pd, Slots{{DNNL_ARG_SRC, src}, {DNNL_ARG_DST, dst}});
  }
  // avg_pool_grad(gy) -> gx
  memory::desc src = pool_desc(node.shape()), dst = pool_desc(in.shape());
  auto hint = avg_pool_forward_pd(src, dst, a, dnnl::prop_kind::forward_training);
  memory::dims strides(a.strides.begin(), a.strides.end()), kernel(a.window.begin(), a.window.end()),
      pad_l(a.pad_low.begin(), a.pad_low.end()), pad_r(a.pad_high.begin(), a.pad_high.end());
  dnnl::pooling_backward::desc d(dnnl::algorithm::pooling_avg_exclude_padding, src, dst, strides, kernel, pad_l, pad_r);
  dnnl::pooling_backward::primitive_desc pd(d, call_attr(), cpu_engine(), hint);
  return std::make_unique<DnnlCall>("oneDNN average pooling backward", pd,
                                    Slots{{DNNL_ARG_DIFF_DST, dst}, {DNNL_ARG_DIFF_SRC, src}});
}

std::unique_ptr<LibraryCall> make_max_pool_call(const Tensor& node, bool grad) {
  const PoolAttr& a = std::get<PoolAttr>(node.node().attr);
  const Shape& x = node.node().inputs[0].shape();
  const Shape& y = grad ? node.node().inputs[1].shape() : node.shape();
  if (node.dtype() == DType::f32) return std::make_unique<MaxPoolCall<float>>(x, y, a, grad);
  return std::make_unique<MaxPoolCall<double>>(x, y, a, grad);
}

}  // namespace symx::runtime::detail
