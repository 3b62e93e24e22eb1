#include "model/ops/bf16_round.h"

#include <cstdint>
#include <cstring>

#include "model/ops/bf16_round_avx512.h"

namespace bertlab {
namespace {

// FloatToBf16 without branches: adding 0x7FFF plus the kept part's lowest
// bit carries into bit 16 exactly when the dropped half is above halfway,
// or at halfway with an odd kept part (ties to even). No finite or infinite
// input can overflow 32 bits that way; NaNs, which could, take the other
// arm: truncated with the quiet bit set.
inline uint16_t RoundBitsToBf16(uint32_t bits) {
  const uint32_t rounded = (bits + 0x7FFFu + ((bits >> 16) & 1u)) >> 16;
  const uint32_t quiet_nan = (bits >> 16) | 0x0040u;
  return static_cast<uint16_t>((bits & 0x7FFFFFFFu) > 0x7F800000u ? quiet_nan
                                                                  : rounded);
}

}  // namespace

void RoundRowToBf16Baseline(const float* from, int64_t count, uint16_t* to) {
  for (int64_t i = 0; i < count; ++i) {
    uint32_t bits;
    std::memcpy(&bits, from + i, sizeof(bits));
    to[i] = RoundBitsToBf16(bits);
  }
}

void RoundMatrixToBf16(int64_t rows, int64_t cols, const float* source,
                       int64_t ld, uint16_t* destination) {
  static const bool kAvx512 = Bf16RoundAvx512Available();
  for (int64_t row = 0; row < rows; ++row) {
    if (kAvx512) {
      RoundRowToBf16Avx512(source + row * ld, cols, destination + row * cols);
    } else {
      RoundRowToBf16Baseline(source + row * ld, cols, destination + row * cols);
    }
  }
}

}  // namespace bertlab
