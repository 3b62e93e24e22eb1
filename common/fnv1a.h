// FNV-1a 64: the project's fast non-cryptographic content hash (run ids,
// cache keys, shard record checksums, the vocabulary's content hash). Not
// for anything an adversary chooses; SHA-256 (common/sha256.h) names files
// by content where that matters.
//
//   uint64_t hash = Fnv1a64("corpus:");
//   hash = Fnv1a64(text, hash);  // continue over more bytes
//   const std::string id = Fnv1a64Hex(hash);  // "0123456789abcdef"
#ifndef BERTLAB_COMMON_FNV1A_H_
#define BERTLAB_COMMON_FNV1A_H_

#include <cstdint>
#include <string>

#include "absl/strings/string_view.h"

namespace bertlab {

// FNV-1a 64 of `bytes`, continuing from `hash` (start with kFnv1a64Offset).
inline constexpr uint64_t kFnv1a64Offset = 0xcbf29ce484222325ULL;
uint64_t Fnv1a64(absl::string_view bytes, uint64_t hash = kFnv1a64Offset);

// `hash` as 16 lower-case hex digits, zero-padded: how run ids and cache
// keys are written.
std::string Fnv1a64Hex(uint64_t hash);

}  // namespace bertlab

#endif  // BERTLAB_COMMON_FNV1A_H_
