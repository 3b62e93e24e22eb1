// Philox4x32-10: the counter-based random number generator of Salmon, Moraes,
// Dror and Shaw, "Parallel random numbers: as easy as 1, 2, 3" (SC'11), bit for
// bit the same as Random123's philox4x32_R(10, ctr, key) and cuRAND's
// Philox4_32_10 block function.
//
// One block maps a 128-bit counter and a 64-bit key to 128 random bits through
// 10 rounds of
//   (hi0, lo0) = mulhilo(0xD2511F53, c0)
//   (hi1, lo1) = mulhilo(0xCD9E8D57, c2)
//   c' = {hi1 ^ c1 ^ k0, lo1, hi0 ^ c3 ^ k1, lo0}
// with the key bumped by the Weyl increments (0x9E3779B9, 0xBB67AE85) before
// every round after the first. There is no state: any block is computed on its
// own, which is what lets a CUDA kernel (or a CPU thread) produce element i of
// a random tensor without producing elements 0..i-1 first.
//
// Stream convention ("the i-th random number of stream (seed, step, tensor)"):
//   key     = {seed & 0xffffffff, seed >> 32}
//   counter = {(i / 4) & 0xffffffff, (i / 4) >> 32, step, tensor_id}
//   bits(i) = Philox4x32_10(counter, key)[i % 4]
//   uniform(i) = (bits(i) >> 8) * 2^-24           in [0, 1), 24-bit resolution
// So a dropout mask depends only on (seed, step, tensor_id, element index),
// never on thread count, chunking, device or the order in which elements are
// drawn. Every consumer of random numbers gets its own tensor_id; the training
// step goes in `step`, so no two (step, tensor) pairs share counters.
//
// Everything here is header-only and BERTLAB_HOST_DEVICE, with no dependencies
// beyond <cstdint>, so nvcc compiles the same code for kernels
// (common/philox_cuda.cu).
#ifndef BERTLAB_COMMON_PHILOX_H_
#define BERTLAB_COMMON_PHILOX_H_

#include <cstdint>

#include "common/host_device.h"

