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
  switch (engine) {
    case CpuGemmEngine::kOpenBlas:
      return "openblas";
    case CpuGemmEngine::kOneDnn:
      return "onednn";
    case CpuGemmEngine::kOneDnnBf16:
      return "onednn_bf16";
  }
  return "openblas";
}

absl::StatusOr<CpuGemmEngine> ParseCpuGemmEngine(absl::string_view name) {
  for (CpuGemmEngine engine : kCpuGemmEngines) {
    if (name == CpuGemmEngineName(engine)) return engine;
  }
  return absl::InvalidArgumentError(
      absl::StrCat("unknown CPU GEMM engine \"", name,
                   "\": use openblas, onednn or onednn_bf16"));
}

}  // namespace bertlab
