// BertConfig: the hyperparameters that fix the encoder's shapes and math, the
// table of named model sizes (the paper's grid plus small sizes that train on
// 2 cores), and config.json in the layout Hugging Face uses for BERT.
//
// config.json keys read and written: vocab_size, hidden_size,
// num_hidden_layers, num_attention_heads, intermediate_size,
// max_position_embeddings, type_vocab_size, layer_norm_eps, hidden_act
// ("gelu" = exact erf GELU, "gelu_new" or "gelu_pytorch_tanh" = tanh
// approximation), hidden_dropout_prob, attention_probs_dropout_prob,
// initializer_range, and bertlab's own "attention_mode" ("bidirectional",
// "causal" or "reverse_causal"; absent = bidirectional), which keeps a
// left-to-right (right-to-left) model causal (reverse causal) when it is
// fine-tuned.
#ifndef BERTLAB_MODEL_BERT_CONFIG_H_
#define BERTLAB_MODEL_BERT_CONFIG_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "model/bert/model_size.h"
#include "model/ops/gelu.h"

namespace bertlab {

enum class AttentionMode {
  kBidirectional,  // every token sees every token (BERT)
  kCausal,         // token i sees tokens j <= i (left-to-right LM)
  kReverseCausal,  // token i sees tokens j >= i (right-to-left LM)
};

// The config.json spelling: "bidirectional", "causal", "reverse_causal".
const char* AttentionModeName(AttentionMode mode);

struct BertConfig {
  int64_t vocab_size = 30522;
  int64_t hidden_size = 768;
  int64_t num_hidden_layers = 12;
  int64_t num_attention_heads = 12;
  int64_t intermediate_size = 3072;
  int64_t max_position_embeddings = 512;
  int64_t type_vocab_size = 2;
  double layer_norm_eps = 1e-12;
  GeluForm hidden_act = GeluForm::kErf;
  double hidden_dropout_prob = 0.1;
  double attention_probs_dropout_prob = 0.1;
  double initializer_range = 0.02;
  AttentionMode attention_mode = AttentionMode::kBidirectional;

  int64_t head_dim() const { return hidden_size / num_attention_heads; }
};

// Bounds on what a config may ask for, whatever a file says: sizes that
// feed int32 GEMM dimensions, the number of layers, and the parameter count
// (2^36, about 69 billion: BERT-LARGE has 0.34 billion).
inline constexpr int64_t kMaxConfigDimension = (int64_t{1} << 31) - 1;
inline constexpr int64_t kMaxHiddenLayers = 1024;
inline constexpr double kMaxParameterCount = 68719476736.0;  // 2^36

// Every field in range (positive, and within the bounds above) and
// hidden_size divisible by num_attention_heads; the message names the field
// and what it must be.
absl::Status ValidateConfig(const BertConfig& config);

// The parameters of the embeddings, the encoder layers and the pooler (no
// pre-training or task head), counted in double so that absurd configs do
// not overflow.
double EncoderParameterCount(const BertConfig& config);

// The paper's model-size grid (Table 6) with BERT-BASE and BERT-LARGE, and the
// small sizes, e.g. "L2_H128_A2", "base", "large".
const std::vector<ModelSize>& ModelSizes();

// The config of a named size with the given vocabulary; other fields keep
// their BERT defaults. An unknown name lists the known ones.
absl::StatusOr<BertConfig> ConfigForSize(absl::string_view name,
                                         int64_t vocab_size);

// config.json text <-> BertConfig. Parsing names `source` (a path) in errors,
// requires the shape keys and validates the result; unknown keys (HF writes
// many, e.g. "architectures") are ignored.
absl::StatusOr<BertConfig> ParseConfigJson(absl::string_view json,
                                           absl::string_view source);
std::string ConfigToJson(const BertConfig& config);

}  // namespace bertlab

#endif  // BERTLAB_MODEL_BERT_CONFIG_H_
