// A GoogleTest main that runs every float product of the test binary on the
// oneDNN engine (cpu_gemm_engine.h): tests written for the default engine,
// linked with this instead of gtest_main, check the model through oneDNN
// with their own tolerances (e.g. //model:bert_reference_onednn_test).
#include "gtest/gtest.h"
#include "model/ops/cpu_gemm_engine.h"

int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  bertlab::SetCpuGemmEngine(bertlab::CpuGemmEngine::kOneDnn);
  return RUN_ALL_TESTS();
}
