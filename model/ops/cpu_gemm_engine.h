// Which library computes the float Gemm on the CPU (model/ops/gemm.h):
// OpenBLAS (cblas_sgemm) or oneDNN's f32 matmul (gemm_onednn.h), and in
// which precision (precision.h): under BF16 mixed precision the inputs A and
// B are rounded to bfloat16 (nearest, ties to even) and oneDNN's bf16 matmul
// sums and stores the products in FP32, whatever the engine.
//
// Neither is a process-wide global: each belongs to the code that asks for
// it, as a scope that follows the work onto the thread pool (common/parallel.h,
// inherited settings). A command opens a ScopedCpuGemmEngine for its whole
// run with the engine of --cpu_gemm (experiments/device_flags.h); outside
// every scope a product runs on DefaultCpuGemmEngine(). The engines give
// correct products but different bits (they sum in different orders), so a
// run's numbers depend on the engine and run ids cover it. The CPU
// pre-training backend opens a ScopedCpuGemmPrecision around its own calls
// (model/train/pretraining_backend.h), which leaves every other product,
// fine-tuning's included, in FP32. Double products always use OpenBLAS
// (cblas_dgemm), whatever the settings.
#ifndef BERTLAB_MODEL_OPS_CPU_GEMM_ENGINE_H_
#define BERTLAB_MODEL_OPS_CPU_GEMM_ENGINE_H_

#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "common/parallel.h"
#include "model/ops/precision.h"

namespace bertlab {

enum class CpuGemmEngine { kOpenBlas, kOneDnn };

// Every engine, in the order their names are listed.
inline constexpr CpuGemmEngine kCpuGemmEngines[] = {CpuGemmEngine::kOpenBlas,
                                                    CpuGemmEngine::kOneDnn};

// The engine of a process that sets none: oneDNN's f32 matmul where oneDNN
// runs its AVX-512 kernels (its effective ISA includes avx512_core, which
// ONEDNN_MAX_CPU_ISA can lower), OpenBLAS elsewhere. With AVX-512 oneDNN was
// the faster wherever it was measured: 403 against 243 GFLOP/s for BASE's
// FFN product on Zen 5, 1.9 to 4.3 times the whole training step on the
// 2-core Intel machine. On an AVX2-only CPU OpenBLAS was: oneDNN's BASE step
// 13% slower at seq 128 and 23% at seq 512 (model/ops/README.md has the
// numbers). Fixed for the process on first use.
CpuGemmEngine DefaultCpuGemmEngine();

// The engine of the float products the calling thread issues: that of the
// innermost ScopedCpuGemmEngine open on it (or on the thread whose
// ParallelFor runs this chunk), DefaultCpuGemmEngine() outside every scope.
// A product split over the pool reads it once, on the calling thread.
CpuGemmEngine ActiveCpuGemmEngine();

// Float products issued inside it (on any pool thread) run on `engine`.
// Not movable; scopes nest.
class ScopedCpuGemmEngine {
 public:
  explicit ScopedCpuGemmEngine(CpuGemmEngine engine);
  ScopedCpuGemmEngine(const ScopedCpuGemmEngine&) = delete;
  ScopedCpuGemmEngine& operator=(const ScopedCpuGemmEngine&) = delete;

 private:
  ScopedInheritedSetting setting_;
};

// "openblas" or "onednn": what run records and run ids say (--cpu_gemm
// takes them, experiments/device_flags.h).
std::string CpuGemmEngineName(CpuGemmEngine engine);

// The engine a name (as CpuGemmEngineName gives it) stands for; anything
// else is an InvalidArgument error listing the names.
absl::StatusOr<CpuGemmEngine> ParseCpuGemmEngine(absl::string_view name);

// An engine and a precision: what a product runs on (for the tests and
// benchmarks that walk them).
struct CpuGemmMode {
  CpuGemmEngine engine;
  Precision precision;

  // "onednn", or "onednn_bf16" in BF16 (BF16 always multiplies in oneDNN).
  std::string Name() const;
};

// Both engines in FP32, and BF16.
inline constexpr CpuGemmMode kCpuGemmModes[] = {
    {CpuGemmEngine::kOpenBlas, Precision::kFloat32},
    {CpuGemmEngine::kOneDnn, Precision::kFloat32},
    {CpuGemmEngine::kOneDnn, Precision::kBfloat16Mixed}};

// The precision of the float products the calling thread issues: that of
// the innermost ScopedCpuGemmPrecision open on it (or on the thread whose
// ParallelFor runs this chunk), FP32 outside every scope.
Precision ActiveCpuGemmPrecision();

// Float products issued inside it (on any pool thread) compute in
// `precision`. BF16 needs OneDnnBf16MatmulAvailable() (gemm_onednn.h): a
// product without it dies. Not movable; scopes nest.
class ScopedCpuGemmPrecision {
 public:
  explicit ScopedCpuGemmPrecision(Precision precision);
  ScopedCpuGemmPrecision(const ScopedCpuGemmPrecision&) = delete;
  ScopedCpuGemmPrecision& operator=(const ScopedCpuGemmPrecision&) = delete;

 private:
  ScopedInheritedSetting setting_;
};

}  // namespace bertlab

#endif  // BERTLAB_MODEL_OPS_CPU_GEMM_ENGINE_H_
