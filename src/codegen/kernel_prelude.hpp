// kernel_prelude.hpp — vectorizable elementwise math for JIT-generated kernels.
//
// The code generator pastes (or #includes) this header at the top of every generated kernel
// translation unit, which is compiled with `g++ -O3 -march=native -fopenmp -std=c++20`. Loops
// there are `#pragma omp simd` loops calling `symx_kernel::f(...)`. Calls into libm (std::exp,
// ...) are opaque to GCC's vectorizer, so every float function here is written so that it
// inlines into straight-line, branch-free code: no libm calls, no tables indexed by data, no
// exceptions, conditionals written as ternaries GCC if-converts into blends, and bit
// manipulation through std::bit_cast. The header is self-contained (standard headers only).
//
// Approach (float overloads). exp, expm1, log, log1p, tanh, sigmoid and erf compute in float32
// (16 lanes per AVX-512 vector, SLEEF / fdlibm style), with a few exactly-tracked error terms
// where float alone would lose the last bit; the remaining functions (sqrt, rsqrt, trig, atan,
// atan2, pow, mod) widen to double, run a short polynomial there and round once.
//  * exp: q = round(x log2 e) by fma with a magic number (1.5*2^23 + 191: q ends up in the low
//    mantissa bits, no conversion instruction, and bits(kk) << 23 is already 2^(q+64)),
//    r = x - q ln2 by Cody-Waite with a two-part ln2 (one rounding), e^r = 1 + r + r^2 Q(r) with
//    a degree-4 minimax Q (Horner, six fmas). 2^q is applied as 2^(q+64) * 2^-64 for x < 0 and
//    2^(q-64) * 2^64 for x >= 0 (chosen from the sign bit): the first product is exact, the
//    second rounds once, so subnormal results are rounded once and e^89..e^104 overflow to inf.
//    |x| > 104 gives inf or 0 by one select. 11 multiply-adds in all: these loops are bound by
//    the FMA pipes (on Zen 4 ~1 cycle per 16-lane multiply-add, ~0.4 per other vector op, ~6
//    per division), so the multiply-add count is what the float functions here minimize.
//  * expm1: q and r as for exp, with the rounding error c of r kept; e^(r+c) - 1 - r = r^2 Q(r)
//    + c (exp's Q); e^x - 1 = 2 (h r + (h - 1/2) + h tail) with h = 2^(q-1): h r and h - 1/2
//    are exact and summed exactly (Fast2Sum), so there is no cancellation error; |x| < 2^-25
//    returns x.
//  * sigmoid: e = e^-|x| (exp's steps, one-sided: always 2^(q+64) 2^-64), result num / (1 + e)
//    with num = 1 or e, 1 + e kept exactly as s + err and the quotient corrected with one Newton
//    step whose factor 1 / (1 + e) comes from a linear fit (error ~ that of e).
//  * tanh: |x| < 0.7: x + x^3 R(x^2) (degree-4 minimax in x^2); else 1 - 2 / (e^2|x| + 1) with
//    no correction: there 2 / (e^2|x| + 1) <= 0.4 damps the errors of e^2|x| (a degree-5
//    polynomial, one-constant reduction), of the sum and of the quotient to ~1 ulp.
//  * log / log1p: fdlibm / musl logf: u = 2^k m, m in [sqrt(1/2), sqrt(2)) from the bits (subnormal
//    x pre-scaled by 2^23), f = m - 1, s = f / (2 + f), log m = f - f^2/2 + s (f^2/2 + R(s^2)),
//    + k ln2 in two parts. log1p: u = 1 + x, its rounding error e recovered exactly (2Sum), and
//    e / u added as a correction.
//  * erf: |x| < 1: x + x Q(x^2) (Q ~ erf(x)/x - 1, degree-6 minimax); 1 <= |x|: 1 - e^(-x^2) G(|x|)
//    with x^2 = hi + lo exact (fma), e^-(hi+lo) = e^-hi (1 - lo) (e^-hi by exp's steps),
//    G ~ erfc(x) e^(x^2) a degree-8 polynomial in |x| - 2.5 on [1, 4] (|x| clamped to 4; erf
//    rounds to 1 beyond 3.92).
//  Polynomials for tanh and erf were fitted (near-minimax, Lawson iteration on Chebyshev nodes)
//  and checked after rounding the coefficients to float.
//  * sqrt / rsqrt: libm::sqrt does not vectorize while -fmath-errno is on (GCC's default), so
//    sqrt is three Newton steps for 1/sqrt in double from a bit-trick seed plus one fma-based
//    correction (Markstein); its error is below 2^-50, less than the distance of any float
//    sqrt from a float rounding boundary, so the result is correctly rounded. When compiled
//    with -fno-math-errno (__NO_MATH_ERRNO__) libm::sqrt is used instead (it vectorizes then).
//  * sin / cos / tan: |x| < 2^24: Cody-Waite reduction by pi/2 in double with a three-part
//    pi/2 and fma (exact for these arguments). |x| >= 2^24: branch-free Payne-Hanek: a float
//    there is M * 2^e with M < 2^24; a 96-bit window of the bits of 2/pi (chosen from five
//    64-bit constants with selects, no memory table) is multiplied by M with 32x32->64-bit
//    products, giving the quadrant and 94 fraction bits. Both paths are always computed and
//    blended. Polynomials for sin and cos on [-pi/4, pi/4].
//  * atan / atan2: reduce |t| to <= tan(pi/8) with atan(t) = pi/4 + atan((t-1)/(t+1)) and
//    pi/2 - atan(1/t); polynomial in t^2. atan2 computes the first-octant angle of
//    (|y|, |x|) and maps it with pi/2 - a, pi - a and the sign of y (all IEEE special cases).
//  * pow(x, y): exp(y * log|x|) in double; the sign for negative x and odd integer y and all
//    special cases of C's pow (pow(x, +-0) = 1, pow(1, y) = 1, pow(-1, +-inf) = 1, NaN for a
//    negative finite base and a finite non-integer exponent, zeros and infinities) by selects.
//  * floor / ceil / trunc / round (half to even, i.e. the symx "round" op = np.round): built on
//    libm::nearbyint, the only rounding function GCC vectorizes without -fno-trapping-math. They
//    assume the default round-to-nearest mode.
//  * mod (NumPy np.mod, result has the divisor's sign): float uses an exact, branch-free fmod
//    in double (11 fixed steps, each removing up to 28 bits of quotient; every step is exact),
//    so it is exact over the whole float range. Integers: x mod 0 = 0.
//
// Double overloads call the libm:: functions (exact equality with libm) except where a cheap,
// exact vectorizable form exists (floor, ceil, trunc, round, maximum, minimum, sign) and sigmoid
// (one libm::exp plus a compensated division). They do not vectorize; only the float overloads
// are required to.
//
// Vectorization rules followed throughout (each one was needed to make GCC 12 vectorize):
//  * every select between floating-point values is detail::sel, a bitwise select: with a plain
//    ?: GCC sinks the computation of an operand into a branch and then, under the default
//    -ftrapping-math, refuses to if-convert the (possibly trapping) operation again (the one
//    exception is the float clamp, whose arms compute nothing, so it becomes vminps / vmaxps);
//  * conditions combine floating-point comparisons with & and |, not && and || (short-circuit
//    evaluation of a possibly trapping comparison is control flow, for the same reason);
//  * float32 code does its integer work (exponent bits, 2^q) in 32-bit lanes, so that float and
//    integer vectors have the same lane count;
//  * integer work stays in 64-bit lanes next to double lanes, 32x32->64-bit products are written
//    as such, and integer -> double conversions use the 2^52 trick (AVX2 has no 64-bit integer
//    conversion instructions);
//  * libm::fma is used where exactness needs it: it vectorizes when the target has FMA (x86-64-v3
//    and later, i.e. any -march=native of the last decade); without FMA hardware the results are
//    still correct but those loops stay scalar.
// Checked with g++ 12 -O3 -fopenmp and -march=native (AVX-512) and -march=haswell (AVX2): every
// float function here vectorizes (tests/cpp/test_kernel_math.cpp, KernelMath.LoopsVectorize).
//
// Measured maximum error of the float overloads against the double libm result rounded to
// float (tests/cpp/test_kernel_math.cpp: every 1024th float bit pattern of both signs, dense
// samples of [-10, 10] and of the underflow / overflow / path-switch ranges, special values;
// pow and atan2 on 2-D grids; exp, expm1, log, log1p, tanh, sigmoid, erf and sqrt also as
// vectorized loops compiled with the JIT's own command). The required bound is 2 ulp.
//   exp 1, sigmoid 1, tanh 1 ulp on all 2^32 inputs (exhaustive offline check of the vectorized
//   code compiled with the JIT's flags; 0.25%, 1.7% and 0.3% of all inputs are off by 1);
//   expm1 1, log 1, log1p 1, erf 1 ulp on all 2^32 inputs as well (0.2%, 0.3%, 0.4%, 0.7% of
//   the inputs off by 1);
//   compiled for a target without FMA (Horner steps then round twice) sigmoid reaches 2 ulp on
//   the test sample, the others stay at 1;
//   sqrt 0 (correctly rounded), rsqrt 0 ulp;
//   sin 1, cos 1, tan 1, atan 1 ulp (0 on the test sample; the 1-ulp cases are rare
//   near-halfway results found by an every-7th-pattern run);
//   pow 1 ulp (on an exact halfway case, (-11)^7), atan2 1 ulp (where the double reference itself
//   double-rounds a subnormal result); floor, ceil, trunc, round, mod: exact.
// All special values (NaN, +-inf, +-0, subnormals) behave as in libm. The double overloads are
// libm itself (0 ulp) except sigmoid (<= 2 ulp against a long double reference).
//
// Semantics notes: round() is half to even (np.round, the symx "round" op), not std::round.
// mod(x, y) follows np.mod exactly, including a zero result taking the sign of y (the reference
// evaluator in src/ops/binary.cpp keeps fmod's sign of x for zero results). maximum / minimum
// return the second operand on ties, so maximum(-0., 0.) = 0. and maximum(0., -0.) = -0., as
// NumPy. The nearbyint-based functions assume the default round-to-nearest mode.
//
// These functions must not be compiled with -ffast-math / -fassociative-math: the magic-number
// rounding (t + 1.5*2^52) - 1.5*2^52 and the NaN selects rely on IEEE semantics.
#pragma once

