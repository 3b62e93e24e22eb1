// Needs a GPU: tagged manual + requires-gpu, built only with --config=cuda
// (host_gemm_parity_test runs it on the host CUDA build).
// cuda::Gemm (cuBLAS) against the CPU Gemm on random inputs at odd shapes,
// through the one comparator (parity_comparator.h): every transposition in
// float, bf16 inputs (rounded on both sides) into float and bf16 outputs,
// and the strided batched product against one product per batch.
#include <cstdint>
#include <vector>

#include "gtest/gtest.h"
#include "model/cuda/bf16.h"
#include "model/cuda/bf16_test_util.h"
#include "model/cuda/context.h"
#include "model/cuda/device_buffer.h"
#include "model/cuda/parity_test_util.h"
#include "model/ops/gemm.h"
#include "model/ops/gemm_cuda.h"

namespace bertlab {
namespace {

class GemmParityTest : public ::testing::Test {
 protected:
  CudaContext context_;
};

TEST_F(GemmParityTest, AllTranspositionsFloatAndBf16) {
  const int64_t m = 37, n = 13, k = 71;
  for (Transpose ta : {Transpose::kNo, Transpose::kYes}) {
    for (Transpose tb : {Transpose::kNo, Transpose::kYes}) {
      const std::vector<float> a = RandomNormal(m * k, 1),
                               b = RandomNormal(k * n, 2);
      std::vector<float> c = RandomNormal(m * n, 3);
      DeviceBuffer<float> a_d("a", a), b_d("b", b), c_d("c", c);
      cuda::Gemm<float, float>(ta, tb, m, n, k, 0.5f, a_d.data(), b_d.data(),
                               2.0f, c_d.data(), context_);
      Gemm<float>(ta, tb, m, n, k, 0.5f, a.data(), b.data(), 2.0f, c.data());
      context_.Synchronize();
      ExpectParity("gemm f32", c_d.ToHost(), c, kF32, k);

      // bf16 inputs (rounded on both sides), float and bf16 outputs.
      const std::vector<float> a16 = RoundToBf16(a), b16 = RoundToBf16(b);
      DeviceBuffer<Bf16> a_h("a16", ToBf16(a)), b_h("b16", ToBf16(b));
      DeviceBuffer<float> c_f("c_f", m * n);
      DeviceBuffer<Bf16> c_h("c_h", m * n);
      cuda::Gemm<__nv_bfloat16, float>(
          ta, tb, m, n, k, 1.0f, AsDevice(a_h.data()), AsDevice(b_h.data()),
          0.0f, c_f.data(), context_);
      cuda::Gemm<__nv_bfloat16, __nv_bfloat16>(
          ta, tb, m, n, k, 1.0f, AsDevice(a_h.data()), AsDevice(b_h.data()),
          0.0f, AsDevice(c_h.data()), context_);
      std::vector<float> expected(m * n);
      Gemm<float>(ta, tb, m, n, k, 1.0f, a16.data(), b16.data(), 0.0f,
                  expected.data());
      context_.Synchronize();
      // FP32 accumulation of exact bf16 products: float's eps.
      ExpectParity("gemm bf16->f32", c_f.ToHost(), expected, kF32, k);
      ExpectParity("gemm bf16->bf16", FromBf16(c_h.ToHost()), expected, kBF16,
                   1);
    }
  }
}

TEST_F(GemmParityTest, StridedBatchedMatchesPerBatchGemm) {
  const int64_t m = 7, n = 5, k = 9, batch = 3;
  const std::vector<float> a = RandomNormal(batch * m * k, 4),
                           b = RandomNormal(batch * k * n, 5);
  DeviceBuffer<float> a_d("a", a), b_d("b", b), c_d("c", batch * m * n);
  cuda::GemmStridedBatched<float, float>(
      Transpose::kNo, Transpose::kNo, m, n, k, 1.0f, a_d.data(), k, m * k,
      b_d.data(), n, k * n, 0.0f, c_d.data(), n, m * n, batch, context_);
  std::vector<float> expected(batch * m * n);
  for (int64_t i = 0; i < batch; ++i) {
    Gemm<float>(Transpose::kNo, Transpose::kNo, m, n, k, 1.0f,
                a.data() + i * m * k, b.data() + i * k * n, 0.0f,
                expected.data() + i * m * n);
  }
  context_.Synchronize();
  ExpectParity("gemm batched", c_d.ToHost(), expected, kF32, k);
}

}  // namespace
}  // namespace bertlab
