#include "model/bert/config.h"

#include <exception>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "nlohmann/json.hpp"

namespace bertlab {
namespace {

using Json = nlohmann::json;

absl::Status OutOfRange(absl::string_view field, absl::string_view rule,
                        absl::string_view value) {
  return absl::InvalidArgumentError(
      absl::StrCat(field, " must be ", rule, ", got ", value));
}

const char* GeluName(GeluForm form) {
  return form == GeluForm::kErf ? "gelu" : "gelu_new";
}

}  // namespace

absl::Status ValidateConfig(const BertConfig& c) {
  struct Positive {
    const char* field;
    int64_t value;
  };
  for (const Positive& p :
       {Positive{"vocab_size", c.vocab_size},
        Positive{"hidden_size", c.hidden_size},
        Positive{"num_hidden_layers", c.num_hidden_layers},
        Positive{"num_attention_heads", c.num_attention_heads},
        Positive{"intermediate_size", c.intermediate_size},
        Positive{"max_position_embeddings", c.max_position_embeddings},
        Positive{"type_vocab_size", c.type_vocab_size}}) {
    if (p.value <= 0) {
      return OutOfRange(p.field, "positive", absl::StrCat(p.value));
    }
  }
  // Bounds that keep every size computable: GEMM dimensions are int32, the
  // parameter layout holds one entry per tensor, and the parameter count
  // stays far from int64 overflow (files in the wild can hold anything).
  for (const Positive& p :
       {Positive{"vocab_size", c.vocab_size},
        Positive{"hidden_size", c.hidden_size},
        Positive{"intermediate_size", c.intermediate_size},
        Positive{"max_position_embeddings", c.max_position_embeddings},
        Positive{"type_vocab_size", c.type_vocab_size}}) {
    if (p.value > kMaxConfigDimension) {
      return OutOfRange(p.field, absl::StrCat("at most ", kMaxConfigDimension),
                        absl::StrCat(p.value));
    }
  }
  if (c.num_hidden_layers > kMaxHiddenLayers) {
    return OutOfRange("num_hidden_layers",
                      absl::StrCat("at most ", kMaxHiddenLayers),
                      absl::StrCat(c.num_hidden_layers));
  }
  if (const double count = EncoderParameterCount(c);
      count > kMaxParameterCount) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "the model would have %.3g parameters (vocab_size %d, hidden_size %d, "
        "num_hidden_layers %d, intermediate_size %d), more than the %.3g "
        "(2^36) bertlab supports",
        count, c.vocab_size, c.hidden_size, c.num_hidden_layers,
        c.intermediate_size, kMaxParameterCount));
  }
  if (c.hidden_size % c.num_attention_heads != 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("hidden_size (", c.hidden_size,
                     ") must be divisible by num_attention_heads (",
                     c.num_attention_heads, ")"));
  }
  if (!(c.layer_norm_eps > 0)) {
    return OutOfRange("layer_norm_eps", "positive",
                      absl::StrCat(c.layer_norm_eps));
  }
  if (!(c.hidden_dropout_prob >= 0 && c.hidden_dropout_prob < 1)) {
    return OutOfRange("hidden_dropout_prob", "in [0, 1)",
                      absl::StrCat(c.hidden_dropout_prob));
  }
  if (!(c.attention_probs_dropout_prob >= 0 &&
        c.attention_probs_dropout_prob < 1)) {
    return OutOfRange("attention_probs_dropout_prob", "in [0, 1)",
                      absl::StrCat(c.attention_probs_dropout_prob));
  }
  if (!(c.initializer_range > 0)) {
    return OutOfRange("initializer_range", "positive",
                      absl::StrCat(c.initializer_range));
  }
  return absl::OkStatus();
}

double EncoderParameterCount(const BertConfig& c) {
  const double h = static_cast<double>(c.hidden_size);
  const double i = static_cast<double>(c.intermediate_size);
  const double embeddings =
      (static_cast<double>(c.vocab_size) + c.max_position_embeddings +
       c.type_vocab_size + 2) *
      h;
  // Q, K, V and output projections, the FFN, two LayerNorms, with biases.
  const double layer = 4 * (h * h + h) + 2 * h * i + i + h + 4 * h;
  const double pooler = h * h + h;
  return embeddings + static_cast<double>(c.num_hidden_layers) * layer + pooler;
}

const std::vector<ModelSize>& ModelSizes() {
  static const std::vector<ModelSize>* sizes = new std::vector<ModelSize>{
      // Small sizes that train on a 2-core CPU.
      {"L2_H128_A2", 2, 128, 2},
      {"L4_H256_A4", 4, 256, 4},
      {"L4_H512_A8", 4, 512, 8},
      {"L8_H512_A8", 8, 512, 8},
      // The paper's Table 6 grid.
      {"L3_H768_A12", 3, 768, 12},
      {"L6_H768_A3", 6, 768, 3},
      {"L6_H768_A12", 6, 768, 12},
      {"base", 12, 768, 12},  // BERT-BASE, L12_H768_A12
      {"L12_H1024_A16", 12, 1024, 16},
      {"large", 24, 1024, 16},  // BERT-LARGE, L24_H1024_A16
  };
  return *sizes;
}

