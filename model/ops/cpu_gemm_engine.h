// Which library, in which arithmetic, computes the float Gemm on the CPU
// (model/ops/gemm.h): OpenBLAS (cblas_sgemm), oneDNN's f32 matmul
// primitive (gemm_onednn.h), or oneDNN's bf16 matmul, whose inputs A and B
// are rounded to bfloat16 (nearest, ties to even) and whose products are
// summed and stored in FP32: the GEMM side of BF16 mixed precision on the
// CPU (--precision=bf16 on the cpu device; everything outside the products
// stays FP32). One process-wide setting, like the thread count: the engines
// give correct products but different bits (they sum in different orders,
// and bf16 rounds the inputs), so a run's numbers depend on it and run ids
// cover it. Double products always use OpenBLAS (cblas_dgemm), whatever the
// setting.
#ifndef BERTLAB_MODEL_OPS_CPU_GEMM_ENGINE_H_
#define BERTLAB_MODEL_OPS_CPU_GEMM_ENGINE_H_

#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace bertlab {

enum class CpuGemmEngine { kOpenBlas, kOneDnn, kOneDnnBf16 };

// Every engine, in the order their names are listed.
inline constexpr CpuGemmEngine kCpuGemmEngines[] = {CpuGemmEngine::kOpenBlas,
                                                    CpuGemmEngine::kOneDnn,
                                                    CpuGemmEngine::kOneDnnBf16};

// The engine of a process that sets none: oneDNN's f32 matmul where oneDNN
// runs its AVX-512 kernels (its effective ISA includes avx512_core, which
// ONEDNN_MAX_CPU_ISA can lower), OpenBLAS elsewhere. With AVX-512 oneDNN was
// the faster wherever it was measured: 403 against 243 GFLOP/s for BASE's
// FFN product on Zen 5, 1.9 to 4.3 times the whole training step on the
// 2-core Intel machine. On an AVX2-only CPU OpenBLAS was: oneDNN's BASE step
// 13% slower at seq 128 and 23% at seq 512 (model/ops/README.md has the
// numbers). Fixed for the process on first use.
CpuGemmEngine DefaultCpuGemmEngine();

// Sets the engine of every later float Gemm. Not from inside a ParallelFor
// body, nor while another thread runs a Gemm (a product split over the pool
// reads the setting once).
void SetCpuGemmEngine(CpuGemmEngine engine);
CpuGemmEngine GetCpuGemmEngine();

// "openblas", "onednn" or "onednn_bf16": what run records and run ids say
// (--cpu_gemm takes the first two; --precision=bf16 on the CPU selects the
// third, experiments/device_flags.h).
std::string CpuGemmEngineName(CpuGemmEngine engine);

// The engine a name (as CpuGemmEngineName gives it) stands for; anything
// else is an InvalidArgument error listing the names.
absl::StatusOr<CpuGemmEngine> ParseCpuGemmEngine(absl::string_view name);

}  // namespace bertlab

#endif  // BERTLAB_MODEL_OPS_CPU_GEMM_ENGINE_H_
