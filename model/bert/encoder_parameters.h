// The BERT encoder's parameters (embeddings, L post-LayerNorm blocks, [CLS]
// pooler) declared in a ParameterLayout under Hugging Face's names, with the
// offsets the encoder reads them from.
//
// The query, key and value projections of a layer are added one after the
// other, so their weights form one (3H, H) matrix and their biases one (3H)
// vector: the encoder runs a single fused QKV linear, while a checkpoint still
// sees the three separate HF tensors.
#ifndef BERTLAB_MODEL_BERT_ENCODER_PARAMETERS_H_
#define BERTLAB_MODEL_BERT_ENCODER_PARAMETERS_H_

#include <cstdint>
#include <vector>

#include "model/bert/config.h"
#include "model/bert/parameter_layout.h"

namespace bertlab {

// Offsets into the flat parameter (or gradient) buffer.
struct EncoderLayerOffsets {
  int64_t qkv_weight;               // (3H, H): query; key; value
  int64_t qkv_bias;                 // (3H)
  int64_t attention_output_weight;  // (H, H)
  int64_t attention_output_bias;    // (H)
  int64_t attention_norm_gamma;     // (H)
  int64_t attention_norm_beta;      // (H)
  int64_t intermediate_weight;      // (I, H)
  int64_t intermediate_bias;        // (I)
  int64_t output_weight;            // (H, I)
  int64_t output_bias;              // (H)
  int64_t output_norm_gamma;        // (H)
  int64_t output_norm_beta;         // (H)
};

struct EncoderOffsets {
  int64_t word_embeddings;        // (V, H)
  int64_t position_embeddings;    // (P, H)
  int64_t token_type_embeddings;  // (S, H)
  int64_t embeddings_norm_gamma;  // (H)
  int64_t embeddings_norm_beta;   // (H)
  std::vector<EncoderLayerOffsets> layers;
  int64_t pooler_weight;  // (H, H)
  int64_t pooler_bias;    // (H)
};

// Adds "bert.embeddings.*", "bert.encoder.layer.N.*" and "bert.pooler.*".
// Weights are truncated-normal(initializer_range), LayerNorm gamma 1, beta and
// biases 0.
EncoderOffsets AddEncoderParameters(const BertConfig& config,
                                    ParameterLayout* layout);

// Initializers shared by the encoder and the heads.
Initializer WeightInitializer(const BertConfig& config);
inline Initializer ZerosInitializer() { return Initializer::Constant(0.0); }
inline Initializer OnesInitializer() { return Initializer::Constant(1.0); }

}  // namespace bertlab

#endif  // BERTLAB_MODEL_BERT_ENCODER_PARAMETERS_H_
