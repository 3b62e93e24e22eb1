#include "common/sha256.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "common/check.h"

namespace bertlab {
namespace {

// FIPS 180-4 section 4.2.2: the first 32 bits of the fractional parts of the
// cube roots of the first 64 primes.
constexpr uint32_t kRoundConstants[64] = {
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1,
    0x923f82a4, 0xab1c5ed5, 0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3,
    0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174, 0xe49b69c1, 0xefbe4786,
    0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
    0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147,
    0x06ca6351, 0x14292967, 0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13,
    0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85, 0xa2bfe8a1, 0xa81a664b,
    0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
    0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a,
    0x5b9cca4f, 0x682e6ff3, 0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208,
    0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
};

// FIPS 180-4 section 5.3.3: the first 32 bits of the fractional parts of the
// square roots of the first 8 primes.
constexpr std::array<uint32_t, 8> kInitialState = {
    0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
    0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19,
};

constexpr size_t kFileChunkBytes = size_t{1} << 20;

inline uint32_t RotateRight(uint32_t x, int n) {
  return (x >> n) | (x << (32 - n));
}

inline uint32_t LoadBigEndian32(const uint8_t* bytes) {
  return (uint32_t{bytes[0]} << 24) | (uint32_t{bytes[1]} << 16) |
         (uint32_t{bytes[2]} << 8) | uint32_t{bytes[3]};
}

inline void StoreBigEndian32(uint32_t value, uint8_t* bytes) {
  bytes[0] = static_cast<uint8_t>(value >> 24);
  bytes[1] = static_cast<uint8_t>(value >> 16);
  bytes[2] = static_cast<uint8_t>(value >> 8);
  bytes[3] = static_cast<uint8_t>(value);
}

// Closes a file descriptor when it goes out of scope.
class FdCloser {
 public:
  explicit FdCloser(int fd) : fd_(fd) {}
  FdCloser(const FdCloser&) = delete;
  FdCloser& operator=(const FdCloser&) = delete;
  ~FdCloser() { ::close(fd_); }

