// The float Gemm on the oneDNN engine (gemm_onednn.h) against the definition
// in double: every transpose combination, padded leading dimensions,
// alpha / beta (beta == 0 over NaN), sizes 1 and odd, and products large
// enough to be split over the pool, within the parity comparator's
// eps * sqrt(K) bound (model/parity/parity_comparator.h). Also: repeated calls
// are bit-identical, the same product twice makes one primitive, double
// stays on OpenBLAS, and the engine names parse.
#include "model/ops/gemm_onednn.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <iostream>
#include <limits>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "common/half.h"
#include "common/parallel.h"
#include "gtest/gtest.h"
#include "model/ops/bf16_round.h"
#include "model/ops/bf16_round_avx512.h"
#include "model/ops/cpu_gemm_engine.h"
#include "model/ops/engine_test_fixture.h"
#include "model/ops/gemm.h"
#include "model/ops/op_test_util.h"
#include "model/parity/parity_comparator.h"
#include "model/testing/gradient_check.h"

namespace bertlab {
namespace {

using testing::BitIdentical;
using testing::RandomVector;

// Every test runs on the oneDNN engine and puts the setting back.
class OneDnnGemmTest : public OnCpuGemmEngine<CpuGemmEngine::kOneDnn> {};

struct Case {
  Transpose transpose_a = Transpose::kNo;
  Transpose transpose_b = Transpose::kNo;
  int64_t m = 1, n = 1, k = 1;
  int64_t pad = 0;  // extra elements at the end of every stored row
  float alpha = 1.0f;
  float beta = 0.0f;
  bool nan_c = false;  // C starts as NaN (only meaningful with beta == 0)

