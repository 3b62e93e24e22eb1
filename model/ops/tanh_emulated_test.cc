// Runs the tanh kernels' own code (tanh_kernels.cuh, the source nvcc compiles
// for tanh_cuda.cu) on the CPU under the host SIMT emulator, launched as the
// .cu launches them, against the CPU op (tanh.h) in double, f32 and bf16
// storage. Host tanhf stands in for CUDA's (an ulp or so apart), so the
// tolerance is the parity comparator's (K = 1, at the storage's eps). The
// backward reads the kernel's own forward output, as on the GPU. n = 1001
// values in [-6, 6]; outputs NaN-prefilled; every emulator schedule gives
// the same bits.
#include <cstdint>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "model/cuda/parity_test_util.h"
#include "model/cuda/testing/emulated_test_util.h"
#include "model/cuda/testing/simt_emulator.h"
#include "model/ops/tanh.h"
#include "model/ops/tanh_kernels.cuh"
#include "model/parity/parity_comparator.h"

namespace bertlab {
namespace {

struct Outputs {
  std::vector<float> out, d_in;
};

template <typename T>
Outputs RunKernels(simt::Schedule schedule, const std::vector<float>& in,
                   const std::vector<float>& d_out) {
  const auto n = static_cast<int64_t>(in.size());
  const std::vector<T> in_t = emulated::ToStorage<T>(in),
                       d_out_t = emulated::ToStorage<T>(d_out);
  std::vector<T> out = emulated::NaNs<T>(n), d_in = emulated::NaNs<T>(n);
  const simt::LaunchOptions options = emulated::Order(schedule);
  simt::Launch(options, dim3(cuda_kernels::GridFor(n)),
               dim3(cuda_kernels::kThreads), 0, &cuda::TanhKernel<T>,
               out.data(), in_t.data(), n);
  simt::Launch(options, dim3(cuda_kernels::GridFor(n)),
               dim3(cuda_kernels::kThreads), 0, &cuda::TanhBackwardKernel<T>,
               d_in.data(), d_out_t.data(), out.data(), n);
  return Outputs{emulated::ToFloats(out), emulated::ToFloats(d_in)};
}

template <typename T>
void CheckCase(ParityDtype dtype) {
  SCOPED_TRACE(dtype == kF32 ? "f32" : "bf16");
  const std::vector<float> in = RandomUniform(1001, 3, -6.0f, 6.0f),
                           d_out = RandomNormal(1001, 4, 1.0f);
  const auto n = static_cast<int64_t>(in.size());
  const std::vector<double> in_d =
      emulated::ToDoubles(emulated::ToStorage<T>(in));
  std::vector<double> out(in.size()), d_in(in.size());
  TanhForward(out.data(), in_d.data(), n);
  const Outputs forward = RunKernels<T>(simt::Schedule::kForward, in, d_out);
  ExpectParity("tanh", forward.out, out, dtype, 1);
  // The backward from the kernel's (rounded) forward output.
  const std::vector<double> y(forward.out.begin(), forward.out.end()),
      d_out_d = emulated::ToDoubles(emulated::ToStorage<T>(d_out));
  TanhBackward(d_in.data(), d_out_d.data(), y.data(), n);
  ExpectParity("tanh backward", forward.d_in, d_in, dtype, 1);
  for (simt::Schedule schedule : emulated::kOtherSchedules) {
    const Outputs other = RunKernels<T>(schedule, in, d_out);
    ExpectBitIdentical("tanh", other.out, forward.out);
    ExpectBitIdentical("tanh backward", other.d_in, forward.d_in);
  }
}

TEST(TanhEmulatedTest, FloatAndBf16) {
  CheckCase<float>(kF32);
  CheckCase<__nv_bfloat16>(kBF16);
}

}  // namespace
}  // namespace bertlab
