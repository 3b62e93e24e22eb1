// SplitMix64 (Steele, Lea and Flood 2014; the finaliser of java.util's
// SplittableRandom): turns one run seed into independent seeds for separate
// uses (initialisation, dropout, data order), so no two uses share a Philox
// stream.
#ifndef BERTLAB_COMMON_SPLIT_MIX_H_
#define BERTLAB_COMMON_SPLIT_MIX_H_

#include <stdint.h>

namespace bertlab {

inline uint64_t SplitMix64(uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

}  // namespace bertlab

#endif  // BERTLAB_COMMON_SPLIT_MIX_H_
