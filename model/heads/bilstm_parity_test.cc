// Needs a GPU: tagged manual + requires-gpu, built only with --config=cuda
// (host_bilstm_parity_test runs it on the host CUDA build).
// cuda::BiLstmForward / BiLstmBackward (bilstm_cuda.h, on lstm_cuda.h's
// directions) against the CPU BiLSTM (bilstm.h) through the one comparator
// (parity_comparator.h), FP32 and BF16 (inputs and parameters rounded to
// bf16 on both sides, so the CPU float op on them is the exact-arithmetic
// reference): the (B*T, 2Hd) output, d_input, and each of the eight
// parameter gradients, which start non-zero (they must accumulate). 4
// sequences of T = 6 with lengths 6, 1, 3 and 5 (padding at the ends; a
// length-1 sequence), H = 12, Hd = 5 (not H / 2). A second GPU pass on the
// same inputs gives the same bits.
//
// Reduction lengths (the comparator's K: variances of independent rounding
// walks add along the longest chain). FP32: the output at step t carries the
// input projection's H terms and, through the recurrence, every earlier
// step's Hd: K = H + T * Hd. d_input adds the backward's carry GEMM over 4Hd
// at each step and the final d_gates W_ih over 4Hd: + (T + 1) * 4Hd; the
// parameter gradients add the sum over the B*T positions. BF16: the GPU
// rounds h to bf16 at every step and the gate gradients at every step, each
// carried along the sequence: K = T for the output, 2T + 1 for d_input (its
// own rounding at the end) and 2T for the float parameter gradients (bf16
// operands, float sums), all at bf16's eps.
#include <cuda_runtime.h>

#include <cstdint>
#include <string>
#include <type_traits>
#include <vector>

#include "gtest/gtest.h"
#include "model/bert/config.h"
#include "model/bert/parameter_layout.h"
#include "model/cuda/bf16.h"
#include "model/cuda/bf16_test_util.h"
#include "model/cuda/context.h"
#include "model/cuda/cuda_check.h"
#include "model/cuda/device_buffer.h"
#include "model/cuda/parity_test_util.h"
#include "model/heads/bilstm.h"
#include "model/heads/bilstm_cuda.h"

