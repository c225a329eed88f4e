// Complex numbers and the FFT from C++ (symx/ops.hpp's complex functions, symx/fft.hpp): values worked
// out by hand, both backends, JAX's gradient convention, and the errors.
#include <complex>

#include "symx/fft.hpp"
#include "symx/signal.hpp"
#include "test_util.hpp"

namespace symx {
namespace {

using testing::expect_error;
using C = std::complex<double>;

Array complex_array(std::vector<C> values, Shape shape) {
  Array a(std::move(shape), DType::c128);
  for (std::size_t i = 0; i < values.size(); ++i) a.set_complex_flat(static_cast<std::int64_t>(i), values[i]);
  return a;
}

void expect_complex_near(const Array& got, const std::vector<C>& want, double tol) {
  ASSERT_EQ(got.size(), static_cast<std::int64_t>(want.size()));
  for (std::size_t i = 0; i < want.size(); ++i) {
    EXPECT_NEAR(got.get_complex_flat(static_cast<std::int64_t>(i)).real(), want[i].real(), tol) << i;
    EXPECT_NEAR(got.get_complex_flat(static_cast<std::int64_t>(i)).imag(), want[i].imag(), tol) << i;
  }
}

// The DFT of [1, 2, 3, 4] is [10, -2 + 2i, -2, -2 - 2i]; its rfft the first three.
TEST(ComplexFft, HandValuesOnBothBackends) {
  Tensor x = placeholder({4}, DType::f64, "x");
  Array xv = Array::from_vector<double>({1, 2, 3, 4}, {4});
  for (Backend backend : {Backend::reference, Backend::compiled}) {
    SCOPED_TRACE(backend == Backend::reference ? "reference" : "compiled");
    FunctionOptions options;
    options.backend = backend;
    Function f =
        function({x}, {fft::fft(x), fft::rfft(x), fft::irfft(fft::rfft(x), 4), abs(fft::fft(x)), angle(fft::fft(x))},
                 {}, options);
    auto out = f({xv});
    expect_complex_near(out[0], {10, C(-2, 2), -2, C(-2, -2)}, 1e-12);
    expect_complex_near(out[1], {10, C(-2, 2), -2}, 1e-12);
    EXPECT_EQ(out[1].dtype(), DType::c128);
    for (int i = 0; i < 4; ++i) EXPECT_NEAR(out[2].get_flat(i), i + 1, 1e-12);
    EXPECT_NEAR(out[3].get_flat(1), std::sqrt(8.0), 1e-12);
    EXPECT_NEAR(out[4].get_flat(1), 3 * std::acos(-1.0) / 4, 1e-12);
  }
}

// grad of |z|^2 = x^2 + y^2 is 2x - 2iy = 2 conj(z) (JAX's convention); of real(w z) it is w.
TEST(ComplexFft, GradientIsJaxConvention) {
  Tensor z = placeholder({2}, DType::c128, "z");
  Tensor loss = sum(square(abs(z))) + sum(real(multiply(z, C(3, -1))));
  Tensor g = grad(loss, {z})[0];
  Function f = function({z}, {g});
  Array zv = complex_array({C(1, 2), C(-3, 0.5)}, {2});
  expect_complex_near(f({zv})[0], {C(2, -4) + C(3, -1), C(-6, -1) + C(3, -1)}, 1e-12);
}

TEST(ComplexFft, PromotionAndErrors) {
  Tensor x = placeholder({3}, DType::f32, "x");
  EXPECT_EQ(multiply(x, C(0, 1)).dtype(), DType::c64);
  EXPECT_EQ(complex(x, x).dtype(), DType::c64);
  EXPECT_EQ(fft::fft(x).dtype(), DType::c64);
  expect_error<DTypeError>([&] { maximum(complex(x, x), x); }, {"maximum", "complex64", "real(z)"});
  expect_error<DTypeError>([&] { grad(sum(complex(x, x)), {x}); }, {"grad", "real cost"});
  expect_error<ValueError>([&] { fft::fft(x, std::nullopt, -1, "sideways"); }, {"fft", "norm", "ortho"});
  expect_error<ShapeError>([&] { fft::fftn(x, {2, 2}); }, {"fftn", "s has 2 sizes"});
}

// istft(stft(x)) is x (the default Hann window satisfies NOLA at half overlap); hilbert's real part is x
// and its imaginary part of cos is sin (away from the ends, for a whole number of periods).
TEST(ComplexFft, SignalTransformsFromCpp) {
  const int n = 256;
  std::vector<double> values(n), cosine(n);
  for (int i = 0; i < n; ++i) {
    values[static_cast<std::size_t>(i)] = std::sin(0.3 * i) + 0.1 * (i % 7);
    cosine[static_cast<std::size_t>(i)] = std::cos(2 * std::acos(-1.0) * 8 * i / n);
  }
  Tensor x = constant(Array::from_vector<double>(values, {n}));
  signal::Spectrum s = signal::stft(x, 1.0, "hann", 64);
  EXPECT_EQ(s.Z.shape(), (Shape{33, 9}));
  EXPECT_EQ(s.Z.dtype(), DType::c128);
  Array back = signal::istft(s.Z, 1.0, "hann", 64).second.eval();
  ASSERT_EQ(back.shape(), (Shape{n}));
  for (int i = 0; i < n; ++i) EXPECT_NEAR(back.get_flat(i), values[static_cast<std::size_t>(i)], 1e-12) << i;
  Array h = signal::hilbert(constant(Array::from_vector<double>(cosine, {n}))).eval();
  for (int i = 0; i < n; ++i) {
    EXPECT_NEAR(h.get_complex_flat(i).real(), cosine[static_cast<std::size_t>(i)], 1e-12);
    EXPECT_NEAR(h.get_complex_flat(i).imag(), std::sin(2 * std::acos(-1.0) * 8 * i / n), 1e-12);
  }
  expect_error<ValueError>([&] { signal::stft(x, 1.0, "hann", 64, 64); }, {"stft", "noverlap (64)", "nperseg (64)"});
}

}  // namespace
}  // namespace symx
