// The default CPU GEMM engine follows the ISA oneDNN runs: oneDNN's f32
// matmul where that includes AVX-512, OpenBLAS elsewhere. Run twice by
// BUILD: as the machine is, and with ONEDNN_MAX_CPU_ISA=AVX2, which makes
// any machine an AVX2 one for oneDNN.
#include "model/ops/cpu_gemm_engine.h"

#include <cstdlib>
#include <string>

#include "gtest/gtest.h"

namespace bertlab {
namespace {

bool CpuHasAvx512Core() {
#if defined(__x86_64__)
  return __builtin_cpu_supports("avx512f") &&
         __builtin_cpu_supports("avx512bw") &&
         __builtin_cpu_supports("avx512vl") &&
         __builtin_cpu_supports("avx512dq");
#else
  return false;
#endif
}

TEST(CpuGemmEngineTest, DefaultIsOneDnnOnlyWhereItRunsAvx512) {
  const char* limit = std::getenv("ONEDNN_MAX_CPU_ISA");
  const bool avx2_only = limit != nullptr && std::string(limit) == "AVX2";
  const CpuGemmEngine expected = CpuHasAvx512Core() && !avx2_only
                                     ? CpuGemmEngine::kOneDnn
                                     : CpuGemmEngine::kOpenBlas;
  EXPECT_EQ(DefaultCpuGemmEngine(), expected);
  // A process that sets no engine runs on the default ...
  EXPECT_EQ(GetCpuGemmEngine(), expected);
  // ... and a set engine stays set.
  SetCpuGemmEngine(CpuGemmEngine::kOneDnnBf16);
  EXPECT_EQ(GetCpuGemmEngine(), CpuGemmEngine::kOneDnnBf16);
  EXPECT_EQ(DefaultCpuGemmEngine(), expected);
}

}  // namespace
}  // namespace bertlab
