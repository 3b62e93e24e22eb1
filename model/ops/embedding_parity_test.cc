// Needs a GPU: tagged manual + requires-gpu, built only with --config=cuda
// (host_embedding_parity_test runs it on the host CUDA build).
// cuda::EmbeddingForward / Backward against the CPU op bit for bit, from
// float and from bf16 tables (the same float additions in the same order,
// then one rounding of the output; the gradients accumulate in float).
#include <cstdint>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "model/cuda/bf16.h"
#include "model/cuda/bf16_test_util.h"
#include "model/cuda/context.h"
#include "model/cuda/device_buffer.h"
#include "model/cuda/parity_test_util.h"
#include "model/ops/embedding.h"
#include "model/ops/embedding_cuda.h"

namespace bertlab {
namespace {

struct EmbeddingInputs {
  static constexpr int64_t kBatch = 3, kSeqLen = 13, kHidden = 37, kVocab = 11,
                           kMaxPositions = 17, kTypes = 2;
  static constexpr int64_t kRows = kBatch * kSeqLen;
  explicit EmbeddingInputs(InputRounding rounding)
      : ids(RandomIds(kRows, kVocab, 11)),
        type_ids(RandomIds(kRows, kTypes, 12)),
        word(RoundInputs(rounding, RandomNormal(kVocab * kHidden, 13))),
        position(
            RoundInputs(rounding, RandomNormal(kMaxPositions * kHidden, 14))),
        type(RoundInputs(rounding, RandomNormal(kTypes * kHidden, 15))),
        d_out(RoundInputs(rounding, RandomNormal(kRows * kHidden, 16))),
        d_word(RandomNormal(kVocab * kHidden, 17)),
        d_position(RandomNormal(kMaxPositions * kHidden, 18)),
        d_type(RandomNormal(kTypes * kHidden, 19)) {}
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

EmbeddingReference CpuEmbedding(const EmbeddingInputs& in) {
  using In = EmbeddingInputs;
  EmbeddingReference cpu{std::vector<float>(In::kRows * In::kHidden), in.d_word,
                         in.d_position, in.d_type};
  EmbeddingForward(cpu.out.data(), in.ids.data(), in.type_ids.data(),
                   in.word.data(), in.position.data(), in.type.data(),
                   In::kBatch, In::kSeqLen, In::kHidden, In::kVocab,
                   In::kMaxPositions, In::kTypes);
  EmbeddingBackward(cpu.d_word.data(), cpu.d_position.data(), cpu.d_type.data(),
                    in.d_out.data(), in.ids.data(), in.type_ids.data(),
                    In::kBatch, In::kSeqLen, In::kHidden, In::kVocab,
                    In::kMaxPositions, In::kTypes);
  return cpu;
}

// The forward on Storage (float or Bf16) tables and the backward from a
// Storage d_out into float tables, against CpuEmbedding on the same values
// bit for bit. Failure messages name the tensors + tag.
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

class EmbeddingParityTest : public ::testing::Test {
 protected:
  CudaContext context_;
};

TEST_F(EmbeddingParityTest, FloatForwardAndBackwardAreBitIdentical) {
  ExpectEmbeddingBitIdentical<float>("", context_);
}

TEST_F(EmbeddingParityTest, Bf16ForwardAndBackwardAreBitIdentical) {
  ExpectEmbeddingBitIdentical<Bf16>(" from bf16", context_);
}

}  // namespace
}  // namespace bertlab
