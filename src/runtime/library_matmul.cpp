// Matrix products: one gemm per batch element (oneDNN's sgemm for float32, the BLAS dgemm for
// float64), operand offsets precomputed; a float32 product with a ReLU epilogue on oneDNN's matmul
// primitive instead (bias argument and eltwise post-ops, applied while each output tile is in
// registers). A product with a bias alone stays on the gemm, accumulating onto the bias.
#include <cblas.h>
#include <omp.h>

#include <algorithm>
#include <type_traits>

#include "ops/op_table.hpp"
#include "runtime/library_internal.hpp"

namespace symx::runtime::detail {
namespace {

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
    // Many small float32 products (a batch at least as large as the thread pool, each under ~64 MFLOP): one per
    // thread, each gemm single-threaded inside the parallel region, instead of every gemm spread over all threads.
    const auto batch = static_cast<std::int64_t>(offset_a_.size());
    if (std::is_same_v<T, float> && !bias_ && batch >= 2 && batch >= omp_get_max_threads() &&
        static_cast<double>(m_) * n_ * k_ <= (1 << 26)) {
#pragma omp parallel for schedule(static)
      for (std::int64_t i = 0; i < batch; ++i) gemm(a, b, c, static_cast<std::size_t>(i), T(0));
      return;
    }
    for (std::size_t i = 0; i < offset_a_.size(); ++i) {
      T* out = c + static_cast<std::int64_t>(i) * m_ * n_;
      if (bias_) {
#pragma omp parallel for schedule(static) if (static_cast <std::int64_t>(m_) * n_ >= (1 << 15))
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
        cblas_dgemm(CblasRowMajor, transposed_[0] ? CblasTrans : CblasNoTrans,
                    transposed_[1] ? CblasTrans : CblasNoTrans, m_, n_, k_, 1.0, a + offset_a_[i], lda,
                    b + offset_b_[i], ldb, beta, out, n_);
    }
  }

  void gemm(const T* a, const T* b, T* c, std::size_t i, T beta) const {
    T* out = c + static_cast<std::int64_t>(i) * m_ * n_;
    const int lda = transposed_[0] ? m_ : k_, ldb = transposed_[1] ? k_ : n_;
    if constexpr (std::is_same_v<T, float>)
      dnnl_sgemm(transposed_[0] ? 'T' : 'N', transposed_[1] ? 'T' : 'N', m_, n_, k_, 1.f, a + offset_a_[i], lda,
                 b + offset_b_[i], ldb, beta, out, n_);
    else
      cblas_dgemm(CblasRowMajor, transposed_[0] ? CblasTrans : CblasNoTrans, transposed_[1] ? CblasTrans : CblasNoTrans,
                  m_, n_, k_, 1.0, a + offset_a_[i], lda, b + offset_b_[i], ldb, beta, out, n_);
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

}  // namespace

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
  auto dims = [&](std::int64_t rows, std::int64_t cols) {
    return flat ? memory::dims{batch * rows, cols} : memory::dims{batch, rows, cols};
  };
  memory::desc src = plain(dims(m, k), transposed[0] ? memory::format_tag::ba : tag), dst = plain(dims(m, n), tag);
  memory::desc weights = plain(flat ? memory::dims{k, n} : dims(k, n), transposed[1] ? memory::format_tag::ba : tag);
  memory::desc bias = plain(flat ? memory::dims{1, n} : memory::dims{1, 1, n}, tag);
  Slots slots{{DNNL_ARG_SRC, src}, {DNNL_ARG_WEIGHTS, weights}};
  if (e.bias.defined()) slots.push_back({DNNL_ARG_BIAS, bias});
  slots.push_back({DNNL_ARG_DST, dst});
  dnnl::matmul::desc d =
      e.bias.defined() ? dnnl::matmul::desc(src, weights, bias, dst) : dnnl::matmul::desc(src, weights, dst);
  dnnl::matmul::primitive_desc pd(d, call_attr(e.relu), cpu_engine());
  return std::make_unique<DnnlCall>("oneDNN matmul" + epilogue_text(&e) + transposes_text(transposed), pd, slots);
}

std::unique_ptr<LibraryCall> make_matmul_call(const Tensor& product, bool bias, std::array<bool, 2> transposed) {
  if (product.dtype() == DType::f32) return std::make_unique<MatmulCall<float>>(product, bias, transposed);
  return std::make_unique<MatmulCall<double>>(product, bias, transposed);
}

}  // namespace symx::runtime::detail
