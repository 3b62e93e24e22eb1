// The GPU encoder's memory plan; see encoder_activation_plan.h.
#include "model/bert/encoder_activation_plan.h"

#include "common/check.h"

namespace bertlab {
namespace cuda {

const char* GpuAttentionName(GpuAttention attention) {
  switch (attention) {
    case GpuAttention::kUnfused:
      return "unfused";
    case GpuAttention::kFlash:
      return "flash";
  }
  CHECK(false) << "unknown GpuAttention " << static_cast<int>(attention);
  return "";
}

EncoderActivationPlan PlanEncoderActivations(const BertConfig& config,
                                             int64_t batch, int64_t seq_len,
                                             GpuAttention attention,
                                             int64_t activation_bytes) {
  CHECK_GT(batch, 0);
  CHECK_GT(seq_len, 0);
  CHECK(activation_bytes == 4 || activation_bytes == 2)
      << "activation_bytes " << activation_bytes
      << ": 4 (float) or 2 (__nv_bfloat16)";
  const bool flash = attention == GpuAttention::kFlash;
  const int64_t rows = batch * seq_len;
  const int64_t row_stats = batch * config.num_attention_heads * seq_len;
  const int64_t probs = row_stats * seq_len;
  EncoderActivationPlan plan;
  plan.layers = config.num_hidden_layers;
  plan.activation_bytes = activation_bytes;
  plan.rows_by_hidden = rows * config.hidden_size;
  plan.rows_by_qkv = rows * 3 * config.hidden_size;
  plan.rows_by_intermediate = rows * config.intermediate_size;
  plan.batch_by_hidden = batch * config.hidden_size;
  plan.probs = flash ? 0 : probs;
  plan.attention_scratch = flash ? 0 : probs;
  plan.rows = rows;
  plan.logsumexp = flash ? row_stats : 0;
  plan.attention_float_scratch = flash || activation_bytes == 4 ? 0 : probs;
  // FlashAttentionBackwardWorkspaceElements (the row terms D); the encoder's
  // constructor checks the two agree.
  plan.flash_workspace = flash ? row_stats : 0;
  return plan;
}

int64_t EncoderActivationBytes(const EncoderActivationPlan& plan) {
  const int64_t layer_activations = plan.rows_by_qkv + 5 * plan.rows_by_hidden +
                                    2 * plan.rows_by_intermediate + plan.probs;
  const int64_t shared_activations =
      5 * plan.rows_by_hidden + plan.rows_by_qkv + plan.rows_by_intermediate +
      3 * plan.batch_by_hidden + plan.attention_scratch;
  const int64_t layer_floats = 4 * plan.rows + plan.logsumexp;
  const int64_t shared_floats =
      2 * plan.rows + plan.attention_float_scratch + plan.flash_workspace;
  return plan.activation_bytes *
             (plan.layers * layer_activations + shared_activations) +
         static_cast<int64_t>(sizeof(float)) *
             (plan.layers * layer_floats + shared_floats);
}

}  // namespace cuda
}  // namespace bertlab
