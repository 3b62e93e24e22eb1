// Shared setup of the GPU encoder parity tests (encoder_parity_test.cc, FP32,
// and encoder_bf16_parity_test.cc, BF16 mixed precision): the tiny odd-shaped
// config, random parameters, a padded batch, the cases, one case's inputs,
// the CPU reference run and the GPU encoder of either precision, parameter
// names over the GPU attention kernels, the result comparisons. Test-only;
// the device part needs a GPU when used.
#ifndef BERTLAB_MODEL_BERT_ENCODER_PARITY_FIXTURE_H_
#define BERTLAB_MODEL_BERT_ENCODER_PARITY_FIXTURE_H_

#include <cstdint>
#include <string>
#include <tuple>
#include <vector>

#include "gtest/gtest.h"
#include "model/bert/config.h"
#include "model/bert/encoder.h"
#include "model/bert/encoder_activation_plan.h"
#include "model/bert/encoder_cuda.h"
#include "model/bert/encoder_parameters.h"
#include "model/bert/parameter_layout.h"
#include "model/cuda/activation_buffer.h"
#include "model/cuda/bf16.h"
#include "model/cuda/context.h"
#include "model/cuda/device_buffer.h"
#include "model/parity/gradient_parity.h"
#include "model/parity/parity_comparator.h"

namespace bertlab {
namespace encoder_parity {

inline constexpr int64_t kBatch = 3;
inline constexpr int64_t kSeqLen = 7;

// The size of the random parameters: the config's initializer_range, then a
// uniform jitter in [-jitter, jitter) on every entry so that no gradient path
// is trivially zero (as encoder_test.cc does).
struct WeightScale {
  double initializer_range;
  float jitter;
};

// FP32 test: weights large enough to carry signal through every path (the
// attention softmax is mostly saturated).
inline constexpr WeightScale kFp32WeightScale{0.5, 0.2f};
// BF16 test: moderate weights. With kFp32WeightScale the saturated softmax
// turns bf16's rounding of q and k (scores near 10, so absolute shifts near
// 0.05) into errors of tens of percent in the tiny probabilities off the
// maximum and so in the layer-0 attention gradients (measured by a CPU
// emulation of the bf16 encoder's rounding points: up to 41% rms), an error
// of bf16 storage itself that no tolerance can tell from a bug. At this
// scale the same emulation measured at most 1.4% rms error on any tensor.
inline constexpr WeightScale kBf16WeightScale{0.1, 0.05f};

// Odd, tiny shapes (STYLE.md 3): hidden 36 in 3 heads of 12, intermediate 40,
// 2 layers, vocabulary 37.
BertConfig TinyConfig(AttentionMode mode, const WeightScale& scale);

// Weights from the initializer (config.initializer_range of the layout's
// config), then scale.jitter.
std::vector<float> RandomParameters(const ParameterLayout& layout,
                                    const WeightScale& scale);

struct HostBatch {
  std::vector<int32_t> input_ids;
  std::vector<int32_t> token_type_ids;
  std::vector<int32_t> attention_mask;
  std::vector<int32_t> pooled_positions;  // the last real token of each row
};

// Row b has kSeqLen - 2 * b real tokens, then padding (id 0, mask 0).
HostBatch MakeBatch(const BertConfig& config);

// The batch's host pointers; pooled positions only when asked for.
EncoderBatch HostEncoderBatch(const HostBatch& batch, bool pooled_positions);

// The batch on the device, and its EncoderBatch of device pointers.
class DeviceBatch {
 public:
  explicit DeviceBatch(const HostBatch& batch);
  EncoderBatch Get(bool pooled_positions) const;