  std::string Name() const {
    return absl::StrCat("ta=", transpose_a == Transpose::kYes,
                        " tb=", transpose_b == Transpose::kYes, " m=", m,
                        " n=", n, " k=", k, " pad=", pad, " alpha=", alpha,
                        " beta=", beta, nan_c ? " (C NaN)" : "");
  }
};

// Operands of a case, stored with its transposes and padding; the values are
// floats, so the double reference sees exactly what the float product sees.
struct Operands {
  int64_t lda, ldb, ldc;
  std::vector<float> a, b, c;
};

Operands MakeOperands(const Case& test_case, uint64_t seed) {
  Operands operands;
  const bool ta = test_case.transpose_a == Transpose::kYes;
  const bool tb = test_case.transpose_b == Transpose::kYes;
  const int64_t a_rows = ta ? test_case.k : test_case.m;
  const int64_t b_rows = tb ? test_case.n : test_case.k;
  operands.lda = (ta ? test_case.m : test_case.k) + test_case.pad;
  operands.ldb = (tb ? test_case.k : test_case.n) + test_case.pad;
  operands.ldc = test_case.n + test_case.pad;
  operands.a = testing::Cast<float>(RandomVector(a_rows * operands.lda, seed));
  operands.b =
      testing::Cast<float>(RandomVector(b_rows * operands.ldb, seed + 1));
  operands.c =
      testing::Cast<float>(RandomVector(test_case.m * operands.ldc, seed + 2));
  if (test_case.nan_c) {
    operands.c.assign(operands.c.size(),
                      std::numeric_limits<float>::quiet_NaN());
  }
  return operands;
}

// C's (M, N) region after C = alpha op(A) op(B) + beta C, in double; with
// bf16_inputs, of A and B rounded to bfloat16 first (what the bf16 engine
// multiplies, exactly representable in double).
std::vector<double> Reference(const Case& test_case, const Operands& operands,
                              bool bf16_inputs = false) {
  const auto input = [bf16_inputs](float value) -> double {
    return bf16_inputs ? Bf16ToFloat(FloatToBf16(value)) : value;
  };
  const int64_t m = test_case.m, n = test_case.n, k = test_case.k;
  // op(A) as (M, K) and op(B) transposed as (N, K), so each dot product
  // reads two contiguous rows.
  std::vector<double> a(m * k), b(n * k);
  for (int64_t i = 0; i < m; ++i) {
    for (int64_t p = 0; p < k; ++p) {
      a[i * k + p] = input(test_case.transpose_a == Transpose::kNo
                               ? operands.a[i * operands.lda + p]
                               : operands.a[p * operands.lda + i]);
    }
  }
  for (int64_t j = 0; j < n; ++j) {
    for (int64_t p = 0; p < k; ++p) {
      b[j * k + p] = input(test_case.transpose_b == Transpose::kNo
                               ? operands.b[p * operands.ldb + j]
                               : operands.b[j * operands.ldb + p]);
    }
  }
  std::vector<double> expected;
  for (int64_t i = 0; i < m; ++i) {
    for (int64_t j = 0; j < n; ++j) {
      double sum = 0;
      for (int64_t p = 0; p < k; ++p) sum += a[i * k + p] * b[j * k + p];
      const double before =
          test_case.beta == 0.0f ? 0.0 : operands.c[i * operands.ldc + j];
      expected.push_back(double{test_case.alpha} * sum +
                         double{test_case.beta} * before);
    }
  }
  return expected;
}

std::vector<float> Region(const Case& test_case, const std::vector<float>& c,
                          int64_t ldc) {
  std::vector<float> region;
  for (int64_t i = 0; i < test_case.m; ++i) {
    region.insert(region.end(), c.begin() + i * ldc,
                  c.begin() + i * ldc + test_case.n);
  }
  return region;
}

// The padding of C after each row, which no Gemm may touch.
std::vector<float> Padding(const Case& test_case, const std::vector<float>& c,
                           int64_t ldc) {
  std::vector<float> padding;
  for (int64_t i = 0; i < test_case.m; ++i) {
    padding.insert(padding.end(), c.begin() + i * ldc + test_case.n,
                   c.begin() + (i + 1) * ldc);
  }
  return padding;
}

// Runs the case through Gemm<float> (or OneDnnGemm itself) and checks it.
// In BF16 the reference multiplies the bf16-rounded inputs, so
// what is left to differ is the FP32 summation: float's eps * sqrt(K).
void CheckCase(const Case& test_case, bool through_gemm = true) {
  SCOPED_TRACE(test_case.Name());
  Operands operands = MakeOperands(test_case, 7);
  const std::vector<double> expected =
      Reference(test_case, operands,
                ActiveCpuGemmPrecision() == Precision::kBfloat16Mixed);
  const std::vector<float> padding_before =
      Padding(test_case, operands.c, operands.ldc);
  if (through_gemm) {
    Gemm<float>(test_case.transpose_a, test_case.transpose_b, test_case.m,
                test_case.n, test_case.k, test_case.alpha, operands.a.data(),
                operands.lda, operands.b.data(), operands.ldb, test_case.beta,
                operands.c.data(), operands.ldc);
  } else {
    OneDnnGemm(test_case.transpose_a, test_case.transpose_b, test_case.m,
               test_case.n, test_case.k, test_case.alpha, operands.a.data(),
               operands.lda, operands.b.data(), operands.ldb, test_case.beta,
               operands.c.data(), operands.ldc);
  }
  const ParityReport report =
      CompareParity("C", Region(test_case, operands.c, operands.ldc), expected,
                    ParityDtype::kFloat32, test_case.k);
  EXPECT_TRUE(report.ok) << report.message;
  EXPECT_TRUE(BitIdentical("C's padding", padding_before,
                           Padding(test_case, operands.c, operands.ldc)));
}

constexpr Transpose kTransposes[] = {Transpose::kNo, Transpose::kYes};

TEST_F(OneDnnGemmTest, MatchesTheDefinitionForEveryTransposeAndSize) {
  SetNumThreads(1);
  struct Shape {
    int64_t m, n, k;
  };
  const Shape shapes[] = {{1, 1, 1},  {1, 7, 13},  {13, 1, 37},
                          {13, 7, 1}, {13, 7, 37}, {65, 33, 129}};
  struct Scales {
    float alpha, beta;
  };
  const Scales scales[] = {
      {1.0f, 0.0f}, {0.5f, -2.0f}, {1.0f, 1.0f}, {-1.5f, 1.0f}, {0.125f, 0.0f}};
  for (Transpose ta : kTransposes) {
    for (Transpose tb : kTransposes) {
      for (const Shape& shape : shapes) {
        for (int64_t pad : {0, 3}) {
          for (const Scales& scale : scales) {
            CheckCase({ta, tb, shape.m, shape.n, shape.k, pad, scale.alpha,
                       scale.beta});
          }
        }
      }
    }
  }
}

TEST_F(OneDnnGemmTest, OneDnnGemmItselfMatchesTheDefinition) {
  for (Transpose ta : kTransposes) {
    for (Transpose tb : kTransposes) {
      CheckCase({ta, tb, 31, 17, 45, 5, 0.75f, -0.5f}, /*through_gemm=*/false);
    }
  }
}

TEST_F(OneDnnGemmTest, BetaZeroNeverReadsC) {
  SetNumThreads(1);
  for (Transpose ta : kTransposes) {
    for (Transpose tb : kTransposes) {
      for (float alpha : {1.0f, 0.5f}) {
        // The padding is NaN too and must stay so.
        CheckCase({ta, tb, 13, 7, 37, 3, alpha, 0.0f, /*nan_c=*/true});
      }
    }
  }
}

// Above 2^22 multiply-adds Gemm cuts the rows (m >= n) or the columns into
// fixed blocks, one call per block, spread over the pool: two blocks
// (multiples of 64), doubled while each keeps at least 256 rows and 2^26
// multiply-adds; the blocks below follow gemm_cpu.cc's rule. Remainder
// blocks and padded operands included.
constexpr Case kSplitCases[] = {
    // Rows in 2 blocks of 576: 576 + 524.
    {Transpose::kNo, Transpose::kNo, 1100, 129, 65, 2, 1.0f, 0.0f},
    // Columns in 2 blocks of 704: 704 + 596.
    {Transpose::kNo, Transpose::kNo, 97, 1300, 81, 1, 0.5f, 1.0f},
    // Rows in 2 blocks of 384: 384 + 316; beta neither 0 nor 1.
    {Transpose::kNo, Transpose::kNo, 700, 300, 70, 0, 1.0f, -1.0f},
    // Rows in 4 blocks of 320 (275M multiply-adds): 320 * 3 + 140.
    {Transpose::kNo, Transpose::kNo, 1100, 500, 500, 0, 1.0f, 0.0f},
};

// kSplitCases with the given transposes.
std::vector<Case> SplitCases(Transpose ta, Transpose tb) {
  std::vector<Case> cases;
  for (Case test_case : kSplitCases) {
    test_case.transpose_a = ta;
    test_case.transpose_b = tb;
    cases.push_back(test_case);
  }
  return cases;
}

// Every split case with every transpose, at 3 threads.
void CheckSplitCases() {
  SetNumThreads(3);
  for (Transpose ta : kTransposes) {
    for (Transpose tb : kTransposes) {
      for (const Case& test_case : SplitCases(ta, tb)) CheckCase(test_case);
    }
  }
}

TEST_F(OneDnnGemmTest, SplitProductsMatchTheDefinition) { CheckSplitCases(); }

// The fixed blocks make a split product's bits the same at every thread
// count, on every engine and in BF16 (where oneDNN has it), and a product
// too small to split is one call anyway.
TEST(GemmThreadsTest, ProductsAreTheSameBitsAtEveryThreadCount) {
  for (const CpuGemmMode& mode : kCpuGemmModes) {
    if (!CpuGemmModeAvailable(mode)) continue;
    const CpuGemmModeScope scope(mode);
    std::vector<Case> cases = SplitCases(Transpose::kNo, Transpose::kYes);
    const std::vector<Case> more = SplitCases(Transpose::kYes, Transpose::kNo);
    cases.insert(cases.end(), more.begin(), more.end());
    cases.push_back(
        {Transpose::kNo, Transpose::kNo, 63, 65, 33, 0, 1.0f, 0.0f});
    for (const Case& test_case : cases) {
      SCOPED_TRACE(absl::StrCat(mode.Name(), " ", test_case.Name()));
      const Operands operands = MakeOperands(test_case, 13);
      std::vector<float> one_thread;
      for (int threads : {1, 2, 3, 4}) {
        SetNumThreads(threads);
        std::vector<float> c = operands.c;
        Gemm<float>(test_case.transpose_a, test_case.transpose_b, test_case.m,
                    test_case.n, test_case.k, test_case.alpha,
                    operands.a.data(), operands.lda, operands.b.data(),
                    operands.ldb, test_case.beta, c.data(), operands.ldc);
        if (threads == 1) {
          one_thread = c;
        } else {
          EXPECT_TRUE(BitIdentical(absl::StrCat("C at ", threads, " threads"),
                                   c, one_thread));
        }
      }
    }
  }
}

TEST_F(OneDnnGemmTest, RepeatedCallsAreBitIdentical) {
  for (int threads : {1, 2}) {
    SetNumThreads(threads);
    for (const Case& test_case :
         {Case{Transpose::kNo, Transpose::kYes, 600, 200, 96, 0, 1.0f, 0.0f},
          Case{Transpose::kYes, Transpose::kNo, 13, 7, 37, 3, 0.5f, 1.0f}}) {
      SCOPED_TRACE(absl::StrCat(test_case.Name(), " threads=", threads));
      const Operands operands = MakeOperands(test_case, 11);
      std::vector<float> first = operands.c, second = operands.c;
      for (std::vector<float>* c : {&first, &second}) {
        Gemm<float>(test_case.transpose_a, test_case.transpose_b, test_case.m,
                    test_case.n, test_case.k, test_case.alpha,
                    operands.a.data(), operands.lda, operands.b.data(),
                    operands.ldb, test_case.beta, c->data(), operands.ldc);
      }
      EXPECT_TRUE(BitIdentical("C", first, second));
    }
  }
}

TEST_F(OneDnnGemmTest, TheSameProductTwiceMakesOnePrimitive) {
  SetNumThreads(1);
  const Case test_case{
      Transpose::kYes, Transpose::kNo, 19, 11, 23, 1, 1.0f, 0.0f};
  Operands operands = MakeOperands(test_case, 3);
  const auto run = [&](float alpha, float beta) {
    OneDnnGemm(test_case.transpose_a, test_case.transpose_b, test_case.m,
               test_case.n, test_case.k, alpha, operands.a.data(), operands.lda,
               operands.b.data(), operands.ldb, beta, operands.c.data(),
               operands.ldc);
  };
  const int64_t before = OneDnnMatmulPrimitivesCreated();
  run(1.0f, 0.0f);
  EXPECT_EQ(OneDnnMatmulPrimitivesCreated(), before + 1);
  run(1.0f, 0.0f);
  EXPECT_EQ(OneDnnMatmulPrimitivesCreated(), before + 1);
  // Another thread shares the cache.
  std::thread([&] { run(1.0f, 0.0f); }).join();
  EXPECT_EQ(OneDnnMatmulPrimitivesCreated(), before + 1);
  // Every alpha != 1 shares one primitive (a runtime scale), and so does
  // every beta != 0.
  run(0.5f, 0.0f);
  run(3.0f, 0.0f);
  EXPECT_EQ(OneDnnMatmulPrimitivesCreated(), before + 2);
  run(1.0f, 1.0f);
  run(1.0f, -2.0f);
  EXPECT_EQ(OneDnnMatmulPrimitivesCreated(), before + 3);
}

TEST_F(OneDnnGemmTest, DoubleStaysOnOpenBlas) {
  const std::vector<double> a = RandomVector(13 * 40, 1);
  const std::vector<double> b = RandomVector(7 * 40, 2);
  std::vector<double> on_onednn = RandomVector(13 * 10, 3);
  std::vector<double> on_openblas = on_onednn;
  const int64_t before = OneDnnMatmulPrimitivesCreated();
  Gemm<double>(Transpose::kNo, Transpose::kYes, 13, 7, 37, 0.5, a.data(), 40,
               b.data(), 40, -2.0, on_onednn.data(), 10);
  EXPECT_EQ(OneDnnMatmulPrimitivesCreated(), before);
  {
    const ScopedCpuGemmEngine openblas(CpuGemmEngine::kOpenBlas);
    Gemm<double>(Transpose::kNo, Transpose::kYes, 13, 7, 37, 0.5, a.data(), 40,
                 b.data(), 40, -2.0, on_openblas.data(), 10);
  }
  EXPECT_TRUE(BitIdentical("C", on_onednn, on_openblas));
}

TEST_F(OneDnnGemmTest, EmptyInnerDimensionScalesC) {
  std::vector<float> c = {1, 2, 3, 4};
  Gemm<float>(Transpose::kNo, Transpose::kNo, 2, 2, 0, 1.0f, nullptr, nullptr,
              3.0f, c.data());
  EXPECT_EQ(c, (std::vector<float>{3, 6, 9, 12}));
}

TEST(CpuGemmEngineTest, NamesParse) {
  for (CpuGemmEngine engine : kCpuGemmEngines) {
    const absl::StatusOr<CpuGemmEngine> parsed =
        ParseCpuGemmEngine(CpuGemmEngineName(engine));
    ASSERT_TRUE(parsed.ok()) << parsed.status();
    EXPECT_EQ(*parsed, engine);
  }
  EXPECT_EQ(CpuGemmEngineName(CpuGemmEngine::kOneDnn), "onednn");
  EXPECT_EQ(CpuGemmEngineName(CpuGemmEngine::kOpenBlas), "openblas");
  const absl::StatusOr<CpuGemmEngine> bad = ParseCpuGemmEngine("mkl");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(bad.status().message().find("use openblas or onednn"),
            std::string::npos)
      << bad.status();
}

// The answer depends on the CPU (false without AVX-512 on oneDNN 2.6); the
// probe must give one without crashing, the same each time.
TEST(OneDnnBf16Test, AvailabilityIsABoolAndStable) {
  const bool available = OneDnnBf16MatmulAvailable();
  EXPECT_EQ(OneDnnBf16MatmulAvailable(), available);
  std::cout << "oneDNN bf16 matmul on this CPU: "
            << (available ? "available" : "not available") << "\n";
}

// RoundMatrixToBf16 against common/half.h's scalar rounding, bit for bit:
// ties both ways, the carry into the exponent, overflow to infinity, the
// largest float, subnormals, signed zeros, infinities and NaNs (whose quiet
// bit must be set, so a payload cannot round to infinity), in a padded
// matrix whose padding is not read into the packed rows.
TEST(RoundMatrixToBf16Test, MatchesTheScalarRoundingBitForBit) {
  const uint32_t patterns[] = {
      0x3F800000u, 0x3F808000u, 0x3F818000u, 0x3F808001u, 0x3F807FFFu,
      0x3FFF8000u, 0x7F7F8000u, 0x7F7FFFFFu, 0xFF7FFFFFu, 0x7F800000u,
      0xFF800000u, 0x00000001u, 0x00008000u, 0x00018000u, 0x807FFFFFu,
      0x00000000u, 0x80000000u, 0x7FC00000u, 0x7F800001u, 0xFF800001u,
      0x7FFFFFFFu, 0xFFFFFFFFu, 0x40490FDBu, 0xC2F6E979u};
  constexpr int64_t kCols = 8, kPad = 3;
  const int64_t count = sizeof(patterns) / sizeof(patterns[0]);
  const int64_t rows = count / kCols;
  std::vector<float> source(rows * (kCols + kPad), 1234.5f);
  for (int64_t i = 0; i < count; ++i) {
    float value;
    std::memcpy(&value, &patterns[i], sizeof(value));
    source[(i / kCols) * (kCols + kPad) + i % kCols] = value;
  }
  std::vector<uint16_t> packed(rows * kCols, 0xBEEF);
  RoundMatrixToBf16(rows, kCols, source.data(), kCols + kPad, packed.data());
  for (int64_t i = 0; i < count; ++i) {
    float value;
    std::memcpy(&value, &patterns[i], sizeof(value));
    EXPECT_EQ(packed[i], FloatToBf16(value))
        << "float bits 0x" << std::hex << patterns[i];
  }
  // Spot values that pin the rule itself, not only agreement with half.h.
  EXPECT_EQ(packed[1], 0x3F80u);  // 1 + 2^-8: tie, even kept part stays
  EXPECT_EQ(packed[2], 0x3F82u);  // tie with an odd kept part rounds up
  EXPECT_EQ(packed[7], 0x7F80u);  // the largest float rounds to infinity
  EXPECT_EQ(packed[18] & 0x7FC0u, 0x7FC0u);  // a signalling NaN turns quiet
}

// Every upper half of a float (sign, exponent, top of the mantissa) with
// lower halves that sit below, at and above the halfway point, and at the
// ends: 65536 x 8 values, through both row kernels (the AVX-512 one where the
// CPU has it) in rows of every length from 1 to 40 (the vector tails), bit
// for bit against common/half.h.
TEST(RoundMatrixToBf16Test, BothKernelsMatchTheScalarRoundingEverywhere) {
  const uint32_t lower_halves[] = {0x0000u, 0x0001u, 0x7FFFu, 0x8000u,
                                   0x8001u, 0xFFFFu, 0x4321u, 0xC0DEu};
  std::vector<float> values;
  std::vector<uint16_t> expected;
  for (uint32_t upper = 0; upper < 0x10000u; ++upper) {
    for (const uint32_t lower : lower_halves) {
      const uint32_t bits = (upper << 16) | lower;
      float value;
      std::memcpy(&value, &bits, sizeof(value));
      values.push_back(value);
      expected.push_back(FloatToBf16(value));
    }
  }
  const int64_t count = static_cast<int64_t>(values.size());
  const bool avx512 = Bf16RoundAvx512Available();
  std::cout << "AVX-512 rounding kernel: "
            << (avx512 ? "checked" : "not on this CPU") << "\n";
  for (int kernel = 0; kernel < (avx512 ? 2 : 1); ++kernel) {
    std::vector<uint16_t> rounded(count, 0xBEEF);
    int64_t row_length = 1;
    for (int64_t begin = 0; begin < count; begin += row_length) {
      row_length = row_length % 40 + 1;
      const int64_t length = std::min(row_length, count - begin);
      if (kernel == 0) {
        RoundRowToBf16Baseline(&values[begin], length, &rounded[begin]);
      } else {
        RoundRowToBf16Avx512(&values[begin], length, &rounded[begin]);
      }
    }
    int64_t mismatches = 0;
    for (int64_t i = 0; i < count; ++i) {
      if (rounded[i] != expected[i] && ++mismatches <= 5) {
        uint32_t bits;
        std::memcpy(&bits, &values[i], sizeof(bits));
        ADD_FAILURE() << (kernel == 0 ? "baseline" : "AVX-512")
                      << " kernel: float bits 0x" << std::hex << bits
                      << " gave 0x" << rounded[i] << ", expected 0x"
                      << expected[i];
      }
    }
    EXPECT_EQ(mismatches, 0);
  }
}

// A row kernel writes its row and nothing past it (the AVX-512 tail is a
// masked store).
TEST(RoundMatrixToBf16Test, RowsEndWhereTheyEnd) {
  std::vector<float> source(64, 1.5f);
  for (int64_t length = 0; length <= 33; ++length) {
    std::vector<uint16_t> packed(64, 0xBEEF);
    RoundMatrixToBf16(1, length, source.data(), length, packed.data());
    for (int64_t i = 0; i < 64; ++i) {
      EXPECT_EQ(packed[i], i < length ? 0x3FC0u : 0xBEEFu)
          << "length " << length << ", element " << i;
    }
  }
}

// BF16 precision: oneDNN's bf16 matmul on the bf16 roundings of A and B,
// FP32 sums. Needs AVX-512 on oneDNN 2.6 (OneDnnBf16MatmulAvailable()), so
// on an AVX2-only CPU these tests say so and skip.
class OneDnnBf16GemmTest : public OnCpuGemmEngine<CpuGemmEngine::kOneDnn,
                                                  Precision::kBfloat16Mixed> {};

TEST_F(OneDnnBf16GemmTest, MultipliesTheBf16RoundingsInFp32) {
  SetNumThreads(1);
  for (Transpose ta : kTransposes) {
    for (Transpose tb : kTransposes) {
      for (int64_t pad : {0, 3}) {
        CheckCase({ta, tb, 1, 7, 13, pad, 1.0f, 0.0f});
        CheckCase({ta, tb, 13, 7, 37, pad, 0.5f, -2.0f});
        CheckCase({ta, tb, 65, 33, 129, pad, 1.0f, 1.0f});
        CheckCase({ta, tb, 13, 7, 37, pad, -1.5f, 0.0f, /*nan_c=*/true});
      }
    }
  }
}

// Products above 2^22 multiply-adds: the rounding and the matmul are both
// split over the pool.
TEST_F(OneDnnBf16GemmTest, SplitProductsMultiplyTheBf16Roundings) {
  CheckSplitCases();
}

// Not the f32 product: with inputs that bf16 cannot hold, the bf16 engine
// is farther from the unrounded product than float's bound allows, and
// within bf16's for two rounded operands (K = 2: the rounding errors of a
// K-long product's terms walk to the size of one rounding of the product,
// as ops_bf16_test.cc explains).
TEST_F(OneDnnBf16GemmTest, DiffersFromTheFloatProductByBf16Rounding) {
  SetNumThreads(1);
  const Case test_case{
      Transpose::kNo, Transpose::kYes, 32, 48, 256, 0, 1.0f, 0.0f};
  Operands operands = MakeOperands(test_case, 5);
  const std::vector<double> unrounded = Reference(test_case, operands);
  Gemm<float>(test_case.transpose_a, test_case.transpose_b, test_case.m,
              test_case.n, test_case.k, 1.0f, operands.a.data(), operands.lda,
              operands.b.data(), operands.ldb, 0.0f, operands.c.data(),
              operands.ldc);
  const std::vector<float> c = Region(test_case, operands.c, operands.ldc);
  EXPECT_FALSE(
      CompareParity("C", c, unrounded, ParityDtype::kFloat32, test_case.k).ok);
  const ParityReport bf16 =
      CompareParity("C", c, unrounded, ParityDtype::kBFloat16, 2);
  EXPECT_TRUE(bf16.ok) << bf16.message;
}

TEST_F(OneDnnBf16GemmTest, RepeatedCallsAreBitIdentical) {
  for (int threads : {1, 2}) {
    SetNumThreads(threads);
    const Case test_case{
        Transpose::kNo, Transpose::kYes, 600, 200, 96, 0, 1.0f, 0.0f};
    SCOPED_TRACE(absl::StrCat(test_case.Name(), " threads=", threads));
    const Operands operands = MakeOperands(test_case, 11);
    std::vector<float> first = operands.c, second = operands.c;
    for (std::vector<float>* c : {&first, &second}) {
      Gemm<float>(test_case.transpose_a, test_case.transpose_b, test_case.m,
                  test_case.n, test_case.k, test_case.alpha, operands.a.data(),
                  operands.lda, operands.b.data(), operands.ldb, test_case.beta,
                  c->data(), operands.ldc);
    }
    EXPECT_TRUE(BitIdentical("C", first, second));
  }
}

}  // namespace
}  // namespace bertlab
