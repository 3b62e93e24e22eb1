// Four-lane float vectors (the GCC/Clang vector extension) and the few
// transcendental functions the float CPU ops need, written without branches
// so that a loop over a tensor runs four elements at a time: with the
// baseline x86-64 flags (SSE2) every vector operation is one
// instruction; glibc's scalar expf and erfcf cost 20-30 cycles an element,
// these a few. Every lane is computed independently of the others, so a
// result does not depend on where an element falls in a vector (the tails of
// a ParallelFor chunk go through the same code, padded).
//
//   Exp(x)           e^x, within 2 ulp on [kExpMinArgument, 88]; 0 below
//                    kExpMinArgument (where e^x is denormal), +inf above
//                    kExpMaxArgument, NaN for NaN.
//   ExpSum(hi, lo)   e^(hi + lo) without rounding hi + lo first: the range
//                    reduction subtracts n ln 2 from hi exactly before lo is
//                    added, so a large exponent given as an exact hi plus a
//                    small lo keeps all its digits (see NormalCdf).
//   NormalCdf(x)     Phi(x) = erfc(-x / sqrt(2)) / 2, with relative error a
//                    few 1e-7 also in the far negative tail.
//   NormalPdf(x)     phi(x) = e^(-x^2 / 2) / sqrt(2 pi), likewise.
//
// Exp is Cephes' expf (Moshier), Cody-Waite reduction and a degree-6
// polynomial; erfc is Numerical Recipes' erfcc (Press et al., 2nd ed.,
// section 6.2), t e^(-w^2 - 1.26551223 + P(t)), t = 1 / (1 + w / 2), a
// Chebyshev fit with relative error below 1.2e-7 for every w >= 0. The
// exponent -x^2 / 2 is formed exactly: x is split (Dekker) into a 12-bit head
// and a tail, so head^2 / 2 is exact and goes to ExpSum as hi, and the rest
// (a few units of x^2's last place plus P(t)) as lo. Without that, rounding
// x^2 ~ 64 to float would cost ~2e-6 of relative accuracy at x ~ -8.
// vector_math_test.cc checks all four against double.
#ifndef BERTLAB_MODEL_OPS_VECTOR_MATH_H_
#define BERTLAB_MODEL_OPS_VECTOR_MATH_H_

#include <cstdint>
#include <cstring>
#include <limits>

