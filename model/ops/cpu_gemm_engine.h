// Which library computes the float Gemm on the CPU (model/ops/gemm.h):
// OpenBLAS (cblas_sgemm) or oneDNN (its f32 matmul primitive,
// gemm_onednn.h). One process-wide setting, like the thread count: both
// engines give correct products, but different bits (they sum in different
// orders), so a run's numbers depend on it and run ids cover it. Double
// products always use OpenBLAS (cblas_dgemm), whatever the setting.
#ifndef BERTLAB_MODEL_OPS_CPU_GEMM_ENGINE_H_
#define BERTLAB_MODEL_OPS_CPU_GEMM_ENGINE_H_

#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace bertlab {

enum class CpuGemmEngine { kOpenBlas, kOneDnn };

// OpenBLAS: oneDNN was not clearly faster at the model's shapes on the
// 2-core AVX2 machines this project runs on (model/ops/README.md has the
// numbers), and OpenBLAS keeps the CI regression values.
inline constexpr CpuGemmEngine kDefaultCpuGemmEngine = CpuGemmEngine::kOpenBlas;

// Sets the engine of every later float Gemm. Not from inside a ParallelFor
// body, nor while another thread runs a Gemm (a product split over the pool
// reads the setting once).
void SetCpuGemmEngine(CpuGemmEngine engine);
CpuGemmEngine GetCpuGemmEngine();

// "openblas" or "onednn": the --cpu_gemm flag's values, and what run records
// and run ids say.
std::string CpuGemmEngineName(CpuGemmEngine engine);

// The engine a name (as CpuGemmEngineName gives it) stands for; anything
// else is an InvalidArgument error listing the names.
absl::StatusOr<CpuGemmEngine> ParseCpuGemmEngine(absl::string_view name);

}  // namespace bertlab

#endif  // BERTLAB_MODEL_OPS_CPU_GEMM_ENGINE_H_
