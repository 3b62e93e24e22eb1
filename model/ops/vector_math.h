// Float vectors (the GCC/Clang vector extension) and the few transcendental
// functions the float CPU ops need, written without branches so that a loop
// over a tensor runs kLanes elements at a time: 4 lanes (one SSE2 instruction
// per operation) with the baseline x86-64 flags, 8 lanes (AVX2) in a file
// compiled with -mavx2 (model/ops/gelu_avx2.cc) and 16 (AVX-512F) in one
// compiled with -mavx512f -ffp-contract=off (gelu_avx512.cc; AVX-512 brings
// FMA, which must not fuse a product into a sum), chosen at run time. glibc's
// scalar expf and erfcf cost 20-30 cycles an element, these a few. Every lane
// is computed independently with the same IEEE operations (no FMA), so a
// result depends neither on where an element falls in a vector (the tails of a
// ParallelFor chunk go through the same code, padded) nor on the lane width.
//
// Everything is in an inline namespace named after the instruction set, so
// the SSE2, AVX2 and AVX-512 builds of these inline functions are different
// symbols: the linker can never hand a caller on a CPU without AVX2 the AVX2
// copy. A file compiled with -mavx2 or -mavx512f must for the same reason call
// nothing inline from outside such a namespace (no std:: templates).
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
//   InterleavedSum   a sum in double as four interleaved partial sums (four,
//                    whatever kLanes is).
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

#include <stdint.h>
#include <string.h>

#if defined(__AVX512F__)
#define BERTLAB_VECTOR_ISA avx512
#define BERTLAB_VECTOR_BYTES 64
#elif defined(__AVX2__)
#define BERTLAB_VECTOR_ISA avx2
#define BERTLAB_VECTOR_BYTES 32
#else
#define BERTLAB_VECTOR_ISA baseline
#define BERTLAB_VECTOR_BYTES 16
#endif

