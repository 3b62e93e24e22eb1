#include "model/ops/precision.h"

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"

namespace bertlab {

absl::string_view PrecisionName(Precision precision) {
  return precision == Precision::kBfloat16Mixed ? "bf16" : "fp32";
}

absl::StatusOr<Precision> ParsePrecision(absl::string_view name) {
  for (Precision precision : {Precision::kFloat32, Precision::kBfloat16Mixed}) {
    if (name == PrecisionName(precision)) return precision;
  }
  return absl::InvalidArgumentError(
      absl::StrCat("precision \"", name, "\": use fp32 or bf16"));
}

}  // namespace bertlab