 private:
  DeviceBuffer<int32_t> input_ids_;
  DeviceBuffer<int32_t> token_type_ids_;
  DeviceBuffer<int32_t> attention_mask_;
  DeviceBuffer<int32_t> pooled_positions_;
};

struct Case {
  AttentionMode mode;
  bool training;
  bool pooled_positions;
};

// Every test runs these: bidirectional and causal, training dropout on and
// off, [CLS] and explicit pooled positions.
inline constexpr Case kCases[] = {
    {AttentionMode::kBidirectional, /*training=*/true, /*pooled=*/false},
    {AttentionMode::kBidirectional, /*training=*/false, /*pooled=*/false},
    {AttentionMode::kCausal, /*training=*/true, /*pooled=*/true},
    {AttentionMode::kCausal, /*training=*/false, /*pooled=*/false},
};

// The GPU encoder's attention kernels, every one run against the CPU.
inline constexpr cuda::GpuAttention kGpuAttentions[] = {
    cuda::GpuAttention::kUnfused, cuda::GpuAttention::kFlash};

// "causal training pooled_positions"; with a kernel, for SCOPED_TRACE,
// "causal training pooled_positions, flash attention".
std::string CaseName(const Case& c);
std::string CaseName(const Case& c, cuda::GpuAttention attention);
// gtest parameter names: "CausalTrainingPooledPositions", and with a kernel
// "CausalTrainingPooledPositions_flash".
std::string ParamName(const Case& c);
std::string ParamName(const Case& c, cuda::GpuAttention attention);

// The parameters of the suites over every case with every kernel, and over
// every case: INSTANTIATE_TEST_SUITE_P(AllCases, Suite,
// CasesWithKernels(), ParamNameOf()).
inline auto CasesWithKernels() {
  return ::testing::Combine(::testing::ValuesIn(kCases),
                            ::testing::ValuesIn(kGpuAttentions));
}
inline auto AllCases() { return ::testing::ValuesIn(kCases); }
struct ParamNameOf {
  std::string operator()(
      const ::testing::TestParamInfo<std::tuple<Case, cuda::GpuAttention>>&
          info) const {
    return ParamName(std::get<0>(info.param), std::get<1>(info.param));
  }
  std::string operator()(const ::testing::TestParamInfo<Case>& info) const {
    return ParamName(info.param);
  }
};

// An encoder's outputs and parameter gradients (from zero), as float (bf16
// outputs widened exactly).
struct EncoderResult {
  std::vector<float> sequence_output;  // (B*T, H)
  std::vector<float> pooled_output;    // (B, H)
  std::vector<float> grads;            // the layout's flat buffer
};

// The CPU float encoder.
EncoderResult RunCpuEncoder(const BertConfig& config,
                            const EncoderOffsets& offsets,
                            const ParameterLayout& layout,
                            const std::vector<float>& params,
                            const EncoderBatch& batch,
                            const DropoutSettings& dropout,
                            const std::vector<float>& d_sequence_output,
                            const std::vector<float>& d_pooled_output);

// One case's inputs, the same for the CPU reference and every GPU run.
struct Inputs {
  BertConfig config;
  ParameterLayout layout;
  EncoderOffsets offsets;
  std::vector<float> params;  // FP32 (the BF16 test's master)
  HostBatch host;
  DropoutSettings dropout;
  bool pooled_positions;
  std::vector<float> d_sequence;  // (B*T, H)
  std::vector<float> d_pooled;    // (B, H)
};

// TinyConfig(c.mode, scale) with RandomParameters at `scale`, MakeBatch,
// dropout seed 99 step 3, and output gradients uniform in [-1, 1) (seeds 11
// and 12).
Inputs MakeInputs(const Case& c, const WeightScale& scale);

// RunCpuEncoder on the inputs, with `params` (in.params, or what the GPU
// really reads of them).
EncoderResult RunCpu(const Inputs& in, const std::vector<float>& params);

// The inputs on the device and the activations of one attention kernel;
// Run() reuses both, so two runs see the same buffers. T = float: the
// parameters as they are; T = __nv_bfloat16: the FP32 parameters are the
// master, cast on the device to the bf16 working copy the encoder reads, and
// the output gradients are stored in bf16 (round them first for an exact
// CPU reference).
template <typename T>
class GpuEncoder {
 public:
  GpuEncoder(const Inputs& in, cuda::GpuAttention attention);
  // What the encoder reads as parameters, as float.
  std::vector<float> WorkingCopy() const;
  EncoderResult Run();

 private:
  using Storage = typename ActivationBuffer<T>::Storage;

  const T* params() const;

  const Inputs& in_;
  CudaContext context_;
  DeviceBuffer<float> master_;
  DeviceBuffer<Bf16> working_;  // bf16 only, empty for float
  DeviceBuffer<float> grads_;
  DeviceBuffer<Storage> d_sequence_;
  DeviceBuffer<Storage> d_pooled_;
  DeviceBatch batch_;
  cuda::EncoderActivations<T> acts_;
};

// The gradient comparison (gpu as `actual`, cpu as `reference`), with its
// analytically zero gradients: model/parity/gradient_parity.h.
using ::bertlab::ExpectGradientParity;

// Number of positions where two float vectors differ bitwise (sizes equal).
int64_t CountBitDifferences(const std::vector<float>& a,
                            const std::vector<float>& b);

// `actual` against `expected` as gtest expectations: both outputs through
// CompareParity(dtype, output_reduction_length), the gradients through
// ExpectGradientParity(dtype, gradient_reduction_length).
void ExpectEncoderParity(const ParameterLayout& layout,
                         const EncoderResult& actual,
                         const EncoderResult& expected, ParityDtype dtype,
                         int64_t output_reduction_length,
                         int64_t gradient_reduction_length);

// Two runs on the same inputs and buffers: outputs and gradients bit for bit
// (no atomics anywhere, flash attention included).
void ExpectBitIdentical(const EncoderResult& again, const EncoderResult& first);

// Flash against unfused on the GPU, the unfused result as the reference,
// through ExpectEncoderParity(dtype, output / gradient reduction lengths).
template <typename T>
void ExpectFlashMatchesUnfused(const Inputs& in, ParityDtype dtype,
                               int64_t output_reduction_length,
                               int64_t gradient_reduction_length) {
  const EncoderResult unfused =
      GpuEncoder<T>(in, cuda::GpuAttention::kUnfused).Run();
  const EncoderResult flash =
      GpuEncoder<T>(in, cuda::GpuAttention::kFlash).Run();
  ExpectEncoderParity(in.layout, flash, unfused, dtype, output_reduction_length,
                      gradient_reduction_length);
}

}  // namespace encoder_parity
}  // namespace bertlab

#endif  // BERTLAB_MODEL_BERT_ENCODER_PARITY_FIXTURE_H_
