#include "model/bert/encoder_parameters.h"

#include <string>

#include "absl/strings/str_cat.h"

namespace bertlab {

Initializer WeightInitializer(const BertConfig& config) {
  return Initializer::TruncatedNormal(config.initializer_range);
}

EncoderOffsets AddEncoderParameters(const BertConfig& config,
                                    ParameterLayout* layout) {
  const int64_t hidden = config.hidden_size;
  const int64_t intermediate = config.intermediate_size;
  const Initializer weight = WeightInitializer(config);
  EncoderOffsets offsets;
  offsets.word_embeddings =
      layout->Add("bert.embeddings.word_embeddings.weight",
                  {config.vocab_size, hidden}, weight);
  offsets.position_embeddings =
      layout->Add("bert.embeddings.position_embeddings.weight",
                  {config.max_position_embeddings, hidden}, weight);
  offsets.token_type_embeddings =
      layout->Add("bert.embeddings.token_type_embeddings.weight",
                  {config.type_vocab_size, hidden}, weight);
  offsets.embeddings_norm_gamma = layout->Add(
      "bert.embeddings.LayerNorm.weight", {hidden}, OnesInitializer());
  offsets.embeddings_norm_beta = layout->Add("bert.embeddings.LayerNorm.bias",
                                             {hidden}, ZerosInitializer());

  for (int64_t l = 0; l < config.num_hidden_layers; ++l) {
    const std::string prefix = absl::StrCat("bert.encoder.layer.", l, ".");
    auto add = [&](const char* name, std::vector<int64_t> shape,
                   Initializer init) {
      return layout->Add(absl::StrCat(prefix, name), std::move(shape), init);
    };
    EncoderLayerOffsets layer;
    // Weights first, then biases, so that each group is contiguous.
    layer.qkv_weight =
        add("attention.self.query.weight", {hidden, hidden}, weight);
    add("attention.self.key.weight", {hidden, hidden}, weight);
    add("attention.self.value.weight", {hidden, hidden}, weight);
    layer.qkv_bias =
        add("attention.self.query.bias", {hidden}, ZerosInitializer());
    add("attention.self.key.bias", {hidden}, ZerosInitializer());
    add("attention.self.value.bias", {hidden}, ZerosInitializer());
    layer.attention_output_weight =
        add("attention.output.dense.weight", {hidden, hidden}, weight);
    layer.attention_output_bias =
        add("attention.output.dense.bias", {hidden}, ZerosInitializer());
    layer.attention_norm_gamma =
        add("attention.output.LayerNorm.weight", {hidden}, OnesInitializer());
    layer.attention_norm_beta =
        add("attention.output.LayerNorm.bias", {hidden}, ZerosInitializer());
    layer.intermediate_weight =
        add("intermediate.dense.weight", {intermediate, hidden}, weight);
    layer.intermediate_bias =
        add("intermediate.dense.bias", {intermediate}, ZerosInitializer());
    layer.output_weight =
        add("output.dense.weight", {hidden, intermediate}, weight);
    layer.output_bias = add("output.dense.bias", {hidden}, ZerosInitializer());
    layer.output_norm_gamma =
        add("output.LayerNorm.weight", {hidden}, OnesInitializer());
    layer.output_norm_beta =
        add("output.LayerNorm.bias", {hidden}, ZerosInitializer());
    offsets.layers.push_back(layer);
  }
  offsets.pooler_weight =
      layout->Add("bert.pooler.dense.weight", {hidden, hidden}, weight);
  offsets.pooler_bias =
      layout->Add("bert.pooler.dense.bias", {hidden}, ZerosInitializer());
  return offsets;
}

}  // namespace bertlab
