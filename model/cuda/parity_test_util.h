// Helpers shared by the CUDA-vs-CPU parity tests (and the host tests that use
// the same comparator, e.g. model/ops/flash_attention_tile_test): seeded
// random inputs, the one comparator (parity_comparator.h) as a gtest
// expectation, and bitwise equality. Plain C++ (no CUDA), test-only,
// header-only.
#ifndef BERTLAB_MODEL_CUDA_PARITY_TEST_UTIL_H_
#define BERTLAB_MODEL_CUDA_PARITY_TEST_UTIL_H_

#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "model/parity/parity_comparator.h"

namespace bertlab {

// The comparisons' dtypes, by their short names.
inline constexpr ParityDtype kF32 = ParityDtype::kFloat32;
inline constexpr ParityDtype kBF16 = ParityDtype::kBFloat16;

// n values from N(0, scale^2), drawn by std::mt19937(seed).
inline std::vector<float> RandomNormal(int64_t n, uint32_t seed,
                                       float scale = 1.0f) {
  std::mt19937 engine(seed);
  std::normal_distribution<float> normal(0.0f, scale);
  std::vector<float> values(static_cast<size_t>(n));
  for (float& value : values) value = normal(engine);
  return values;
}

// n values uniform in [low, high), drawn by std::mt19937(seed).
inline std::vector<float> RandomUniform(int64_t n, uint32_t seed, float low,
                                        float high) {
  std::mt19937 engine(seed);
  std::uniform_real_distribution<float> uniform(low, high);
  std::vector<float> values(static_cast<size_t>(n));
  for (float& value : values) value = uniform(engine);
  return values;
}

// n ids uniform in [0, limit), drawn by std::mt19937(seed).
inline std::vector<int32_t> RandomIds(int64_t n, int32_t limit, uint32_t seed) {
  std::mt19937 engine(seed);
  std::uniform_int_distribution<int32_t> uniform(0, limit - 1);
  std::vector<int32_t> ids(static_cast<size_t>(n));
  for (int32_t& id : ids) id = uniform(engine);
  return ids;
}

// CompareParity(name, actual, expected, dtype, reduction_length) as a gtest
// expectation; the report's message on failure.
template <typename Actual, typename Expected>
void ExpectParity(const std::string& name, const std::vector<Actual>& actual,
                  const std::vector<Expected>& expected, ParityDtype dtype,
                  int64_t reduction_length) {
  const ParityReport report =
      CompareParity(name, actual, expected, dtype, reduction_length);
  EXPECT_TRUE(report.ok) << report.message;
}

// One value (a loss) against its reference, as above.
inline void ExpectParity(const std::string& name, float actual, float expected,
                         ParityDtype dtype, int64_t reduction_length) {
  ExpectParity(name, std::vector<float>{actual}, std::vector<float>{expected},
               dtype, reduction_length);
}

// Whether x and y hold the same bytes (distinguishes -0 from +0 and compares
// NaNs by their bits).
template <typename T>
bool BitIdentical(const std::vector<T>& x, const std::vector<T>& y) {
  return x.size() == y.size() &&
         std::memcmp(x.data(), y.data(), x.size() * sizeof(T)) == 0;
}

// Bitwise equality as a gtest expectation that names the first differing
// element.
inline void ExpectBitIdentical(const std::string& name,
                               const std::vector<float>& actual,
                               const std::vector<float>& expected) {
  ASSERT_EQ(actual.size(), expected.size()) << name;
  for (size_t i = 0; i < actual.size(); ++i) {
    if (std::memcmp(&actual[i], &expected[i], sizeof(float)) != 0) {
      ADD_FAILURE() << name << " first differs at [" << i << "]: " << actual[i]
                    << " vs " << expected[i];
      return;
    }
  }
}

}  // namespace bertlab

#endif  // BERTLAB_MODEL_CUDA_PARITY_TEST_UTIL_H_
