// A GoogleTest main that runs every float product of the test binary on the
// OpenBLAS engine (cpu_gemm_engine.h) whatever the machine's default (oneDNN
// where it has AVX-512): tests written for the default engine, linked with this
// instead of gtest_main, check the model through OpenBLAS with their own
// tolerances (e.g.
// //model:bert_reference_openblas_test).
#include "gtest/gtest.h"
#include "model/ops/cpu_gemm_engine.h"

int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  bertlab::SetCpuGemmEngine(bertlab::CpuGemmEngine::kOpenBlas);
  return RUN_ALL_TESTS();
}
