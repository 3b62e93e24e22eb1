// The ops parity tests' shared inputs and CPU references; see
// ops_parity_cases.h.
#include "model/cuda/ops_parity_cases.h"

#include "common/philox.h"
#include "model/ops/embedding.h"
#include "model/ops/layer_norm.h"
#include "model/ops/linear.h"

namespace bertlab {
namespace ops_parity {
namespace {

std::vector<float> Round(InputRounding rounding,
                         const std::vector<float>& values) {
  return rounding == InputRounding::kBf16 ? RoundToBf16(values) : values;
}

}  // namespace

GeluInputs::GeluInputs(InputRounding rounding) {
  in = RandomNormal(kSize, 6, 3.0f);
  in[0] = -12.0f;
  in[1] = 12.0f;
  in = Round(rounding, in);
  d_out = Round(rounding, RandomNormal(kSize, 7));
}

EmbeddingInputs::EmbeddingInputs(InputRounding rounding)
    : ids(RandomIds(kRows, kVocab, 11)),
      type_ids(RandomIds(kRows, kTypes, 12)),
      word(Round(rounding, RandomNormal(kVocab * kHidden, 13))),
      position(Round(rounding, RandomNormal(kMaxPositions * kHidden, 14))),
      type(Round(rounding, RandomNormal(kTypes * kHidden, 15))),
      d_out(Round(rounding, RandomNormal(kRows * kHidden, 16))),
      d_word(RandomNormal(kVocab * kHidden, 17)),
      d_position(RandomNormal(kMaxPositions * kHidden, 18)),
      d_type(RandomNormal(kTypes * kHidden, 19)) {}

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

LayerNormInputs::LayerNormInputs(InputRounding rounding)
    : in(Round(rounding, RandomNormal(kRows * kChannels, 20, 2.0f))),
      gamma(Round(rounding, RandomNormal(kChannels, 21))),
      beta(Round(rounding, RandomNormal(kChannels, 22))),
      d_out(Round(rounding, RandomNormal(kRows * kChannels, 23))),
      d_gamma(RandomNormal(kChannels, 24)),
      d_beta(RandomNormal(kChannels, 25)) {}

LayerNormReference CpuLayerNorm(const LayerNormInputs& in) {
  using In = LayerNormInputs;
  LayerNormReference cpu{std::vector<float>(In::kRows * In::kChannels),
                         std::vector<float>(In::kRows),
                         std::vector<float>(In::kRows),
                         std::vector<float>(In::kRows * In::kChannels),
                         in.d_gamma,
                         in.d_beta};
  LayerNormForward(cpu.out.data(), cpu.mean.data(), cpu.rstd.data(),
                   in.in.data(), in.gamma.data(), in.beta.data(), In::kRows,
                   In::kChannels, In::kEps);
  LayerNormBackward(cpu.d_in.data(), cpu.d_gamma.data(), cpu.d_beta.data(),
                    in.d_out.data(), in.in.data(), in.gamma.data(),
                    cpu.mean.data(), cpu.rstd.data(), In::kRows, In::kChannels);
  return cpu;
}

LinearInputs::LinearInputs(InputRounding rounding)
    : in(Round(rounding, RandomNormal(kRows * kIn, 26))),
      weight(Round(rounding, RandomNormal(kOut * kIn, 27))),
      bias(Round(rounding, RandomNormal(kOut, 28))),
      d_out(Round(rounding, RandomNormal(kRows * kOut, 29))),
      d_weight(RandomNormal(kOut * kIn, 30)),
      d_bias(RandomNormal(kOut, 31)) {}

LinearReference CpuLinear(const LinearInputs& in) {
  using In = LinearInputs;
  LinearReference cpu{std::vector<float>(In::kRows * In::kOut),
                      std::vector<float>(In::kRows * In::kIn), in.d_weight,
                      in.d_bias};
  LinearForward(cpu.out.data(), in.in.data(), in.weight.data(), in.bias.data(),
                In::kRows, In::kIn, In::kOut);
  LinearBackward(cpu.d_in.data(), cpu.d_weight.data(), cpu.d_bias.data(),
                 in.d_out.data(), in.in.data(), in.weight.data(), In::kRows,
                 In::kIn, In::kOut);
  return cpu;
}

AttentionInputs::AttentionInputs(InputRounding rounding)
    : qkv(Round(rounding, RandomNormal(kBatch * kSeqLen * 3 * kHidden, 32))),
      d_out(Round(rounding, RandomNormal(kBatch * kSeqLen * kHidden, 33))),
      mask(kBatch * kSeqLen, 1) {
  for (int64_t t = 9; t < kSeqLen; ++t) mask[kSeqLen + t] = 0;  // padding
}

std::vector<AttentionVariant> AttentionVariants() {
  std::vector<AttentionVariant> variants;
  for (bool causal : {false, true}) {
    for (float rate : {0.0f, 0.1f}) {
      AttentionVariant variant;
      variant.options.causal = causal;
      variant.options.dropout_rate = rate;
      variant.options.dropout_stream = PhiloxStream{5, 2, 9};
      variant.tag =
          std::string(causal ? " causal" : "") + (rate > 0 ? " dropout" : "");
      variants.push_back(variant);
    }
  }
  return variants;
}

AttentionReference CpuAttention(const AttentionInputs& in,
                                const AttentionOptions& options) {
  using In = AttentionInputs;
  AttentionReference cpu{
      std::vector<float>(In::kBatch * In::kSeqLen * In::kHidden),
      std::vector<float>(In::kProbsSize), std::vector<float>(in.qkv.size())};
  AttentionForward(cpu.out.data(), cpu.probs.data(), in.qkv.data(),
                   in.mask.data(), In::kBatch, In::kSeqLen, In::kHeads,
                   In::kHeadDim, options);
  AttentionBackward(cpu.d_qkv.data(), in.d_out.data(), in.qkv.data(),
                    cpu.probs.data(), in.mask.data(), In::kBatch, In::kSeqLen,
                    In::kHeads, In::kHeadDim, options);
  return cpu;
}

}  // namespace ops_parity
}  // namespace bertlab