namespace bertlab {

struct PhiloxKey {
  uint32_t k[2];
};

struct PhiloxCounter {
  uint32_t c[4];
};

// The 128 output bits of one block, as four 32-bit words.
struct PhiloxBlock {
  uint32_t v[4];
};

// Names one random stream; see the convention at the top of this file.
struct PhiloxStream {
  uint64_t seed = 0;
  uint32_t step = 0;
  uint32_t tensor_id = 0;
};

namespace philox_internal {

// Round multipliers and Weyl key increments of Philox4x32 from the paper.
constexpr uint32_t kMultiplier0 = 0xD2511F53u;
constexpr uint32_t kMultiplier1 = 0xCD9E8D57u;
constexpr uint32_t kWeyl0 = 0x9E3779B9u;  // golden ratio
constexpr uint32_t kWeyl1 = 0xBB67AE85u;  // sqrt(3) - 1

BERTLAB_HOST_DEVICE inline uint32_t MulHi(uint32_t a, uint32_t b) {
#ifdef __CUDA_ARCH__
  return __umulhi(a, b);
#else
  return static_cast<uint32_t>((static_cast<uint64_t>(a) * b) >> 32);
#endif
}

BERTLAB_HOST_DEVICE inline PhiloxCounter Round(PhiloxCounter counter,
                                               PhiloxKey key) {
  const uint32_t hi0 = MulHi(kMultiplier0, counter.c[0]);
  const uint32_t lo0 = kMultiplier0 * counter.c[0];
  const uint32_t hi1 = MulHi(kMultiplier1, counter.c[2]);
  const uint32_t lo1 = kMultiplier1 * counter.c[2];
  PhiloxCounter out;
  out.c[0] = hi1 ^ counter.c[1] ^ key.k[0];
  out.c[1] = lo1;
  out.c[2] = hi0 ^ counter.c[3] ^ key.k[1];
  out.c[3] = lo0;
  return out;
}

BERTLAB_HOST_DEVICE inline PhiloxKey BumpKey(PhiloxKey key) {
  key.k[0] += kWeyl0;
  key.k[1] += kWeyl1;
  return key;
}

}  // namespace philox_internal

// The Philox4x32 block function with 10 rounds.
BERTLAB_HOST_DEVICE inline PhiloxBlock Philox4x32_10(PhiloxCounter counter,
                                                     PhiloxKey key) {
  counter = philox_internal::Round(counter, key);
  for (int round = 1; round < 10; ++round) {
    key = philox_internal::BumpKey(key);
    counter = philox_internal::Round(counter, key);
  }
  PhiloxBlock block;
  for (int word = 0; word < 4; ++word) block.v[word] = counter.c[word];
  return block;
}

// Maps 32 random bits to a float in [0, 1): the top 24 bits times 2^-24. Every
// value is exact in float (24-bit mantissa); the largest is 1 - 2^-24.
BERTLAB_HOST_DEVICE inline float PhiloxBitsToUniform(uint32_t bits) {
  return static_cast<float>(bits >> 8) * (1.0f / 16777216.0f);
}

BERTLAB_HOST_DEVICE inline PhiloxKey PhiloxKeyForSeed(uint64_t seed) {
  PhiloxKey key;
  key.k[0] = static_cast<uint32_t>(seed);
  key.k[1] = static_cast<uint32_t>(seed >> 32);
  return key;
}

// The counter of the block holding elements [4 * block_index, 4 * block_index +
// 4).
BERTLAB_HOST_DEVICE inline PhiloxCounter PhiloxCounterForBlock(
    const PhiloxStream& stream, uint64_t block_index) {
  PhiloxCounter counter;
  counter.c[0] = static_cast<uint32_t>(block_index);
  counter.c[1] = static_cast<uint32_t>(block_index >> 32);
  counter.c[2] = stream.step;
  counter.c[3] = stream.tensor_id;
  return counter;
}

// Elements [4 * block_index, 4 * block_index + 4) of `stream` as raw bits.
BERTLAB_HOST_DEVICE inline PhiloxBlock PhiloxStreamBlock(
    const PhiloxStream& stream, uint64_t block_index) {
  return Philox4x32_10(PhiloxCounterForBlock(stream, block_index),
                       PhiloxKeyForSeed(stream.seed));
}

// The 32 random bits of element `index` of `stream`.
BERTLAB_HOST_DEVICE inline uint32_t PhiloxBits(const PhiloxStream& stream,
                                               uint64_t index) {
  return PhiloxStreamBlock(stream, index / 4).v[index % 4];
}

// Element `index` of `stream` as a uniform float in [0, 1).
BERTLAB_HOST_DEVICE inline float PhiloxUniform(const PhiloxStream& stream,
                                               uint64_t index) {
  return PhiloxBitsToUniform(PhiloxBits(stream, index));
}

// out[j] = PhiloxUniform(stream, first + j) for j in [0, count): one block per
// four elements, so a bulk fill costs a quarter of `count` single draws. Any
// `first` is allowed, which lets callers split a fill across threads freely.
BERTLAB_HOST_DEVICE inline void PhiloxFillUniform(const PhiloxStream& stream,
                                                  uint64_t first,
                                                  uint64_t count, float* out) {
  // One block per iteration; only the first and last may be partial.
  uint64_t j = 0;
  while (j < count) {
    const uint64_t index = first + j;
    const PhiloxBlock block = PhiloxStreamBlock(stream, index / 4);
    for (uint32_t lane = index % 4; lane < 4 && j < count; ++lane, ++j) {
      out[j] = PhiloxBitsToUniform(block.v[lane]);
    }
  }
}

}  // namespace bertlab

#endif  // BERTLAB_COMMON_PHILOX_H_