absl::StatusOr<BertConfig> ConfigForSize(absl::string_view name,
                                         int64_t vocab_size) {
  std::vector<std::string> known;
  for (const ModelSize& size : ModelSizes()) {
    if (name == size.name) {
      BertConfig config;
      config.vocab_size = vocab_size;
      config.num_hidden_layers = size.layers;
      config.hidden_size = size.hidden;
      config.num_attention_heads = size.heads;
      config.intermediate_size = 4 * size.hidden;
      if (absl::Status status = ValidateConfig(config); !status.ok()) {
        return status;
      }
      return config;
    }
    known.push_back(size.name);
  }
  return absl::InvalidArgumentError(
      absl::StrCat("unknown model size '", name,
                   "'; known sizes: ", absl::StrJoin(known, ", ")));
}

absl::StatusOr<BertConfig> ParseConfigJson(absl::string_view text,
                                           absl::string_view source) {
  Json json;
  try {
    json = Json::parse(text.begin(), text.end());
  } catch (const std::exception& error) {
    return absl::InvalidArgumentError(
        absl::StrCat(source, ": malformed JSON: ", error.what()));
  }
  if (!json.is_object()) {
    return absl::InvalidArgumentError(
        absl::StrCat(source, ": expected a JSON object"));
  }
  BertConfig config;
  std::vector<std::string> missing;
  auto read_int = [&](const char* key, int64_t* out, bool required) {
    auto it = json.find(key);
    if (it == json.end()) {
      if (required) missing.push_back(key);
      return absl::OkStatus();
    }
    if (!it->is_number_integer()) {
      return absl::InvalidArgumentError(absl::StrCat(
          source, ": \"", key, "\" must be an integer, got ", it->dump()));
    }
    *out = it->get<int64_t>();
    return absl::OkStatus();
  };
  auto read_double = [&](const char* key, double* out) {
    auto it = json.find(key);
    if (it == json.end()) return absl::OkStatus();
    if (!it->is_number()) {
      return absl::InvalidArgumentError(absl::StrCat(
          source, ": \"", key, "\" must be a number, got ", it->dump()));
    }
    *out = it->get<double>();
    return absl::OkStatus();
  };
  for (absl::Status status :
       {read_int("vocab_size", &config.vocab_size, true),
        read_int("hidden_size", &config.hidden_size, true),
        read_int("num_hidden_layers", &config.num_hidden_layers, true),
        read_int("num_attention_heads", &config.num_attention_heads, true),
        read_int("intermediate_size", &config.intermediate_size, true),
        read_int("max_position_embeddings", &config.max_position_embeddings,
                 true),
        read_int("type_vocab_size", &config.type_vocab_size, true),
        read_double("layer_norm_eps", &config.layer_norm_eps),
        read_double("hidden_dropout_prob", &config.hidden_dropout_prob),
        read_double("attention_probs_dropout_prob",
                    &config.attention_probs_dropout_prob),
        read_double("initializer_range", &config.initializer_range)}) {
    if (!status.ok()) return status;
  }
  if (!missing.empty()) {
    return absl::InvalidArgumentError(absl::StrCat(
        source, ": missing required key(s): ", absl::StrJoin(missing, ", ")));
  }
  if (auto it = json.find("hidden_act"); it != json.end()) {
    const std::string act = it->is_string() ? it->get<std::string>() : "";
    if (act == "gelu") {
      config.hidden_act = GeluForm::kErf;
    } else if (act == "gelu_new" || act == "gelu_pytorch_tanh") {
      config.hidden_act = GeluForm::kTanh;
    } else {
      return absl::InvalidArgumentError(
          absl::StrCat(source,
                       ": \"hidden_act\" must be \"gelu\" (exact erf) or "
                       "\"gelu_new\" / \"gelu_pytorch_tanh\" (tanh form), got ",
                       it->dump()));
    }
  }
  if (auto it = json.find("attention_mode"); it != json.end()) {
    const std::string mode = it->is_string() ? it->get<std::string>() : "";
    if (mode == "bidirectional") {
      config.attention_mode = AttentionMode::kBidirectional;
    } else if (mode == "causal") {
      config.attention_mode = AttentionMode::kCausal;
    } else if (mode == "reverse_causal") {
      config.attention_mode = AttentionMode::kReverseCausal;
    } else {
      return absl::InvalidArgumentError(
          absl::StrCat(source,
                       ": \"attention_mode\" must be \"bidirectional\", "
                       "\"causal\" or \"reverse_causal\", got ",
                       it->dump()));
    }
  }
  if (absl::Status status = ValidateConfig(config); !status.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat(source, ": ", status.message()));
  }
  return config;
}

const char* AttentionModeName(AttentionMode mode) {
  switch (mode) {
    case AttentionMode::kBidirectional:
      return "bidirectional";
    case AttentionMode::kCausal:
      return "causal";
    case AttentionMode::kReverseCausal:
      return "reverse_causal";
  }
  return "unknown";
}

std::string ConfigToJson(const BertConfig& config) {
  Json json = {
      {"architectures", {"BertForPreTraining"}},
      {"model_type", "bert"},
      {"vocab_size", config.vocab_size},
      {"hidden_size", config.hidden_size},
      {"num_hidden_layers", config.num_hidden_layers},
      {"num_attention_heads", config.num_attention_heads},
      {"intermediate_size", config.intermediate_size},
      {"max_position_embeddings", config.max_position_embeddings},
      {"type_vocab_size", config.type_vocab_size},
      {"layer_norm_eps", config.layer_norm_eps},
      {"hidden_act", GeluName(config.hidden_act)},
      {"hidden_dropout_prob", config.hidden_dropout_prob},
      {"attention_probs_dropout_prob", config.attention_probs_dropout_prob},
      {"initializer_range", config.initializer_range},
      {"attention_mode", AttentionModeName(config.attention_mode)},
  };
  return json.dump(2) + "\n";
}

}  // namespace bertlab
