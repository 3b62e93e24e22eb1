// Needs a GPU: tagged manual + requires-gpu, built only with --config=cuda.
// cuda::FlashAttentionForward / FlashAttentionBackward (float and bf16
// storage) against the CPU op (model/ops/attention.h) through the one
// comparator (parity_comparator.h), at odd shapes covering both head_dim
// variants of the kernels (<= 64, <= 128), head_dim not a multiple of 4
// (element-wise loads) and sequences of one to three 64-row tiles: padding,
// causal, causal + padding with rows that have no unmasked key and an
// all-padding sequence, dropout off and on. Also: two runs give bit-identical
// outputs and gradients, every output element is written, and an unsupported
// head_dim fails loudly.
//
// The reference is the CPU op in DOUBLE on the GPU's (float or bf16-rounded)
// inputs, not the float CPU op: in a row whose every key is masked the float
// op adds -10000 to every score and so rounds them to ulp(10000) = 2^-10,
// an error (~5e-4 relative in the probabilities) far above float's bound that
// the kernels avoid (flash_attention_tile.h). K per quantity as in
// model/ops/flash_attention_tile_test.cc: logsumexp head_dim + seq_len,
// out head_dim + 2 seq_len, d_qkv 3 (head_dim + seq_len). bf16 runs use bf16's
// eps for out and d_qkv (bf16 outputs; the backward reads the bf16-rounded out)
// and float's for logsumexp (float output from exact bf16 inputs in float
// math).
#include <cstdint>
#include <string>
#include <vector>

#include "common/philox.h"
#include "gtest/gtest.h"
#include "model/cuda/bf16.h"
#include "model/cuda/bf16_test_util.h"
#include "model/cuda/context.h"
#include "model/cuda/cuda_check.h"
#include "model/cuda/device_buffer.h"
#include "model/cuda/parity_test_util.h"
#include "model/ops/attention.h"
#include "model/ops/flash_attention_cuda.h"
#include "model/ops/flash_attention_reference.h"
#include "model/parity/parity_comparator.h"

namespace bertlab {
namespace {

using Case = AttentionProblem;
using Shape = AttentionShape;

std::vector<Case> Cases() {
  const Shape shapes[] = {
      {3, 37, 2, 20},   // one tile; head_dim <= 64
      {2, 7, 3, 12},    // short
      {3, 19, 3, 7},    // head_dim not a multiple of 4: element-wise loads
      {3, 131, 2, 64},  // three query / key tiles, the last one partial
      {3, 77, 2, 100},  // head_dim <= 128, a partial column group
      {2, 70, 1, 128},  // the largest head_dim
  };
  std::vector<Case> cases;
  for (const Shape& shape : shapes) {
    for (bool padding : {false, true}) {
      for (bool causal : {false, true}) {
        for (float rate : {0.0f, 0.2f}) {
          Case c;
          c.shape = shape;
          c.name = "(" + std::to_string(shape.batch) + ", " +
                   std::to_string(shape.seq_len) + ", " +
                   std::to_string(shape.heads) + ", " +
                   std::to_string(shape.head_dim) + ")" +
                   (padding ? " padding" : "") + (causal ? " causal" : "") +
                   (rate > 0.0f ? " dropout" : "");
          if (padding) c.mask = PaddingMask(shape);
          c.options.causal = causal;
          c.options.dropout_rate = rate;
          c.options.dropout_stream =
              PhiloxStream{/*seed=*/77, /*step=*/3, /*tensor_id=*/5};
          cases.push_back(std::move(c));
        }
      }
    }
  }
  return cases;
}

// Device copies of one case's tensors in storage type Storage (float or Bf16)
// and a forward + backward on them. Outputs start as all-ones bytes (NaN in
// float and bf16), so an element the kernels skip fails the comparison.
template <typename Storage>
struct GpuRun {
  DeviceBuffer<Storage> qkv, d_out, out, d_qkv;
  DeviceBuffer<float> logsumexp, workspace;
  DeviceBuffer<int32_t> mask;

  GpuRun(const Case& c, const std::vector<Storage>& qkv_host,
         const std::vector<Storage>& d_out_host)
      : qkv("qkv", qkv_host),
        d_out("d_out", d_out_host),
        out("out", c.shape.OutSize()),
        d_qkv("d_qkv", c.shape.QkvSize()),
        logsumexp("logsumexp", c.shape.RowCount()),
        workspace("workspace", cuda::FlashAttentionBackwardWorkspaceElements(
                                   c.shape.batch, c.shape.seq_len,
                                   c.shape.heads, c.shape.head_dim)),
        mask("mask", c.mask) {}