 private:
  int fd_;
};

}  // namespace

Sha256::Sha256() { Reset(); }

void Sha256::Reset() {
  state_ = kInitialState;
  buffer_size_ = 0;
  message_bytes_ = 0;
  finished_ = false;
}

// FIPS 180-4 section 6.2.2, steps 1 to 4, for one 64-byte block.
void Sha256::ProcessBlock(const uint8_t* block) {
  uint32_t schedule[64];
  for (int t = 0; t < 16; ++t) schedule[t] = LoadBigEndian32(block + 4 * t);
  for (int t = 16; t < 64; ++t) {
    const uint32_t w15 = schedule[t - 15];
    const uint32_t w2 = schedule[t - 2];
    const uint32_t sigma0 =
        RotateRight(w15, 7) ^ RotateRight(w15, 18) ^ (w15 >> 3);
    const uint32_t sigma1 =
        RotateRight(w2, 17) ^ RotateRight(w2, 19) ^ (w2 >> 10);
    schedule[t] = sigma1 + schedule[t - 7] + sigma0 + schedule[t - 16];
  }

  uint32_t a = state_[0], b = state_[1], c = state_[2], d = state_[3];
  uint32_t e = state_[4], f = state_[5], g = state_[6], h = state_[7];
  for (int t = 0; t < 64; ++t) {
    const uint32_t big_sigma1 =
        RotateRight(e, 6) ^ RotateRight(e, 11) ^ RotateRight(e, 25);
    const uint32_t choose = (e & f) ^ (~e & g);
    const uint32_t temp1 =
        h + big_sigma1 + choose + kRoundConstants[t] + schedule[t];
    const uint32_t big_sigma0 =
        RotateRight(a, 2) ^ RotateRight(a, 13) ^ RotateRight(a, 22);
    const uint32_t majority = (a & b) ^ (a & c) ^ (b & c);
    const uint32_t temp2 = big_sigma0 + majority;
    h = g;
    g = f;
    f = e;
    e = d + temp1;
    d = c;
    c = b;
    b = a;
    a = temp1 + temp2;
  }
  state_[0] += a;
  state_[1] += b;
  state_[2] += c;
  state_[3] += d;
  state_[4] += e;
  state_[5] += f;
  state_[6] += g;
  state_[7] += h;
}

void Sha256::Update(absl::string_view data) {
  CHECK(!finished_) << "Sha256::Update after Finish; call Reset first";
  const uint8_t* bytes = reinterpret_cast<const uint8_t*>(data.data());
  size_t remaining = data.size();
  message_bytes_ += remaining;

  if (buffer_size_ > 0) {
    const size_t take = std::min(remaining, kBlockBytes - buffer_size_);
    std::memcpy(buffer_.data() + buffer_size_, bytes, take);
    buffer_size_ += take;
    bytes += take;
    remaining -= take;
    if (buffer_size_ < kBlockBytes) return;
    ProcessBlock(buffer_.data());
    buffer_size_ = 0;
  }
  // Whole blocks straight from the caller's memory, without copying.
  while (remaining >= kBlockBytes) {
    ProcessBlock(bytes);
    bytes += kBlockBytes;
    remaining -= kBlockBytes;
  }
  if (remaining > 0) {
    std::memcpy(buffer_.data(), bytes, remaining);
    buffer_size_ = remaining;
  }
}

// FIPS 180-4 section 5.1.1: append 0x80, zeros up to 56 mod 64 bytes, then
// the message length in bits as a 64-bit big-endian integer.
Sha256::Digest Sha256::Finish() {
  CHECK(!finished_) << "Sha256::Finish called twice; call Reset first";
  const uint64_t message_bits = message_bytes_ * 8;
  buffer_[buffer_size_++] = 0x80;
  if (buffer_size_ > kBlockBytes - 8) {
    std::memset(buffer_.data() + buffer_size_, 0, kBlockBytes - buffer_size_);
    ProcessBlock(buffer_.data());
    buffer_size_ = 0;
  }
  std::memset(buffer_.data() + buffer_size_, 0, kBlockBytes - 8 - buffer_size_);
  StoreBigEndian32(static_cast<uint32_t>(message_bits >> 32),
                   buffer_.data() + kBlockBytes - 8);
  StoreBigEndian32(static_cast<uint32_t>(message_bits),
                   buffer_.data() + kBlockBytes - 4);
  ProcessBlock(buffer_.data());
  buffer_size_ = 0;
  finished_ = true;

  Digest digest;
  for (int i = 0; i < 8; ++i)
    StoreBigEndian32(state_[i], digest.data() + 4 * i);
  return digest;
}

std::string DigestToHex(const Sha256::Digest& digest) {
  static constexpr char kHexDigits[] = "0123456789abcdef";
  std::string hex(2 * digest.size(), '\0');
  for (size_t i = 0; i < digest.size(); ++i) {
    hex[2 * i] = kHexDigits[digest[i] >> 4];
    hex[2 * i + 1] = kHexDigits[digest[i] & 0xf];
  }
  return hex;
}

std::string Sha256Hex(absl::string_view data) {
  Sha256 hasher;
  hasher.Update(data);
  return DigestToHex(hasher.Finish());
}

absl::StatusOr<std::string> Sha256FileHex(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    return absl::ErrnoToStatus(errno, absl::StrCat("cannot open ", path));
  }
  FdCloser closer(fd);
  std::vector<char> chunk(kFileChunkBytes);
  Sha256 hasher;
  while (true) {
    const ssize_t got = ::read(fd, chunk.data(), chunk.size());
    if (got < 0) {
      if (errno == EINTR) continue;
      return absl::ErrnoToStatus(errno, absl::StrCat("cannot read ", path));
    }
    if (got == 0) break;
    hasher.Update(absl::string_view(chunk.data(), static_cast<size_t>(got)));
  }
  return DigestToHex(hasher.Finish());
}

}  // namespace bertlab
