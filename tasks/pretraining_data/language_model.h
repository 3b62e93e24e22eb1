// The language model a run pre-trains (the paper's section 5.1): one name
// for the concept from the trainer (model/train/pretrainer.h) down to the
// shards (instance_config.h). The experiment schema's
// PretrainingObjectives.LanguageModel is converted to it in one place
// (experiments/spec_conversions.h ToLanguageModel).
#ifndef BERTLAB_TASKS_PRETRAINING_DATA_LANGUAGE_MODEL_H_
#define BERTLAB_TASKS_PRETRAINING_DATA_LANGUAGE_MODEL_H_

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace bertlab {

enum class LanguageModel {
  // BERT: [CLS] A [SEP] B [SEP] pairs with masked positions to predict, and
  // a next-sentence label (trained on unless No NSP).
  kMaskedLm,
  // The "LTR & No NSP" variant: [CLS] + contiguous text of one document +
  // [SEP], one segment, no masking; every position predicts the next token.
  kLeftToRight,
  // Its mirror, ELMo's backward LM: the same [CLS] text [SEP] instances;
  // every position predicts the previous token (reverse-causal attention).
  kRightToLeft,
};

// "mlm", "ltr", "rtl": the spelling of --objective flags, logs, metrics and
// shard headers.
absl::string_view LanguageModelName(LanguageModel model);
absl::StatusOr<LanguageModel> ParseLanguageModel(absl::string_view name);

// The instances `model` trains on: both LM directions read left-to-right
// instances (only the labels differ), so shards are made for kMaskedLm or
// kLeftToRight only.
LanguageModel InstanceLanguageModel(LanguageModel model);

}  // namespace bertlab

#endif  // BERTLAB_TASKS_PRETRAINING_DATA_LANGUAGE_MODEL_H_
