// symx/special.hpp: Special functions, as scipy.special (symx::special), and the NumPy-level ones also at top level
// (lgamma, digamma, erfc, erfinv, gcd, lcm, nextafter, bitwise_count, ...).
//
// Primitives (rows of the op table, fused into kernels): lgamma (gammaln), digamma, erfc, erfinv,
// erfcx, ndtri, log_ndtr, i0e, i1e, expi, exp1, spence, dawsn, the Fresnel integrals, the sine and
// cosine integrals, zeta(x, q), gammainc, gammaincc, betainc, expn, jn, hyp1f1, hyp2f1, owens_t, gcd, lcm,
// nextafter, bitwise_count (float32 kernels vectorized for lgamma, digamma, erfinv, i0e, i1e). Everything else here is
// a composite of primitives: loggamma, gamma, gammasgn, polygamma (zeta and lgamma), multigammaln, beta, betaln
// (lgamma), erfcinv (ndtri), ndtr (erf / erfc as Cephes), xlogy, xlog1py, entr, rel_entr, kl_div, i0, i1 (i0e e^|x|),
// sinc, logit, expit (sigmoid), boxcox, boxcox1p, poch, factorial, comb. Float math on integer or bool operands
// computes in float32 (symx's default float); float32 stays float32 and float64 stays float64.
#pragma once

#include "symx/ops.hpp"