namespace bertlab {
namespace vector_math {
inline namespace BERTLAB_VECTOR_ISA {

typedef float FloatVector __attribute__((vector_size(BERTLAB_VECTOR_BYTES)));
typedef int32_t IntVector __attribute__((vector_size(BERTLAB_VECTOR_BYTES)));
inline constexpr int64_t kLanes = BERTLAB_VECTOR_BYTES / sizeof(float);

inline constexpr float kExpMinArgument = -87.33654f;  // log(FLT_MIN)
inline constexpr float kExpMaxArgument = 88.72283f;   // log(FLT_MAX)

inline FloatVector Splat(float value) { return FloatVector{} + value; }

// The same bytes seen as the other lane type.
template <typename To, typename From>
inline To BitCast(From from) {
  static_assert(sizeof(To) == sizeof(From), "BitCast between sizes");
  To to;
  memcpy(&to, &from, sizeof(to));
  return to;
}

// Unaligned loads and stores; Load/StorePartial move only `count` < kLanes
// elements (the tail of a range) and zero the other lanes.
inline FloatVector Load(const float* source) {
  FloatVector v;
  memcpy(&v, source, sizeof(v));
  return v;
}
inline void Store(float* target, FloatVector v) {
  memcpy(target, &v, sizeof(v));
}
inline FloatVector LoadPartial(const float* source, int64_t count) {
  float lanes[kLanes] = {};
  memcpy(lanes, source, sizeof(float) * count);
  return Load(lanes);
}
inline void StorePartial(float* target, FloatVector v, int64_t count) {
  float lanes[kLanes];
  Store(lanes, v);
  memcpy(target, lanes, sizeof(float) * count);
}

// Nearest integer (ties to even) for |x| < 2^22: adding 1.5 * 2^23 pushes the
// fraction out of the mantissa. (Without -ffast-math the compiler keeps both
// operations.)
inline FloatVector RoundToInteger(FloatVector x) {
  const float kShift = 12582912.0f;
  return (x + kShift) - kShift;
}

// e^(hi + lo), |lo| <= ~2; see the top of the file.
inline FloatVector ExpSum(FloatVector hi, FloatVector lo) {
  const float kLog2e = 1.44269504088896341f;
  // ln 2 = kLn2High + kLn2Low, kLn2High with 9 significant bits so that
  // n * kLn2High is exact and hi - n * kLn2High is exact when |hi| is large.
  const float kLn2High = 0.693359375f;
  const float kLn2Low = -2.12194440e-4f;
  const FloatVector sum = hi + lo;
  const FloatVector n = RoundToInteger(sum * kLog2e);
  const FloatVector r = ((hi - n * kLn2High) + lo) - n * kLn2Low;
  const FloatVector r2 = r * r;
  const FloatVector p =
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
  const IntVector exponent = (__builtin_convertvector(n, IntVector) + 127)
                             << 23;
  FloatVector result = p * BitCast<FloatVector>(exponent);
  result = sum < Splat(kExpMinArgument) ? Splat(0.0f) : result;
  result = sum > Splat(kExpMaxArgument) ? Splat(__builtin_inff()) : result;
  return result;
}

inline FloatVector Exp(FloatVector x) { return ExpSum(x, Splat(0.0f)); }

// -x^2 / 2 as hi + lo with hi exact: x = head + tail, head keeping the top 12
// of the 24 significant bits, so head^2 is exact and so are 2 head tail and
// tail^2.
inline void MinusHalfSquare(FloatVector x, FloatVector* hi, FloatVector* lo) {
  const IntVector kHeadMask = IntVector{} + ~0xFFF;
  const FloatVector head =
      BitCast<FloatVector>(BitCast<IntVector>(x) & kHeadMask);
  const FloatVector tail = x - head;
  *hi = -0.5f * (head * head);
  *lo = -0.5f * (2.0f * head * tail + tail * tail);
}

// Phi(x) = erfc(-x / sqrt(2)) / 2; with w = |x| / sqrt(2), erfc(w) is the
// Numerical Recipes fit above and erfc(-w) = 2 - erfc(w).
inline FloatVector NormalCdf(FloatVector x) {
  const float kSqrtHalf = 0.70710678118654752440f;
  FloatVector hi, lo;
  MinusHalfSquare(x, &hi, &lo);
  const FloatVector w = (x < Splat(0.0f) ? -x : x) * kSqrtHalf;
  const FloatVector t = 1.0f / (1.0f + 0.5f * w);
  const FloatVector series =
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
  const FloatVector half_erfc = 0.5f * t * ExpSum(hi, lo + series);
  return x > Splat(0.0f) ? 1.0f - half_erfc : half_erfc;
}

inline FloatVector NormalPdf(FloatVector x) {
  const float kInvSqrt2Pi = 0.39894228040143267794f;
  FloatVector hi, lo;
  MinusHalfSquare(x, &hi, &lo);
  return kInvSqrt2Pi * ExpSum(hi, lo);
}

// sum of term(i) over i in [0, n), accumulated in double as four
// interleaved partial sums added in a fixed order: reproducible, and free of
// the add latency per element that one serial chain of dependent double
// additions costs (the row sums of LayerNorm and of the softmax backward).
template <typename Term>
double InterleavedSum(int64_t n, const Term& term) {
  constexpr int64_t kPartialSums = 4;
  double partial[kPartialSums] = {};
  int64_t i = 0;
  for (; i + kPartialSums <= n; i += kPartialSums) {
    for (int64_t k = 0; k < kPartialSums; ++k) partial[k] += term(i + k);
  }
  for (; i < n; ++i) partial[i % kPartialSums] += term(i);
  return (partial[0] + partial[1]) + (partial[2] + partial[3]);
}

}  // namespace BERTLAB_VECTOR_ISA
}  // namespace vector_math
}  // namespace bertlab

#endif  // BERTLAB_MODEL_OPS_VECTOR_MATH_H_