  void Run(const Case& c, const CudaContext& context) {
    const Shape& s = c.shape;
    const int32_t* mask_data = c.mask.empty() ? nullptr : mask.data();
    FillWithNaN(&out, context);
    FillWithNaN(&d_qkv, context);
    FillWithNaN(&logsumexp, context);
    cuda::FlashAttentionForward(
        AsDevice(out.data()), logsumexp.data(), AsDevice(qkv.data()), mask_data,
        s.batch, s.seq_len, s.heads, s.head_dim, c.options, context);
    cuda::FlashAttentionBackward(
        AsDevice(d_qkv.data()), AsDevice(d_out.data()), AsDevice(qkv.data()),
        AsDevice(out.data()), logsumexp.data(), mask_data, s.batch, s.seq_len,
        s.heads, s.head_dim, c.options, workspace.data(), context);
    context.Synchronize();
  }

  template <typename X>
  static void FillWithNaN(DeviceBuffer<X>* buffer, const CudaContext& context) {
    BERTLAB_CUDA_CHECK(cudaMemsetAsync(buffer->data(), 0xFF, buffer->bytes(),
                                       context.stream()));
  }
};

class FlashAttentionParityTest : public ::testing::Test {
 protected:
  CudaContext context_;
};

// Every case on Storage (float or Bf16) tensors drawn from seeds `seed`,
// `seed` + 1, ... against the CPU op in double on exactly the values the GPU
// reads: out and d_qkv at `dtype`, logsumexp (a float output) at float's eps;
// then a second run gives the same bits.
template <typename Storage>
void ExpectEveryCaseMatchesAndRepeats(uint32_t seed, ParityDtype dtype,
                                      const std::string& storage_name,
                                      const CudaContext& context) {
  for (const Case& c : Cases()) {
    const Shape& s = c.shape;
    const std::vector<Storage> qkv =
        ToStorage<Storage>(RandomUniform(s.QkvSize(), seed++, -2.0f, 2.0f));
    const std::vector<Storage> d_out =
        ToStorage<Storage>(RandomUniform(s.OutSize(), seed++, -1.0f, 1.0f));
    const AttentionReference reference =
        ComputeAttentionReference(c, ToFloat(qkv), ToFloat(d_out));
    GpuRun<Storage> run(c, qkv, d_out);
    run.Run(c, context);
    const std::vector<Storage> out = run.out.ToHost();
    const std::vector<float> lse = run.logsumexp.ToHost();
    const std::vector<Storage> d_qkv = run.d_qkv.ToHost();
    const std::string tag = " " + storage_name + " " + c.name;
    ExpectParity("out" + tag, ToFloat(out), reference.out, dtype,
                 s.head_dim + 2 * s.seq_len);
    ExpectParity("logsumexp" + tag, lse, reference.logsumexp, kF32,
                 s.head_dim + s.seq_len);
    ExpectParity("d_qkv" + tag, ToFloat(d_qkv), reference.d_qkv, dtype,
                 3 * (s.head_dim + s.seq_len));
    run.Run(c, context);
    EXPECT_TRUE(BitIdentical(run.out.ToHost(), out)) << "out" << tag;
    EXPECT_TRUE(BitIdentical(run.logsumexp.ToHost(), lse)) << "lse" << tag;
    EXPECT_TRUE(BitIdentical(run.d_qkv.ToHost(), d_qkv)) << "d_qkv" << tag;
  }
}

TEST_F(FlashAttentionParityTest, Float32MatchesTheCpuOpAndRepeatsBitForBit) {
  ExpectEveryCaseMatchesAndRepeats<float>(100, kF32, "f32", context_);
}

TEST_F(FlashAttentionParityTest, BFloat16MatchesTheCpuOpAndRepeatsBitForBit) {
  ExpectEveryCaseMatchesAndRepeats<Bf16>(500, kBF16, "bf16", context_);
}

TEST_F(FlashAttentionParityTest, UnsupportedHeadDimFailsLoudly) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  const AttentionOptions options;
  EXPECT_DEATH(
      cuda::FlashAttentionForward<float>(nullptr, nullptr, nullptr, nullptr, 1,
                                         8, 1, 129, options, context_),
      "head_dim 129 is not supported");
  EXPECT_DEATH(cuda::FlashAttentionBackward<float>(
                   nullptr, nullptr, nullptr, nullptr, nullptr, nullptr, 1, 8,
                   1, 0, options, nullptr, context_),
               "head_dim 0 is not supported");
}

}  // namespace
}  // namespace bertlab
