// Linear forward and backward at the model's product shapes, at 1 to 4
// threads, on every CPU GEMM engine (the bf16 one where oneDNN has it):
// every output must be bit-identical across thread counts (issue 18). The
// products here have at least 2^22 multiply-adds, so model/ops/gemm cuts
// them into fixed blocks spread over the pool; the blocks depend on the
// shape alone, one library call each, because cblas_sgemm's bits for an
// element depend on where the call's rows end (OpenBLAS 0.3.21, Zen
// kernels: the last rows of a call, and of each of its internal 384-row
// panels, are summed differently).
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "common/parallel.h"
#include "gtest/gtest.h"
#include "model/ops/cpu_gemm_engine.h"
#include "model/ops/engine_test_fixture.h"
#include "model/ops/gemm_onednn.h"
#include "model/ops/linear.h"
#include "model/ops/op_test_util.h"
#include "model/testing/gradient_check.h"

namespace bertlab {
namespace {

using testing::BitIdentical;
using testing::Cast;
using testing::RandomVector;

struct Shape {
  const char* name;
  int64_t rows, in_features, out_features;
};

// L2_H128_A2 at batch 8 x 128 tokens: the QKV, FFN and attention-output
// products (rows split), and a decoder-like product (columns split: 160
// predicted positions x a vocabulary slice).
constexpr Shape kShapes[] = {
    {"qkv", 1024, 128, 384},          {"attention_output", 1024, 128, 128},
    {"intermediate", 1024, 128, 512}, {"output", 1024, 512, 128},
    {"decoder", 160, 128, 4099},
};

struct LinearResults {
  std::vector<float> out, d_in, d_weight, d_bias;
};

LinearResults RunLinear(const Shape& shape, int num_threads) {
  SetNumThreads(num_threads);
  const std::vector<float> in =
      Cast<float>(RandomVector(shape.rows * shape.in_features, 1));
  const std::vector<float> weight =
      Cast<float>(RandomVector(shape.out_features * shape.in_features, 2));
  const std::vector<float> bias =
      Cast<float>(RandomVector(shape.out_features, 3));
  const std::vector<float> d_out =
      Cast<float>(RandomVector(shape.rows * shape.out_features, 4));
  LinearResults r;
  r.out.resize(shape.rows * shape.out_features);
  LinearForward<float>(r.out.data(), in.data(), weight.data(), bias.data(),
                       shape.rows, shape.in_features, shape.out_features);
  r.d_in.resize(shape.rows * shape.in_features);
  r.d_weight.assign(shape.out_features * shape.in_features, 0.5f);
  r.d_bias.assign(shape.out_features, 0.5f);
  LinearBackward<float>(r.d_in.data(), r.d_weight.data(), r.d_bias.data(),
                        d_out.data(), in.data(), weight.data(), shape.rows,
                        shape.in_features, shape.out_features);
  return r;
}

class LinearThreadsTest : public ::testing::TestWithParam<CpuGemmMode> {
 protected:
  void SetUp() override {
    if (!CpuGemmModeAvailable(GetParam())) {
      GTEST_SKIP() << "oneDNN has no bf16 matmul on this CPU (needs AVX-512)";
    }
    scope_.emplace(GetParam());
  }
  void TearDown() override { scope_.reset(); }

 private:
  std::optional<CpuGemmModeScope> scope_;
};

TEST_P(LinearThreadsTest, BitIdenticalAcrossThreadCounts) {
  for (const Shape& shape : kShapes) {
    const LinearResults one = RunLinear(shape, 1);
    for (int num_threads : {2, 3, 4}) {
      SCOPED_TRACE(::testing::Message()
                   << shape.name << " (" << shape.rows << " x "
                   << shape.in_features << " -> " << shape.out_features << "), "
                   << num_threads << " threads vs 1");
      const LinearResults r = RunLinear(shape, num_threads);
      EXPECT_TRUE(BitIdentical("out", r.out, one.out));
      EXPECT_TRUE(BitIdentical("d_in", r.d_in, one.d_in));
      EXPECT_TRUE(BitIdentical("d_weight", r.d_weight, one.d_weight));
      EXPECT_TRUE(BitIdentical("d_bias", r.d_bias, one.d_bias));
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Engines, LinearThreadsTest,
                         ::testing::ValuesIn(kCpuGemmModes),
                         [](const ::testing::TestParamInfo<CpuGemmMode>& info) {
                           return info.param.Name();
                         });

}  // namespace
}  // namespace bertlab
