// third_party/cuda.bzl exports include/nv/** to g++ sandboxes, so host code
// may include cuda_bf16.h and cublas_v2.h, also after the op headers'
// forward declarations of __nv_bfloat16 and cublasContext (kept so that the
// op headers stay light). Mostly compile-time: if this file builds, both
// hold. Runs without a GPU (nothing here touches the device).
#include <cublas_v2.h>
#include <cuda_bf16.h>

#include <cstring>
#include <type_traits>

#include "gtest/gtest.h"
#include "model/cuda/bf16.h"
#include "model/cuda/context.h"
#include "model/ops/gemm_cuda.h"

namespace bertlab {
namespace {

static_assert(sizeof(Bf16) == sizeof(__nv_bfloat16),
              "Bf16 must be layout-compatible with __nv_bfloat16");
static_assert(alignof(Bf16) == alignof(__nv_bfloat16),
              "Bf16 must be layout-compatible with __nv_bfloat16");
static_assert(
    std::is_same<cublasHandle_t,
                 decltype(std::declval<const CudaContext&>().cublas())>::value,
    "CudaContext::cublas() is a cublasHandle_t");

TEST(HostHeadersTest, Bf16RoundTripsThroughCudaType) {
  const __nv_bfloat16 one = __float2bfloat16(1.0f);
  Bf16 host;
  static_assert(sizeof(host) == sizeof(one), "same size");
  std::memcpy(&host, &one, sizeof(host));
  EXPECT_EQ(host.bits, 0x3F80);  // bf16 1.0
  EXPECT_EQ(__bfloat162float(*AsDevice(&host)), 1.0f);
}

}  // namespace
}  // namespace bertlab
