// The kernel source of adamw_cuda.cu: the AdamW step (every operation's
// rounding explicit, meant to be bit-identical to AdamW<float>::Step) and the
// global norm's chunk sums and final sum. The .cu launches them; adamw_cuda.h
// says what they compute.
//
// One source, compiled twice: by nvcc, included from adamw_cuda.cu, and by g++
// under the host SIMT emulator (model/cuda/testing/simt_emulator.h) for
// adamw_emulated_test. The definitions sit in an unnamed namespace, as they did
// inside the .cu: include this file from one translation unit per binary.
#ifndef BERTLAB_MODEL_OPTIM_ADAMW_KERNELS_CUH_
#define BERTLAB_MODEL_OPTIM_ADAMW_KERNELS_CUH_

#include <cmath>
#include <cstdint>
#include <cstdio>

#include "model/cuda/kernel_source.cuh"
#include "model/optim/global_norm_chunk.h"

namespace bertlab {
namespace cuda {
namespace {

struct StepConstants {
  double beta1, beta2, one_minus_beta1, one_minus_beta2, epsilon, decay, lr,
      m_divisor, v_divisor;
};

// The constants of step `step` (1-based) for a span without decay, as
// adamw.cc computes them (host code; the caller sets decay per span).
inline StepConstants MakeStepConstants(double beta1, double beta2,
                                       double epsilon, double lr, int64_t step,
                                       bool bias_correction) {
  StepConstants k;
  k.beta1 = beta1;
  k.beta2 = beta2;
  k.one_minus_beta1 = 1.0 - beta1;
  k.one_minus_beta2 = 1.0 - beta2;
  k.epsilon = epsilon;
  k.decay = 0.0;
  k.lr = lr;
  k.m_divisor =
      bias_correction ? 1.0 - std::pow(beta1, static_cast<double>(step)) : 1.0;
  k.v_divisor =
      bias_correction ? 1.0 - std::pow(beta2, static_cast<double>(step)) : 1.0;
  return k;
}

// adamw.cc's loop body, with the rounding of every operation explicit.
BERTLAB_KERNEL_UNBOUNDED AdamWKernel(float* params, float* m, float* v,
                                     const float* grads, int64_t begin,
                                     int64_t end, StepConstants k) {
  for (int64_t i = begin + cuda_kernels::GlobalThread(); i < end;
       i += cuda_kernels::GridStride()) {
    const double g = grads[i];
    const float m_new = static_cast<float>(
        __dadd_rn(__dmul_rn(k.beta1, m[i]), __dmul_rn(k.one_minus_beta1, g)));
    const float v_new = static_cast<float>(
        __dadd_rn(__dmul_rn(k.beta2, v[i]),
                  __dmul_rn(__dmul_rn(k.one_minus_beta2, g), g)));
    m[i] = m_new;
    v[i] = v_new;
    const double m_hat = __ddiv_rn(static_cast<double>(m_new), k.m_divisor);
    const double v_hat = __ddiv_rn(static_cast<double>(v_new), k.v_divisor);
    const double param = params[i];
    const double update =
        __dadd_rn(__ddiv_rn(m_hat, __dadd_rn(__dsqrt_rn(v_hat), k.epsilon)),
                  __dmul_rn(k.decay, param));
    params[i] = static_cast<float>(__dsub_rn(param, __dmul_rn(k.lr, update)));
  }
}

BERTLAB_KERNEL_UNBOUNDED ChunkSquaresKernel(double* partials,
                                            const float* values, int64_t size) {
  BERTLAB_STATIC_SHARED_MEMORY(double, scratch, [32]);
  const int64_t begin = static_cast<int64_t>(blockIdx.x) * kGlobalNormChunkCuda;
  const int64_t end =
      begin + kGlobalNormChunkCuda < size ? begin + kGlobalNormChunkCuda : size;
  double sum = 0.0;
  for (int64_t i = begin + threadIdx.x; i < end; i += blockDim.x) {
    const double value = values[i];
    sum += value * value;
  }
  sum = cuda_kernels::BlockSum(sum, scratch);
  if (threadIdx.x == 0) partials[blockIdx.x] = sum;
}

BERTLAB_KERNEL_UNBOUNDED SumPartialsKernel(double* norm, const double* partials,
                                           int64_t count) {
  double total = 0.0;
  for (int64_t i = 0; i < count; ++i) total += partials[i];
  *norm = sqrt(total);
}

}  // namespace
}  // namespace cuda
}  // namespace bertlab

#endif  // BERTLAB_MODEL_OPTIM_ADAMW_KERNELS_CUH_
