// Runs the GELU kernels' own code (gelu_cuda_kernels.cuh, the source nvcc
// compiles for gelu_cuda.cu) on the CPU under the host SIMT emulator, launched
// as the .cu launches them, against the CPU op (gelu.h) in double, both forms,
// f32 and bf16 storage. Host erfcf / expf stand in for CUDA's (an ulp or so
// apart), so the tolerance is the parity comparator's (K = 1, at the
// storage's eps), not bits. n = 1001 values in [-8, 8] (the tails where the
// forms avoid cancellation); outputs NaN-prefilled; every emulator schedule
// gives the same bits.
#include <cstdint>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "model/cuda/parity_test_util.h"
#include "model/cuda/testing/emulated_test_util.h"
#include "model/cuda/testing/simt_emulator.h"
#include "model/ops/gelu.h"
#include "model/ops/gelu_cuda_kernels.cuh"
#include "model/parity/parity_comparator.h"

namespace bertlab {
namespace {

struct Outputs {
  std::vector<float> out, d_in;
};

template <typename T>
Outputs RunKernels(simt::Schedule schedule, const std::vector<float>& in,
                   const std::vector<float>& d_out, bool tanh_form) {
  const auto n = static_cast<int64_t>(in.size());
  const std::vector<T> in_t = emulated::ToStorage<T>(in),
                       d_out_t = emulated::ToStorage<T>(d_out);
  std::vector<T> out = emulated::NaNs<T>(n), d_in = emulated::NaNs<T>(n);
  const simt::LaunchOptions options = emulated::Order(schedule);
  simt::Launch(options, dim3(cuda_kernels::GridFor(n)),
               dim3(cuda_kernels::kThreads), 0, &cuda::GeluForwardKernel<T>,
               out.data(), in_t.data(), n, tanh_form);
  simt::Launch(options, dim3(cuda_kernels::GridFor(n)),
               dim3(cuda_kernels::kThreads), 0, &cuda::GeluBackwardKernel<T>,
               d_in.data(), d_out_t.data(), in_t.data(), n, tanh_form);
  return Outputs{emulated::ToFloats(out), emulated::ToFloats(d_in)};
}

template <typename T>
void CheckCase(ParityDtype dtype, GeluForm form) {
  SCOPED_TRACE(std::string(dtype == kF32 ? "f32" : "bf16") +
               (form == GeluForm::kTanh ? " tanh" : " erf"));
  const std::vector<float> in = RandomUniform(1001, 3, -8.0f, 8.0f),
                           d_out = RandomNormal(1001, 4, 1.0f);
  const auto n = static_cast<int64_t>(in.size());
  const std::vector<double> in_d =
                                emulated::ToDoubles(emulated::ToStorage<T>(in)),
                            d_out_d = emulated::ToDoubles(
                                emulated::ToStorage<T>(d_out));
  std::vector<double> out(in.size()), d_in(in.size());
  GeluForward(out.data(), in_d.data(), n, form);
  GeluBackward(d_in.data(), d_out_d.data(), in_d.data(), n, form);
  const bool tanh_form = form == GeluForm::kTanh;
  const Outputs forward =
      RunKernels<T>(simt::Schedule::kForward, in, d_out, tanh_form);
  ExpectParity("gelu", forward.out, out, dtype, 1);
  ExpectParity("gelu backward", forward.d_in, d_in, dtype, 1);
  for (simt::Schedule schedule : emulated::kOtherSchedules) {
    const Outputs other = RunKernels<T>(schedule, in, d_out, tanh_form);
    ExpectBitIdentical("gelu", other.out, forward.out);
    ExpectBitIdentical("gelu backward", other.d_in, forward.d_in);
  }
}

TEST(GeluEmulatedTest, BothFormsFloatAndBf16) {
  for (GeluForm form : {GeluForm::kErf, GeluForm::kTanh}) {
    CheckCase<float>(kF32, form);
    CheckCase<__nv_bfloat16>(kBF16, form);
  }
}

}  // namespace
}  // namespace bertlab
