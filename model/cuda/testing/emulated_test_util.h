// Helpers of the emulated kernel tests (model/*/*_emulated_test.cc): storage
// conversions between float and the kernels' element types, NaN-filled
// outputs (an element a kernel never writes stays NaN and fails the
// comparator), and the schedules (simt::Schedule) every launch sequence runs
// in, whose outputs must agree bit for bit.
// Test-only, g++ only: include after simt_emulator.h.
#ifndef BERTLAB_MODEL_CUDA_TESTING_EMULATED_TEST_UTIL_H_
#define BERTLAB_MODEL_CUDA_TESTING_EMULATED_TEST_UTIL_H_

#include <cstdint>
#include <limits>
#include <type_traits>
#include <vector>

#include "common/half.h"
#include "model/cuda/testing/simt_emulator.h"

namespace bertlab {
namespace emulated {

// The storage of float values as T (bf16: rounded to nearest even).
template <typename T>
std::vector<T> ToStorage(const std::vector<float>& values) {
  std::vector<T> out(values.size());
  for (size_t i = 0; i < values.size(); ++i) {
    if constexpr (std::is_same_v<T, __nv_bfloat16>) {
      out[i] = __float2bfloat16_rn(values[i]);
    } else {
      out[i] = static_cast<T>(values[i]);
    }
  }
  return out;
}

inline float StorageToFloat(float x) { return x; }
inline float StorageToFloat(__nv_bfloat16 x) { return __bfloat162float(x); }

template <typename T>
std::vector<float> ToFloats(const std::vector<T>& values) {
  std::vector<float> out(values.size());
  for (size_t i = 0; i < values.size(); ++i) out[i] = StorageToFloat(values[i]);
  return out;
}

// The values as they are after a round trip through T (what a kernel reads).
template <typename T>
std::vector<float> Rounded(const std::vector<float>& values) {
  return ToFloats(ToStorage<T>(values));
}

template <typename T>
std::vector<double> ToDoubles(const std::vector<T>& values) {
  std::vector<double> out(values.size());
  for (size_t i = 0; i < values.size(); ++i) {
    out[i] = static_cast<double>(StorageToFloat(values[i]));
  }
  return out;
}

// n elements of NaN in T.
template <typename T>
std::vector<T> NaNs(int64_t n) {
  return ToStorage<T>(std::vector<float>(
      static_cast<size_t>(n), std::numeric_limits<float>::quiet_NaN()));
}

inline simt::LaunchOptions Order(simt::Schedule schedule) {
  simt::LaunchOptions options;
  options.schedule = schedule;
  return options;
}

// The schedules after kForward: a test runs kForward, checks its results,
// then expects these to give the same bits.
inline constexpr simt::Schedule kOtherSchedules[] = {
    simt::Schedule::kReverse, simt::Schedule::kWarpByWarp,
    simt::Schedule::kWarpByWarpReverse};

inline constexpr simt::Schedule kSchedules[] = {
    simt::Schedule::kForward, simt::Schedule::kReverse,
    simt::Schedule::kWarpByWarp, simt::Schedule::kWarpByWarpReverse};

}  // namespace emulated
}  // namespace bertlab

#endif  // BERTLAB_MODEL_CUDA_TESTING_EMULATED_TEST_UTIL_H_
