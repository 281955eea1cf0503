// Special functions for pointwise formulas (torchlike.special, the error and
// gamma families, Bessel functions, orthogonal polynomials) and the pointwise
// extras (gcd, heaviside, logaddexp, ...). Host/device code: the CPU loops and
// CUDA kernels instantiate the same templates.
//
// Every special function computes in double and rounds once to the op's
// computation type: float results then carry the double algorithm's accuracy,
// and one algorithm per function is tested instead of two. Methods (series,
// asymptotic expansions, trapezoidal quadrature of integral representations,
// Euler-Maclaurin, Newton on the inverse) are the textbook ones (Abramowitz &
// Stegun chapters 6, 7, 9, 10); each comment says why a method holds where it
// is used.
#pragma once
#include <cmath>
#include <cstdint>
#include <limits>
#include <type_traits>

namespace tl_math {
namespace sf {

constexpr double kPi = 3.14159265358979323846;
constexpr double kEulerGamma = 0.57721566490153286061;
constexpr double kSqrtPi = 1.77245385090551602730;
constexpr double kSqrt2 = 1.41421356237309504880;
constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kEps = 2.220446049250313e-16;

// ------------------------------------------------------------ error family

// exp(x^2) erfc(x). Below 25 the product of libm's erfc (accurate to the last
// bits of its tiny values) and exp(x^2) is accurate; above, erfc underflows,
// so the asymptotic series 1/(x sqrt(pi)) sum (-1)^k (2k-1)!!/(2x^2)^k, whose
// terms shrink by (2k-1)/(2x^2) <= 1/25 each, gives full precision.
TL_HOST_DEVICE inline double erfcx_nonneg(double x) {
  if (x < 25.0) return std::exp(x * x) * std::erfc(x);
  double t = 1.0 / (2.0 * x * x), term = 1.0, sum = 1.0;
  for (int k = 1; k < 20; ++k) {
    term *= -(2.0 * k - 1.0) * t;
    sum += term;
    if (std::fabs(term) < kEps * 0.1) break;
  }
  return sum / (x * kSqrtPi);
}
TL_HOST_DEVICE inline double erfcx(double x) {
  if (std::isnan(x)) return x;
  if (x >= 0) return erfcx_nonneg(x);
  if (x < -26.7) return kInf;  // 2 exp(x^2) overflows
  return 2.0 * std::exp(x * x) - erfcx_nonneg(-x);
}

// Inverse of erfc on (0, 1], for small q (the tails): Newton on
// log erfc(x) = log erfcx(x) - x^2, whose slope -2/(sqrt(pi) erfcx(x)) never
// underflows, so even q = 1e-300 converges in a few steps from the asymptotic
// guess x ~ sqrt(-log(q x sqrt(pi))).
TL_HOST_DEVICE inline double erfcinv_tail(double q) {
  double lq = std::log(q);
  double x = std::sqrt(-lq);
  x = std::sqrt(std::fmax(-std::log(q * x * kSqrtPi), 0.25));
  for (int i = 0; i < 50; ++i) {
    double ex = erfcx_nonneg(x);
    double f = std::log(ex) - x * x - lq;
    double dx = f * kSqrtPi * ex / 2.0;  // f / f'
    x += dx;
    if (std::fabs(dx) <= 1e-16 * x) break;
  }
  return x;
}

// erfinv on |y| <= 0.7: Halley's iteration on erf(x) = y (cubic convergence;
// the series guess is within 0.04 of the root).
TL_HOST_DEVICE inline double erfinv_center(double y) {
  double x = 0.5 * kSqrtPi * (y + kPi / 12.0 * y * y * y);
  for (int i = 0; i < 20; ++i) {
    double f = std::erf(x) - y;
    double dx = f / (2.0 / kSqrtPi * std::exp(-x * x));
    dx = dx / (1.0 + x * dx);
    x -= dx;
    if (std::fabs(dx) <= 1e-17 + 1e-16 * std::fabs(x)) break;
  }
  return x;
}

TL_HOST_DEVICE inline double erfinv(double y) {
  if (std::isnan(y) || y < -1.0 || y > 1.0) return kNaN;
  if (y == 1.0) return kInf;
  if (y == -1.0) return -kInf;
  double a = std::fabs(y);
  // 1 - a is exact for a >= 0.5 (Sterbenz), so the tail keeps every digit.
  double r = a <= 0.7 ? erfinv_center(a) : erfcinv_tail(1.0 - a);
  return y < 0 ? -r : r;
}

// Inverse of the standard normal CDF: -sqrt(2) erfcinv(2p), evaluated so
// that tiny p (and 1 - p, which is exact for p >= 0.5) keep their digits.
TL_HOST_DEVICE inline double ndtri(double p) {
  if (std::isnan(p) || p < 0.0 || p > 1.0) return kNaN;
  if (p == 0.0) return -kInf;
  if (p == 1.0) return kInf;
  double q = p < 0.5 ? 2.0 * p : 2.0 * (1.0 - p);  // erfc(x) = q, x >= 0
  double x = q >= 0.3 ? erfinv_center(1.0 - q) : erfcinv_tail(q);
  return p < 0.5 ? -kSqrt2 * x : kSqrt2 * x;
}

TL_HOST_DEVICE inline double ndtr(double x) { return 0.5 * std::erfc(-x / kSqrt2); }

// log of the normal CDF. The left tail goes through erfcx so it neither
// underflows nor loses digits: log(erfc(t)/2) = log(erfcx(t)/2) - t^2.
TL_HOST_DEVICE inline double log_ndtr(double x) {
  if (std::isnan(x)) return x;
  if (x < -1.0) {
    double t = -x / kSqrt2;
    return std::log(erfcx_nonneg(t) / 2.0) - t * t;
  }
  return std::log1p(-0.5 * std::erfc(x / kSqrt2));
}

// ------------------------------------------------------------ gamma family

// digamma for x > 0: recurrence up to x >= 10, then the asymptotic series
// log x - 1/(2x) - sum B_2k/(2k x^2k), truncated where the next term is below
// 1e-16 at x = 10.
TL_HOST_DEVICE inline double digamma_pos(double x) {
  double r = 0.0;
  while (x < 10.0) {
    r -= 1.0 / x;
    x += 1.0;
  }
  double z = 1.0 / (x * x);
  double s = z * (1.0 / 12 - z * (1.0 / 120 - z * (1.0 / 252 - z * (1.0 / 240 - z * (1.0 / 132 - z * (691.0 / 32760 - z / 12))))));
  return r + std::log(x) - 0.5 / x - s;
}
TL_HOST_DEVICE inline double digamma(double x) {
  if (std::isnan(x)) return x;
  if (x == 0.0) return std::copysign(kInf, -x);  // as PyTorch: -inf at +0
  if (x == kInf) return x;
  if (x < 0.0) {
    if (x == std::trunc(x)) return kNaN;  // poles (and -inf)
    // Reflection psi(x) = psi(1 - x) - pi / tan(pi x), with the fractional
    // part of x in the tangent so large |x| keeps its digits.
    double ip;
    double fr = std::modf(x, &ip);
    return digamma_pos(1.0 - x) - kPi / std::tan(kPi * fr);
  }
  return digamma_pos(x);
}

// B_2k / (2k)!, k = 1..12: the Euler-Maclaurin correction coefficients.
TL_HOST_DEVICE inline double bernoulli_over_factorial(int k) {
  constexpr double c[12] = {0.08333333333333333, -0.001388888888888889, 3.306878306878307e-05,
                            -8.267195767195768e-07, 2.08767569878681e-08, -5.284190138687493e-10,
                            1.3382536530684679e-11, -3.3896802963225827e-13, 8.586062056277845e-15,
                            -2.174868698558062e-16, 5.5090028283602295e-18, -1.3954464685812522e-19};
  return c[k - 1];
}

// Hurwitz zeta sum_k (k + q)^-x, by Euler-Maclaurin: the first terms summed
// until q + N >= 10, the tail as an integral plus Bernoulli corrections
// (their ratio is about (x + 2k)^2 / (2 pi (q + N))^2, so 12 suffice).
// Domain as PyTorch's (Cephes'): x = 1 is +inf, x < 1 NaN, q a non-positive
// integer +inf, q < 0 with non-integer x NaN.
TL_HOST_DEVICE inline double zeta(double x, double q) {
  if (x == 1.0) return kInf;
  if (x < 1.0) return kNaN;
  if (q <= 0.0) {
    if (q == std::floor(q)) return kInf;
    if (x != std::floor(x)) return kNaN;
  }
  double s = 0.0, a = q;
  int n = 0;
  while (n < 9 || a < 10.0) {
    double term = std::pow(a, -x);
    s += term;
    if (n >= 9 && std::fabs(term) < kEps * 1e-2 * std::fabs(s)) return s;
    a += 1.0;
    ++n;
    if (n > 100000) return kNaN;  // q far below 0: no answer in reasonable time
  }
  double w = a, b = std::pow(w, -x);
  if (b == 0.0) return s;  // the tail underflowed (x = inf): nothing to correct
  s += w * b / (x - 1.0) + 0.5 * b;
  double fac = x / w;  // x (x+1) ... (x+2k-2) / w^(2k-1), times b
  for (int k = 1; k <= 12; ++k) {
    double t = bernoulli_over_factorial(k) * fac * b;
    s += t;
    if (std::fabs(t) < kEps * 1e-2 * std::fabs(s)) break;
    fac *= (x + 2.0 * k - 1.0) * (x + 2.0 * k) / (w * w);
  }
  return s;
}

// polygamma(n, x) = (-1)^(n+1) n! zeta(n + 1, x) for n >= 1.
TL_HOST_DEVICE inline double polygamma(double n, double x) {
  if (std::isnan(n) || std::isnan(x)) return kNaN;
  if (n == 0.0) return digamma(x);
  double fact = std::tgamma(n + 1.0);
  double sign = std::fmod(n, 2.0) == 0.0 ? -1.0 : 1.0;
  return sign * fact * zeta(n + 1.0, x);
}

// Regularised incomplete gamma P(a, x) (lower) and Q(a, x) (upper): the series
// for P where it converges fast (x < a + 1), the continued fraction for Q
// elsewhere (modified Lentz). Edge values as PyTorch's igamma/igammac.
TL_HOST_DEVICE inline double igamma_prefactor(double a, double x) {
  return std::exp(a * std::log(x) - x - std::lgamma(a));
}
TL_HOST_DEVICE inline double igamma_series(double a, double x) {  // P(a, x)
  double term = 1.0 / a, sum = term, ap = a;
  for (int n = 0; n < 100000; ++n) {
    ap += 1.0;
    term *= x / ap;
    sum += term;
    if (std::fabs(term) < std::fabs(sum) * kEps * 0.5) break;
  }
  return sum * igamma_prefactor(a, x);
}
TL_HOST_DEVICE inline double igammac_fraction(double a, double x) {  // Q(a, x)
  const double tiny = 1e-300;
  double b = x + 1.0 - a, c = 1.0 / tiny, d = 1.0 / b, h = d;
  for (int i = 1; i < 100000; ++i) {
    double an = -i * (i - a);
    b += 2.0;
    d = an * d + b;
    if (std::fabs(d) < tiny) d = tiny;
    c = b + an / c;
    if (std::fabs(c) < tiny) c = tiny;
    d = 1.0 / d;
    double del = d * c;
    h *= del;
    if (std::fabs(del - 1.0) < kEps * 0.5) break;
  }
  return h * igamma_prefactor(a, x);
}
TL_HOST_DEVICE inline double igamma(double a, double x) {
  if (x < 0.0 || a < 0.0) return kNaN;  // NaN arguments fall through as PyTorch's checks do
  if (a == 0.0) return x > 0.0 ? 1.0 : kNaN;
  if (x == 0.0) return 0.0;
  if (std::isinf(a)) return std::isinf(x) ? kNaN : 0.0;
  if (std::isinf(x)) return 1.0;
  return x < a + 1.0 ? igamma_series(a, x) : 1.0 - igammac_fraction(a, x);
}
TL_HOST_DEVICE inline double igammac(double a, double x) {
  if (x < 0.0 || a < 0.0) return kNaN;
  if (a == 0.0) return x > 0.0 ? 0.0 : kNaN;
  if (x == 0.0) return 1.0;
  if (std::isinf(a)) return std::isinf(x) ? kNaN : 1.0;
  if (std::isinf(x)) return 0.0;
  return x < a + 1.0 ? 1.0 - igamma_series(a, x) : igammac_fraction(a, x);
}

// ------------------------------------------------------------ Bessel functions

// Hankel's asymptotic expansion for order nu at x >= 12: P and Q from the
// coefficients a_k = prod (4 nu^2 - (2j-1)^2) / (k! 8^k) over x^k, summed
// while they shrink (the smallest is about e^-2x, below 1e-10 here).
TL_HOST_DEVICE inline void hankel_pq(double nu, double x, double& p, double& q) {
  double mu = 4.0 * nu * nu, t = 1.0, prev = kInf;
  p = 1.0;
  q = 0.0;
  for (int k = 1; k < 60; ++k) {
    t *= (mu - (2.0 * k - 1.0) * (2.0 * k - 1.0)) / (k * 8.0 * x);
    double at = std::fabs(t);
    if (at > prev || at < 1e-17) break;
    prev = at;
    int r = k % 4;  // (-1)^(k/2) on even k into P, (-1)^((k-1)/2) on odd k into Q
    if (r == 0) p += t;
    else if (r == 1) q += t;
    else if (r == 2) p -= t;
    else q -= t;
  }
}

// J0, J1 for |x| < 12: the power series (terms peak near 4e3 at x = 12, so
// cancellation costs under 4 of the 16 digits). Beyond: Hankel, with
// cos(x - pi/4) = (cos x + sin x)/sqrt 2 so no rounding of pi enters.
TL_HOST_DEVICE inline double bessel_j0(double x) {
  if (std::isnan(x)) return x;
  x = std::fabs(x);
  if (x == kInf) return kNaN;  // as PyTorch (Cephes)
  if (x < 12.0) {
    double y = x * x / 4.0, term = 1.0, sum = 1.0;
    for (int k = 1; k < 80; ++k) {
      term *= -y / ((double)k * k);
      sum += term;
      if (std::fabs(term) < 1e-17 * std::fabs(sum) && k > y) break;
    }
    return sum;
  }
  double p, q, s = std::sin(x), c = std::cos(x);
  hankel_pq(0.0, x, p, q);
  return std::sqrt(2.0 / (kPi * x)) * (p * (c + s) - q * (s - c)) / kSqrt2;
}
TL_HOST_DEVICE inline double bessel_j1(double x) {
  if (std::isnan(x)) return x;
  double ax = std::fabs(x), r;
  if (ax == kInf) return kNaN;
  if (ax < 12.0) {
    double y = ax * ax / 4.0, term = 1.0, sum = 1.0;
    for (int k = 1; k < 80; ++k) {
      term *= -y / ((double)k * (k + 1));
      sum += term;
      if (std::fabs(term) < 1e-17 * std::fabs(sum) && k > y) break;
    }
    r = 0.5 * ax * sum;
  } else {
    // chi = x - 3 pi/4: cos chi = (sin x - cos x)/sqrt 2, sin chi = -(sin x + cos x)/sqrt 2
    double p, q, s = std::sin(ax), c = std::cos(ax);
    hankel_pq(1.0, ax, p, q);
    r = std::sqrt(2.0 / (kPi * ax)) * (p * (s - c) + q * (s + c)) / kSqrt2;
  }
  return x < 0 ? -r : r;
}
TL_HOST_DEVICE inline double bessel_y0(double x) {
  if (std::isnan(x)) return x;
  if (x < 0.0) return kNaN;
  if (x == 0.0) return -kInf;
  if (x == kInf) return kNaN;
  if (x < 12.0) {
    // Y0 = (2/pi)(log(x/2) + gamma) J0 + (2/pi) sum (-1)^(k+1) H_k y^k / (k!)^2
    double y = x * x / 4.0, term = 1.0, h = 0.0, sum = 0.0;
    for (int k = 1; k < 80; ++k) {
      term *= -y / ((double)k * k);
      h += 1.0 / k;
      double t = -term * h;
      sum += t;
      if (std::fabs(t) < 1e-17 * std::fabs(sum) && k > y) break;
    }
    return 2.0 / kPi * ((std::log(x / 2.0) + kEulerGamma) * bessel_j0(x) + sum);
  }
  double p, q, s = std::sin(x), c = std::cos(x);
  hankel_pq(0.0, x, p, q);
  // sin(x - pi/4) = (s - c)/sqrt 2, cos(x - pi/4) = (c + s)/sqrt 2
  return std::sqrt(2.0 / (kPi * x)) * (p * (s - c) + q * (c + s)) / kSqrt2;
}
TL_HOST_DEVICE inline double bessel_y1(double x) {
  if (std::isnan(x)) return x;
  if (x < 0.0) return kNaN;
  if (x == 0.0) return -kInf;
  if (x == kInf) return kNaN;
  if (x < 12.0) {
    // Y1 = -2/(pi x) + (2/pi) log(x/2) J1 - (x/(2 pi)) sum (-y)^k (psi(k+1) + psi(k+2)) / (k! (k+1)!)
    double y = x * x / 4.0, term = 1.0, psi1 = -kEulerGamma, psi2 = 1.0 - kEulerGamma;
    double sum = psi1 + psi2;
    for (int k = 1; k < 80; ++k) {
      term *= -y / ((double)k * (k + 1));
      psi1 += 1.0 / k;
      psi2 += 1.0 / (k + 1);
      double t = term * (psi1 + psi2);
      sum += t;
      if (std::fabs(t) < 1e-17 * std::fabs(sum) && k > y) break;
    }
    return -2.0 / (kPi * x) + 2.0 / kPi * std::log(x / 2.0) * bessel_j1(x) - x / (2.0 * kPi) * sum;
  }
  double p, q, s = std::sin(x), c = std::cos(x);
  hankel_pq(1.0, x, p, q);
  // Y1 = sqrt(2/(pi x)) (P sin chi + Q cos chi), chi = x - 3pi/4:
  // sin(x - 3pi/4) = sin x cos(3pi/4) - cos x sin(3pi/4) = -(s + c)/sqrt 2
  // cos(x - 3pi/4) = cos x cos(3pi/4) + sin x sin(3pi/4) = (s - c)/sqrt 2
  return std::sqrt(2.0 / (kPi * x)) * (-p * (s + c) + q * (s - c)) / kSqrt2;
}

// Modified I0, I1 for |x| <= 30: the series (positive terms, no cancellation);
// beyond, the asymptotic e^x / sqrt(2 pi x) sum (-1)^k a_k(nu) / x^k (same
// a_k as Hankel's), whose smallest term is about e^-2x. `scaled` returns
// e^-|x| I(x) without forming e^|x|.
TL_HOST_DEVICE inline double bessel_i_asym(double nu, double ax) {
  double mu = 4.0 * nu * nu, t = 1.0, sum = 1.0, prev = kInf;
  for (int k = 1; k < 60; ++k) {
    t *= -(mu - (2.0 * k - 1.0) * (2.0 * k - 1.0)) / (k * 8.0 * ax);
    double at = std::fabs(t);
    if (at > prev || at < 1e-17) break;
    prev = at;
    sum += t;
  }
  return sum / std::sqrt(2.0 * kPi * ax);  // times e^ax
}
TL_HOST_DEVICE inline double bessel_i_series(int nu, double ax) {
  double y = ax * ax / 4.0, term = 1.0, sum = 1.0;
  for (int k = 1; k < 200; ++k) {
    term *= y / ((double)k * (k + nu));
    sum += term;
    if (term < 1e-17 * sum) break;
  }
  return nu == 0 ? sum : 0.5 * ax * sum;
}
TL_HOST_DEVICE inline double bessel_i(int nu, double x, bool scaled) {
  if (std::isnan(x)) return x;
  double ax = std::fabs(x), r;
  if (ax == kInf) r = scaled ? 0.0 : kNaN;  // as PyTorch
  else if (ax <= 30.0) r = bessel_i_series(nu, ax) * (scaled ? std::exp(-ax) : 1.0);
  else {
    double s = bessel_i_asym((double)nu, ax);
    // e^ax / sqrt(...) overflows later than e^ax alone: fold the sum's log in.
    r = scaled ? s : std::exp(ax + std::log(s));
  }
  return (nu == 1 && x < 0) ? -r : r;
}

// Modified K0, K1 (and e^x K): the series with logarithms for x <= 2; beyond,
// trapezoidal quadrature of e^x K_nu(x) = int_0^inf exp(-x (cosh t - 1))
// cosh(nu t) dt. The integrand is analytic in a strip, so the trapezoid rule
// converges exponentially: step 0.1 (and 0.5/sqrt(x) where the integrand
// narrows to a Gaussian of width 1/sqrt(x)) gives errors below 1e-20.
TL_HOST_DEVICE inline double bessel_k_integral_scaled(double nu, double x) {
  double h = std::fmin(0.1, 0.5 / std::sqrt(x));
  double sum = 0.5;  // t = 0 term, halved
  for (int i = 1; i < 100000; ++i) {
    double t = i * h, sh = std::sinh(0.5 * t);
    double e = x * 2.0 * sh * sh;  // x (cosh t - 1)
    if (e > 745.0 + nu * t) break;
    sum += std::exp(-e) * std::cosh(nu * t);
  }
  return sum * h;
}
TL_HOST_DEVICE inline double bessel_k0_small(double x) {
  double y = x * x / 4.0, term = 1.0, h = 0.0, sum = 0.0;
  for (int k = 1; k < 60; ++k) {
    term *= y / ((double)k * k);
    h += 1.0 / k;
    sum += term * h;
    if (term * h < 1e-17 * sum) break;
  }
  return -(std::log(x / 2.0) + kEulerGamma) * bessel_i_series(0, x) + sum;
}
TL_HOST_DEVICE inline double bessel_k1_small(double x) {
  double y = x * x / 4.0, term = 1.0, psi1 = -kEulerGamma, psi2 = 1.0 - kEulerGamma;
  double sum = psi1 + psi2;
  for (int k = 1; k < 60; ++k) {
    term *= y / ((double)k * (k + 1));
    psi1 += 1.0 / k;
    psi2 += 1.0 / (k + 1);
    double t = term * (psi1 + psi2);
    sum += t;
    if (std::fabs(t) < 1e-17 * std::fabs(sum)) break;
  }
  return 1.0 / x + std::log(x / 2.0) * bessel_i_series(1, x) - x / 4.0 * sum;
}
TL_HOST_DEVICE inline double bessel_k(int nu, double x, bool scaled) {
  if (std::isnan(x)) return x;
  if (x < 0.0) return kNaN;
  if (x == 0.0) return kInf;
  if (x == kInf) return 0.0;
  if (x <= 2.0) {
    double k = nu == 0 ? bessel_k0_small(x) : bessel_k1_small(x);
    return scaled ? k * std::exp(x) : k;
  }
  double s = bessel_k_integral_scaled((double)nu, x);
  return scaled ? s : s * std::exp(-x);
}

TL_HOST_DEVICE inline double spherical_bessel_j0(double x) {
  if (std::isinf(x)) return 0.0;
  if (std::fabs(x) < 1e-4) return 1.0 - x * x / 6.0;  // sin(x)/x to full precision
  return std::sin(x) / x;
}

// Airy Ai. -7 <= x < 1: Maclaurin series Ai = c1 f - c2 g (terms peak near
// 1e5 at x = -7, so about 1e-11 is lost to cancellation). x >= 1: Ai = sqrt(x/3)/pi K_{1/3}(zeta),
// zeta = 2/3 x^1.5, where the series would cancel catastrophically.
// x < -7: the oscillatory asymptotic expansion with A&S 10.4.58's u_k
// (its smallest term is below 1e-13 there).
TL_HOST_DEVICE inline double airy_ai(double x) {
  if (std::isnan(x)) return x;
  if (std::isinf(x)) return kNaN;  // as PyTorch
  if (x >= 1.0) {
    double zeta = 2.0 / 3.0 * x * std::sqrt(x);
    if (zeta > 745.0) return 0.0;
    return std::sqrt(x / 3.0) / kPi * bessel_k_integral_scaled(1.0 / 3.0, zeta) * std::exp(-zeta);
  }
  if (x >= -7.0) {
    const double c1 = 0.355028053887817239, c2 = 0.258819403792806798;
    double x3 = x * x * x, f = 1.0, g = x, tf = 1.0, tg = x;
    for (int k = 1; k < 100; ++k) {
      tf *= x3 / ((3.0 * k - 1.0) * (3.0 * k));
      tg *= x3 / ((3.0 * k) * (3.0 * k + 1.0));
      f += tf;
      g += tg;
      if (std::fabs(tf) + std::fabs(tg) < 1e-18 * (std::fabs(f) + std::fabs(g))) break;
    }
    return c1 * f - c2 * g;
  }
  double z = -x, zeta = 2.0 / 3.0 * z * std::sqrt(z);
  double u = 1.0, p = 1.0, q = 0.0, prev = kInf;
  for (int k = 1; k < 60; ++k) {
    u *= (6.0 * k - 5.0) * (6.0 * k - 3.0) * (6.0 * k - 1.0) / ((2.0 * k - 1.0) * 216.0 * k) / zeta;
    double au = std::fabs(u);
    if (au > prev || au < 1e-17) break;
    prev = au;
    int r = k % 4;
    if (r == 0) p += u;
    else if (r == 1) q += u;
    else if (r == 2) p -= u;
    else q -= u;
  }
  double ang = zeta + kPi / 4.0;
  return (std::sin(ang) * p - std::cos(ang) * q) / (kSqrtPi * std::sqrt(std::sqrt(z)));
}

// ------------------------------------------------------------ orthogonal polynomials
// n is the degree as stored in a floating tensor; PyTorch truncates it to an
// integer. Negative degrees give 0 (|n| past 2^63 and NaN count as negative). Closed forms replace the recurrence where
// PyTorch uses them (|x| < 1 and large n), so the results agree.

TL_HOST_DEVICE inline double chebyshev_t(double x, double nd) {
  if (std::isnan(nd)) return 0.0;  // PyTorch's integer conversion of NaN is negative
  int64_t n = std::fabs(nd) < 9.2e18 ? (int64_t)nd : -1;
  if (n < 0) return 0.0;
  if (std::fabs(x) == 1.0) return (x > 0 || n % 2 == 0) ? 1.0 : -1.0;
  if (n > 6 && std::fabs(x) < 1.0) return std::cos(n * std::acos(x));
  if (n == 0) return 1.0;
  double p = 1.0, q = x;
  for (int64_t k = 2; k <= n && !std::isnan(q); ++k) {
    double r = 2.0 * x * q - p;
    p = q;
    q = r;
  }
  return q;
}
TL_HOST_DEVICE inline double chebyshev_u(double x, double nd) {
  if (std::isnan(nd)) return 0.0;  // PyTorch's integer conversion of NaN is negative
  int64_t n = std::fabs(nd) < 9.2e18 ? (int64_t)nd : -1;
  if (n < 0) return 0.0;
  if (std::fabs(x) == 1.0) return (x > 0 || n % 2 == 0) ? n + 1.0 : -(n + 1.0);
  if (n > 8 && std::fabs(x) < 1.0) {
    double th = std::acos(x);
    if (std::sin(th) != 0.0) return std::sin((n + 1) * th) / std::sin(th);
    return (n + 1) * std::cos((n + 1) * th) / x;
  }
  if (n == 0) return 1.0;
  double p = 1.0, q = 2.0 * x;
  for (int64_t k = 2; k <= n && !std::isnan(q); ++k) {
    double r = 2.0 * x * q - p;
    p = q;
    q = r;
  }
  return q;
}
TL_HOST_DEVICE inline double chebyshev_v(double x, double nd) {
  if (std::isnan(nd)) return 0.0;  // PyTorch's integer conversion of NaN is negative
  int64_t n = std::fabs(nd) < 9.2e18 ? (int64_t)nd : -1;
  if (n < 0) return 0.0;
  if (std::fabs(x) == 1.0) {
    if (x > 0) return 1.0;
    return n % 2 == 0 ? 2.0 * n + 1.0 : -(2.0 * n + 1.0);
  }
  if (n > 8 && std::fabs(x) < 1.0) {
    double th = std::acos(x);
    if (std::sin(th / 2.0) != 1.0) return std::cos((n + 0.5) * th) / std::cos(th / 2.0);
    return n % 2 == 0 ? 2.0 * n + 1.0 : -(2.0 * n + 1.0);
  }
  if (n == 0) return 1.0;
  double p = 1.0, q = 2.0 * x - 1.0;
  for (int64_t k = 2; k <= n && !std::isnan(q); ++k) {
    double r = 2.0 * x * q - p;
    p = q;
    q = r;
  }
  return q;
}
TL_HOST_DEVICE inline double chebyshev_w(double x, double nd) {
  if (std::isnan(nd)) return 0.0;  // PyTorch's integer conversion of NaN is negative
  int64_t n = std::fabs(nd) < 9.2e18 ? (int64_t)nd : -1;
  if (n < 0) return 0.0;
  if (std::fabs(x) == 1.0) {
    if (x > 0) return 2.0 * n + 1.0;
    return n % 2 == 0 ? 1.0 : -1.0;
  }
  if (n > 8 && std::fabs(x) < 1.0) {
    double th = std::acos(x);
    if (std::cos(th / 2.0) != 1.0) return std::sin((n + 0.5) * th) / std::sin(th / 2.0);
    if (x > 0) return 2.0 * n + 1.0;
    return n % 2 == 0 ? 1.0 : -1.0;
  }
  if (n == 0) return 1.0;
  double p = 1.0, q = 2.0 * x + 1.0;
  for (int64_t k = 2; k <= n && !std::isnan(q); ++k) {
    double r = 2.0 * x * q - p;
    p = q;
    q = r;
  }
  return q;
}
TL_HOST_DEVICE inline double hermite_h(double x, double nd) {
  if (std::isnan(nd)) return 0.0;  // PyTorch's integer conversion of NaN is negative
  int64_t n = std::fabs(nd) < 9.2e18 ? (int64_t)nd : -1;
  if (n < 0) return 0.0;
  if (n == 0) return 1.0;
  double p = 1.0, q = 2.0 * x;
  for (int64_t k = 1; k < n && !std::isnan(q); ++k) {
    double r = 2.0 * x * q - 2.0 * k * p;
    p = q;
    q = r;
  }
  return q;
}
TL_HOST_DEVICE inline double hermite_he(double x, double nd) {
  if (std::isnan(nd)) return 0.0;  // PyTorch's integer conversion of NaN is negative
  int64_t n = std::fabs(nd) < 9.2e18 ? (int64_t)nd : -1;
  if (n < 0) return 0.0;
  if (n == 0) return 1.0;
  double p = 1.0, q = x;
  for (int64_t k = 1; k < n && !std::isnan(q); ++k) {
    double r = x * q - k * p;
    p = q;
    q = r;
  }
  return q;
}
TL_HOST_DEVICE inline double laguerre_l(double x, double nd) {
  if (std::isnan(nd)) return 0.0;  // PyTorch's integer conversion of NaN is negative
  int64_t n = std::fabs(nd) < 9.2e18 ? (int64_t)nd : -1;
  if (n < 0) return 0.0;
  if (x == 0.0 || n == 0) return 1.0;
  double p = 1.0, q = 1.0 - x;
  for (int64_t k = 1; k < n && !std::isnan(q); ++k) {
    double r = ((2.0 * k + 1.0 - x) * q - k * p) / (k + 1.0);
    p = q;
    q = r;
  }
  return q;
}
TL_HOST_DEVICE inline double legendre_p(double x, double nd) {
  if (std::isnan(nd)) return 0.0;  // PyTorch's integer conversion of NaN is negative
  int64_t n = std::fabs(nd) < 9.2e18 ? (int64_t)nd : -1;
  if (n < 0) return 0.0;
  if (std::fabs(x) == 1.0) return (x > 0 || n % 2 == 0) ? 1.0 : -1.0;
  if (n == 0) return 1.0;
  double p = 1.0, q = x;
  for (int64_t k = 1; k < n && !std::isnan(q); ++k) {
    double r = ((2.0 * k + 1.0) * x * q - k * p) / (k + 1.0);
    p = q;
    q = r;
  }
  return q;
}

// ------------------------------------------------------------ elementary extras

TL_HOST_DEVICE inline double entr(double x) {
  if (std::isnan(x)) return x;
  if (x > 0.0) return -x * std::log(x);
  if (x == 0.0) return 0.0;
  return -kInf;
}

}  // namespace sf

// ---- element functions pointwise formulas call (codegen/formula.py lists them)

#define TL_SF_UNARY(name, impl) \
  template <class T> TL_HOST_DEVICE inline T name(T x) { return (T)sf::impl((double)x); }
#define TL_SF_BINARY(name, impl) \
  template <class T> TL_HOST_DEVICE inline T name(T a, T b) { return (T)sf::impl((double)a, (double)b); }

TL_SF_UNARY(erfinv, erfinv)
TL_SF_UNARY(erfcx, erfcx)
TL_SF_UNARY(ndtr, ndtr)
TL_SF_UNARY(ndtri, ndtri)
TL_SF_UNARY(log_ndtr, log_ndtr)
TL_SF_UNARY(digamma, digamma)
TL_SF_UNARY(entr, entr)
TL_SF_UNARY(bessel_j0, bessel_j0)
TL_SF_UNARY(bessel_j1, bessel_j1)
TL_SF_UNARY(bessel_y0, bessel_y0)
TL_SF_UNARY(bessel_y1, bessel_y1)
TL_SF_UNARY(spherical_bessel_j0, spherical_bessel_j0)
TL_SF_UNARY(airy_ai, airy_ai)
TL_SF_BINARY(zeta, zeta)
TL_SF_BINARY(igamma, igamma)
TL_SF_BINARY(igammac, igammac)
TL_SF_BINARY(chebyshev_polynomial_t, chebyshev_t)
TL_SF_BINARY(chebyshev_polynomial_u, chebyshev_u)
TL_SF_BINARY(chebyshev_polynomial_v, chebyshev_v)
TL_SF_BINARY(chebyshev_polynomial_w, chebyshev_w)
TL_SF_BINARY(hermite_polynomial_h, hermite_h)
TL_SF_BINARY(hermite_polynomial_he, hermite_he)
TL_SF_BINARY(laguerre_polynomial_l, laguerre_l)
TL_SF_BINARY(legendre_polynomial_p, legendre_p)
#undef TL_SF_UNARY
#undef TL_SF_BINARY

// polygamma(n, x) with the order as the functor's scalar member.
template <class T> TL_HOST_DEVICE inline T polygamma(T x, T n) { return (T)sf::polygamma((double)n, (double)x); }
template <class T> TL_HOST_DEVICE inline T i0(T x) { return (T)sf::bessel_i(0, (double)x, false); }
template <class T> TL_HOST_DEVICE inline T i0e(T x) { return (T)sf::bessel_i(0, (double)x, true); }
template <class T> TL_HOST_DEVICE inline T i1(T x) { return (T)sf::bessel_i(1, (double)x, false); }
template <class T> TL_HOST_DEVICE inline T i1e(T x) { return (T)sf::bessel_i(1, (double)x, true); }
template <class T> TL_HOST_DEVICE inline T bessel_k0(T x) { return (T)sf::bessel_k(0, (double)x, false); }
template <class T> TL_HOST_DEVICE inline T bessel_k1(T x) { return (T)sf::bessel_k(1, (double)x, false); }
template <class T> TL_HOST_DEVICE inline T bessel_k0e(T x) { return (T)sf::bessel_k(0, (double)x, true); }
template <class T> TL_HOST_DEVICE inline T bessel_k1e(T x) { return (T)sf::bessel_k(1, (double)x, true); }

// Shifted Chebyshev polynomials: T*_n(x) = T_n(2x - 1).
template <class T> TL_HOST_DEVICE inline T shifted_chebyshev_polynomial_t(T x, T n) {
  return (T)sf::chebyshev_t(2.0 * (double)x - 1.0, (double)n);
}
template <class T> TL_HOST_DEVICE inline T shifted_chebyshev_polynomial_u(T x, T n) {
  return (T)sf::chebyshev_u(2.0 * (double)x - 1.0, (double)n);
}
template <class T> TL_HOST_DEVICE inline T shifted_chebyshev_polynomial_v(T x, T n) {
  return (T)sf::chebyshev_v(2.0 * (double)x - 1.0, (double)n);
}
template <class T> TL_HOST_DEVICE inline T shifted_chebyshev_polynomial_w(T x, T n) {
  return (T)sf::chebyshev_w(2.0 * (double)x - 1.0, (double)n);
}

// sin(pi x)/(pi x), 1 at 0.
template <class T> TL_HOST_DEVICE inline T sinc(T x) {
  if (x == T(0)) return T(1);
  T px = T(sf::kPi) * x;
  return std::sin(px) / px;
}
template <class T> TL_HOST_DEVICE inline T logit(T x) { return std::log(x / (T(1) - x)); }
// x * log(y), 0 where x is 0 (unless y is NaN).
template <class T> TL_HOST_DEVICE inline T xlogy(T x, T y) {
  if (std::isnan(y)) return y;
  if (x == T(0)) return T(0);
  return x * std::log(y);
}
template <class T> TL_HOST_DEVICE inline T xlog1py(T x, T y) {
  if (std::isnan(y)) return y;
  if (x == T(0)) return T(0);
  return x * std::log1p(y);
}
// log(e^a + e^b) without overflow; equal infinities give themselves.
template <class T> TL_HOST_DEVICE inline T logaddexp(T a, T b) {
  if (std::isnan(a) || std::isnan(b)) return std::numeric_limits<T>::quiet_NaN();
  if (std::isinf(a) && a == b) return a;
  T m = a > b ? a : b;
  return m + std::log1p(std::exp(-std::fabs(a - b)));
}
template <class T> TL_HOST_DEVICE inline T logaddexp2(T a, T b) {
  if (std::isnan(a) || std::isnan(b)) return std::numeric_limits<T>::quiet_NaN();
  if (std::isinf(a) && a == b) return a;
  T m = a > b ? a : b;
  return m + std::log1p(std::exp2(-std::fabs(a - b))) / T(0.69314718055994530942);
}
template <class T> TL_HOST_DEVICE inline T nextafter(T a, T b) { return std::nextafter(a, b); }
// Mantissa in [0.5, 1) and exponent (as a float) with x = m * 2^e; inf and NaN
// pass through with exponent 0, as PyTorch's frexp.
template <class T> TL_HOST_DEVICE inline T frexp_mantissa(T x) {
  if (!std::isfinite(x)) return x;
  int e;
  return std::frexp(x, &e);
}
template <class T> TL_HOST_DEVICE inline T frexp_exponent(T x) {
  if (!std::isfinite(x)) return T(0);
  int e;
  std::frexp(x, &e);
  return T(e);
}
// 0 for x >= 0, pi for x < 0, NaN for NaN: the argument of a real number.
template <class T> TL_HOST_DEVICE inline T angle(T x) {
  if (std::isnan(x)) return x;
  return x < T(0) ? T(sf::kPi) : T(0);
}
template <class T> TL_HOST_DEVICE inline T deg2rad(T x) { return x * T(sf::kPi / 180.0); }
template <class T> TL_HOST_DEVICE inline T rad2deg(T x) { return x * T(180.0 / sf::kPi); }
// Round to `decimals` digits, half to even: x * 10^d rounded, divided back
// (negative d divides first, as PyTorch does).
template <class T> TL_HOST_DEVICE inline T round_decimals(T x, T decimals) {
  bool neg = decimals < T(0);
  T ten = std::pow(T(10), neg ? -decimals : decimals);
  return neg ? std::nearbyint(x / ten) * ten : std::nearbyint(x * ten) / ten;
}
// The sign bit (true for -0.0 and negative NaN). Through copysign rather than
// std::signbit: GCC 12 fails (an internal compiler error) vectorising
// std::signbit over float into a bool loop.
template <class T> TL_HOST_DEVICE inline bool sign_bit(T x) {
  if constexpr (std::is_floating_point<T>::value) return std::copysign(T(1), x) < T(0);
  else if constexpr (std::is_signed<T>::value) return x < 0;
  else return false;
}
// Heaviside step: `values` where x is 0.
template <class T> TL_HOST_DEVICE inline T heaviside(T x, T values) {
  return x == T(0) ? values : T(x > T(0));
}
// Euclid's algorithm on integers; the result is non-negative (as PyTorch).
template <class T> TL_HOST_DEVICE inline T gcd(T a, T b) {
  if constexpr (std::is_signed<T>::value) {
    a = a < 0 ? T(-a) : a;
    b = b < 0 ? T(-b) : b;
  }
  while (b != 0) {
    T t = a % b;
    a = b;
    b = t;
  }
  return a;
}
template <class T> TL_HOST_DEVICE inline T lcm(T a, T b) {
  T g = gcd(a, b);
  if (g == 0) return T(0);
  T r = T(a / g * b);
  if constexpr (std::is_signed<T>::value) r = r < 0 ? T(-r) : r;
  return r;
}

}  // namespace tl_math
