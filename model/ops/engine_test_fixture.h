// GoogleTest helpers for tests whose products run on one CPU GEMM engine
// and precision (cpu_gemm_engine.h's CpuGemmMode): a scope and a fixture
// that set them for a test and give the thread count back afterwards. BF16
// skips, saying why, where oneDNN has no bf16 matmul (oneDNN 2.6 needs
// AVX-512).
//
//   class OneDnnGemmTest : public OnCpuGemmEngine<CpuGemmEngine::kOneDnn> {};
//   class Bf16Test : public OnCpuGemmEngine<CpuGemmEngine::kOneDnn,
//                                           Precision::kBfloat16Mixed> {};
#ifndef BERTLAB_MODEL_OPS_ENGINE_TEST_FIXTURE_H_
#define BERTLAB_MODEL_OPS_ENGINE_TEST_FIXTURE_H_

#include <optional>

#include "common/parallel.h"
#include "gtest/gtest.h"
#include "model/ops/cpu_gemm_engine.h"
#include "model/ops/gemm_onednn.h"
#include "model/ops/precision.h"

namespace bertlab {

// False for BF16 where oneDNN has no bf16 matmul.
inline bool CpuGemmModeAvailable(const CpuGemmMode& mode) {
  return mode.precision == Precision::kFloat32 || OneDnnBf16MatmulAvailable();
}

// Sets `mode` for one test (scopes on the test's thread) and restores the
// thread count.
class CpuGemmModeScope {
 public:
  explicit CpuGemmModeScope(const CpuGemmMode& mode)
      : saved_threads_(NumThreads()),
        engine_(mode.engine),
        precision_(mode.precision) {}
  ~CpuGemmModeScope() { SetNumThreads(saved_threads_); }
  CpuGemmModeScope(const CpuGemmModeScope&) = delete;
  CpuGemmModeScope& operator=(const CpuGemmModeScope&) = delete;

 private:
  int saved_threads_;
  ScopedCpuGemmEngine engine_;
  ScopedCpuGemmPrecision precision_;
};

template <CpuGemmEngine kEngine, Precision kPrecision = Precision::kFloat32>
class OnCpuGemmEngine : public ::testing::Test {
 protected:
  void SetUp() override {
    const CpuGemmMode mode{kEngine, kPrecision};
    if (!CpuGemmModeAvailable(mode)) {
      GTEST_SKIP() << "oneDNN has no bf16 matmul on this CPU (needs AVX-512)";
    }
    scope_.emplace(mode);
  }
  void TearDown() override { scope_.reset(); }

 private:
  std::optional<CpuGemmModeScope> scope_;
};

}  // namespace bertlab

#endif  // BERTLAB_MODEL_OPS_ENGINE_TEST_FIXTURE_H_
