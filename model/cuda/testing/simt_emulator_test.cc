// The host SIMT emulator's own checks: built-in variables, per-thread copies
// of the arguments, barriers with predicates, every shuffle mode against
// PTX's lane rule, bf16 conversions, NaN-filled shared memory, and that its
// checks fire (static shared arrays per block, _rn intrinsics): a divergent or
// skipped barrier aborts naming the block, and a missing barrier makes the two
// schedule orders disagree.
#include "model/cuda/testing/simt_emulator.h"

#include <cmath>
#include <cstdint>
#include <cstring>
#include <vector>

#include "common/half.h"
#include "gtest/gtest.h"
#include "model/cuda/kernel_decl.h"
#include "model/cuda/kernel_util_device.cuh"

namespace bertlab {
namespace {

// ---------------------------------------------------------------------------
// Kernels.

// Thread 0 reports the static array's first word as found (NaN bits when
// fresh), then writes the block index into it; the others read it after a
// barrier: one array per block, shared by its threads.
BERTLAB_KERNEL(64, 1) StaticSharedKernel(uint32_t* found, uint32_t* seen) {
  BERTLAB_STATIC_SHARED_MEMORY(uint32_t, words, [2][3]);
  if (threadIdx.x == 0) {
    found[blockIdx.x] = words[1][2];
    words[1][2] = blockIdx.x;
  }
  __syncthreads();
  seen[blockIdx.x * blockDim.x + threadIdx.x] = words[1][2];
}

// Writes every thread's coordinates: index = linear block * threads + linear
// thread, four ints per thread.
BERTLAB_KERNEL(64, 1) CoordinatesKernel(int* coordinates) {
  const int block = static_cast<int>(
      blockIdx.x + gridDim.x * (blockIdx.y + gridDim.y * blockIdx.z));
  const int thread = static_cast<int>(
      threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z));
  const int threads = static_cast<int>(blockDim.x * blockDim.y * blockDim.z);
  int* mine = coordinates + 4 * (block * threads + thread);
  mine[0] = static_cast<int>(threadIdx.x);
  mine[1] = static_cast<int>(threadIdx.y);
  mine[2] = static_cast<int>(threadIdx.z);
  mine[3] = block;
}

// Each thread changes its own copy of the argument.
BERTLAB_KERNEL(64, 1) ParameterCopyKernel(int value, int* seen) {
  value += static_cast<int>(threadIdx.x);
  __syncthreads();
  seen[threadIdx.x] = value;
}

// Block-wide predicates: [and, or, count] per thread.
BERTLAB_KERNEL(128, 1) PredicateKernel(int* results, int true_below) {
  const int t = static_cast<int>(threadIdx.x);
  const int p = t < true_below ? 1 : 0;
  results[3 * t + 0] = __syncthreads_and(p);
  results[3 * t + 1] = __syncthreads_or(p);
  results[3 * t + 2] = __syncthreads_count(p);
}

// Every shuffle mode at width `width`, with lane-dependent values; four
// results per thread.
BERTLAB_KERNEL(64, 1) ShuffleKernel(int* results, int width, int argument) {
  const int t = static_cast<int>(threadIdx.x);
  const int value = 100 * t + 7;
  results[4 * t + 0] = __shfl_sync(0xffffffffu, value, argument, width);
  results[4 * t + 1] = __shfl_up_sync(
      0xffffffffu, value, static_cast<unsigned int>(argument), width);
  results[4 * t + 2] = __shfl_down_sync(
      0xffffffffu, value, static_cast<unsigned int>(argument), width);
  results[4 * t + 3] = __shfl_xor_sync(0xffffffffu, value, argument, width);
}

// A warp sum of floats by xor butterflies (as kernel_util_device.cuh's
// WarpSum).
BERTLAB_KERNEL(64, 1) WarpSumKernel(const float* values, float* sums) {
  float value = values[threadIdx.x];
  for (int offset = 16; offset > 0; offset /= 2) {
    value += __shfl_xor_sync(0xffffffffu, value, offset);
  }
  __syncwarp();
  sums[threadIdx.x] = value;
}

// Copies the shared memory as it is at entry, then writes it.
BERTLAB_KERNEL(32, 1) SharedFillKernel(uint32_t* seen, int words) {
  BERTLAB_DYNAMIC_SHARED_MEMORY(uint32_t, shared);
  for (int i = static_cast<int>(threadIdx.x); i < words; i += 32) {
    seen[i] = shared[i];
  }
  __syncthreads();
  for (int i = static_cast<int>(threadIdx.x); i < words; i += 32) {
    shared[i] = 0;
  }
}

// Thread t publishes t + 1 in shared memory and reads its right neighbour's
// value, with or without the barrier in between.
BERTLAB_KERNEL(64, 1) NeighbourKernel(float* seen, bool barrier) {
  BERTLAB_DYNAMIC_SHARED_MEMORY(float, shared);
  const int t = static_cast<int>(threadIdx.x);
  const int threads = static_cast<int>(blockDim.x);
  shared[t] = static_cast<float>(t + 1);
  if (barrier) __syncthreads();
  seen[t] = shared[(t + 1) % threads];
}

// Thread t publishes t + 1, then every warp shuffles (a warp barrier, not a
// block one) and, optionally, __syncthreads; thread t reads the value of
// thread t + 32 (the next warp's).
BERTLAB_KERNEL(64, 1) NextWarpKernel(float* seen, bool barrier) {
  BERTLAB_DYNAMIC_SHARED_MEMORY(float, shared);
  const int t = static_cast<int>(threadIdx.x);
  shared[t] = static_cast<float>(t + 1);
  const float lane = __shfl_xor_sync(0xffffffffu, static_cast<float>(t), 1);
  if (barrier) __syncthreads();
  seen[t] = shared[(t + 32) % 64] + 0.0f * lane;
}

// Threads below `returning` return before the barrier the others wait at.
BERTLAB_KERNEL(64, 1) EarlyReturnKernel(int returning) {
  if (static_cast<int>(threadIdx.x) < returning) return;
  __syncthreads();
}

// Even and odd threads reach different __syncthreads calls.
BERTLAB_KERNEL(64, 1) TwoBarriersKernel() {
  if (threadIdx.x % 2 == 0) {
    __syncthreads();
  } else {
    __syncthreads();
  }
}

// Only the first half-warp shuffles.
BERTLAB_KERNEL(64, 1) HalfWarpShuffleKernel(float* out) {
  float value = 1.0f;
  if (threadIdx.x % 32 < 16) value = __shfl_xor_sync(0xffffffffu, value, 1);
  out[threadIdx.x] = value;
}

// ---------------------------------------------------------------------------
// Tests.

TEST(SimtEmulatorTest, BuiltInVariablesCoverTheGrid) {
  const dim3 grid(2, 3, 2), block(4, 2, 3);
  const int threads = 4 * 2 * 3, blocks = 2 * 3 * 2;
  for (simt::Schedule schedule :
       {simt::Schedule::kForward, simt::Schedule::kReverse,
        simt::Schedule::kWarpByWarp, simt::Schedule::kWarpByWarpReverse}) {
    std::vector<int> coordinates(static_cast<size_t>(4 * threads * blocks), -1);
    simt::LaunchOptions options;
    options.schedule = schedule;
    simt::Launch(options, grid, block, 0, &CoordinatesKernel,
                 coordinates.data());
    for (int b = 0; b < blocks; ++b) {
      for (int t = 0; t < threads; ++t) {
        const int* c = coordinates.data() + 4 * (b * threads + t);
        EXPECT_EQ(c[0], t % 4);
        EXPECT_EQ(c[1], t / 4 % 2);
        EXPECT_EQ(c[2], t / 8);
        EXPECT_EQ(c[3], b);
      }
    }
  }
}

TEST(SimtEmulatorTest, EveryThreadGetsItsOwnCopyOfTheArguments) {
  std::vector<int> seen(64, -1);
  simt::Launch(dim3(1), dim3(64), 0, &ParameterCopyKernel, 1000, seen.data());
  for (int t = 0; t < 64; ++t)
    EXPECT_EQ(seen[static_cast<size_t>(t)], 1000 + t);
}

TEST(SimtEmulatorTest, SyncthreadsPredicates) {
  for (int true_below : {0, 1, 77, 128}) {
    std::vector<int> results(3 * 128, -1);
    simt::Launch(dim3(1), dim3(128), 0, &PredicateKernel, results.data(),
                 true_below);
    for (int t = 0; t < 128; ++t) {
      EXPECT_EQ(results[3 * t + 0], true_below == 128 ? 1 : 0) << true_below;
      EXPECT_EQ(results[3 * t + 1], true_below > 0 ? 1 : 0) << true_below;
      EXPECT_EQ(results[3 * t + 2], true_below) << true_below;
    }
  }
}

// CUDA's documented lane rules, written out per mode (the emulator follows
// PTX's shfl.sync formula instead).
TEST(SimtEmulatorTest, ShufflesFollowCudaLaneRules) {
  for (int width : {32, 16, 4}) {
    for (int argument : {0, 1, 3, 13}) {
      std::vector<int> results(4 * 64, -1);
      simt::Launch(dim3(1), dim3(64), 0, &ShuffleKernel, results.data(), width,
                   argument);
      for (int t = 0; t < 64; ++t) {
        const int lane = t % 32, warp_base = t - lane;
        const int segment = lane / width * width;  // within the warp
        auto value = [&](int source_lane) {
          return 100 * (warp_base + source_lane) + 7;
        };
        const int index = segment + argument % width;
        const int up = lane - argument >= segment ? lane - argument : lane;
        const int down =
            lane + argument < segment + width ? lane + argument : lane;
        // xor: within the segment, or an earlier one; a later one gives the
        // lane's own value.
        const int xor_lane = lane ^ argument;
        const int butterfly = xor_lane < segment + width ? xor_lane : lane;
        const std::string where = "width " + std::to_string(width) +
                                  " argument " + std::to_string(argument) +
                                  " thread " + std::to_string(t);
        EXPECT_EQ(results[4 * t + 0], value(index)) << "idx " << where;
        EXPECT_EQ(results[4 * t + 1], value(up)) << "up " << where;
        EXPECT_EQ(results[4 * t + 2], value(down)) << "down " << where;
        EXPECT_EQ(results[4 * t + 3], value(butterfly)) << "xor " << where;
      }
    }
  }
}

TEST(SimtEmulatorTest, ButterflyWarpSumGivesEveryLaneTheSameBits) {
  std::vector<float> values(64);
  for (int t = 0; t < 64; ++t) values[t] = 1.0f / static_cast<float>(t + 3);
  std::vector<float> sums(64, 0.0f);
  simt::Launch(dim3(1), dim3(64), 0, &WarpSumKernel, values.data(),
               sums.data());
  for (int warp = 0; warp < 2; ++warp) {
    double expected = 0.0;
    for (int lane = 0; lane < 32; ++lane) expected += values[32 * warp + lane];
    for (int lane = 0; lane < 32; ++lane) {
      EXPECT_EQ(std::memcmp(&sums[32 * warp + lane], &sums[32 * warp], 4), 0);
    }
    EXPECT_NEAR(sums[32 * warp], expected, 1e-5);
  }
}

TEST(SimtEmulatorTest, Bf16ConversionsAreCommonHalfs) {
  for (float value : {0.0f, -0.0f, 1.0f, 1.00390625f, 1.01171875f, -3.14159f,
                      1e-40f, 3.4e38f, 65504.0f}) {
    const __nv_bfloat16 narrow = __float2bfloat16_rn(value);
    EXPECT_EQ(narrow.__x, FloatToBf16(value)) << value;
    EXPECT_EQ(__bfloat162float(narrow), Bf16ToFloat(FloatToBf16(value)));
    EXPECT_EQ(cuda_kernels::FromFloat<__nv_bfloat16>(value).__x,
              FloatToBf16(value));
  }
  // Ties go to even: 1 + 2^-8 lies halfway between 1 and 1 + 2^-7.
  EXPECT_EQ(__float2bfloat16_rn(1.00390625f).__x, 0x3F80);
  const float2 pair = __bfloat1622float2(__floats2bfloat162_rn(0.5f, -2.0f));
  EXPECT_EQ(pair.x, 0.5f);
  EXPECT_EQ(pair.y, -2.0f);
}

TEST(SimtEmulatorTest, SharedMemoryStartsAsNaNInEveryBlock) {
  const int words = 37;
  std::vector<uint32_t> seen(words, 0);
  // Two blocks: the second must not see the first one's zeros.
  simt::Launch(dim3(2), dim3(32), words * sizeof(uint32_t), &SharedFillKernel,
               seen.data(), words);
  for (int i = 0; i < words; ++i) EXPECT_EQ(seen[i], 0xFFFFFFFFu) << i;
}

TEST(SimtEmulatorTest, StaticSharedArraysAreFreshAndNaNInEveryBlock) {
  std::vector<uint32_t> found(3, 7), seen(3 * 64, 7);
  simt::Launch(dim3(3), dim3(64), 0, &StaticSharedKernel, found.data(),
               seen.data());
  for (int b = 0; b < 3; ++b) {
    EXPECT_EQ(found[b], 0xFFFFFFFFu) << "block " << b;
    for (int t = 0; t < 64; ++t) EXPECT_EQ(seen[64 * b + t], uint32_t(b));
  }
}

TEST(SimtEmulatorTest, RoundToNearestIntrinsicsAreSingleRoundings) {
  // 1 + 2^-30 squared needs 61 bits: a fused a * a - 1 would keep 2^-60.
  const double a = 1.0 + std::ldexp(1.0, -30);
  EXPECT_EQ(__dsub_rn(__dmul_rn(a, a), 1.0), std::ldexp(1.0, -29));
  EXPECT_EQ(__ddiv_rn(1.0, 3.0), 1.0 / 3.0);
  EXPECT_EQ(__dsqrt_rn(2.0), std::sqrt(2.0));
  EXPECT_EQ(__double2float_rn(1.0 + std::ldexp(1.0, -24)), 1.0f);  // tie
  EXPECT_EQ(__double2float_rn(1.0 + 3 * std::ldexp(1.0, -24)),
            1.0f + std::ldexp(1.0f, -22));
  const float f = 1.0f + std::ldexp(1.0f, -12);
  EXPECT_EQ(__fsub_rn(__fmul_rn(f, f), 1.0f), std::ldexp(1.0f, -11));
  EXPECT_EQ(__fdiv_rn(1.0f, 3.0f), 1.0f / 3.0f);
  EXPECT_EQ(__fadd_rn(1.0f, std::ldexp(1.0f, -24)), 1.0f);
}

TEST(SimtEmulatorTest, AMissingBarrierMakesTheScheduleOrdersDisagree) {
  for (bool barrier : {true, false}) {
    std::vector<float> forward(64), reverse(64);
    simt::LaunchOptions options;
    simt::Launch(options, dim3(1), dim3(64), 64 * sizeof(float),
                 &NeighbourKernel, forward.data(), barrier);
    options.schedule = simt::Schedule::kReverse;
    simt::Launch(options, dim3(1), dim3(64), 64 * sizeof(float),
                 &NeighbourKernel, reverse.data(), barrier);
    const bool same =
        std::memcmp(forward.data(), reverse.data(), 64 * sizeof(float)) == 0;
    EXPECT_EQ(same, barrier) << (barrier ? "with" : "without") << " barrier";
    if (barrier) {
      EXPECT_EQ(forward[63], 1.0f);
    }
  }
}

TEST(SimtEmulatorTest, WarpByWarpShowsAMissingBlockBarrierThatSweepsHide) {
  constexpr simt::Schedule kAll[] = {
      simt::Schedule::kForward, simt::Schedule::kReverse,
      simt::Schedule::kWarpByWarp, simt::Schedule::kWarpByWarpReverse};
  for (bool barrier : {true, false}) {
    for (simt::Schedule schedule : kAll) {
      std::vector<float> seen(64);
      simt::LaunchOptions options;
      options.schedule = schedule;
      simt::Launch(options, dim3(1), dim3(64), 64 * sizeof(float),
                   &NextWarpKernel, seen.data(), barrier);
      // The warp that runs first reads the other's words before they exist
      // unless a block barrier orders them; in the sweeps the shuffle does.
      const bool warp_by_warp = schedule == simt::Schedule::kWarpByWarp ||
                                schedule == simt::Schedule::kWarpByWarpReverse;
      const int first_warp =
          schedule == simt::Schedule::kWarpByWarpReverse ? 1 : 0;
      for (int t = 0; t < 64; ++t) {
        const bool unordered = !barrier && warp_by_warp && t / 32 == first_warp;
        if (unordered) {
          EXPECT_TRUE(std::isnan(seen[t])) << t;
        } else {
          EXPECT_EQ(seen[t], static_cast<float>((t + 32) % 64 + 1)) << t;
        }
      }
    }
  }
}

TEST(SimtEmulatorDeathTest, ABarrierSomeThreadsSkipDeadlocks) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_DEATH(simt::Launch(dim3(3), dim3(64), 0, &EarlyReturnKernel, 5),
               "deadlock in block \\(0, 0, 0\\) of grid \\(3, 1, 1\\): 5 of "
               "64 threads returned, waiting: 59 at __syncthreads");
  simt::LaunchOptions reverse;
  reverse.schedule = simt::Schedule::kReverse;
  EXPECT_DEATH(
      simt::Launch(reverse, dim3(3), dim3(64), 0, &EarlyReturnKernel, 5),
      "deadlock in block \\(2, 0, 0\\)");
}

TEST(SimtEmulatorDeathTest, BarriersAtDifferentPlacesAreDivergent) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_DEATH(simt::Launch(dim3(1), dim3(64), 0, &TwoBarriersKernel),
               "divergent barrier in block \\(0, 0, 0\\): thread \\(1, 0, 0\\) "
               "reached __syncthreads at .*simt_emulator_test.cc");
}

TEST(SimtEmulatorDeathTest, AShuffleHalfAWarpSkipsDeadlocks) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  std::vector<float> out(64);
  EXPECT_DEATH(
      simt::Launch(dim3(1), dim3(64), 0, &HalfWarpShuffleKernel, out.data()),
      "deadlock in block \\(0, 0, 0\\).*16 at __shfl_xor_sync");
}

}  // namespace
}  // namespace bertlab
