#include "model/ops/cpu_gemm_engine.h"

#include "absl/strings/str_cat.h"
#include "oneapi/dnnl/dnnl.h"

namespace bertlab {

CpuGemmEngine DefaultCpuGemmEngine() {
  static const CpuGemmEngine engine = [] {
    const int isa = static_cast<int>(dnnl_get_effective_cpu_isa());
    const int avx512 = static_cast<int>(dnnl_cpu_isa_avx512_core);
    return (isa & avx512) == avx512 ? CpuGemmEngine::kOneDnn
                                    : CpuGemmEngine::kOpenBlas;
  }();
  return engine;
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

// The inherited settings (common/parallel.h) that hold the two.
int EngineSlot() {
  static const int slot = NewInheritedSetting();
  return slot;
}
int PrecisionSlot() {
  static const int slot = NewInheritedSetting();
  return slot;
}

}  // namespace

std::string CpuGemmMode::Name() const {
  return absl::StrCat(CpuGemmEngineName(engine),
                      precision == Precision::kBfloat16Mixed ? "_bf16" : "");
}

CpuGemmEngine ActiveCpuGemmEngine() {
  const int value = GetInheritedSetting(EngineSlot());
  return value == kUnsetInheritedSetting ? DefaultCpuGemmEngine()
                                         : static_cast<CpuGemmEngine>(value);
}

ScopedCpuGemmEngine::ScopedCpuGemmEngine(CpuGemmEngine engine)
    : setting_(EngineSlot(), static_cast<int>(engine)) {}

Precision ActiveCpuGemmPrecision() {
  const int value = GetInheritedSetting(PrecisionSlot());
  return value == kUnsetInheritedSetting ? Precision::kFloat32
                                         : static_cast<Precision>(value);
}

ScopedCpuGemmPrecision::ScopedCpuGemmPrecision(Precision precision)
    : setting_(PrecisionSlot(), static_cast<int>(precision)) {}

}  // namespace bertlab
