#include "model/ops/cpu_gemm_engine.h"

#include <atomic>

#include "absl/strings/str_cat.h"
#include "oneapi/dnnl/dnnl.h"

namespace bertlab {
namespace {

// -1 until the first Set or Get: the default asks oneDNN for its ISA, which
// is not for a static initialiser.
constexpr int kUnset = -1;
std::atomic<int> current_engine{kUnset};

}  // namespace

CpuGemmEngine DefaultCpuGemmEngine() {
  static const CpuGemmEngine engine = [] {
    const int isa = static_cast<int>(dnnl_get_effective_cpu_isa());
    const int avx512 = static_cast<int>(dnnl_cpu_isa_avx512_core);
    return (isa & avx512) == avx512 ? CpuGemmEngine::kOneDnn
                                    : CpuGemmEngine::kOpenBlas;
  }();
  return engine;
}

void SetCpuGemmEngine(CpuGemmEngine engine) {
  current_engine.store(static_cast<int>(engine), std::memory_order_relaxed);
}

CpuGemmEngine GetCpuGemmEngine() {
  int engine = current_engine.load(std::memory_order_relaxed);
  if (engine == kUnset) {
    int unset = kUnset;
    current_engine.compare_exchange_strong(
        unset, static_cast<int>(DefaultCpuGemmEngine()),
        std::memory_order_relaxed);
    engine = current_engine.load(std::memory_order_relaxed);
  }
  return static_cast<CpuGemmEngine>(engine);
}

std::string CpuGemmEngineName(CpuGemmEngine engine) {
  switch (engine) {
    case CpuGemmEngine::kOpenBlas:
      return "openblas";
    case CpuGemmEngine::kOneDnn:
      return "onednn";
  }
  return "openblas";
}

absl::StatusOr<CpuGemmEngine> ParseCpuGemmEngine(absl::string_view name) {
  for (CpuGemmEngine engine : kCpuGemmEngines) {
    if (name == CpuGemmEngineName(engine)) return engine;
  }
  return absl::InvalidArgumentError(absl::StrCat(
      "unknown CPU GEMM engine \"", name,
      "\": use openblas or onednn (bf16 products: --precision=bf16)"));
}

namespace {

// The inherited setting (common/parallel.h) that holds the precision.
int PrecisionSlot() {
  static const int slot = NewInheritedSetting();
  return slot;
}

}  // namespace

std::string CpuGemmMode::Name() const {
  return absl::StrCat(CpuGemmEngineName(engine),
                      precision == Precision::kBfloat16Mixed ? "_bf16" : "");
}

Precision CpuGemmPrecision() {
  const int value = GetInheritedSetting(PrecisionSlot());
  return value == kUnsetInheritedSetting ? Precision::kFloat32
                                         : static_cast<Precision>(value);
}

ScopedCpuGemmPrecision::ScopedCpuGemmPrecision(Precision precision)
    : setting_(PrecisionSlot(), static_cast<int>(precision)) {}

}  // namespace bertlab
