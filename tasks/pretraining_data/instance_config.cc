#include "tasks/pretraining_data/instance_config.h"

#include <charconv>
#include <cmath>
#include <functional>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "common/check.h"
#include "common/status_macros.h"

namespace bertlab {
namespace {

// Shortest text that parses back to the same double.
std::string DoubleToText(double value) {
  char buffer[64];
  const std::to_chars_result result =
      std::to_chars(buffer, buffer + sizeof(buffer), value);
  CHECK(result.ec == std::errc());
  return std::string(buffer, result.ptr);
}

absl::Status BadValue(absl::string_view name, absl::string_view value,
                      absl::string_view expected) {
  return absl::InvalidArgumentError(absl::StrCat(
      "config field ", name, ": cannot parse \"", value, "\" as ", expected));
}

// One field: how to print it and how to parse it into a config.
struct Field {
  const char* name;
  std::function<std::string(const InstanceConfig&)> to_text;
  std::function<absl::Status(absl::string_view, InstanceConfig*)> from_text;
};

template <typename Int>
Field IntField(const char* name, Int InstanceConfig::*member) {
  return Field{name,
               [member](const InstanceConfig& config) {
                 return absl::StrCat(config.*member);
               },
               [name, member](absl::string_view text, InstanceConfig* config) {
                 Int value;
                 if (!absl::SimpleAtoi(text, &value)) {
                   return BadValue(name, text, "an integer");
                 }
                 config->*member = value;
                 return absl::OkStatus();
               }};
}

Field DoubleField(const char* name, double InstanceConfig::*member) {
  return Field{name,
               [member](const InstanceConfig& config) {
                 return DoubleToText(config.*member);
               },
               [name, member](absl::string_view text, InstanceConfig* config) {
                 double value;
                 if (!absl::SimpleAtod(text, &value)) {
                   return BadValue(name, text, "a number");
                 }
                 config->*member = value;
                 return absl::OkStatus();
               }};
}

Field BoolField(const char* name, bool InstanceConfig::*member) {
  return Field{name,
               [member](const InstanceConfig& config) {
                 return std::string(config.*member ? "true" : "false");
               },
               [name, member](absl::string_view text, InstanceConfig* config) {
                 if (text == "true") {
                   config->*member = true;
                 } else if (text == "false") {
                   config->*member = false;
                 } else {
                   return BadValue(name, text, "true or false");
                 }
                 return absl::OkStatus();
               }};
}

const std::vector<Field>& Fields() {
  static const std::vector<Field>* const fields = new std::vector<Field>{
      Field{"objective",
            [](const InstanceConfig& config) {
              return std::string(LanguageModelName(config.objective));
            },
            [](absl::string_view text, InstanceConfig* config) {
              absl::StatusOr<LanguageModel> objective =
                  ParseLanguageModel(text);
              // Instances are made for mlm or ltr (rtl reads ltr's).
              if (!objective.ok() ||
                  *objective != InstanceLanguageModel(*objective)) {
                return BadValue("objective", text, "mlm or ltr");
              }
              config->objective = *objective;
              return absl::OkStatus();
            }},
      IntField("max_seq_length", &InstanceConfig::max_seq_length),
      IntField("dupe_factor", &InstanceConfig::dupe_factor),
      DoubleField("short_seq_prob", &InstanceConfig::short_seq_prob),
      DoubleField("masked_lm_prob", &InstanceConfig::masked_lm_prob),
      IntField("max_predictions_per_seq",
               &InstanceConfig::max_predictions_per_seq),
      DoubleField("mask_fraction", &InstanceConfig::mask_fraction),
      DoubleField("random_fraction", &InstanceConfig::random_fraction),
      DoubleField("keep_fraction", &InstanceConfig::keep_fraction),
      BoolField("do_whole_word_mask", &InstanceConfig::do_whole_word_mask),
      BoolField("next_sentence", &InstanceConfig::next_sentence),
      DoubleField("random_next_prob", &InstanceConfig::random_next_prob),
      IntField("seed", &InstanceConfig::seed),
      IntField("max_block_documents", &InstanceConfig::max_block_documents),
      IntField("max_block_bytes", &InstanceConfig::max_block_bytes),
  };
  return *fields;
}

absl::Status CheckProbability(absl::string_view name, double value) {
  if (!(value >= 0.0 && value <= 1.0)) {
    return absl::InvalidArgumentError(
        absl::StrCat(name, " = ", DoubleToText(value),
                     " is not a probability: use a value in [0, 1]"));
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status ValidateInstanceConfig(const InstanceConfig& config) {
  if (config.objective != InstanceLanguageModel(config.objective)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "objective ", LanguageModelName(config.objective),
        ": the right-to-left LM reads left-to-right instances; make them "
        "with objective ltr"));
  }
  const bool masked_lm = config.objective == LanguageModel::kMaskedLm;
  const int min_length =
      masked_lm ? kMinMaxSeqLengthMaskedLm : kMinMaxSeqLengthLeftToRight;
  if (config.max_seq_length < min_length) {
    return absl::InvalidArgumentError(absl::StrCat(
        "max_seq_length = ", config.max_seq_length,
        " is too small for objective ", LanguageModelName(config.objective),
        ": ",
        masked_lm ? "[CLS] A [SEP] B [SEP] needs at least 2 tokens besides the "
                    "3 special ones"
                  : "[CLS] text [SEP] needs at least 2 tokens of text",
        "; use max_seq_length >= ", min_length, " (BERT uses 128 and 512)"));
  }
  if (config.max_seq_length > kMaxMaxSeqLength) {
    return absl::InvalidArgumentError(
        absl::StrCat("max_seq_length = ", config.max_seq_length,
                     " is too large: shards store positions as uint16; use "
                     "max_seq_length <= ",
                     kMaxMaxSeqLength));
  }
  if (config.dupe_factor < 1 || config.dupe_factor > kMaxDupeFactor) {
    return absl::InvalidArgumentError(
        absl::StrCat("dupe_factor = ", config.dupe_factor,
                     " is out of range: use 1 to ", kMaxDupeFactor));
  }
  for (const auto& [name, value] : std::vector<std::pair<const char*, double>>{
           {"short_seq_prob", config.short_seq_prob},
           {"masked_lm_prob", config.masked_lm_prob},
           {"mask_fraction", config.mask_fraction},
           {"random_fraction", config.random_fraction},
           {"keep_fraction", config.keep_fraction},
           {"random_next_prob", config.random_next_prob}}) {
    RETURN_IF_ERROR(CheckProbability(name, value));
  }
  const double mix_sum =
      config.mask_fraction + config.random_fraction + config.keep_fraction;
  if (std::abs(mix_sum - 1.0) > 1e-9) {
    return absl::InvalidArgumentError(absl::StrCat(
        "mask_fraction + random_fraction + keep_fraction = ",
        DoubleToText(config.mask_fraction), " + ",
        DoubleToText(config.random_fraction), " + ",
        DoubleToText(config.keep_fraction), " = ", DoubleToText(mix_sum),
        ": the masking mix must sum to 1 (BERT: 0.8, 0.1, 0.1)"));
  }
  if (masked_lm && (config.max_predictions_per_seq < 1 ||
                    config.max_predictions_per_seq > config.max_seq_length)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "max_predictions_per_seq = ", config.max_predictions_per_seq,
        " is out of range: use 1 to max_seq_length (", config.max_seq_length,
        "); about max_seq_length * masked_lm_prob, e.g. 20 for 128"));
  }
  if (!masked_lm && (config.max_predictions_per_seq < 0 ||
                     config.max_predictions_per_seq > config.max_seq_length)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "max_predictions_per_seq = ", config.max_predictions_per_seq,
        " is out of range: use 0 to max_seq_length (", config.max_seq_length,
        "); left-to-right instances have no masked positions, so 0 saves "
        "space"));
  }
  if (config.max_block_documents < 1) {
    return absl::InvalidArgumentError(
        absl::StrCat("max_block_documents = ", config.max_block_documents,
                     " must be at least 1 (default 100000)"));
  }
  if (config.max_block_bytes < 1) {
    return absl::InvalidArgumentError(
        absl::StrCat("max_block_bytes = ", config.max_block_bytes,
                     " must be at least 1 (default 64 MiB)"));
  }
  return absl::OkStatus();
}

