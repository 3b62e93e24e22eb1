// Host-side bf16 vectors for the GPU parity tests: float <-> Bf16 (the
// layout of __nv_bfloat16, model/cuda/bf16.h) through common/half.h's
// round-to-nearest-even conversion, the same rounding as the GPU's
// (precision_cast_rounding_test), and their device copies. The Storage
// templates serve code generic over a tensor's storage type, float or Bf16.
// Test-only, header-only.
#ifndef BERTLAB_MODEL_CUDA_BF16_TEST_UTIL_H_
#define BERTLAB_MODEL_CUDA_BF16_TEST_UTIL_H_

#include <string>
#include <type_traits>
#include <vector>

#include "common/half.h"
#include "model/cuda/bf16.h"
#include "model/cuda/device_buffer.h"

namespace bertlab {

inline std::vector<Bf16> ToBf16(const std::vector<float>& values) {
  std::vector<Bf16> out(values.size());
  for (size_t i = 0; i < values.size(); ++i) {
    out[i].bits = FloatToBf16(values[i]);
  }
  return out;
}

inline std::vector<float> FromBf16(const std::vector<Bf16>& values) {
  std::vector<float> out(values.size());
  for (size_t i = 0; i < values.size(); ++i) {
    out[i] = Bf16ToFloat(values[i].bits);
  }
  return out;
}

// values rounded to bf16 and back: the CPU reference's view of what a bf16
// GPU tensor holds.
inline std::vector<float> RoundToBf16(const std::vector<float>& values) {
  return FromBf16(ToBf16(values));
}

// A parity test's inputs: float as drawn, or rounded to bf16 (what a bf16 GPU
// tensor holds, on the CPU side too, so that the CPU float op on them is the
// exact-arithmetic reference of the bf16 twin).
enum class InputRounding { kNone, kBf16 };

// The rounding of a GPU tensor of storage type Storage (float or Bf16).
template <typename Storage>
constexpr InputRounding RoundingOf() {
  return std::is_same<Storage, float>::value ? InputRounding::kNone
                                             : InputRounding::kBf16;
}

// values as `rounding` says.
inline std::vector<float> RoundInputs(InputRounding rounding,
                                      const std::vector<float>& values) {
  return rounding == InputRounding::kBf16 ? RoundToBf16(values) : values;
}

// values in storage type Storage: float as they are, Bf16 rounded.
template <typename Storage>
std::vector<Storage> ToStorage(const std::vector<float>& values);
template <>
inline std::vector<float> ToStorage<float>(const std::vector<float>& values) {
  return values;
}
template <>
inline std::vector<Bf16> ToStorage<Bf16>(const std::vector<float>& values) {
  return ToBf16(values);
}

// Stored values as float: float as they are, Bf16 widened exactly.
inline std::vector<float> ToFloat(const std::vector<float>& values) {
  return values;
}
inline std::vector<float> ToFloat(const std::vector<Bf16>& values) {
  return FromBf16(values);
}

// A device copy of `values` rounded to bf16.
inline DeviceBuffer<Bf16> DeviceBf16(const std::string& name,
                                     const std::vector<float>& values) {
  return DeviceBuffer<Bf16>(name, ToBf16(values));
}

// A device buffer's values as float (ToFloat of its host copy).
template <typename Storage>
std::vector<float> HostFloats(const DeviceBuffer<Storage>& buffer) {
  return ToFloat(buffer.ToHost());
}

}  // namespace bertlab

#endif  // BERTLAB_MODEL_CUDA_BF16_TEST_UTIL_H_
