// A GoogleTest main that runs every float product of the test binary on one
// CPU GEMM engine (cpu_gemm_engine.h), BERTLAB_TEST_CPU_GEMM_ENGINE, whatever
// the machine's default (oneDNN where it has AVX-512, OpenBLAS elsewhere):
//  - :openblas_test_main, so that tests written for the default engine check
//    the model through OpenBLAS too, with their own tolerances (e.g.
//    //model:bert_reference_openblas_test);
//  - :onednn_test_main, for tests whose CPU side must be the one engine on
//    every machine (the host CUDA parity tests, model/cuda/host).
#include "gtest/gtest.h"
#include "model/ops/cpu_gemm_engine.h"

#ifndef BERTLAB_TEST_CPU_GEMM_ENGINE
#error \
    "define BERTLAB_TEST_CPU_GEMM_ENGINE (a CpuGemmEngine member, e.g. kOpenBlas)"
#endif

int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  const bertlab::ScopedCpuGemmEngine engine(
      bertlab::CpuGemmEngine::BERTLAB_TEST_CPU_GEMM_ENGINE);
  return RUN_ALL_TESTS();
}
