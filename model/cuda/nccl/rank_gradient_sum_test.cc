// RankGradientSum and the slot-sum kernel on one GPU (manual, requires-gpu;
// model/cuda/README.md): what a machine with one GPU can check of the sum
// across ranks. The data-parallel run itself (2 ranks against 1 process,
// checkpoints byte for byte) is tools/gpu/run_data_parallel_check.sh.
//
//   - SumSlotsInTreeOrder against TreeSum<float> bit for bit, 1 to 1024
//     slots and odd lengths (the order of every element's sum).
//   - The NCCL path with a communicator of one rank (SingleProcessCollective):
//     the unique id, the non-blocking start, grouped send / receive to
//     itself, the kernel, the all-gather, the polling, finalize: the sum of
//     one rank is its gradient, bit for bit, at lengths that pad and not,
//     twice (the buffers kept), and the describing line names NCCL.
//   - BERTLAB_CUDA_GRADIENT_SUM=host: the host-memory path, also the identity.
#include "model/cuda/nccl/rank_gradient_sum.h"

#include <cuda_runtime.h>

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "common/collective.h"
#include "gtest/gtest.h"
#include "model/cuda/context.h"
#include "model/cuda/device_buffer.h"
#include "model/cuda/nccl/slot_sum_cuda.h"
#include "model/cuda/nccl/tree_order.h"

namespace bertlab {
namespace cuda {
namespace {

std::vector<float> Random(int64_t n, uint32_t seed) {
  std::mt19937 random(seed);
  std::uniform_real_distribution<float> mantissa(-1.0f, 1.0f);
  std::uniform_int_distribution<int> exponent(-12, 12);
  std::vector<float> values(static_cast<size_t>(n));
  for (float& value : values) {
    value = std::ldexp(mantissa(random), exponent(random));
  }
  return values;
}

void ExpectSameBits(const std::vector<float>& actual,
                    const std::vector<float>& expected,
                    const std::string& what) {
  ASSERT_EQ(actual.size(), expected.size()) << what;
  for (size_t i = 0; i < actual.size(); ++i) {
    uint32_t a, e;
    std::memcpy(&a, &actual[i], sizeof(a));
    std::memcpy(&e, &expected[i], sizeof(e));
    ASSERT_EQ(a, e) << what << ": element " << i << ": " << actual[i] << " vs "
                    << expected[i];
  }
}

TEST(SlotSumTest, EqualsTreeSumBitForBit) {
  CudaContext context;
  for (int terms : {1, 2, 3, 5, 7, 8, 13, 64, 100, 127, 128, 129, 1000, 1024}) {
    for (int64_t length : {int64_t{1}, int64_t{257}, int64_t{4099}}) {
      if (terms * length > (int64_t{1} << 22)) continue;
      const std::vector<float> host =
          Random(terms * length, static_cast<uint32_t>(terms * 7919 + length));
      TreeSum<float> tree(length);
      for (int p = 0; p < terms; ++p) tree.Add(host.data() + p * length);
      std::vector<float> expected;
      tree.Finish(&expected);

      DeviceBuffer<float> slots("slots", host);
      DeviceBuffer<float> out("out", length);
      SumSlotsInTreeOrder(slots.data(), terms, length, out.data(),
                          context.stream());
      context.Synchronize();
      ExpectSameBits(
          out.ToHost(), expected,
          std::to_string(terms) + " slots of " + std::to_string(length));
    }
  }
}

void ExpectIdentity(RankGradientSum* sum, const CudaContext& context, int64_t n,
                    uint32_t seed) {
  const std::vector<float> host = Random(n, seed);
  DeviceBuffer<float> grads("grads", host);
  const absl::Status status = sum->Sum(grads.data(), n);
  ASSERT_TRUE(status.ok()) << status;
  context.Synchronize();
  ExpectSameBits(grads.ToHost(), host, "the sum of one rank");
}

TEST(RankGradientSumTest, NcclWithOneRankIsTheIdentity) {
  unsetenv("BERTLAB_CUDA_GRADIENT_SUM");
  CudaContext context;
  absl::StatusOr<std::unique_ptr<RankGradientSum>> sum =
      RankGradientSum::Start(SingleProcessCollective(), context);
  ASSERT_TRUE(sum.ok()) << sum.status();
  EXPECT_NE((*sum)->Describe().find("NCCL"), std::string::npos)
      << (*sum)->Describe();
  for (int64_t n : {int64_t{1}, int64_t{1000003}, int64_t{1000003}}) {
    ExpectIdentity(sum->get(), context, n, static_cast<uint32_t>(n));
  }
  ExpectIdentity(sum->get(), context, 64, 3);  // new buffers
}

TEST(RankGradientSumTest, HostWithOneRankIsTheIdentity) {
  setenv("BERTLAB_CUDA_GRADIENT_SUM", "host", 1);
  CudaContext context;
  absl::StatusOr<std::unique_ptr<RankGradientSum>> sum =
      RankGradientSum::Start(SingleProcessCollective(), context);
  unsetenv("BERTLAB_CUDA_GRADIENT_SUM");
  ASSERT_TRUE(sum.ok()) << sum.status();
  EXPECT_NE((*sum)->Describe().find("host memory"), std::string::npos)
      << (*sum)->Describe();
  ExpectIdentity(sum->get(), context, 4099, 5);
}

TEST(RankGradientSumTest, RefusesAnUnknownWay) {
  setenv("BERTLAB_CUDA_GRADIENT_SUM", "carrier-pigeon", 1);
  CudaContext context;
  absl::StatusOr<std::unique_ptr<RankGradientSum>> sum =
      RankGradientSum::Start(SingleProcessCollective(), context);
  unsetenv("BERTLAB_CUDA_GRADIENT_SUM");
  ASSERT_FALSE(sum.ok());
  EXPECT_NE(sum.status().message().find("use host"), std::string::npos)
      << sum.status();
}

}  // namespace
}  // namespace cuda
}  // namespace bertlab
