#include "tasks/pretraining_data/language_model.h"

#include "absl/strings/str_cat.h"
#include "common/check.h"

namespace bertlab {

absl::string_view LanguageModelName(LanguageModel model) {
  switch (model) {
    case LanguageModel::kMaskedLm:
      return "mlm";
    case LanguageModel::kLeftToRight:
      return "ltr";
    case LanguageModel::kRightToLeft:
      return "rtl";
  }
  CHECK(false) << "unknown language model " << static_cast<int>(model);
  return "";
}

absl::StatusOr<LanguageModel> ParseLanguageModel(absl::string_view name) {
  for (LanguageModel model :
       {LanguageModel::kMaskedLm, LanguageModel::kLeftToRight,
        LanguageModel::kRightToLeft}) {
    if (name == LanguageModelName(model)) return model;
  }
  return absl::InvalidArgumentError(absl::StrCat(
      "unknown language model \"", name,
      "\": use mlm (masked LM + next sentence), ltr (left-to-right LM) or rtl "
      "(right-to-left LM)"));
}

LanguageModel InstanceLanguageModel(LanguageModel model) {
  return model == LanguageModel::kRightToLeft ? LanguageModel::kLeftToRight
                                              : model;
}

}  // namespace bertlab