namespace bertlab {
namespace vector_math {

typedef float Float4 __attribute__((vector_size(16)));
typedef int32_t Int4 __attribute__((vector_size(16)));
inline constexpr int64_t kLanes = 4;

inline constexpr float kExpMinArgument = -87.33654f;  // log(FLT_MIN)
inline constexpr float kExpMaxArgument = 88.72283f;   // log(FLT_MAX)

inline Float4 Splat(float value) { return Float4{} + value; }

// The same 16 bytes seen as the other lane type.
template <typename To, typename From>
inline To BitCast(From from) {
  static_assert(sizeof(To) == sizeof(From), "BitCast between sizes");
  To to;
  std::memcpy(&to, &from, sizeof(to));
  return to;
}

// Unaligned loads and stores; Load/StorePartial move only `count` < kLanes
// elements (the tail of a range) and zero the other lanes.
inline Float4 Load(const float* source) {
  Float4 v;
  std::memcpy(&v, source, sizeof(v));
  return v;
}
inline void Store(float* target, Float4 v) {
  std::memcpy(target, &v, sizeof(v));
}
inline Float4 LoadPartial(const float* source, int64_t count) {
  float lanes[kLanes] = {};
  std::memcpy(lanes, source, sizeof(float) * count);
  return Load(lanes);
}
inline void StorePartial(float* target, Float4 v, int64_t count) {
  float lanes[kLanes];
  Store(lanes, v);
  std::memcpy(target, lanes, sizeof(float) * count);
}

// Nearest integer (ties to even) for |x| < 2^22: adding 1.5 * 2^23 pushes the
// fraction out of the mantissa. (Without -ffast-math the compiler keeps both
// operations.)
inline Float4 RoundToInteger(Float4 x) {
  const float kShift = 12582912.0f;
  return (x + kShift) - kShift;
}

// e^(hi + lo), |lo| <= ~2; see the top of the file.
inline Float4 ExpSum(Float4 hi, Float4 lo) {
  const float kLog2e = 1.44269504088896341f;
  // ln 2 = kLn2High + kLn2Low, kLn2High with 9 significant bits so that
  // n * kLn2High is exact and hi - n * kLn2High is exact when |hi| is large.
  const float kLn2High = 0.693359375f;
  const float kLn2Low = -2.12194440e-4f;
  const Float4 sum = hi + lo;
  const Float4 n = RoundToInteger(sum * kLog2e);
  const Float4 r = ((hi - n * kLn2High) + lo) - n * kLn2Low;
  const Float4 r2 = r * r;
  const Float4 p =
      (((((1.9875691500e-4f * r + 1.3981999507e-3f) * r + 8.3334519073e-3f) *
             r +
         4.1665795894e-2f) *
            r +
        1.6666665459e-1f) *
           r +
       5.0000001201e-1f) *
          r2 +
      r + 1.0f;
  // 2^n from its exponent bits; n is in [-126, 128] wherever it is used.
  const Int4 exponent = (__builtin_convertvector(n, Int4) + 127) << 23;
  Float4 result = p * BitCast<Float4>(exponent);
  result = sum < Splat(kExpMinArgument) ? Splat(0.0f) : result;
  result = sum > Splat(kExpMaxArgument)
               ? Splat(std::numeric_limits<float>::infinity())
               : result;
  return result;
}

inline Float4 Exp(Float4 x) { return ExpSum(x, Splat(0.0f)); }

// -x^2 / 2 as hi + lo with hi exact: x = head + tail, head keeping the top 12
// of the 24 significant bits, so head^2 is exact and so are 2 head tail and
// tail^2.
inline void MinusHalfSquare(Float4 x, Float4* hi, Float4* lo) {
  const Int4 kHeadMask = Int4{} + ~0xFFF;
  const Float4 head = BitCast<Float4>(BitCast<Int4>(x) & kHeadMask);
  const Float4 tail = x - head;
  *hi = -0.5f * (head * head);
  *lo = -0.5f * (2.0f * head * tail + tail * tail);
}

// Phi(x) = erfc(-x / sqrt(2)) / 2; with w = |x| / sqrt(2), erfc(w) is the
// Numerical Recipes fit above and erfc(-w) = 2 - erfc(w).
inline Float4 NormalCdf(Float4 x) {
  const float kSqrtHalf = 0.70710678118654752440f;
  Float4 hi, lo;
  MinusHalfSquare(x, &hi, &lo);
  const Float4 w = (x < Splat(0.0f) ? -x : x) * kSqrtHalf;
  const Float4 t = 1.0f / (1.0f + 0.5f * w);
  const Float4 series =
      -1.26551223f +
      t * (1.00002368f +
           t * (0.37409196f +
                t * (0.09678418f +
                     t * (-0.18628806f +
                          t * (0.27886807f +
                               t * (-1.13520398f +
                                    t * (1.48851587f +
                                         t * (-0.82215223f +
                                              t * 0.17087277f))))))));
  const Float4 half_erfc = 0.5f * t * ExpSum(hi, lo + series);
  return x > Splat(0.0f) ? 1.0f - half_erfc : half_erfc;
}

inline Float4 NormalPdf(Float4 x) {
  const float kInvSqrt2Pi = 0.39894228040143267794f;
  Float4 hi, lo;
  MinusHalfSquare(x, &hi, &lo);
  return kInvSqrt2Pi * ExpSum(hi, lo);
}

}  // namespace vector_math
}  // namespace bertlab

#endif  // BERTLAB_MODEL_OPS_VECTOR_MATH_H_
