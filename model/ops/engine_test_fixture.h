// A GoogleTest fixture whose tests run on one CPU GEMM engine
// (cpu_gemm_engine.h) and get the process's engine and thread count back
// afterwards. On the bf16 engine it skips, saying why, where oneDNN has no
// bf16 matmul (oneDNN 2.6 needs AVX-512).
//
//   class OneDnnGemmTest : public OnCpuGemmEngine<CpuGemmEngine::kOneDnn> {};
#ifndef BERTLAB_MODEL_OPS_ENGINE_TEST_FIXTURE_H_
#define BERTLAB_MODEL_OPS_ENGINE_TEST_FIXTURE_H_

#include "common/parallel.h"
#include "gtest/gtest.h"
#include "model/ops/cpu_gemm_engine.h"
#include "model/ops/gemm_onednn.h"

namespace bertlab {

template <CpuGemmEngine kEngine>
class OnCpuGemmEngine : public ::testing::Test {
 protected:
  void SetUp() override {
    if (kEngine == CpuGemmEngine::kOneDnnBf16 && !OneDnnBf16MatmulAvailable()) {
      GTEST_SKIP() << "oneDNN has no bf16 matmul on this CPU (needs AVX-512)";
    }
    saved_engine_ = GetCpuGemmEngine();
    saved_threads_ = NumThreads();
    restore_ = true;
    SetCpuGemmEngine(kEngine);
  }
  void TearDown() override {
    if (!restore_) return;
    SetCpuGemmEngine(saved_engine_);
    SetNumThreads(saved_threads_);
  }

 private:
  bool restore_ = false;
  CpuGemmEngine saved_engine_ = DefaultCpuGemmEngine();
  int saved_threads_ = 1;
};

}  // namespace bertlab

#endif  // BERTLAB_MODEL_OPS_ENGINE_TEST_FIXTURE_H_
