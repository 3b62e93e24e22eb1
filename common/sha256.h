// SHA-256 as specified in FIPS 180-4 (Secure Hash Standard), section 6.2:
// 512-bit blocks, 64 rounds over eight 32-bit working variables, message
// padded with a 1 bit, zeros and the 64-bit big-endian bit length so that
// its length is a multiple of 512 bits.
//
// Used to put content hashes into artifacts (STYLE.md rule 12), so that a
// consumer can compare the hash it expects with the one it finds.
//
//   Sha256 hasher;
//   hasher.Update(header);
//   hasher.Update(payload);
//   const Sha256::Digest digest = hasher.Finish();
//   std::string hex = Sha256Hex("abc");  // "ba7816bf..."
#ifndef BERTLAB_COMMON_SHA256_H_
#define BERTLAB_COMMON_SHA256_H_

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace bertlab {

// Incremental hasher: any split of the input into Update calls gives the
// same digest as one call with all of it.
class Sha256 {
 public:
  static constexpr size_t kDigestBytes = 32;
  static constexpr size_t kBlockBytes = 64;
  using Digest = std::array<uint8_t, kDigestBytes>;

  Sha256();

  void Update(absl::string_view data);

  // Pads, returns the digest and leaves the hasher finished: calling Update
  // or Finish again is a bug (CHECK) until Reset.
  Digest Finish();

  // Starts a new message.
  void Reset();

 private:
  void ProcessBlock(const uint8_t* block);

  std::array<uint32_t, 8> state_;
  std::array<uint8_t, kBlockBytes> buffer_;
  size_t buffer_size_;      // bytes of buffer_ in use, < kBlockBytes
  uint64_t message_bytes_;  // total bytes passed to Update
  bool finished_;
};

// The 64 lowercase hex characters of `digest`.
std::string DigestToHex(const Sha256::Digest& digest);

// The lowercase hex SHA-256 of `data`.
std::string Sha256Hex(absl::string_view data);

// The lowercase hex SHA-256 of the file at `path`, read in 1 MiB chunks so
// that memory stays bounded for any file size. Errors name the path and the
// strerror text (NotFound for a missing file).
absl::StatusOr<std::string> Sha256FileHex(const std::string& path);

}  // namespace bertlab

#endif  // BERTLAB_COMMON_SHA256_H_
