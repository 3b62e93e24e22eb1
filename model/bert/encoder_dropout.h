// Where the encoder's dropout masks come from: the rate and Philox stream of
// each dropout site under DropoutSettings, and the attention options of a
// layer (causal or reverse-causal mask, probability dropout). Shared by the CPU
// encoder (encoder.cc) and the CUDA encoder (model/bert/encoder_cuda.cc), so
// both draw the same masks.
#ifndef BERTLAB_MODEL_BERT_ENCODER_DROPOUT_H_
#define BERTLAB_MODEL_BERT_ENCODER_DROPOUT_H_

#include <cstdint>

#include "common/philox.h"
#include "model/bert/config.h"
#include "model/bert/encoder.h"
#include "model/ops/attention.h"

namespace bertlab {

// The dropout stream of one site; rate 0 when not training.
struct DropoutSite {
  float rate;
  PhiloxStream stream;
};

inline DropoutSite EncoderDropoutSite(const DropoutSettings& dropout,
                                      double rate, uint32_t tensor_id) {
  return {dropout.training ? static_cast<float>(rate) : 0.0f,
          PhiloxStream{dropout.seed, dropout.step, tensor_id}};
}

// Layer `layer`'s attention: causal or reverse causal per the config,
// probability dropout at site LayerDropoutTensorId(layer, 0).
inline AttentionOptions EncoderAttentionOptions(const BertConfig& config,
                                                const DropoutSettings& dropout,
                                                int64_t layer) {
  AttentionOptions options;
  options.causal = config.attention_mode == AttentionMode::kCausal;
  options.reverse_causal =
      config.attention_mode == AttentionMode::kReverseCausal;
  const DropoutSite site =
      EncoderDropoutSite(dropout, config.attention_probs_dropout_prob,
                         LayerDropoutTensorId(layer, 0));
  options.dropout_rate = site.rate;
  options.dropout_stream = site.stream;
  return options;
}

}  // namespace bertlab

#endif  // BERTLAB_MODEL_BERT_ENCODER_DROPOUT_H_
