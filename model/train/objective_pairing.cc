#include "model/train/objective_pairing.h"

#include "absl/strings/str_cat.h"

namespace bertlab {
namespace {

// "a bidirectional model", "a reverse-causal model".
std::string ModelOf(AttentionMode mode) {
  switch (mode) {
    case AttentionMode::kBidirectional:
      return "a bidirectional model";
    case AttentionMode::kCausal:
      return "a causal model";
    case AttentionMode::kReverseCausal:
      return "a reverse-causal model";
  }
  return "a model";
}

}  // namespace

AttentionMode ObjectiveAttentionMode(LanguageModel objective) {
  switch (objective) {
    case LanguageModel::kMaskedLm:
      return AttentionMode::kBidirectional;
    case LanguageModel::kLeftToRight:
      return AttentionMode::kCausal;
    case LanguageModel::kRightToLeft:
      return AttentionMode::kReverseCausal;
  }
  return AttentionMode::kBidirectional;
}

bool ObjectiveAllowsNextSentence(LanguageModel objective) {
  return objective == LanguageModel::kMaskedLm;
}

const char* ObjectiveProse(LanguageModel objective) {
  switch (objective) {
    case LanguageModel::kMaskedLm:
      return "masked-LM";
    case LanguageModel::kLeftToRight:
      return "left-to-right";
    case LanguageModel::kRightToLeft:
      return "right-to-left";
  }
  return "masked-LM";
}

ObjectiveConflicts FindObjectiveConflicts(LanguageModel objective,
                                          bool next_sentence,
                                          AttentionMode mode) {
  ObjectiveConflicts conflicts;
  if (next_sentence && !ObjectiveAllowsNextSentence(objective)) {
    conflicts.next_sentence =
        "a sequence is one segment of one document, so there is no second "
        "segment to classify";
  }
  if (mode != ObjectiveAttentionMode(objective)) {
    switch (objective) {
      case LanguageModel::kMaskedLm:
        conflicts.attention =
            absl::StrCat(ModelOf(mode),
                         " sees one side of a token, and the masked LM "
                         "predicts it from both");
        break;
      case LanguageModel::kLeftToRight:
        conflicts.attention = absl::StrCat(
            ModelOf(mode), " sees the next token, which it predicts");
        break;
      case LanguageModel::kRightToLeft:
        conflicts.attention = absl::StrCat(
            ModelOf(mode), " sees the previous token, which it predicts");
        break;
    }
  }
  return conflicts;
}

}  // namespace bertlab