namespace symx {
namespace special {

// Natural logarithm of the absolute value of the gamma function, as scipy.special.gammaln.
// Poles (0, negative integers) give inf. Gradient: digamma(x).
//
// Example: special::gammaln(constant(4.0)).eval() is 1.7917594692 (log 6)
// Python: sx.special.gammaln(sx.constant(4.0)).eval() is 1.7917594692 (log 6)
Tensor gammaln(const Tensor& x, Loc loc = Loc::current());

// Logarithm of the gamma function on reals, as scipy.special.loggamma: gammaln(x) for x >= 0, NaN
// for x < 0 (where the real logarithm is undefined).
//
// Example: special::loggamma(constant(3.0)).eval() is 0.6931471806
// Python: sx.special.loggamma(sx.constant(3.0)).eval() is 0.6931471806
Tensor loggamma(const Tensor& x, Loc loc = Loc::current());

// The gamma function, as scipy.special.gamma: gammasgn(x) exp(gammaln(x)) (inf at 0, NaN at the
// negative integers).
//
// Example: special::gamma(constant(5.0)).eval() is 24.
// Python: sx.special.gamma(sx.constant(5.0)).eval() is 24.
Tensor gamma(const Tensor& x, Loc loc = Loc::current());

// Sign of the gamma function, as scipy.special.gammasgn: 1 for x > 0, +-1 for negative x between
// the poles, NaN at the negative integers, the sign of zero at +-0.
//
// Example: special::gammasgn(constant(-0.5)).eval() is -1.
// Python: sx.special.gammasgn(sx.constant(-0.5)).eval() is -1.
Tensor gammasgn(const Tensor& x, Loc loc = Loc::current());

// The digamma function psi(x) = d/dx gammaln(x), as scipy.special.digamma. x = +-0 gives -+inf,
// negative integers NaN. Gradient: polygamma(1, x).
//
// Example: special::digamma(constant(1.0)).eval() is -0.5772156649
// Python: sx.special.digamma(sx.constant(1.0)).eval() is -0.5772156649
Tensor digamma(const Tensor& x, Loc loc = Loc::current());

// Alias of digamma (scipy.special.psi).
//
// Example: special::psi(constant(1.0)).eval() is -0.5772156649
// Python: sx.special.psi(sx.constant(1.0)).eval() is -0.5772156649
inline Tensor psi(const Tensor& x, Loc loc = Loc::current()) { return digamma(x, loc); }

// The n-th derivative of digamma, as scipy.special.polygamma: (-1)^(n+1) n! zeta(n + 1, x) for
// n >= 1, digamma(x) for n = 0. n, x: tensors or numbers, broadcast together.
//
// Example: special::polygamma(1, constant(1.0)).eval() is 1.6449340668 (pi^2/6)
// Python: sx.special.polygamma(1, sx.constant(1.0)).eval() is 1.6449340668 (pi^2/6)
Tensor polygamma(const Operand& n, const Operand& x, Loc loc = Loc::current());

// Log of the multivariate gamma function of dimension d, as scipy.special.multigammaln:
// d (d - 1) / 4 log(pi) + sum_j gammaln(a - j / 2), j = 0 .. d-1. Where a <= (d - 1) / 2 (SciPy
// raises there) the result is NaN.
//
// Example: special::multigammaln(constant(3.0), 2).eval() is 1.2655121235
// Python: sx.special.multigammaln(sx.constant(3.0), 2).eval() is 1.2655121235
Tensor multigammaln(const Tensor& a, int d, Loc loc = Loc::current());

// The beta function B(a, b) = gamma(a) gamma(b) / gamma(a + b), as scipy.special.beta.
//
// Example: special::beta(2.0, constant(3.0)).eval() is 0.0833333333
// Python: sx.special.beta(2.0, sx.constant(3.0)).eval() is 0.0833333333
Tensor beta(const Operand& a, const Operand& b, Loc loc = Loc::current());

// log |B(a, b)|, as scipy.special.betaln: gammaln(a) + gammaln(b) - gammaln(a + b).
//
// Example: special::betaln(2.0, constant(3.0)).eval() is -2.4849066498
// Python: sx.special.betaln(2.0, sx.constant(3.0)).eval() is -2.4849066498
Tensor betaln(const Operand& a, const Operand& b, Loc loc = Loc::current());

// The complementary error function 1 - erf(x), accurate in the tail, as scipy.special.erfc.
// Gradient: -2/sqrt(pi) exp(-x^2).
//
// Example: special::erfc(constant(3.0)).eval() is 2.209049699858544e-05
// Python: sx.special.erfc(sx.constant(3.0)).eval() is 2.209049699858544e-05
Tensor erfc(const Tensor& x, Loc loc = Loc::current());

// The inverse error function, as scipy.special.erfinv: +-inf at +-1, NaN outside [-1, 1].
// Gradient: sqrt(pi)/2 exp(erfinv(y)^2).
//
// Example: special::erfinv(constant(0.5)).eval() is 0.4769362762
// Python: sx.special.erfinv(sx.constant(0.5)).eval() is 0.4769362762
Tensor erfinv(const Tensor& y, Loc loc = Loc::current());

// The inverse complementary error function, as scipy.special.erfcinv: -ndtri(y / 2) / sqrt(2) on
// [0, 2].
//
// Example: special::erfcinv(constant(0.5)).eval() is 0.4769362762
// Python: sx.special.erfcinv(sx.constant(0.5)).eval() is 0.4769362762
Tensor erfcinv(const Tensor& y, Loc loc = Loc::current());

// The scaled complementary error function exp(x^2) erfc(x), as scipy.special.erfcx (finite for
// large x, where erfc underflows). Gradient: 2 x erfcx(x) - 2/sqrt(pi).
//
// Example: special::erfcx(constant(30.0)).eval() is 0.0187958889
// Python: sx.special.erfcx(sx.constant(30.0)).eval() is 0.0187958889
Tensor erfcx(const Tensor& x, Loc loc = Loc::current());

// The standard normal CDF, as scipy.special.ndtr (through erf near 0 and erfc in the tails).
//
// Example: special::ndtr(constant(0.0)).eval() is 0.5
// Python: sx.special.ndtr(sx.constant(0.0)).eval() is 0.5
Tensor ndtr(const Tensor& x, Loc loc = Loc::current());

// The inverse of ndtr, as scipy.special.ndtri: -inf at 0, inf at 1, NaN outside [0, 1].
// Gradient: sqrt(2 pi) exp(ndtri(p)^2 / 2).
//
// Example: special::ndtri(constant(0.975)).eval() is 1.9599639845
// Python: sx.special.ndtri(sx.constant(0.975)).eval() is 1.9599639845
Tensor ndtri(const Tensor& p, Loc loc = Loc::current());

// log(ndtr(x)), accurate far into the left tail, as scipy.special.log_ndtr.
// Gradient: sqrt(2/pi) / erfcx(-x/sqrt(2)).
//
// Example: special::log_ndtr(constant(-40.0)).eval() is -804.6084420137538
// Python: sx.special.log_ndtr(sx.constant(-40.0)).eval() is -804.6084420137538
Tensor log_ndtr(const Tensor& x, Loc loc = Loc::current());

// x log(y), 0 where x = 0 (unless y is NaN), as scipy.special.xlogy. x, y broadcast together.
//
// Example: special::xlogy(0.0, constant(0.0)).eval() is 0.
// Python: sx.special.xlogy(0.0, sx.constant(0.0)).eval() is 0.
Tensor xlogy(const Operand& x, const Operand& y, Loc loc = Loc::current());

// x log1p(y), 0 where x = 0 (unless y is NaN), as scipy.special.xlog1py.
//
// Example: special::xlog1py(0.0, constant(-1.0)).eval() is 0.
// Python: sx.special.xlog1py(0.0, sx.constant(-1.0)).eval() is 0.
Tensor xlog1py(const Operand& x, const Operand& y, Loc loc = Loc::current());

// Elementwise entropy -x log(x) (0 at 0, -inf for x < 0), as scipy.special.entr.
//
// Example: special::entr(constant(0.5)).eval() is 0.3465735903
// Python: sx.special.entr(sx.constant(0.5)).eval() is 0.3465735903
Tensor entr(const Tensor& x, Loc loc = Loc::current());

// Relative entropy x log(x / y) (0 where x = 0 and y >= 0, inf where x < 0 or y <= 0 otherwise),
// as scipy.special.rel_entr.
//
// Example: special::rel_entr(1.0, constant(2.0)).eval() is -0.6931471806
// Python: sx.special.rel_entr(1.0, sx.constant(2.0)).eval() is -0.6931471806
Tensor rel_entr(const Operand& x, const Operand& y, Loc loc = Loc::current());

// Kullback-Leibler divergence term x log(x / y) - x + y (y where x = 0 and y >= 0, inf otherwise
// outside the domain), as scipy.special.kl_div.
//
// Example: special::kl_div(1.0, constant(2.0)).eval() is 0.3068528194
// Python: sx.special.kl_div(1.0, sx.constant(2.0)).eval() is 0.3068528194
Tensor kl_div(const Operand& x, const Operand& y, Loc loc = Loc::current());

// The regularized lower incomplete gamma function P(a, x), as scipy.special.gammainc (SciPy's
// algorithm). a >= 0, x >= 0; NaN outside. Gradient in x: x^(a-1) e^-x / gamma(a); no gradient in
// a (a is treated as a constant there).
//
// Example: special::gammainc(1.0, constant(2.0)).eval() is 0.8646647168
// Python: sx.special.gammainc(1.0, sx.constant(2.0)).eval() is 0.8646647168
Tensor gammainc(const Operand& a, const Operand& x, Loc loc = Loc::current());

// The regularized upper incomplete gamma function Q(a, x) = 1 - P(a, x), as
// scipy.special.gammaincc. Gradient in x: -x^(a-1) e^-x / gamma(a); none in a.
//
// Example: special::gammaincc(1.0, constant(2.0)).eval() is 0.1353352832
// Python: sx.special.gammaincc(1.0, sx.constant(2.0)).eval() is 0.1353352832
Tensor gammaincc(const Operand& a, const Operand& x, Loc loc = Loc::current());

// The regularized incomplete beta function I_x(a, b), as scipy.special.betainc (a, b >= 0,
// 0 <= x <= 1; NaN outside): a continued fraction in long double with Boost's form of the prefactor
// (within 1e-13 of SciPy, and of mpmath where SciPy is off by up to 4e-10). Gradient in x:
// x^(a-1) (1-x)^(b-1) / B(a, b); none in a, b.
//
// Example: special::betainc(2.0, 3.0, constant(0.5)).eval() is 0.6875
// Python: sx.special.betainc(2.0, 3.0, sx.constant(0.5)).eval() is 0.6875
Tensor betainc(const Operand& a, const Operand& b, const Operand& x, Loc loc = Loc::current());

// The modified Bessel function of order 0, as scipy.special.i0 (and numpy.i0): i0e(x) e^|x|.
//
// Example: special::i0(constant(1.0)).eval() is 1.2660658778
// Python: sx.special.i0(sx.constant(1.0)).eval() is 1.2660658778
Tensor i0(const Tensor& x, Loc loc = Loc::current());

// The exponentially scaled modified Bessel function of order 0, e^-|x| I0(x), as
// scipy.special.i0e. Gradient: i1e(x) - sign(x) i0e(x).
//
// Example: special::i0e(constant(1.0)).eval() is 0.4657596077
// Python: sx.special.i0e(sx.constant(1.0)).eval() is 0.4657596077
Tensor i0e(const Tensor& x, Loc loc = Loc::current());

// The modified Bessel function of order 1, as scipy.special.i1: i1e(x) e^|x|.
//
// Example: special::i1(constant(1.0)).eval() is 0.5651591040
// Python: sx.special.i1(sx.constant(1.0)).eval() is 0.5651591040
Tensor i1(const Tensor& x, Loc loc = Loc::current());

// The exponentially scaled modified Bessel function of order 1, e^-|x| I1(x), as
// scipy.special.i1e. Gradient: i0e(x) - i1e(x) (sign(x) + 1/x), 1/2 at 0.
//
// Example: special::i1e(constant(1.0)).eval() is 0.2079104154
// Python: sx.special.i1e(sx.constant(1.0)).eval() is 0.2079104154
Tensor i1e(const Tensor& x, Loc loc = Loc::current());

// The Hurwitz zeta function sum_k (k + q)^-x, as scipy.special.zeta(x, q): inf at x = 1, NaN for
// x < 1. Gradient in q: -x zeta(x + 1, q); none in x.
//
// Example: special::zeta(2.0, constant(1.0)).eval() is 1.6449340668
// Python: sx.special.zeta(2.0, sx.constant(1.0)).eval() is 1.6449340668
Tensor zeta(const Operand& x, const Operand& q, Loc loc = Loc::current());

// The Riemann zeta function, as scipy.special.zeta(x) (q omitted): zeta(x, 1) for x >= 1, the
// Stieltjes series on [-1, 1) and the reflection formula 2^x pi^(x-1) sin(pi x / 2) gamma(1 - x)
// zeta(1 - x) below -1.
//
// Example: special::zeta(constant(-1.0)).eval() is -0.0833333333
// Python: sx.special.zeta(sx.constant(-1.0)).eval() is -0.0833333333
Tensor zeta(const Tensor& x, Loc loc = Loc::current());

// The exponential integral Ei(x), as scipy.special.expi. Gradient: e^x / x.
//
// Example: special::expi(constant(1.0)).eval() is 1.8951178164
// Python: sx.special.expi(sx.constant(1.0)).eval() is 1.8951178164
Tensor expi(const Tensor& x, Loc loc = Loc::current());

// The exponential integral E1(x) for x >= 0 (NaN for x < 0), as scipy.special.exp1.
// Gradient: -e^-x / x.
//
// Example: special::exp1(constant(1.0)).eval() is 0.2193839344
// Python: sx.special.exp1(sx.constant(1.0)).eval() is 0.2193839344
Tensor exp1(const Tensor& x, Loc loc = Loc::current());

// The generalized exponential integral E_n(x) = int_1^inf e^(-x t) t^-n dt, as scipy.special.expn:
// n an integer (integer-valued float operands are accepted; others give NaN, as SciPy), x >= 0
// (NaN for x < 0; inf at x = 0 for n <= 1). Gradient in x: -E_(n-1)(x); none in n.
//
// Example: special::expn(2, constant(1.0)).eval() is 0.1484955068
// Python: sx.special.expn(2, sx.constant(1.0)).eval() is 0.1484955068
Tensor expn(const Operand& n, const Operand& x, Loc loc = Loc::current());

// Spence's function (the dilogarithm as SciPy defines it), int_1^z log(t) / (1 - t) dt, as
// scipy.special.spence on reals: z >= 0, NaN for z < 0. Gradient: log(z) / (1 - z) (-1 at z = 1).
//
// Example: special::spence(constant(2.0)).eval() is -0.8224670334 (-pi^2 / 12)
// Python: sx.special.spence(sx.constant(2.0)).eval() is -0.8224670334
Tensor spence(const Tensor& z, Loc loc = Loc::current());

// Dawson's integral exp(-x^2) int_0^x exp(t^2) dt, as scipy.special.dawsn. Gradient: 1 - 2 x dawsn(x).
//
// Example: special::dawsn(constant(1.0)).eval() is 0.5380795069
// Python: sx.special.dawsn(sx.constant(1.0)).eval() is 0.5380795069
Tensor dawsn(const Tensor& x, Loc loc = Loc::current());

// The Fresnel integrals (S(z), C(z)) = (int_0^z sin(pi t^2 / 2) dt, int_0^z cos(pi t^2 / 2) dt), as
// scipy.special.fresnel (S first). Gradients: sin(pi z^2 / 2) and cos(pi z^2 / 2).
//
// Example: auto [s, c] = special::fresnel(constant(1.0)); s.eval() is 0.4382591474, c.eval() 0.7798934004
// Python: s, c = sx.special.fresnel(sx.constant(1.0))
std::pair<Tensor, Tensor> fresnel(const Tensor& z, Loc loc = Loc::current());

// The sine and cosine integrals (Si(x), Ci(x)) = (int_0^x sin(t)/t dt, gamma + log|x| + int_0^x
// (cos(t) - 1)/t dt), as scipy.special.sici on reals (Ci(-x) = Ci(x) as SciPy; Ci(0) = -inf).
// Gradients: sin(x)/x (1 at 0) and cos(x)/x.
//
// Example: auto [si, ci] = special::sici(constant(1.0)); si.eval() is 0.9460830704, ci.eval() 0.3374039229
// Python: si, ci = sx.special.sici(sx.constant(1.0))
std::pair<Tensor, Tensor> sici(const Tensor& x, Loc loc = Loc::current());

// The Bessel function of the first kind of integer order n, J_n(x), as scipy.special.jv (and jn)
// for integer n (integer-valued float operands accepted; others give NaN). Gradient in x:
// (J_(n-1)(x) - J_(n+1)(x)) / 2; none in n.
//
// Example: special::jn(1, constant(2.0)).eval() is 0.5767248078
// Python: sx.special.jn(1, sx.constant(2.0)).eval() is 0.5767248078
Tensor jn(const Operand& n, const Operand& x, Loc loc = Loc::current());
// J_0(x) and J_1(x), as scipy.special.j0 and j1 (jn(0, x), jn(1, x)).
//
// Example: special::j0(constant(1.0)).eval() is 0.7651976866
// Python: sx.special.j1(sx.constant(1.0)).eval() is 0.4400505857
Tensor j0(const Tensor& x, Loc loc = Loc::current());
Tensor j1(const Tensor& x, Loc loc = Loc::current());
// J_0(z), ..., J_v(z) stacked on a new leading axis (shape (v + 1,) + z.shape), as
// jax.scipy.special.bessel_jn(z, v=, n_iter=). n_iter is accepted for JAX's signature; symx
// evaluates each order to full precision whatever its value (it must be positive).
//
// Example: special::bessel_jn(constant(1.0), 2).eval() is [0.7651976866, 0.4400505857, 0.1149034849]
// Python: sx.special.bessel_jn(sx.constant(1.0), v=2).eval()
Tensor bessel_jn(const Tensor& z, int v = 0, int n_iter = 50, Loc loc = Loc::current());

// Kummer's confluent hypergeometric function 1F1(a; b; x), as scipy.special.hyp1f1 (real a, b, x;
// at b a non-positive integer inf, as SciPy, unless the series ends before the pole: a a negative
// integer >= b, or a = b, the truncated series of e^x). Within 1e-13 of SciPy or mpmath for b > 0
// with a and x of one sign or |a|, |x| <= 10; elsewhere (a and x of opposite signs, large; b < 0)
// it can lose digits. Gradient in x: (a / b) 1F1(a + 1; b + 1; x); none in a, b.
//
// Example: special::hyp1f1(1.0, 2.0, constant(1.0)).eval() is 1.7182818285 (e - 1)
// Python: sx.special.hyp1f1(1.0, 2.0, sx.constant(1.0)).eval() is 1.7182818285
Tensor hyp1f1(const Operand& a, const Operand& b, const Operand& x, Loc loc = Loc::current());

// The Gauss hypergeometric function 2F1(a, b; c; x), as scipy.special.hyp2f1 on reals (Cephes'
// algorithm; x <= 1: inf for x > 1, where the series diverges, unless a or b is a non-positive
// integer). Gradient in x: (a b / c) 2F1(a + 1, b + 1; c + 1; x); none in a, b, c.
//
// Example: special::hyp2f1(1.0, 1.0, 2.0, constant(0.5)).eval() is 1.3862943611 (2 log 2)
// Python: sx.special.hyp2f1(1.0, 1.0, 2.0, sx.constant(0.5)).eval() is 1.3862943611
Tensor hyp2f1(const Operand& a, const Operand& b, const Operand& c, const Operand& x, Loc loc = Loc::current());

// Owen's T function T(h, a) = (1 / 2 pi) int_0^a exp(-h^2 (1 + x^2) / 2) / (1 + x^2) dx, as
// scipy.special.owens_t. Gradients: dT/dh = -phi(h) erf(a h / sqrt 2) / 2 (0 at h = 0, also for
// a = +-inf, where T(h, a) has a kink) and dT/da = exp(-h^2 (1 + a^2) / 2) / (2 pi (1 + a^2)).
//
// Example: special::owens_t(0.5, constant(1.0)).eval() is 0.1066710630
// Python: sx.special.owens_t(0.5, sx.constant(1.0)).eval() is 0.1066710630
Tensor owens_t(const Operand& h, const Operand& a, Loc loc = Loc::current());

// The normalized sinc function sin(pi x) / (pi x), 1 at 0, as numpy.sinc.
//
// Example: special::sinc(constant(0.5)).eval() is 0.6366197724
// Python: sx.special.sinc(sx.constant(0.5)).eval() is 0.6366197724
Tensor sinc(const Tensor& x, Loc loc = Loc::current());

// The logit function log(p / (1 - p)), as scipy.special.logit.
//
// Example: special::logit(constant(0.75)).eval() is 1.0986122887
// Python: sx.special.logit(sx.constant(0.75)).eval() is 1.0986122887
Tensor logit(const Tensor& p, Loc loc = Loc::current());

// The logistic sigmoid 1 / (1 + e^-x), as scipy.special.expit (the same op as sigmoid).
//
// Example: special::expit(constant(0.0)).eval() is 0.5
// Python: sx.special.expit(sx.constant(0.0)).eval() is 0.5
inline Tensor expit(const Tensor& x, Loc loc = Loc::current()) { return sigmoid(x, loc); }

// The Box-Cox transformation (x^lmbda - 1) / lmbda, log(x) for lmbda = 0, as scipy.special.boxcox.
//
// Example: special::boxcox(constant(2.0), 0.0).eval() is 0.6931471806
// Python: sx.special.boxcox(sx.constant(2.0), 0.0).eval() is 0.6931471806
Tensor boxcox(const Operand& x, const Operand& lmbda, Loc loc = Loc::current());

// The Box-Cox transformation of 1 + x ((1 + x)^lmbda - 1) / lmbda, log1p(x) for lmbda = 0, as
// scipy.special.boxcox1p.
//
// Example: special::boxcox1p(constant(1.0), 0.0).eval() is 0.6931471806
// Python: sx.special.boxcox1p(sx.constant(1.0), 0.0).eval() is 0.6931471806
Tensor boxcox1p(const Operand& x, const Operand& lmbda, Loc loc = Loc::current());

// The Pochhammer symbol (rising factorial) gamma(z + m) / gamma(z), as scipy.special.poch.
//
// Example: special::poch(constant(3.0), 2.0).eval() is 12.
// Python: sx.special.poch(sx.constant(3.0), 2.0).eval() is 12.
Tensor poch(const Operand& z, const Operand& m, Loc loc = Loc::current());

// n! as gamma(n + 1) in floating point, 0 for n < 0, as scipy.special.factorial(n, exact=False).
//
// Example: special::factorial(constant(5.0)).eval() is 120.
// Python: sx.special.factorial(sx.constant(5.0)).eval() is 120.
Tensor factorial(const Tensor& n, Loc loc = Loc::current());

// The binomial coefficient N choose k in floating point, 0 unless 0 <= k <= N, as
// scipy.special.comb(N, k, exact=False) (rounded to an integer where N and k are integers).
//
// Example: special::comb(constant(10.0), 3.0).eval() is 120.
// Python: sx.special.comb(sx.constant(10.0), 3.0).eval() is 120.
Tensor comb(const Operand& N, const Operand& k, Loc loc = Loc::current());

}  // namespace special

// ---- the NumPy-level and SymJAX top-level names (the same functions as in symx::special) ----

// log |gamma(x)| (the lgamma primitive), as jax.lax.lgamma / scipy.special.gammaln.
//
// Example: lgamma(constant(4.0)).eval() is 1.7917594692
// Python: sx.lgamma(sx.constant(4.0)).eval() is 1.7917594692
inline Tensor lgamma(const Tensor& x, Loc loc = Loc::current()) { return special::gammaln(x, loc); }
inline Tensor gammaln(const Tensor& x, Loc loc = Loc::current()) { return special::gammaln(x, loc); }
inline Tensor loggamma(const Tensor& x, Loc loc = Loc::current()) { return special::loggamma(x, loc); }
inline Tensor digamma(const Tensor& x, Loc loc = Loc::current()) { return special::digamma(x, loc); }
inline Tensor polygamma(const Operand& n, const Operand& x, Loc loc = Loc::current()) {
  return special::polygamma(n, x, loc);
}
inline Tensor gammasgn(const Tensor& x, Loc loc = Loc::current()) { return special::gammasgn(x, loc); }
inline Tensor multigammaln(const Tensor& a, int d, Loc loc = Loc::current()) {
  return special::multigammaln(a, d, loc);
}
inline Tensor betaln(const Operand& a, const Operand& b, Loc loc = Loc::current()) {
  return special::betaln(a, b, loc);
}
inline Tensor erfc(const Tensor& x, Loc loc = Loc::current()) { return special::erfc(x, loc); }
inline Tensor erfinv(const Tensor& y, Loc loc = Loc::current()) { return special::erfinv(y, loc); }
inline Tensor erfcx(const Tensor& x, Loc loc = Loc::current()) { return special::erfcx(x, loc); }
inline Tensor ndtr(const Tensor& x, Loc loc = Loc::current()) { return special::ndtr(x, loc); }
inline Tensor ndtri(const Tensor& p, Loc loc = Loc::current()) { return special::ndtri(p, loc); }
inline Tensor log_ndtr(const Tensor& x, Loc loc = Loc::current()) { return special::log_ndtr(x, loc); }
inline Tensor xlogy(const Operand& x, const Operand& y, Loc loc = Loc::current()) { return special::xlogy(x, y, loc); }
inline Tensor xlog1py(const Operand& x, const Operand& y, Loc loc = Loc::current()) {
  return special::xlog1py(x, y, loc);
}
inline Tensor entr(const Tensor& x, Loc loc = Loc::current()) { return special::entr(x, loc); }
inline Tensor rel_entr(const Operand& x, const Operand& y, Loc loc = Loc::current()) {
  return special::rel_entr(x, y, loc);
}
inline Tensor kl_div(const Operand& x, const Operand& y, Loc loc = Loc::current()) {
  return special::kl_div(x, y, loc);
}
inline Tensor gammainc(const Operand& a, const Operand& x, Loc loc = Loc::current()) {
  return special::gammainc(a, x, loc);
}
inline Tensor betainc(const Operand& a, const Operand& b, const Operand& x, Loc loc = Loc::current()) {
  return special::betainc(a, b, x, loc);
}
inline Tensor gammaincc(const Operand& a, const Operand& x, Loc loc = Loc::current()) {
  return special::gammaincc(a, x, loc);
}
inline Tensor i0(const Tensor& x, Loc loc = Loc::current()) { return special::i0(x, loc); }
inline Tensor i0e(const Tensor& x, Loc loc = Loc::current()) { return special::i0e(x, loc); }
inline Tensor i1(const Tensor& x, Loc loc = Loc::current()) { return special::i1(x, loc); }
inline Tensor i1e(const Tensor& x, Loc loc = Loc::current()) { return special::i1e(x, loc); }
inline Tensor expi(const Tensor& x, Loc loc = Loc::current()) { return special::expi(x, loc); }
inline Tensor exp1(const Tensor& x, Loc loc = Loc::current()) { return special::exp1(x, loc); }
inline Tensor expn(const Operand& n, const Operand& x, Loc loc = Loc::current()) { return special::expn(n, x, loc); }
inline Tensor spence(const Tensor& z, Loc loc = Loc::current()) { return special::spence(z, loc); }
inline Tensor dawsn(const Tensor& x, Loc loc = Loc::current()) { return special::dawsn(x, loc); }
inline std::pair<Tensor, Tensor> fresnel(const Tensor& z, Loc loc = Loc::current()) { return special::fresnel(z, loc); }
inline std::pair<Tensor, Tensor> sici(const Tensor& x, Loc loc = Loc::current()) { return special::sici(x, loc); }
inline Tensor bessel_jn(const Tensor& z, int v = 0, int n_iter = 50, Loc loc = Loc::current()) {
  return special::bessel_jn(z, v, n_iter, loc);
}
inline Tensor hyp1f1(const Operand& a, const Operand& b, const Operand& x, Loc loc = Loc::current()) {
  return special::hyp1f1(a, b, x, loc);
}
inline Tensor hyp2f1(const Operand& a, const Operand& b, const Operand& c, const Operand& x, Loc loc = Loc::current()) {
  return special::hyp2f1(a, b, c, x, loc);
}
inline Tensor owens_t(const Operand& h, const Operand& a, Loc loc = Loc::current()) {
  return special::owens_t(h, a, loc);
}
inline Tensor sinc(const Tensor& x, Loc loc = Loc::current()) { return special::sinc(x, loc); }
inline Tensor logit(const Tensor& p, Loc loc = Loc::current()) { return special::logit(p, loc); }
inline Tensor gamma(const Tensor& x, Loc loc = Loc::current()) { return special::gamma(x, loc); }
inline Tensor beta(const Operand& a, const Operand& b, Loc loc = Loc::current()) { return special::beta(a, b, loc); }
inline Tensor boxcox(const Operand& x, const Operand& lmbda, Loc loc = Loc::current()) {
  return special::boxcox(x, lmbda, loc);
}
inline Tensor poch(const Operand& z, const Operand& m, Loc loc = Loc::current()) { return special::poch(z, m, loc); }
inline Tensor factorial(const Tensor& n, Loc loc = Loc::current()) { return special::factorial(n, loc); }
inline Tensor comb(const Operand& N, const Operand& k, Loc loc = Loc::current()) { return special::comb(N, k, loc); }

// The greatest common divisor of |x1| and |x2|, as numpy.gcd: integer (or bool) operands,
// broadcast and promoted together; gcd(0, 0) = 0.
//
// Example: gcd(constant(12), 18).eval() is 6
// Python: sx.gcd(sx.constant(12), 18).eval() is 6
Tensor gcd(const Operand& x1, const Operand& x2, Loc loc = Loc::current());

// The least common multiple of |x1| and |x2|, as numpy.lcm: integer operands; lcm(x, 0) = 0.
//
// Example: lcm(constant(4), 6).eval() is 12
// Python: sx.lcm(sx.constant(4), 6).eval() is 12
Tensor lcm(const Operand& x1, const Operand& x2, Loc loc = Loc::current());

// The next floating-point value after x1 toward x2, as numpy.nextafter (float operands; integers
// compute in float32).
//
// Example: nextafter(constant(1.0f), 2.0).eval() is 1.0000001
// Python: sx.nextafter(sx.constant(1.0), 2.0).eval() is 1.0000001
Tensor nextafter(const Operand& x1, const Operand& x2, Loc loc = Loc::current());

// The number of 1 bits in |x| (population count), as numpy.bitwise_count: integer or bool operands,
// the result is uint8.
//
// Example: bitwise_count(constant(7)).eval() is 3
// Python: sx.bitwise_count(sx.constant(7)).eval() is 3
Tensor bitwise_count(const Tensor& x, Loc loc = Loc::current());

}  // namespace symx
