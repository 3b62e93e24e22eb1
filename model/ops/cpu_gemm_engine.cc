#include "model/ops/cpu_gemm_engine.h"

#include <atomic>

#include "absl/strings/str_cat.h"

namespace bertlab {
namespace {

std::atomic<CpuGemmEngine> current_engine{kDefaultCpuGemmEngine};

}  // namespace

void SetCpuGemmEngine(CpuGemmEngine engine) {
  current_engine.store(engine, std::memory_order_relaxed);
}

CpuGemmEngine GetCpuGemmEngine() {
  return current_engine.load(std::memory_order_relaxed);
}

std::string CpuGemmEngineName(CpuGemmEngine engine) {
  return engine == CpuGemmEngine::kOneDnn ? "onednn" : "openblas";
}

absl::StatusOr<CpuGemmEngine> ParseCpuGemmEngine(absl::string_view name) {
  for (CpuGemmEngine engine :
       {CpuGemmEngine::kOpenBlas, CpuGemmEngine::kOneDnn}) {
    if (name == CpuGemmEngineName(engine)) return engine;
  }
  return absl::InvalidArgumentError(absl::StrCat(
      "unknown CPU GEMM engine \"", name, "\": use openblas or onednn"));
}

}  // namespace bertlab
