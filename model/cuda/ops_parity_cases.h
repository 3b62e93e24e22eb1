// The inputs and CPU references that ops_parity_test.cc (FP32) and
// ops_bf16_parity_test.cc (the bf16 twins) share: the same odd shapes and
// seeds, drawn once here; InputRounding::kBf16 rounds what a bf16 GPU tensor
// holds (activations, weights, output gradients) on both sides, while the
// starting values of the float parameter gradients stay float. Plus the one
// check that is the same in both precisions (the embedding, bit for bit).
// Test-only; the checks need a GPU when run.
#ifndef BERTLAB_MODEL_CUDA_OPS_PARITY_CASES_H_
#define BERTLAB_MODEL_CUDA_OPS_PARITY_CASES_H_

#include <cstdint>
#include <string>
#include <type_traits>
#include <vector>

#include "model/cuda/bf16.h"
#include "model/cuda/bf16_test_util.h"
#include "model/cuda/context.h"
#include "model/cuda/device_buffer.h"
#include "model/cuda/parity_test_util.h"
#include "model/ops/attention.h"
#include "model/ops/embedding_cuda.h"

namespace bertlab {
namespace ops_parity {

enum class InputRounding { kNone, kBf16 };

// The rounding of a GPU tensor of storage type Storage (float or Bf16).
template <typename Storage>
constexpr InputRounding RoundingOf() {
  return std::is_same<Storage, float>::value ? InputRounding::kNone
                                             : InputRounding::kBf16;
}

// GELU: N(0, 9) inputs with the saturated ends -12 and 12.
struct GeluInputs {
  static constexpr int64_t kSize = 4099;
  explicit GeluInputs(InputRounding rounding);
  std::vector<float> in, d_out;  // (kSize)
};

struct EmbeddingInputs {
  static constexpr int64_t kBatch = 3, kSeqLen = 13, kHidden = 37, kVocab = 11,
                           kMaxPositions = 17, kTypes = 2;
  static constexpr int64_t kRows = kBatch * kSeqLen;
  explicit EmbeddingInputs(InputRounding rounding);
  std::vector<int32_t> ids, type_ids;  // (kRows)
  std::vector<float> word;             // (kVocab, kHidden)
  std::vector<float> position;         // (kMaxPositions, kHidden)
  std::vector<float> type;             // (kTypes, kHidden)
  std::vector<float> d_out;            // (kRows, kHidden)
  // Gradient tables start non-zero: the op must accumulate.
  std::vector<float> d_word, d_position, d_type;
};

// The CPU float op: forward, and backward onto the starting tables.
struct EmbeddingReference {
  std::vector<float> out, d_word, d_position, d_type;
};
EmbeddingReference CpuEmbedding(const EmbeddingInputs& in);

struct LayerNormInputs {
  static constexpr int64_t kRows = 29, kChannels = 37;
  static constexpr double kEps = 1e-12;
  explicit LayerNormInputs(InputRounding rounding);
  std::vector<float> in;           // (kRows, kChannels), N(0, 4)
  std::vector<float> gamma, beta;  // (kChannels)
  std::vector<float> d_out;        // (kRows, kChannels)
  // Gradients start non-zero: the op must accumulate into them in float.
  std::vector<float> d_gamma, d_beta;  // (kChannels)
};

// The CPU float op: forward, and backward onto the starting gradients.
struct LayerNormReference {
  std::vector<float> out, mean, rstd, d_in, d_gamma, d_beta;
};
LayerNormReference CpuLayerNorm(const LayerNormInputs& in);

struct LinearInputs {
  static constexpr int64_t kRows = 13, kIn = 37, kOut = 7;
  explicit LinearInputs(InputRounding rounding);
  std::vector<float> in;      // (kRows, kIn)
  std::vector<float> weight;  // (kOut, kIn)
  std::vector<float> bias;    // (kOut)
  std::vector<float> d_out;   // (kRows, kOut)
  // Gradients start non-zero: the op must accumulate.
  std::vector<float> d_weight, d_bias;
};

// The CPU float op: forward, and backward onto the starting gradients.
struct LinearReference {
  std::vector<float> out, d_in, d_weight, d_bias;
};
LinearReference CpuLinear(const LinearInputs& in);

// Two sequences, the second padded from t = 9.
struct AttentionInputs {
  static constexpr int64_t kBatch = 2, kSeqLen = 13, kHeads = 3, kHeadDim = 7;
  static constexpr int64_t kHidden = kHeads * kHeadDim;
  static constexpr int64_t kProbsSize = kBatch * kHeads * kSeqLen * kSeqLen;
  explicit AttentionInputs(InputRounding rounding);
  std::vector<float> qkv;     // (kBatch, kSeqLen, 3 kHidden)
  std::vector<float> d_out;   // (kBatch, kSeqLen, kHidden)
  std::vector<int32_t> mask;  // (kBatch, kSeqLen)
};

// Bidirectional and causal, dropout off and 0.1; tag names the variant
// (" causal", " dropout").
struct AttentionVariant {
  AttentionOptions options;
  std::string tag;
};
std::vector<AttentionVariant> AttentionVariants();

struct AttentionReference {
  std::vector<float> out, probs, d_qkv;
};
AttentionReference CpuAttention(const AttentionInputs& in,
                                const AttentionOptions& options);

// The embedding forward on Storage (float or Bf16) tables and the backward
// from a Storage d_out into float tables, against CpuEmbedding on the same
// values bit for bit (the same float additions in the same order, then one
// rounding of the output). Failure messages name the tensors + tag.
template <typename Storage>
void ExpectEmbeddingBitIdentical(const std::string& tag,
                                 const CudaContext& context) {
  using In = EmbeddingInputs;
  const In in(RoundingOf<Storage>());
  const EmbeddingReference cpu = CpuEmbedding(in);
  DeviceBuffer<int32_t> ids_d("ids", in.ids),
      type_ids_d("type_ids", in.type_ids);
  DeviceBuffer<Storage> word_d("word", ToStorage<Storage>(in.word)),
      position_d("position", ToStorage<Storage>(in.position)),
      type_d("type", ToStorage<Storage>(in.type)),
      dy_d("dy", ToStorage<Storage>(in.d_out)),
      out_d("out", In::kRows * In::kHidden);
  DeviceBuffer<float> d_word_d("d_word", in.d_word),
      d_position_d("d_position", in.d_position), d_type_d("d_type", in.d_type);
  cuda::EmbeddingForward(AsDevice(out_d.data()), ids_d.data(),
                         type_ids_d.data(), AsDevice(word_d.data()),
                         AsDevice(position_d.data()), AsDevice(type_d.data()),
                         In::kBatch, In::kSeqLen, In::kHidden, In::kVocab,
                         In::kMaxPositions, In::kTypes, context);
  cuda::EmbeddingBackward(d_word_d.data(), d_position_d.data(), d_type_d.data(),
                          AsDevice(dy_d.data()), ids_d.data(),
                          type_ids_d.data(), In::kBatch, In::kSeqLen,
                          In::kHidden, In::kVocab, In::kMaxPositions,
                          In::kTypes, context);
  context.Synchronize();
  ExpectBitIdentical("embedding" + tag, HostFloats(out_d),
                     ToFloat(ToStorage<Storage>(cpu.out)));
  ExpectBitIdentical("d_word" + tag, d_word_d.ToHost(), cpu.d_word);
  ExpectBitIdentical("d_position" + tag, d_position_d.ToHost(), cpu.d_position);
  ExpectBitIdentical("d_token_type" + tag, d_type_d.ToHost(), cpu.d_type);
}

}  // namespace ops_parity
}  // namespace bertlab

#endif  // BERTLAB_MODEL_CUDA_OPS_PARITY_CASES_H_
