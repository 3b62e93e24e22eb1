// AdamW and the global norm on the GPU; see adamw_cuda.h.
#include <cmath>
#include <cstdint>
#include <vector>

#include "model/cuda/adamw_cuda.h"
#include "model/cuda/context.h"
#include "model/cuda/cuda_check.h"
#include "model/cuda/kernel_util.cuh"

namespace bertlab {
namespace cuda {
namespace {

struct StepConstants {
  double beta1, beta2, one_minus_beta1, one_minus_beta2, epsilon, decay, lr,
      m_divisor, v_divisor;
};

// adamw.cc's loop body, with the rounding of every operation explicit.
__global__ void AdamWKernel(float* params, float* m, float* v,
                            const float* grads, int64_t begin, int64_t end,
                            StepConstants k) {
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

__global__ void ChunkSquaresKernel(double* partials, const float* values,
                                   int64_t size) {
  __shared__ double scratch[32];
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

__global__ void SumPartialsKernel(double* norm, const double* partials,
                                  int64_t count) {
  double total = 0.0;
  for (int64_t i = 0; i < count; ++i) total += partials[i];
  *norm = sqrt(total);
}

}  // namespace

void AdamWStep(float* params, float* m, float* v, const float* grads,
               const std::vector<AdamWSpan>& spans, double lr, int64_t step,
               const AdamWStepOptions& options, const CudaContext& context) {
  BERTLAB_CUDA_REQUIRE(std::isfinite(lr) && lr >= 0, "AdamWStep: bad lr");
  BERTLAB_CUDA_REQUIRE(step >= 1, "AdamWStep: step is 1-based");
  StepConstants k;
  k.beta1 = options.beta1;
  k.beta2 = options.beta2;
  k.one_minus_beta1 = 1.0 - options.beta1;
  k.one_minus_beta2 = 1.0 - options.beta2;
  k.epsilon = options.epsilon;
  k.lr = lr;
  k.m_divisor = options.bias_correction
                    ? 1.0 - std::pow(options.beta1, static_cast<double>(step))
                    : 1.0;
  k.v_divisor = options.bias_correction
                    ? 1.0 - std::pow(options.beta2, static_cast<double>(step))
                    : 1.0;
  for (const AdamWSpan& span : spans) {
    BERTLAB_CUDA_REQUIRE(span.begin <= span.end, "AdamWStep: bad span");
    if (span.begin == span.end) continue;
    k.decay = span.decay ? options.weight_decay : 0.0;
    AdamWKernel<<<cuda_kernels::GridFor(span.end - span.begin),
                  cuda_kernels::kThreads, 0, context.stream()>>>(
        params, m, v, grads, span.begin, span.end, k);
    BERTLAB_CUDA_CHECK_LAUNCH();
  }
}

void GlobalNorm(double* norm, double* partials, const float* values,
                int64_t size, const CudaContext& context) {
  BERTLAB_CUDA_REQUIRE(size >= 0, "GlobalNorm: size < 0");
  const int64_t chunks = GlobalNormScratchSize(size);
  BERTLAB_CUDA_REQUIRE(chunks <= INT32_MAX, "GlobalNorm: too many chunks");
  if (chunks > 0) {
    ChunkSquaresKernel<<<static_cast<unsigned int>(chunks),
                         cuda_kernels::kThreads, 0, context.stream()>>>(
        partials, values, size);
    BERTLAB_CUDA_CHECK_LAUNCH();
  }
  SumPartialsKernel<<<1, 1, 0, context.stream()>>>(norm, partials, chunks);
  BERTLAB_CUDA_CHECK_LAUNCH();
}

}  // namespace cuda
}  // namespace bertlab
