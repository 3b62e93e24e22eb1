// The default CPU GEMM engine follows the ISA oneDNN runs: oneDNN's f32
// matmul where that includes AVX-512, OpenBLAS elsewhere. Run twice by
// BUILD: as the machine is, and with ONEDNN_MAX_CPU_ISA=AVX2, which makes
// any machine an AVX2 one for oneDNN.
#include "model/ops/cpu_gemm_engine.h"

#include <cstdlib>
#include <string>
#include <vector>

#include "common/parallel.h"
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
  // Outside every scope the products run on the default.
  EXPECT_EQ(ActiveCpuGemmEngine(), expected);
}

// A scope's engine is what its products run on, on the pool's threads too;
// scopes nest, and the default is back when they end.
TEST(CpuGemmEngineTest, ScopedAndInheritedByThePool) {
  const CpuGemmEngine other = DefaultCpuGemmEngine() == CpuGemmEngine::kOneDnn
                                  ? CpuGemmEngine::kOpenBlas
                                  : CpuGemmEngine::kOneDnn;
  SetNumThreads(2);
  {
    const ScopedCpuGemmEngine scope(other);
    EXPECT_EQ(ActiveCpuGemmEngine(), other);
    std::vector<CpuGemmEngine> seen(8, DefaultCpuGemmEngine());
    ParallelFor(0, 8, 1, [&](int64_t begin, int64_t end) {
      for (int64_t i = begin; i < end; ++i) seen[i] = ActiveCpuGemmEngine();
    });
    EXPECT_EQ(seen, std::vector<CpuGemmEngine>(8, other));
    {
      const ScopedCpuGemmEngine inner(DefaultCpuGemmEngine());
      EXPECT_EQ(ActiveCpuGemmEngine(), DefaultCpuGemmEngine());
    }
    EXPECT_EQ(ActiveCpuGemmEngine(), other);
  }
  EXPECT_EQ(ActiveCpuGemmEngine(), DefaultCpuGemmEngine());
}

// The products' precision is FP32 outside every scope and that of the
// innermost scope inside, and it follows the work onto the thread pool.
TEST(CpuGemmPrecisionTest, ScopedAndInheritedByThePool) {
  EXPECT_EQ(ActiveCpuGemmPrecision(), Precision::kFloat32);
  SetNumThreads(2);
  {
    const ScopedCpuGemmPrecision bf16(Precision::kBfloat16Mixed);
    EXPECT_EQ(ActiveCpuGemmPrecision(), Precision::kBfloat16Mixed);
    std::vector<Precision> seen(8, Precision::kFloat32);
    ParallelFor(0, 8, 1, [&](int64_t begin, int64_t end) {
      for (int64_t i = begin; i < end; ++i) seen[i] = ActiveCpuGemmPrecision();
    });
    EXPECT_EQ(seen, std::vector<Precision>(8, Precision::kBfloat16Mixed));
    {
      const ScopedCpuGemmPrecision fp32(Precision::kFloat32);
      EXPECT_EQ(ActiveCpuGemmPrecision(), Precision::kFloat32);
    }
    EXPECT_EQ(ActiveCpuGemmPrecision(), Precision::kBfloat16Mixed);
  }
  EXPECT_EQ(ActiveCpuGemmPrecision(), Precision::kFloat32);
}

}  // namespace
}  // namespace bertlab