int MaxNumTokens(const InstanceConfig& config) {
  return config.objective == LanguageModel::kMaskedLm
             ? config.max_seq_length - 3
             : config.max_seq_length - 2;
}

std::string InstanceConfigToText(const InstanceConfig& config) {
  std::string text;
  for (const Field& field : Fields()) {
    absl::StrAppend(&text, field.name, ": ", field.to_text(config), "\n");
  }
  return text;
}

absl::StatusOr<InstanceConfig> InstanceConfigFromFields(
    std::map<std::string, std::string>* fields) {
  InstanceConfig config;
  for (const Field& field : Fields()) {
    auto it = fields->find(field.name);
    if (it == fields->end()) {
      return absl::InvalidArgumentError(
          absl::StrCat("config field ", field.name, " is missing"));
    }
    if (absl::Status status = field.from_text(it->second, &config);
        !status.ok()) {
      return status;
    }
    fields->erase(it);
  }
  return config;
}

std::string FirstInstanceConfigDifference(const InstanceConfig& a,
                                          const InstanceConfig& b) {
  for (const Field& field : Fields()) {
    const std::string text_a = field.to_text(a);
    const std::string text_b = field.to_text(b);
    if (text_a != text_b) {
      return absl::StrCat(field.name, ": ", text_a, " vs ", text_b);
    }
  }
  return "";
}

}  // namespace bertlab