namespace bertlab {
namespace {

constexpr int64_t kBatch = 4, kSeqLen = 6, kInput = 12, kHidden = 5;
const std::vector<int32_t> kLengths = {6, 1, 3, 5};

// The device element type of a storage type.
template <typename Storage>
using DeviceType =
    typename std::conditional<std::is_same<Storage, float>::value, float,
                              __nv_bfloat16>::type;

struct Inputs {
  explicit Inputs(InputRounding rounding) {
    BertConfig config;
    config.hidden_size = kInput;
    BiLstmOptions options;
    options.hidden_size = kHidden;
    offsets = AddBiLstmParameters(config, options, &layout);
    const int64_t size = layout.total_size();
    // nn.LSTM's initial range, U(-1/sqrt(Hd), 1/sqrt(Hd)), widened a little
    // so that the gates leave their linear region.
    params = RoundInputs(rounding, RandomUniform(size, 61, -0.6f, 0.6f));
    input = RoundInputs(rounding, RandomNormal(kBatch * kSeqLen * kInput, 62));
    d_output =
        RoundInputs(rounding, RandomNormal(kBatch * kSeqLen * 2 * kHidden, 63));
    grads = RandomNormal(size, 64, 0.1f);
    mask.assign(kBatch * kSeqLen, 0);
    for (int64_t b = 0; b < kBatch; ++b) {
      for (int64_t t = 0; t < kLengths[b]; ++t) mask[b * kSeqLen + t] = 1;
    }
  }
  ParameterLayout layout;
  BiLstmOffsets offsets;
  std::vector<float> params, input, d_output, grads;
  std::vector<int32_t> mask;
};

struct Results {
  std::vector<float> output, d_input, grads;
};

Results CpuBiLstm(const Inputs& in) {
  BiLstmActivations<float> acts(in.offsets, kBatch, kSeqLen);
  BiLstmForward(in.offsets, in.params.data(), in.input.data(), in.mask.data(),
                kBatch, kSeqLen, &acts);
  Results cpu;
  cpu.output.assign(acts.output(),
                    acts.output() + kBatch * kSeqLen * 2 * kHidden);
  cpu.grads = in.grads;
  cpu.d_input.resize(kBatch * kSeqLen * kInput);
  BiLstmBackward(in.offsets, in.params.data(), cpu.grads.data(),
                 in.input.data(), in.d_output.data(), kBatch, kSeqLen, &acts,
                 cpu.d_input.data());
  return cpu;
}

// n device values of storage type Storage, as float.
template <typename Storage>
std::vector<float> ToHostFloats(const void* device, int64_t n,
                                const CudaContext& context) {
  std::vector<Storage> host(static_cast<size_t>(n));
  BERTLAB_CUDA_CHECK(cudaMemcpyAsync(host.data(), device, n * sizeof(Storage),
                                     cudaMemcpyDeviceToHost, context.stream()));
  context.Synchronize();
  return ToFloat(host);
}

template <typename Storage>
Results GpuBiLstm(const Inputs& in, const CudaContext& context) {
  using T = DeviceType<Storage>;
  DeviceBuffer<Storage> params("params", ToStorage<Storage>(in.params)),
      input("input", ToStorage<Storage>(in.input)),
      d_output("d_output", ToStorage<Storage>(in.d_output)),
      d_input("d_input", kBatch * kSeqLen * kInput);
  DeviceBuffer<int32_t> mask("mask", in.mask);
  DeviceBuffer<float> grads("grads", in.grads);
  // DeviceBuffer's host copies run on the legacy default stream.
  BERTLAB_CUDA_CHECK(cudaDeviceSynchronize());
  cuda::BiLstmActivations<T> acts(in.offsets, kBatch, kSeqLen);
  const T* device_params = reinterpret_cast<const T*>(params.data());
  const T* device_input = reinterpret_cast<const T*>(input.data());
  cuda::BiLstmForward(in.offsets, device_params, device_input, mask.data(),
                      kBatch, kSeqLen, &acts, context);
  cuda::BiLstmBackward(in.offsets, device_params, grads.data(), device_input,
                       reinterpret_cast<const T*>(d_output.data()), kBatch,
                       kSeqLen, &acts, reinterpret_cast<T*>(d_input.data()),
                       context);
  Results gpu;
  gpu.output = ToHostFloats<Storage>(acts.output(),
                                     kBatch * kSeqLen * 2 * kHidden, context);
  gpu.d_input =
      ToHostFloats<Storage>(d_input.data(), kBatch * kSeqLen * kInput, context);
  gpu.grads =
      ToHostFloats<float>(grads.data(), in.layout.total_size(), context);
  return gpu;
}

template <typename Storage>
void CheckBiLstm(ParityDtype dtype, int64_t output_k, int64_t d_input_k,
                 int64_t grads_k) {
  const Inputs in(RoundingOf<Storage>());
  CudaContext context;
  const Results gpu = GpuBiLstm<Storage>(in, context);
  const Results cpu = CpuBiLstm(in);
  ExpectParity("bilstm output", gpu.output, cpu.output, dtype, output_k);
  ExpectParity("bilstm d_input", gpu.d_input, cpu.d_input, dtype, d_input_k);
  for (const ParameterInfo& info : in.layout.parameters()) {
    const auto begin = info.offset, end = info.offset + info.size;
    ExpectParity(
        "gradient " + info.name,
        std::vector<float>(gpu.grads.begin() + begin, gpu.grads.begin() + end),
        std::vector<float>(cpu.grads.begin() + begin, cpu.grads.begin() + end),
        dtype, grads_k);
  }
  // Padded outputs and their input gradients are exactly 0.
  for (int64_t b = 0; b < kBatch; ++b) {
    for (int64_t t = kLengths[b]; t < kSeqLen; ++t) {
      for (int64_t j = 0; j < 2 * kHidden; ++j) {
        EXPECT_EQ(gpu.output[(b * kSeqLen + t) * 2 * kHidden + j], 0.0f);
      }
      for (int64_t j = 0; j < kInput; ++j) {
        EXPECT_EQ(gpu.d_input[(b * kSeqLen + t) * kInput + j], 0.0f);
      }
    }
  }
  const Results again = GpuBiLstm<Storage>(in, context);
  ExpectBitIdentical("bilstm output, second pass", again.output, gpu.output);
  ExpectBitIdentical("bilstm d_input, second pass", again.d_input, gpu.d_input);
  ExpectBitIdentical("bilstm gradients, second pass", again.grads, gpu.grads);
}

TEST(BiLstmParityTest, Float) {
  const int64_t forward = kInput + kSeqLen * kHidden;
  const int64_t backward = forward + (kSeqLen + 1) * 4 * kHidden;
  CheckBiLstm<float>(kF32, forward, backward, backward + kBatch * kSeqLen);
}

TEST(BiLstmParityTest, Bf16) {
  CheckBiLstm<Bf16>(kBF16, kSeqLen, 2 * kSeqLen + 1, 2 * kSeqLen);
}

}  // namespace
}  // namespace bertlab
