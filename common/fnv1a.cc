#include "common/fnv1a.h"

#include "absl/strings/str_format.h"

namespace bertlab {

uint64_t Fnv1a64(absl::string_view bytes, uint64_t hash) {
  constexpr uint64_t kPrime = 0x100000001b3ULL;
  for (char byte : bytes) {
    hash ^= static_cast<uint8_t>(byte);
    hash *= kPrime;
  }
  return hash;
}

std::string Fnv1a64Hex(uint64_t hash) { return absl::StrFormat("%016x", hash); }

}  // namespace bertlab