#include <bit>
#include <cstdint>
#include <limits>

namespace symx_kernel {

// libm through GCC's builtins: the functions <cmath> declares, overloaded for float and double as
// std:: is, without parsing <cmath> — a quarter of the compile time of a small program.
namespace libm {
#define SYMX_LIBM1(name)                                           \
  inline float name(float x) { return __builtin_##name##f(x); } \
  inline double name(double x) { return __builtin_##name(x); }
#define SYMX_LIBM2(name)                                                       \
  inline float name(float x, float y) { return __builtin_##name##f(x, y); } \
  inline double name(double x, double y) { return __builtin_##name(x, y); }
SYMX_LIBM1(fabs) SYMX_LIBM1(nearbyint) SYMX_LIBM1(round) SYMX_LIBM1(sqrt) SYMX_LIBM1(exp) SYMX_LIBM1(expm1)
SYMX_LIBM1(log) SYMX_LIBM1(log1p) SYMX_LIBM1(sin) SYMX_LIBM1(cos) SYMX_LIBM1(tan) SYMX_LIBM1(tanh) SYMX_LIBM1(atan)
SYMX_LIBM1(erf)
SYMX_LIBM2(copysign) SYMX_LIBM2(pow) SYMX_LIBM2(fmod) SYMX_LIBM2(atan2)
#undef SYMX_LIBM1
#undef SYMX_LIBM2
inline float fma(float a, float b, float c) { return __builtin_fmaf(a, b, c); }
inline double fma(double a, double b, double c) { return __builtin_fma(a, b, c); }
}  // namespace libm

namespace detail {

inline std::uint64_t bits(double x) { return std::bit_cast<std::uint64_t>(x); }
inline double from_bits(std::uint64_t u) { return std::bit_cast<double>(u); }
inline std::uint32_t bits(float x) { return std::bit_cast<std::uint32_t>(x); }
inline float from_bits32(std::uint32_t u) { return std::bit_cast<float>(u); }

inline constexpr double kInf = std::numeric_limits<double>::infinity();
inline constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
inline constexpr float kInfF = std::numeric_limits<float>::infinity();
inline constexpr float kNaNF = std::numeric_limits<float>::quiet_NaN();

// 1.5 * 2^52: adding it to |t| < 2^51 rounds t to an integer (round to nearest even) and leaves
// that integer in the low mantissa bits, two's complement.
inline constexpr double kMagic = 0x1.8p52;

inline constexpr double kLn2 = 0.6931471805599453;
inline constexpr double kLn2Lo = 2.3190468138462996e-17;
inline constexpr double kLog2e = 1.4426950408889634;
inline constexpr double kPi = 3.141592653589793;
inline constexpr double kPi2 = 1.5707963267948966;
inline constexpr double kPi4 = 0.7853981633974483;
inline constexpr double kTwoOverPi = 0.6366197723675814;
// pi/2 = kPio2A + kPio2B + kPio2C to ~160 bits.
inline constexpr double kPio2A = 1.5707963267948966;
inline constexpr double kPio2B = 6.123233995736766e-17;
inline constexpr double kPio2C = -1.4973849048591698e-33;

// Multiply-add: fused where the hardware has it, otherwise plain. (GCC also contracts a*b+c on
// its own: -ffp-contract=fast is its default for C++, the JIT's kernels included; the accuracy
// tests run under that.) Used for polynomial evaluation only; places that need the exactness of
// a fused operation call libm::fma directly.
inline double fmadd(double a, double b, double c) {
#ifdef __FP_FAST_FMA
  return libm::fma(a, b, c);
#else
  return a * b + c;
#endif
}

// Horner evaluation, coefficients from the highest degree down to the constant term.
inline double horner(double, double c) { return c; }
template <class... Rest> inline double horner(double x, double acc, double c, Rest... rest) {
  return horner(x, fmadd(acc, x, c), rest...);
}

// Branch-free select, c ? a : b, on the bits. A plain ?: between floating-point values becomes
// control flow in GIMPLE; GCC then sinks the computation of an operand into the branch that
// uses it, and with -ftrapping-math (the default) if-conversion refuses to speculate trapping
// floating-point operations again, so the loop does not vectorize. A bitwise select keeps both
// operands unconditional. Used for every select between floating-point values below.
inline double sel(bool c, double a, double b) {
  const std::uint64_t m = -static_cast<std::uint64_t>(c);
  return from_bits((bits(a) & m) | (bits(b) & ~m));
}
inline float sel(bool c, float a, float b) {
  const std::uint32_t m = -static_cast<std::uint32_t>(c);
  return from_bits32((bits(a) & m) | (bits(b) & ~m));
}

// Flips the sign of a float result where the (float) sign source is negative; keeps -0 right.
inline float xor_sign(float r, float sign_source) {
  return from_bits32(bits(r) ^ (bits(sign_source) & 0x80000000u));
}

// Small integer held in the low bits of a double's mantissa -> double, without a conversion
// instruction (v < 2^52).
inline double u52_to_double(std::uint64_t v) { return from_bits(0x4330000000000000ULL | v) - 0x1p52; }

// Clamps x to [lo, hi]; NaN passes through.
inline double clamp(double x, double lo, double hi) { return sel(x > hi, hi, sel(x < lo, lo, x)); }
// The float version is written with ?: so that GCC emits vminps / vmaxps (their operand order
// keeps a NaN x); nothing is computed inside the arms, so if-conversion has nothing to sink.
inline float clamp(float x, float lo, float hi) {
  const float t = hi < x ? hi : x;
  return t < lo ? lo : t;
}

// e^x for x in [-708, 709] (the caller clamps; NaN passes through), relative error ~3e-16.
inline double exp_d(double x) {
  const double kk = fmadd(x, kLog2e, kMagic);
  const std::uint64_t kb = bits(kk);
  const double k = kk - kMagic;
  double r = libm::fma(-k, kLn2, x);  // exact
  r = libm::fma(-k, kLn2Lo, r);
  // e^r = 1 + r q(r), q = expm1(r) / r (relative error 3e-17), so e^r is exact to ~1 ulp of
  // double near r = 0 (a fit of e^r itself has its error at the constant term).
  const double q = horner(r, 2.5105513541847086e-08, 2.7626756683029275e-07, 2.7557254685728803e-06,
                          2.4801503384680306e-05, 0.0001984126987538548, 0.0013888888933249312,
                          0.008333333333325973, 0.04166666666657096, 0.1666666666666667,
                          0.5000000000000006, 1.0);
  const double p = fmadd(r, q, 1.0);
  const double scale = from_bits((kb + 1023) << 52);  // 2^k
  return p * scale;
}

// e^x - 1, accurate in relative terms near 0; x in [-708, 709] (the caller clamps).
inline double expm1_d(double x) {
  const double kk = fmadd(x, kLog2e, kMagic);
  const std::uint64_t kb = bits(kk);
  const double k = kk - kMagic;
  double r = libm::fma(-k, kLn2, x);
  r = libm::fma(-k, kLn2Lo, r);
  const double q = horner(r, 2.5105513541847086e-08, 2.7626756683029275e-07, 2.7557254685728803e-06,
                          2.4801503384680306e-05, 0.0001984126987538548, 0.0013888888933249312,
                          0.008333333333325973, 0.04166666666657096, 0.1666666666666667,
                          0.5000000000000006, 1.0);
  const double p = r * q;  // expm1(r)
  const double scale = from_bits((kb + 1023) << 52);
  // e^x - 1 = 2^k (1 + p) - 1 = 2^k p + (2^k - 1); 2^k - 1 is exact for the k that matter.
  return sel(k == 0.0, p, libm::fma(scale, p, scale - 1.0));
}

// log(x) for a positive, finite, normal double x; garbage (but no trap) otherwise.
inline double log_d(double x) {
  constexpr std::uint64_t kSqrtHalf = 0x3fe6a09e667f3bcdULL;  // bits of sqrt(1/2)
  const std::uint64_t v = bits(x) - kSqrtHalf;
  // k = floor(v / 2^52) as a signed number; bias by 2^62 so a logical shift suffices.
  const std::uint64_t kbiased = (v + (1ULL << 62)) >> 52;  // k + 1024
  const double k = u52_to_double(kbiased) - 1024.0;
  const double m = from_bits((v & 0x000fffffffffffffULL) + kSqrtHalf);  // [sqrt(1/2), sqrt(2))
  const double f = m - 1.0;
  const double s = f / (2.0 + f);
  const double z = s * s;
  const double R = horner(z, 0.16634817293436976, 0.18139329084810124, 0.22222882159268573,
                          0.28571423954752284, 0.40000000011787484, 0.666666666666618);
  const double logm = fmadd(s * z, R, 2.0 * s);
  return fmadd(k, kLn2, fmadd(k, kLn2Lo, logm));
}

// atan(t) for t in [0, inf] (NaN passes through), first reducing to |t| <= tan(pi/8).
inline double atan_pos_d(double a) {
  const bool big = a > 2.414213562373095;   // tan(3 pi / 8)
  const bool mid = a > 0.41421356237309503;  // tan(pi / 8)
  const double num = sel(big, -1.0, sel(mid, a - 1.0, a));
  const double den = sel(big, a, sel(mid, a + 1.0, 1.0));
  const double t = num / den;
  const double base = sel(big, kPi2, sel(mid, kPi4, 0.0));
  const double u = t * t;
  const double p = horner(u, 0.030474413179121935, -0.05862318419228131, 0.0756050759020815,
                          -0.09077957697852959, 0.11110352516271323, -0.14285689109208505,
                          0.1999999957899396, -0.3333333333061079, 0.9999999999999709);
  return fmadd(t, p, base);
}

inline double sin_poly(double r) {
  const double u = r * r;
  const double p = horner(u, -2.4753619693567457e-08, 2.7555230894213e-06, -0.0001984126310068234,
                          0.008333333323495075, -0.1666666666661414, 0.9999999999999954);
  return r * p;
}

inline double cos_poly(double r) {
  const double u = r * r;
  return horner(u, 2.0628004922294836e-09, -2.755519212355855e-07, 2.4801578273765575e-05,
                -0.0013888888869212513, 0.04166666666646241, -0.49999999999999206, 1.0);
}

// Reduces |x| (a finite float; inf/NaN give garbage, masked by the callers) to
// |x| = (4n + q) pi/2 + r with |r| <= ~pi/4. Returns r; q in [0, 3] in *quadrant.
inline double reduce_pio2(float x, std::uint64_t* quadrant) {
  const float axf = libm::fabs(x);
  const double ax = axf;
  // Cody-Waite, exact for |x| < 2^24 (k < 2^24, pi/2 split in three parts, fma).
  const double kk = fmadd(ax, kTwoOverPi, kMagic);
  const std::uint64_t q_cw = bits(kk) & 3;
  const double k = kk - kMagic;
  double r_cw = libm::fma(-k, kPio2A, ax);
  r_cw = libm::fma(-k, kPio2B, r_cw);
  r_cw = libm::fma(-k, kPio2C, r_cw);

  // Payne-Hanek for |x| >= 2^24, where |x| = M * 2^e with e >= 1 and M < 2^24 an integer.
  // S = 33 zero bits followed by the bits of 2/pi = 0.a2f9836e4e441529... (binary). The window
  // of 96 bits of S starting at bit p = e + 31 is W = floor(2/pi * 2^(e + 94)) mod 2^96, and
  // |x| * 2/pi = M * W * 2^-94 (mod 4) up to an error below 2^-70.
  constexpr std::uint64_t S0 = 0x00000000517cc1b7ULL, S1 = 0x27220a94fe13abe8ULL,
                          S2 = 0xfa9a6ee06db14accULL, S3 = 0x9e21c820ff28b1d5ULL,
                          S4 = 0xef5de2b0db92371dULL;
  const std::uint32_t ux = bits(axf);
  const std::uint32_t M = (ux & 0x007fffffu) | 0x00800000u;
  // All integer work in 64-bit lanes: AVX2 lacks many 32 <-> 64-bit lane conversions.
  std::int64_t e = static_cast<std::int64_t>(static_cast<std::uint64_t>(ux) >> 23) - 150;
  e = e < 0 ? 0 : e;
  e = e > 104 ? 104 : e;  // inf / NaN lanes
  const std::uint64_t p = static_cast<std::uint64_t>(e + 31);
  const std::uint64_t j = p >> 6;  // 0..2
  const std::uint64_t s = p & 63;
  const std::uint64_t A = j == 0 ? S0 : (j == 1 ? S1 : S2);
  const std::uint64_t B = j == 0 ? S1 : (j == 1 ? S2 : S3);
  const std::uint64_t C = j == 0 ? S2 : (j == 1 ? S3 : S4);
  const std::uint64_t hi = (A << s) | ((B >> 1) >> (63 - s));
  const std::uint64_t lo = (B << s) | ((C >> 1) >> (63 - s));
  const std::uint32_t w2 = static_cast<std::uint32_t>(hi >> 32), w1 = static_cast<std::uint32_t>(hi),
                      w0 = static_cast<std::uint32_t>(lo >> 32);
  // 32 x 32 -> 64-bit products (one vpmuludq each), each < 2^56.
  const std::uint64_t p0 = static_cast<std::uint64_t>(M) * w0, p1 = static_cast<std::uint64_t>(M) * w1,
                      p2 = static_cast<std::uint64_t>(M) * w2;
  const std::uint64_t low = p0 & 0xffffffffULL;
  const std::uint64_t mid = (p0 >> 32) + (p1 & 0xffffffffULL);
  const std::uint64_t top = ((p1 >> 32) + p2 + (mid >> 32)) & 0xffffffffULL;
  // value = top:mid:low * 2^-94 in [0, 4): quadrant = top >> 30, fraction below.
  const std::uint64_t round_up = (top >> 29) & 1;  // fraction >= 1/2
  const std::uint64_t q_ph = ((top >> 30) + round_up) & 3;
  const double f_hi = u52_to_double(top & 0x3fffffffULL) * 0x1p-30 - u52_to_double(round_up);
  const double f_lo = u52_to_double(mid & 0xffffffffULL) * 0x1p-62 + u52_to_double(low) * 0x1p-94;
  const double r_ph = (f_hi + f_lo) * kPi2;

  const bool big = axf >= 0x1p24f;
  *quadrant = big ? q_ph : q_cw;
  return sel(big, r_ph, r_cw);
}

// Exact |x| fmod |y| for floats (held in doubles), NaN for x = inf or y = 0.
inline double fmod_step(double r, double ay) {
  const double q = r / ay;
  // Truncate q toward zero: to an integer where |q| < 2^29, else to 29 significant bits
  // (an integer too). q * ay is then exact (29 + 24 bits) and so is r - q * ay.
  const double n = libm::nearbyint(q);
  const double t_small = sel(q >= 0, sel(n > q, n - 1.0, n), sel(n < q, n + 1.0, n));
  const double t_big = from_bits(bits(q) & ~((1ULL << 24) - 1));
  const double t = sel(libm::fabs(q) < 0x1p29, t_small, t_big);
  return libm::fma(-t, ay, r);
}

inline double fmod_abs_f(double ax, double ay) {
  double r = ax;
  // 2^128 / 2^-149 = 2^277 and each step removes 28 bits of the quotient: 10 steps, +1 spare.
  r = fmod_step(r, ay); r = fmod_step(r, ay); r = fmod_step(r, ay); r = fmod_step(r, ay);
  r = fmod_step(r, ay); r = fmod_step(r, ay); r = fmod_step(r, ay); r = fmod_step(r, ay);
  r = fmod_step(r, ay); r = fmod_step(r, ay); r = fmod_step(r, ay);
  // A quotient rounded up by the division can leave r slightly negative: r + ay is exact.
  return sel(r < 0, r + ay, r);
}

// ---- float32 cores (16 lanes per AVX-512 vector) ----

inline float fmadd(float a, float b, float c) {
#ifdef __FP_FAST_FMAF
  return libm::fma(a, b, c);
#else
  return a * b + c;
#endif
}
inline float hornerf(float, float c) { return c; }
template <class... Rest> inline float hornerf(float x, float acc, float c, Rest... rest) {
  return hornerf(x, fmadd(acc, x, c), rest...);
}

// 1.5 * 2^23: fma(x, log2e, kMagicF) rounds x log2e to an integer q (|q| < 2^22), which then sits
// in the low mantissa bits, two's complement.
inline constexpr float kMagicF = 0x1.8p23f;
inline constexpr float kLog2eF = 1.44269502f;
inline constexpr float kLn2HiF = 0.693145751953125f;      // 15 significant bits: q * kLn2HiF exact
inline constexpr float kLn2LoF = 1.428606765330187e-06f;  // ln2 - kLn2HiF
inline constexpr float kLn2F = 0.693147182f;

// 2^k as a float for an integer k in [-126, 127] (held as uint32, two's complement).
inline float pow2i(std::uint32_t k) { return from_bits32((k + 127u) << 23); }

// Exact sum a + b = s + e, given |a| >= |b| or a == 0 (Fast2Sum).
inline void fast_two_sum(float a, float b, float& s, float& e) {
  s = a + b;
  e = b - (s - a);
}

// Cody-Waite: x = q ln2 + r + c with q an integer (returned as uint32 two's complement),
// |r| <= ln2/2 (+ a little) and |c| <= ulp(r)/2, for |x| <= ~200 (the callers clamp). q * kLn2HiF
// is exact and x - q kLn2HiF is exact (a multiple of 2^-25 below 0.5), so r + c carries x - q ln2
// to ~2^-40. NaN: r is NaN (q is garbage).
inline void exp_reduce_f(float x, std::uint32_t& q, float& r, float& c) {
  const float kk = libm::fma(x, kLog2eF, kMagicF);
  q = bits(kk) - bits(kMagicF);
  const float qf = kk - kMagicF;
  const float rh = libm::fma(-qf, kLn2HiF, x);  // exact
  r = libm::fma(-qf, kLn2LoF, rh);
  c = libm::fma(-qf, kLn2LoF, rh - r);
}

// e^r = 1 + r + r^2 Q(r) for |r| <= 0.3467 (|r| <= ln2/2 plus the slack of a rounded q): Q is
// a degree-4 minimax fit (Lawson) with relative error 2^-26.2 in e^r and in e^r - 1, coefficients
// rounded to float. Horner from the top with 1, 1 last (six fmas): the rounding errors of the
// last two steps are ~0.35 ulp of e^r, so e^r has ~0.5 + 0.4 ulp.
inline constexpr float kExpQ4 = 1.388251781e-03f, kExpQ3 = 8.366538212e-03f, kExpQ2 = 4.166720062e-02f,
                       kExpQ1 = 1.666654348e-01f, kExpQ0 = 4.999999702e-01f;
inline float exp_poly_f(float r) { return hornerf(r, kExpQ4, kExpQ3, kExpQ2, kExpQ1, kExpQ0, 1.0f, 1.0f); }

// e^(r + c) - 1 - r for |r| <= 0.3467: r^2 Q(r) + c (the c r term is below 2^-28).
inline float expm1_tail_f(float r, float c) {
  return libm::fma(r * r, hornerf(r, kExpQ4, kExpQ3, kExpQ2, kExpQ1, kExpQ0), c);
}

// fma(x, log2e, kExpMagicF) holds q = round(x log2e) in its low mantissa bits as q + 191, so
// bits(kk) << 23 is the bit pattern of 2^(q + 64) (q in [-150, 64]) with no conversion: the
// exponent field takes the low 9 bits and bits(1.5 * 2^23) has none set there.
inline constexpr float kExpMagicF = 0x1.8p23f + 191.0f;

// e^-a for a in [0, 104] (the caller clamps; NaN passes through): 2^q applied as 2^(q+64)
// (exact, the result is normal) times 2^-64 (one rounding, so subnormal results are rounded
// once). ~1 ulp.
inline float exp_neg_f(float v) {
  const float kk = libm::fma(v, kLog2eF, kExpMagicF);
  const float qf = kk - kExpMagicF;
  const float r = libm::fma(-qf, kLn2LoF, libm::fma(-qf, kLn2HiF, v));  // exact + one rounding
  return (exp_poly_f(r) * from_bits32(bits(kk) << 23)) * 0x1p-64f;
}

// Clamps from one side; NaN passes through (the comparison is false), and the arms compute
// nothing, so GCC if-converts them into a compare and a masked move.
inline float clamp_hi(float x, float hi) { return hi < x ? hi : x; }
inline float clamp_lo(float x, float lo) { return x < lo ? lo : x; }

// e^x for x in [-87, 88] (normal results only; the caller clamps; NaN passes through): exp's
// steps with 2^q applied by one product. ~1 ulp.
inline float exp_normal_f(float x) {
  constexpr float kM = 0x1.8p23f + 127.0f;  // bits(kk) << 23 = bits of 2^q
  const float kk = libm::fma(x, kLog2eF, kM);
  const float qf = kk - kM;
  const float r = libm::fma(-qf, kLn2LoF, libm::fma(-qf, kLn2HiF, x));
  return exp_poly_f(r) * from_bits32(bits(kk) << 23);
}

// fdlibm / musl logf core: log(m) for m in [sqrt(1/2), sqrt(2)) is f - f^2/2 + s (f^2/2 + R(s^2)),
// f = m - 1 (exact), s = f / (2 + f); then + k ln2 (two parts) + extra (a small correction).
// Lg1..Lg4: |(log(1+s) - log(1-s)) / s - Lg(s)| < 2^-34.24 (musl).
inline float log_core_f(float k, float f, float extra) {
  constexpr float kLn2Hi = 6.9313812256e-01f;  // 0x3f317180
  constexpr float kLn2Lo = 9.0580006145e-06f;  // 0x3717f7d1
  const float s = f / (2.0f + f);
  const float z = s * s;
  const float R = z * hornerf(z, 0.24279078841f, 0.28498786688f, 0.40000972152f, 0.66666662693f);
  const float hfsq = 0.5f * f * f;
  return libm::fma(k, kLn2Hi, f - (hfsq - (s * (hfsq + R) + fmadd(k, kLn2Lo, extra))));
}

// Splits a positive normal float u = 2^k m, m in [sqrt(1/2), sqrt(2)); returns f = m - 1, k.
inline float log_split_f(float u, float& k) {
  const std::uint32_t ix = bits(u) + (0x3f800000u - 0x3f3504f3u);
  k = static_cast<float>(static_cast<std::int32_t>(ix >> 23) - 127);
  return from_bits32((ix & 0x007fffffu) + 0x3f3504f3u) - 1.0f;
}

template <bool Small> struct wide_uint { using type = std::uint64_t; };
template <> struct wide_uint<true> { using type = std::uint32_t; };

}  // namespace detail

// ---------------------------------------------------------------------------------------------
// exp, expm1, log, log1p

inline float exp(float x) {
  // q = round(x log2e) and r = x - q ln2 (two-part ln2: q kLn2HiF and x - q kLn2HiF are exact for
  // |q| <= 150, the second step rounds once); e^x = e^r 2^q with 2^q applied in two exact-or-once-
  // rounded halves: 2^(q+64) 2^-64 for x < 0 (subnormal results rounded once) and 2^(q-64) 2^64
  // for x >= 0 (e^89 .. e^104 overflow to inf in the last product). The halves are chosen from the
  // sign bit (an integer test: a float comparison there would become control flow). |x| > 104:
  // inf or 0 (q is meaningless there); NaN passes through every step.
  const float kk = libm::fma(x, detail::kLog2eF, detail::kExpMagicF);
  const float qf = kk - detail::kExpMagicF;
  const float r = libm::fma(-qf, detail::kLn2LoF, libm::fma(-qf, detail::kLn2HiF, x));
  const float u = detail::exp_poly_f(r);
  const std::uint32_t neg = static_cast<std::uint32_t>(static_cast<std::int32_t>(detail::bits(x)) >> 31);
  const std::uint32_t pos = ~neg & (1u << 30);  // 2^30 = 128 << 23 for x >= 0
  const float v = (u * detail::from_bits32((detail::bits(kk) << 23) - pos)) * detail::from_bits32(0x1f800000u + pos);
  return detail::sel(libm::fabs(x) > 104.0f, detail::from_bits32(~neg & 0x7f800000u), v);
}
inline double exp(double x) { return libm::exp(x); }

inline float expm1(float x) {
  // e^x - 1 = 2^q (1 + r + tail) - 1 = 2 (h r + (h - 1/2) + h tail) with h = 2^(q-1): h r and
  // h - 1/2 are exact (q >= -24) and their sum is kept exactly (Fast2Sum; |h - 1/2| >= |h r| or
  // h = 1/2), so the only roundings are in the small tail and the last addition. Using h rather
  // than 2^q lets q reach 128 (e^89 overflows to inf through the final exact doubling).
  // Below -25, e^x - 1 rounds to -1.
  std::uint32_t q;
  float r, c;
  detail::exp_reduce_f(detail::clamp(x, -25.0f, 89.0f), q, r, c);
  const float tail = detail::expm1_tail_f(r, c);
  const float h = detail::pow2i(q - 1u);
  float s, e;
  detail::fast_two_sum(h - 0.5f, h * r, s, e);
  const float out = 2.0f * (s + libm::fma(h, tail, e));
  // |x| < 2^-25: e^x - 1 rounds to x (this also keeps -0, and subnormal x, for which h r would
  // round); NaN passes through.
  return detail::sel((libm::fabs(x) < 0x1p-25f) | (x != x), x, out);
}
inline double expm1(double x) { return libm::expm1(x); }

inline float log(float x) {
  const bool ok = (x > 0.0f) & (x < detail::kInfF);
  const float xs = detail::sel(ok, x, 1.0f);
  const bool sub = xs < 0x1p-126f;  // subnormal: scale by 2^23 first
  float k;
  const float f = detail::log_split_f(detail::sel(sub, xs * 0x1p23f, xs), k);
  k = k - detail::sel(sub, 23.0f, 0.0f);
  float out = detail::log_core_f(k, f, 0.0f);
  out = detail::sel(x == 0.0f, -detail::kInfF, out);
  out = detail::sel(x == detail::kInfF, x, out);
  out = detail::sel((x < 0.0f) | (x != x), detail::kNaNF, out);
  return out;
}
inline double log(double x) { return libm::log(x); }

inline float log1p(float x) {
  const bool ok = (x > -1.0f) & (x < detail::kInfF);
  const float xs = detail::sel(ok, x, 0.0f);
  // 1 + x = u + e exactly (2Sum); u >= 2^-24 is normal. log(1 + x) = log(u) + e / u.
  const float u = 1.0f + xs;
  const float bv = u - 1.0f, av = u - bv;
  const float e = (1.0f - av) + (xs - bv);
  float k;
  const float f = detail::log_split_f(u, k);
  float out = detail::log_core_f(k, f, e / u);
  out = detail::sel(x == -1.0f, -detail::kInfF, out);
  out = detail::sel(x == detail::kInfF, x, out);
  out = detail::sel((x < -1.0f) | (x != x), detail::kNaNF, out);
  out = detail::sel(x == 0.0f, x, out);  // keeps -0
  return out;
}
inline double log1p(double x) { return libm::log1p(x); }

// ---------------------------------------------------------------------------------------------
// sqrt, rsqrt

inline float sqrt(float x) {
#ifdef __NO_MATH_ERRNO__
  return libm::sqrt(x);
#else
  const double xd = x;
  double y = detail::from_bits(0x5fe6eb50c7b537a9ULL - (detail::bits(xd) >> 1));  // ~1/sqrt(x), 3.5%
  const double h = 0.5 * xd;
  y = y * (1.5 - h * y * y);
  y = y * (1.5 - h * y * y);
  y = y * (1.5 - h * y * y);  // relative error ~3e-11
  double s = xd * y;
  s = libm::fma(libm::fma(-s, s, xd), 0.5 * y, s);  // error ~1 ulp of double
  float out = static_cast<float>(s);
  out = detail::sel((x == 0.0f) | (x == detail::kInfF), x, out);
  out = detail::sel(x < 0.0f, detail::kNaNF, out);
  return out;
#endif
}
inline double sqrt(double x) { return libm::sqrt(x); }

inline float rsqrt(float x) {
  const double xd = x;
  double y = detail::from_bits(0x5fe6eb50c7b537a9ULL - (detail::bits(xd) >> 1));
  const double h = 0.5 * xd;
  y = y * (1.5 - h * y * y);
  y = y * (1.5 - h * y * y);
  y = y * (1.5 - h * y * y);
  y = y * (1.5 - h * y * y);  // relative error ~ a few ulp of double
  float out = static_cast<float>(y);
  out = detail::sel(x == 0.0f, detail::xor_sign(detail::kInfF, x), out);  // 1/sqrt(-0) = -inf
  out = detail::sel(x == detail::kInfF, 0.0f, out);
  out = detail::sel((x < 0.0f) | (x != x), detail::kNaNF, out);
  return out;
}
inline double rsqrt(double x) { return 1.0 / libm::sqrt(x); }

// ---------------------------------------------------------------------------------------------
// tanh, sigmoid, erf

inline float tanh(float x) {
  const float a = libm::fabs(x);
  // |x| < 0.7: x + x^3 R(x^2) (degree-4 minimax in x^2, relative error 2^-26).
  const float u = a * a;
  const float small = libm::fma(a * u, detail::hornerf(u, -5.138661247e-03f, 2.009196952e-02f, -5.355885997e-02f,
                                                      1.332911104e-01f, -3.333319128e-01f), a);
  // Otherwise 1 - 2 / (e^2|x| + 1). There tanh >= 0.6 and 2 / (e^2|x| + 1) <= 0.4, which damps
  // the errors of e^2|x| (a degree-5 polynomial suffices), of the sum and of the quotient
  // enough that no correction step is needed (max 1 ulp on all floats). e^2|x| = e^r 2^q as in
  // exp, with 2 folded into the constants: kk from 2 log2e, rh = r / 2 from one ln2 constant
  // (off by q (ln2_f - ln2) / 2 < 2^-25 for the q <= 27 here) and the polynomial in rh with its
  // coefficients scaled by powers of 2. tanh rounds to 1 beyond 9.01; the clamp passes NaN.
  const float ac = detail::clamp_hi(a, 9.1f);
  constexpr float kM = 0x1.8p23f + 127.0f;  // bits(kk) << 23 = bits of 2^q
  const float kk = libm::fma(ac, 2.0f * detail::kLog2eF, kM);
  const float qf = kk - kM;
  const float rh = libm::fma(-qf, 0.5f * detail::kLn2F, ac);
  // e^r = 1 + r + r^2 (d0 + d1 r + d2 r^2 + d3 r^3), |r| <= 0.3467, relative error 2^-23.2.
  const float E = detail::hornerf(rh, 32.0f * 8.312507533e-03f, 16.0f * 4.189027101e-02f, 8.0f * 1.666711569e-01f,
                                  4.0f * 4.999923110e-01f, 2.0f, 1.0f) *
                  detail::from_bits32(detail::bits(kk) << 23);
  const float large = 1.0f - 2.0f / (E + 1.0f);
  return detail::xor_sign(detail::sel(a < 0.7f, small, large), x);
}
inline double tanh(double x) { return libm::tanh(x); }

inline float sigmoid(float x) {
  // e = e^-|x| in (0, 1]; sigmoid = num / (1 + e) with num = 1 (x >= 0) or e (x < 0). 1 + e is
  // kept exactly as s + err (Fast2Sum) and the quotient r0 gets one Newton correction
  // (num - r0 s - r0 err) / (1 + e), with 1 / (1 + e) taken from a linear fit (4.3%: the
  // correction is below ~1 ulp, so that adds < 0.05 ulp). The error is then that of e (~1 ulp,
  // damped by 1 / (1 + e) for x < 0 and by e / (1 + e) for x >= 0) plus the final rounding.
  // Subnormal results (x < -87) come out of exp_neg_f rounded once. NaN passes through.
  const float e = detail::exp_neg_f(detail::clamp_lo(detail::from_bits32(detail::bits(x) | 0x80000000u), -104.0f));
  const float s = 1.0f + e;
  const float err = e - (s - 1.0f);
  const float num = detail::sel(x < 0.0f, e, 1.0f);
  const float r0 = num / s;
  const float h = libm::fma(e, -0.5f, 0.957106781f);  // ~1 / (1 + e)
  return libm::fma(libm::fma(-r0, err, libm::fma(-r0, s, num)), h, r0);
}
inline double sigmoid(double x) {
  const double e = libm::exp(-libm::fabs(x));  // in [0, 1]
  const double s = 1.0 + e;
  const double err = (1.0 - s) + e;  // 1 + e = s + err exactly
  const double r = detail::sel(x >= 0, 1.0, e) / s;  // NaN stays NaN
  return libm::fma(-r, err / s, r);  // r (1 - err / s) = num / (1 + e) to first order
}

inline float erf(float x) {
  const float a = libm::fabs(x);
  // |x| < 1: x + x Q(x^2), Q ~ erf(x)/x - 1 (minimax, relative error of the sum 2^-26.9).
  const float u = a * a;
  const float small = libm::fma(a, detail::hornerf(u, 7.902349171e-05f, -8.023267146e-04f,
                                                  5.189598538e-03f, -2.685433440e-02f,
                                                  1.128359213e-01f, -3.761262596e-01f,
                                                  1.283791661e-01f), a);
  // 1 <= |x|: 1 - e^(-x^2) G(|x|), G ~ erfc(x) e^(x^2) on [1, 4] as a polynomial in |x| - 2.5
  // (absolute error of the product 2^-27.3). x^2 = hi + lo exactly, e^-(hi+lo) = e^-hi (1 - lo).
  // |x| is clamped to 4: erf rounds to 1 in float beyond 3.92. NaN passes through.
  const float c = detail::clamp(a, 1.0f, 4.0f);
  const float hi = c * c, lo = libm::fma(c, c, -hi);
  const float eh = detail::exp_normal_f(-hi);
  const float em = libm::fma(-lo, eh, eh);
  const float g = detail::hornerf(c - 2.5f, 9.902746388e-05f, 1.779010054e-04f, 4.315523547e-04f,
                                  -7.876796881e-04f, 2.242999850e-03f, -8.125581779e-03f,
                                  2.493110672e-02f, -7.433749735e-02f, 2.108078450e-01f);
  const float large = libm::fma(-em, g, 1.0f);
  return detail::xor_sign(detail::sel(a < 1.0f, small, large), x);
}
inline double erf(double x) { return libm::erf(x); }

// ---------------------------------------------------------------------------------------------
// sin, cos, tan

inline float sin(float x) {
  std::uint64_t q;
  const double r = detail::reduce_pio2(x, &q);
  const double s = detail::sin_poly(r), c = detail::cos_poly(r);
  double v = detail::sel((q & 1) != 0, c, s);
  v = detail::from_bits(detail::bits(v) ^ ((q & 2) << 62));  // negate in quadrants 2, 3
  const float out = detail::xor_sign(static_cast<float>(v), x);
  return detail::sel(libm::fabs(x) <= std::numeric_limits<float>::max(), out, detail::kNaNF);
}
inline double sin(double x) { return libm::sin(x); }

inline float cos(float x) {
  std::uint64_t q;
  const double r = detail::reduce_pio2(x, &q);
  const double s = detail::sin_poly(r), c = detail::cos_poly(r);
  q = q + 1;  // cos(x) = sin(x + pi/2)
  double v = detail::sel((q & 1) != 0, c, s);
  v = detail::from_bits(detail::bits(v) ^ ((q & 2) << 62));
  const float out = static_cast<float>(v);
  return detail::sel(libm::fabs(x) <= std::numeric_limits<float>::max(), out, detail::kNaNF);
}
inline double cos(double x) { return libm::cos(x); }

inline float tan(float x) {
  std::uint64_t q;
  const double r = detail::reduce_pio2(x, &q);
  const double s = detail::sin_poly(r), c = detail::cos_poly(r);
  const bool odd = (q & 1) != 0;
  const double v = detail::sel(odd, -c, s) / detail::sel(odd, s, c);
  const float out = detail::xor_sign(static_cast<float>(v), x);
  return detail::sel(libm::fabs(x) <= std::numeric_limits<float>::max(), out, detail::kNaNF);
}
inline double tan(double x) { return libm::tan(x); }

// ---------------------------------------------------------------------------------------------
// atan, atan2

inline float atan(float x) {
  const double a = libm::fabs(static_cast<double>(x));
  return detail::xor_sign(static_cast<float>(detail::atan_pos_d(a)), x);
}
inline double atan(double x) { return libm::atan(x); }

inline float atan2(float y, float x) {
  const double a = libm::fabs(static_cast<double>(y)), b = libm::fabs(static_cast<double>(x));
  const bool swap = a > b;
  const double t = detail::sel(swap, b, a) / detail::sel(swap, a, b);  // [0, 1]; NaN for 0/0, inf/inf
  double th = detail::atan_pos_d(t);
  th = detail::sel(swap, detail::kPi2 - th, th);
  th = detail::sel((a == 0.0) & (b == 0.0), 0.0, th);
  th = detail::sel((a == detail::kInf) & (b == detail::kInf), detail::kPi4, th);
  th = detail::sel((detail::bits(x) >> 31) != 0, detail::kPi - th, th);  // x negative or -0
  const float out = detail::xor_sign(static_cast<float>(th), y);
  return detail::sel((x != x) | (y != y), x + y, out);
}
inline double atan2(double y, double x) { return libm::atan2(y, x); }

// ---------------------------------------------------------------------------------------------
// pow

inline float pow(float x, float y) {
  const double xd = x, yd = y;
  const double ax = libm::fabs(xd);
  const bool finite_pos = (ax > 0.0) & (ax < detail::kInf);
  double L = detail::log_d(detail::sel(finite_pos, ax, 1.0));
  L = detail::sel(ax == 0.0, -detail::kInf, L);
  L = detail::sel(ax == detail::kInf, detail::kInf, L);
  L = detail::sel(ax != ax, ax, L);
  // +-inf for zero / infinite bases, NaN for NaN inputs.
  double r = detail::exp_d(detail::clamp(yd * L, -300.0, 300.0));
  const bool y_int = libm::nearbyint(yd) == yd;  // true for +-inf, false for NaN
  const double half = 0.5 * yd;
  const bool y_odd = y_int & (libm::nearbyint(half) != half);
  const bool x_neg = (detail::bits(x) >> 31) != 0;  // includes -0 and -inf
  r = detail::sel(x_neg & y_odd, -r, r);
  r = detail::sel((x < 0.0f) & (ax < detail::kInf) & !y_int, detail::kNaN, r);  // y NaN too
  r = detail::sel((y == 0.0f) | (x == 1.0f), 1.0, r);
  r = detail::sel((x == -1.0f) & (libm::fabs(y) == detail::kInfF), 1.0, r);
  return static_cast<float>(r);
}
inline double pow(double x, double y) { return libm::pow(x, y); }

// Integer power with wrap-around (as NumPy): negative exponents give 1, +-1 or 0.
template <class T>
  requires(std::numeric_limits<T>::is_integer && std::numeric_limits<T>::digits > 1)
inline T ipow(T a, T b) {
  using U = typename detail::wide_uint<(sizeof(T) <= 4)>::type;
  U r = 1, base = static_cast<U>(a), e = static_cast<U>(b);
  for (int i = 0; i < std::numeric_limits<T>::digits; ++i) {
    r = (e & 1) ? static_cast<U>(r * base) : r;
    base = static_cast<U>(base * base);
    e = static_cast<U>(e >> 1);
  }
  T out = static_cast<T>(r);
  if constexpr (std::numeric_limits<T>::is_signed) {
    const T neg = a == 1 ? T(1) : (a == -1 ? ((b & 1) ? T(-1) : T(1)) : T(0));
    out = b < 0 ? neg : out;
  }
  return out;
}
inline bool ipow(bool a, bool b) { return a || !b; }

// ---------------------------------------------------------------------------------------------
// floor, ceil, trunc, round (half to even), via libm::nearbyint (vectorizes; default rounding
// mode assumed). Exact, with the sign of zero as in libm.

inline float floor(float x) {
  const float n = libm::nearbyint(x);
  return libm::copysign(detail::sel(n > x, n - 1.0f, n), x);
}
inline double floor(double x) {
  const double n = libm::nearbyint(x);
  return libm::copysign(detail::sel(n > x, n - 1.0, n), x);
}
inline float ceil(float x) {
  const float n = libm::nearbyint(x);
  return libm::copysign(detail::sel(n < x, n + 1.0f, n), x);
}
inline double ceil(double x) {
  const double n = libm::nearbyint(x);
  return libm::copysign(detail::sel(n < x, n + 1.0, n), x);
}
inline float trunc(float x) { return detail::sel(x < 0.0f, ceil(x), floor(x)); }
inline double trunc(double x) { return detail::sel(x < 0.0, ceil(x), floor(x)); }
// NOTE: half to even (np.round, the symx "round" op), unlike std::round.
inline float round(float x) { return libm::nearbyint(x); }
inline double round(double x) { return libm::nearbyint(x); }
inline float rint(float x) { return libm::nearbyint(x); }
inline double rint(double x) { return libm::nearbyint(x); }

// ---------------------------------------------------------------------------------------------
// maximum, minimum (NaN propagates, as np.maximum / np.minimum; on ties the second operand)

inline float maximum(float a, float b) { return a != a ? a : (a > b ? a : b); }
inline double maximum(double a, double b) { return a != a ? a : (a > b ? a : b); }
inline float minimum(float a, float b) { return a != a ? a : (a < b ? a : b); }
inline double minimum(double a, double b) { return a != a ? a : (a < b ? a : b); }
template <class T>
  requires std::numeric_limits<T>::is_integer
inline T maximum(T a, T b) { return a > b ? a : b; }
template <class T>
  requires std::numeric_limits<T>::is_integer
inline T minimum(T a, T b) { return a < b ? a : b; }

// ---------------------------------------------------------------------------------------------
// sign (np.sign: -1, 0 or 1; +0 for +-0; NaN for NaN)

inline float sign(float x) { return x > 0.0f ? 1.0f : (x < 0.0f ? -1.0f : (x == 0.0f ? 0.0f : x)); }
inline double sign(double x) { return x > 0.0 ? 1.0 : (x < 0.0 ? -1.0 : (x == 0.0 ? 0.0 : x)); }
template <class T>
  requires std::numeric_limits<T>::is_integer
inline T sign(T x) {
  if constexpr (std::numeric_limits<T>::is_signed) return static_cast<T>((x > T(0)) - (x < T(0)));
  else return static_cast<T>(x > T(0));
}

// ---------------------------------------------------------------------------------------------
// mod: np.mod / Python %, the result takes the sign of the divisor. Floats: x mod 0 = NaN,
// exact results, a zero result is +0 or -0 after the divisor (as NumPy). Integers: x mod 0 = 0.

inline float mod(float x, float y) {
  const double ax = libm::fabs(static_cast<double>(x)), ay = libm::fabs(static_cast<double>(y));
  const bool ok = (ay > 0.0) & (ay < detail::kInf) & (ax < detail::kInf);  // false for NaN too
  // y = +-inf with finite x: fmod is x itself.
  const double fm = detail::sel(ok, detail::fmod_abs_f(detail::sel(ok, ax, 1.0), detail::sel(ok, ay, 1.0)), ax);
  float r = detail::xor_sign(static_cast<float>(fm), x);  // fmod: the sign of x
  r = detail::sel((r != 0.0f) & ((r < 0.0f) != (y < 0.0f)), r + y, r);
  r = detail::sel(r == 0.0f, libm::copysign(0.0f, y), r);
  r = detail::sel((ay == 0.0) | (ax == detail::kInf) | (x != x) | (y != y), detail::kNaNF, r);
  return r;
}
inline double mod(double x, double y) {
  double r = libm::fmod(x, y);  // NaN for y = 0 or x = inf
  r = (r != 0.0 && ((r < 0.0) != (y < 0.0))) ? r + y : r;
  return r == 0.0 ? libm::copysign(0.0, y) : r;
}
template <class T>
  requires std::numeric_limits<T>::is_integer
inline T mod(T x, T y) {
  if constexpr (sizeof(T) == 1 && std::numeric_limits<T>::digits == 1) {
    (void)x;
    (void)y;
    return false;  // bool
  } else {
    if constexpr (std::numeric_limits<T>::is_signed) {
      const bool zero = y == T(0) || y == T(-1);  // x mod -1 = 0, and no INT_MIN % -1
      const T ys = zero ? T(1) : y;
      T r = static_cast<T>(x % ys);
      r = (r != T(0) && ((r < T(0)) != (ys < T(0)))) ? static_cast<T>(r + ys) : r;
      return zero ? T(0) : r;
    } else {
      const bool zero = y == T(0);
      return zero ? T(0) : static_cast<T>(x % (zero ? T(1) : y));
    }
  }
}

// floor_divide follows numpy.floor_divide: floats through NumPy's divmod (the floor of the exact
// quotient, so 1 // 0.1 is 9; x // 0 is x / 0), integers toward -inf with x // 0 = 0.
template <class T>
  requires(!std::numeric_limits<T>::is_integer)
inline T floor_divide(T x, T y) {
  if (y == T(0)) return x / y;
  const T m = libm::fmod(x, y);
  T div = (x - m) / y;
  div = (m != T(0) && ((y < T(0)) != (m < T(0)))) ? div - T(1) : div;
  if (div == T(0)) return libm::copysign(T(0), x / y);
  const T fl = __builtin_floor(div);
  return div - fl > T(0.5) ? fl + T(1) : fl;
}
template <class T>
  requires std::numeric_limits<T>::is_integer
inline T floor_divide(T x, T y) {
  if constexpr (std::numeric_limits<T>::is_signed) {
    const bool special = y == T(0) || y == T(-1);
    const T ys = special ? T(1) : y;
    const T q = static_cast<T>(x / ys);
    const T r = static_cast<T>(x - q * ys);
    const T floored = (r != T(0) && ((r < T(0)) != (ys < T(0)))) ? static_cast<T>(q - 1) : q;
    // x // -1 wraps at the minimum (as NumPy's result does); x // 0 is 0.
    const T negated = static_cast<T>(0ULL - static_cast<unsigned long long>(x));
    return y == T(0) ? T(0) : y == T(-1) ? negated : floored;
  } else {
    return y == T(0) ? T(0) : static_cast<T>(x / (y == T(0) ? T(1) : y));
  }
}
// Shifts as NumPy's: a shift by the width or more (or a negative one) gives 0, or -1 for a right
// shift of a negative number, where C++ leaves it undefined.
template <class T> inline T left_shift(T x, T y) {
  const bool in_range = static_cast<unsigned long long>(static_cast<long long>(y)) < sizeof(T) * 8;
  return in_range ? static_cast<T>(static_cast<unsigned long long>(x) << (in_range ? y : T(0))) : T(0);
}
template <class T> inline T right_shift(T x, T y) {
  const bool in_range = static_cast<unsigned long long>(static_cast<long long>(y)) < sizeof(T) * 8;
  const T shifted = static_cast<T>(x >> (in_range ? y : T(0)));
  return in_range ? shifted : (x < T(0) ? static_cast<T>(-1) : T(0));
}


// ---- random (issue 21) ----
// The derivative of a Gamma(a, 1) draw x with respect to a at a fixed quantile (implicit
// reparameterization, as JAX's random_gamma_grad): dx/da = -(dP/da)(a, x) / p(a, x), P the
// regularized lower incomplete gamma function and p the density. dP/da is the derivative of P's
// series sum_n x^(a+n) e^-x / Gamma(a+n+1), term by term; for a > 1e4 the normal limit
// x = a + sqrt(a) z gives (x + a) / (2a). x = 0 (an underflowed draw) gives 0.
inline double gamma_digamma(double y) {
  double r = 0;
  while (y < 6) r -= 1 / y, y += 1;
  const double f = 1 / (y * y);
  return r + libm::log(y) - 0.5 / y -
         f * (1.0 / 12 - f * (1.0 / 120 - f * (1.0 / 252 - f * (1.0 / 240 - f * (1.0 / 132)))));
}
inline double random_gamma_grad(double a, double x) {
  if (!(a > 0) || x != x) return std::numeric_limits<double>::quiet_NaN();
  if (!(x > 0)) return 0;
  if (x == std::numeric_limits<double>::infinity()) return x;
  if (a > 1e4) return (x + a) / (2 * a);
  const double logx = libm::log(x);
  double term = libm::exp(a * logx - x - __builtin_lgamma(a + 1));
  double psi = gamma_digamma(a + 1), dp = term * (logx - psi);
  const double tol = 1e-17;
  for (int n = 1; n < 200000; ++n) {
    term *= x / (a + n);
    psi += 1 / (a + n);
    const double d = term * (logx - psi);
    dp += d;
    if (n > x - a && term < tol && libm::fabs(d) < tol * libm::fabs(dp)) break;
  }
  const double log_density = (a - 1) * logx - x - __builtin_lgamma(a);
  return -dp / libm::exp(log_density);
}
inline float random_gamma_grad(float a, float x) {
  return static_cast<float>(random_gamma_grad(static_cast<double>(a), static_cast<double>(x)));
// ---- numpy (issue 21) ----
// Inverse trig and hyperbolic functions, log2 / log10 / exp2 / cbrt, hypot, copysign, fmod and signbit
// (symx/numpy.hpp). The float overloads widen to double and use the double cores above (log_d, exp_d,
// expm1_d, atan_pos_d) and sqrt_pos_d below, with the special values by selects; each double core is
// within a few ulp of double, far below float's half-ulp, so the float results are correctly rounded
// but for rare ties (tests/cpp/test_kernel_math.cpp measures them). Double overloads call libm.

namespace libm {
inline double asin(double x) { return __builtin_asin(x); }
inline double acos(double x) { return __builtin_acos(x); }
inline double asinh(double x) { return __builtin_asinh(x); }
inline double acosh(double x) { return __builtin_acosh(x); }
inline double atanh(double x) { return __builtin_atanh(x); }
inline double sinh(double x) { return __builtin_sinh(x); }
inline double cosh(double x) { return __builtin_cosh(x); }
inline double log2(double x) { return __builtin_log2(x); }
inline double log10(double x) { return __builtin_log10(x); }
inline double exp2(double x) { return __builtin_exp2(x); }
inline double cbrt(double x) { return __builtin_cbrt(x); }
inline double hypot(double x, double y) { return __builtin_hypot(x, y); }
}  // namespace libm

namespace detail {
// sqrt(x) for a positive, finite, normal double (about 1 ulp of double); garbage (no trap) otherwise.
// Three Newton steps for 1/sqrt(x) from a bit-trick seed, then one fma correction (as sqrt(float)).
inline double sqrt_pos_d(double x) {
  double y = from_bits(0x5fe6eb50c7b537a9ULL - (bits(x) >> 1));
  const double h = 0.5 * x;
  y = y * (1.5 - h * y * y);
  y = y * (1.5 - h * y * y);
  y = y * (1.5 - h * y * y);
  y = y * (1.5 - h * y * y);
  const double s = x * y;
  return libm::fma(libm::fma(-s, s, x), 0.5 * y, s);
}
// asin(a) for a float a = |x| in [0, 1] held in a double (NaN passes through): atan(a / sqrt(1 - a^2)),
// 1 - a^2 as (1 - a)(1 + a), exact for these arguments but for one rounding.
inline double asin_pos_d(double a) {
  const double d = (1.0 - a) * (1.0 + a);
  const double t = a / sqrt_pos_d(sel(d > 0.0, d, 1.0));
  return sel(d == 0.0, kPi2, atan_pos_d(t));
}
inline constexpr double kLog10e = 0.4342944819032518;
}  // namespace detail

inline float arcsin(float x) {
  const double a = libm::fabs(static_cast<double>(x));
  const double r = detail::sel(a > 1.0, detail::kNaN, detail::asin_pos_d(detail::sel(a > 1.0, 0.0, a)));
  return detail::xor_sign(static_cast<float>(detail::sel(a != a, a, r)), x);
}
inline double arcsin(double x) { return libm::asin(x); }
inline float arccos(float x) {
  const double xd = x, a = libm::fabs(xd);
  const double s = detail::asin_pos_d(detail::sel(a > 1.0, 0.0, a));
  double r = detail::sel(xd < 0.0, detail::kPi2 + s, detail::kPi2 - s);
  r = detail::sel(a > 1.0, detail::kNaN, r);
  return static_cast<float>(detail::sel(a != a, a, r));
}
inline double arccos(double x) { return libm::acos(x); }
inline float arcsinh(float x) {
  const double a = libm::fabs(static_cast<double>(x));
  const bool finite = a < detail::kInf;  // false for NaN
  const double af = detail::sel(finite, a, 1.0), a2 = af * af;
  // asinh(a) = log1p(a + a^2 / (1 + sqrt(1 + a^2))); a series below 1e-3 (log1p's argument rounds there).
  const double u = af + a2 / (1.0 + detail::sqrt_pos_d(1.0 + a2));
  const double series = af * detail::fmadd(a2, detail::fmadd(a2, 0.075, -1.0 / 6.0), 1.0);
  double r = detail::sel(af < 1e-3, series, detail::log_d(1.0 + u));
  r = detail::sel(finite, r, a);  // inf and NaN
  return detail::xor_sign(static_cast<float>(r), x);
}
inline double arcsinh(double x) { return libm::asinh(x); }
inline float arccosh(float x) {
  const double xd = x;
  const bool ok = (xd > 1.0) & (xd < detail::kInf);
  const double v = detail::sel(ok, xd, 2.0);
  double r = detail::log_d(v + detail::sqrt_pos_d((v - 1.0) * (v + 1.0)));
  r = detail::sel(xd == 1.0, 0.0, r);
  r = detail::sel(xd == detail::kInf, detail::kInf, r);
  r = detail::sel((xd < 1.0) | (xd != xd), detail::kNaN, r);
  return static_cast<float>(r);
}
inline double arccosh(double x) { return libm::acosh(x); }
inline float arctanh(float x) {
  const double a = libm::fabs(static_cast<double>(x));
  const bool ok = a < 1.0;  // false for NaN
  const double v = detail::sel(ok, a, 0.5), v2 = v * v;
  const double series = v * detail::fmadd(v2, detail::fmadd(v2, 0.2, 1.0 / 3.0), 1.0);
  double r = detail::sel(v < 1e-3, series, 0.5 * detail::log_d((1.0 + v) / (1.0 - v)));
  r = detail::sel(a == 1.0, detail::kInf, r);
  r = detail::sel((a > 1.0) | (a != a), detail::kNaN, r);
  return detail::xor_sign(static_cast<float>(r), x);
}
inline double arctanh(double x) { return libm::atanh(x); }
inline float sinh(float x) {
  const double a = libm::fabs(static_cast<double>(x));
  const double t = detail::expm1_d(detail::sel(a < 100.0, a, 100.0));  // 100: beyond float's range
  const double r = 0.5 * (t + t / (t + 1.0));
  return detail::xor_sign(static_cast<float>(detail::sel(a != a, a, r)), x);
}
inline double sinh(double x) { return libm::sinh(x); }
inline float cosh(float x) {
  const double a = libm::fabs(static_cast<double>(x));
  const double e = detail::exp_d(detail::sel(a < 100.0, a, 100.0));
  const double r = 0.5 * (e + 1.0 / e);
  return static_cast<float>(detail::sel(a != a, a, r));
}
inline double cosh(double x) { return libm::cosh(x); }
// log(x) in double for a float x, with log's special values: -inf at 0, NaN below, inf at inf.
inline double log_of_float_d(float x) {
  const double xd = x;
  const bool ok = (xd > 0.0) & (xd < detail::kInf);
  double r = detail::log_d(detail::sel(ok, xd, 1.0));
  r = detail::sel(xd == 0.0, -detail::kInf, r);
  r = detail::sel(xd == detail::kInf, detail::kInf, r);
  return detail::sel((xd < 0.0) | (xd != xd), detail::kNaN, r);
}
inline float log2(float x) { return static_cast<float>(log_of_float_d(x) * detail::kLog2e); }
inline double log2(double x) { return libm::log2(x); }
inline float log10(float x) { return static_cast<float>(log_of_float_d(x) * detail::kLog10e); }
inline double log10(double x) { return libm::log10(x); }
inline float exp2(float x) {
  const double y = detail::clamp(static_cast<double>(x), -200.0, 200.0);  // NaN passes
  const double r = detail::exp_d(y * detail::kLn2);
  return static_cast<float>(detail::sel(y != y, y, r));
}
inline double exp2(double x) { return libm::exp2(x); }
inline float cbrt(float x) {
  const double a = libm::fabs(static_cast<double>(x));
  const bool ok = (a > 0.0) & (a < detail::kInf);
  const double r = detail::exp_d(detail::log_d(detail::sel(ok, a, 1.0)) * (1.0 / 3.0));
  return detail::xor_sign(static_cast<float>(detail::sel(ok, r, a)), x);  // 0, inf and NaN pass through
}
inline double cbrt(double x) { return libm::cbrt(x); }
inline float hypot(float x, float y) {
  const double a = x, b = y;
  const double s = a * a + b * b;  // no overflow or underflow for floats
  const bool ok = (s > 0.0) & (s < detail::kInf);
  double r = detail::sel(ok, detail::sqrt_pos_d(detail::sel(ok, s, 1.0)), s);  // 0, inf, NaN
  r = detail::sel((libm::fabs(a) == detail::kInf) | (libm::fabs(b) == detail::kInf), detail::kInf, r);
  return static_cast<float>(r);
}
inline double hypot(double x, double y) { return libm::hypot(x, y); }
inline float copysign(float x, float y) { return libm::copysign(x, y); }
inline double copysign(double x, double y) { return libm::copysign(x, y); }
// C's fmod (the sign of x): exact for floats; integers: x fmod 0 is 0 (as NumPy returns).
inline float fmod(float x, float y) {
  const double ax = libm::fabs(static_cast<double>(x)), ay = libm::fabs(static_cast<double>(y));
  const bool ok = (ay > 0.0) & (ay < detail::kInf) & (ax < detail::kInf);
  const double fm = detail::sel(ok, detail::fmod_abs_f(detail::sel(ok, ax, 1.0), detail::sel(ok, ay, 1.0)), ax);
  const float r = detail::xor_sign(static_cast<float>(fm), x);
  return detail::sel((ay == 0.0) | (ax == detail::kInf) | (x != x) | (y != y), detail::kNaNF, r);
}
inline double fmod(double x, double y) { return libm::fmod(x, y); }
template <class T>
  requires std::numeric_limits<T>::is_integer
inline T fmod(T x, T y) {
  if constexpr (std::numeric_limits<T>::is_signed) {
    const bool special = y == T(0) || y == T(-1);
    const T r = static_cast<T>(x % (special ? T(1) : y));
    return special ? T(0) : r;
  } else {
    return y == T(0) ? T(0) : static_cast<T>(x % (y == T(0) ? T(1) : y));
  }
}
inline bool signbit(float x) { return (detail::bits(x) >> 31) != 0; }
inline bool signbit(double x) { return (detail::bits(x) >> 63) != 0; }
template <class T>
  requires std::numeric_limits<T>::is_integer
inline bool signbit(T x) {
  if constexpr (std::numeric_limits<T>::is_signed) return x < T(0);
  else return false;
}

}  // namespace symx_kernel
