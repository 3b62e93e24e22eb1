// The arithmetic a model computes in: FP32, or BF16 mixed precision (BF16
// inputs to the matrix products, FP32 sums and master state). One type for
// the experiments' `precision` field, the --precision flag, both
// pre-training backends and the run records: the CPU backend computes its
// products with oneDNN's bf16 matmul under it (cpu_gemm_engine.h), the CUDA
// backend keeps a bf16 working copy of the parameters.
#ifndef BERTLAB_MODEL_OPS_PRECISION_H_
#define BERTLAB_MODEL_OPS_PRECISION_H_

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace bertlab {

enum class Precision { kFloat32, kBfloat16Mixed };

// "fp32" or "bf16": the flag's values and what run records say.
absl::string_view PrecisionName(Precision precision);

// The precision a name (as PrecisionName gives it) stands for; anything else
// is an InvalidArgument error naming both.
absl::StatusOr<Precision> ParsePrecision(absl::string_view name);

}  // namespace bertlab

#endif  // BERTLAB_MODEL_OPS_PRECISION_H_
