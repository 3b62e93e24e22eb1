// CUDA fill of Philox uniforms; see common/philox_cuda.h. Each thread computes
// one Philox block (four consecutive elements) from its counter alone, so the
// result is independent of the launch shape.
#include <cuda_runtime.h>

#include <cstdint>
#include <string>

#include "common/philox.h"
#include "common/philox_cuda.h"

// Returns "file:line: call failed: reason" from the enclosing function (which
// returns std::string) when a CUDA runtime call fails.
#define BERTLAB_RETURN_IF_CUDA_ERROR(call)                                    \
  do {                                                                        \
    const cudaError_t bertlab_cuda_error = (call);                            \
    if (bertlab_cuda_error != cudaSuccess) {                                  \
      return CudaErrorMessage(__FILE__, __LINE__, #call, bertlab_cuda_error); \
    }                                                                         \
  } while (false)

namespace bertlab {
namespace {

std::string CudaErrorMessage(const char* file, int line, const char* call,
                             cudaError_t error) {
  return std::string(file) + ":" + std::to_string(line) + ": " + call +
         " failed: " + cudaGetErrorName(error) + ": " +
         cudaGetErrorString(error);
}

constexpr int kThreadsPerBlock = 256;
constexpr uint64_t kMaxGridBlocks = 65535;

// Grid thread t computes Philox blocks first / 4 + t, + stride, + 2 * stride,
// ... and writes those of their elements that lie in [first, first + count) to
// out[element - first].
__global__ void PhiloxFillUniformKernel(PhiloxStream stream, uint64_t first,
                                        uint64_t count, float* out) {
  const uint64_t end = first + count;
  const uint64_t first_block = first / 4;
  const uint64_t num_blocks = (end + 3) / 4 - first_block;
  const uint64_t stride = static_cast<uint64_t>(gridDim.x) * blockDim.x;
  for (uint64_t local =
           static_cast<uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
       local < num_blocks; local += stride) {
    const uint64_t block_index = first_block + local;
    const PhiloxBlock block = PhiloxStreamBlock(stream, block_index);
    for (int lane = 0; lane < 4; ++lane) {
      const uint64_t element = block_index * 4 + lane;
      if (element >= first && element < end) {
        out[element - first] = PhiloxBitsToUniform(block.v[lane]);
      }
    }
  }
}

}  // namespace

std::string PhiloxFillUniformDevice(const PhiloxStream& stream, uint64_t first,
                                    uint64_t count, float* device_out) {
  if (count == 0) return std::string();
  if (device_out == nullptr) {
    return std::string(__FILE__) + ":" + std::to_string(__LINE__) +
           ": PhiloxFillUniformDevice: device_out is null";
  }
  const uint64_t num_blocks = (first + count + 3) / 4 - first / 4;
  uint64_t grid = (num_blocks + kThreadsPerBlock - 1) / kThreadsPerBlock;
  if (grid > kMaxGridBlocks) grid = kMaxGridBlocks;
  PhiloxFillUniformKernel<<<static_cast<unsigned int>(grid),
                            kThreadsPerBlock>>>(stream, first, count,
                                                device_out);
  BERTLAB_RETURN_IF_CUDA_ERROR(cudaGetLastError());
  BERTLAB_RETURN_IF_CUDA_ERROR(cudaDeviceSynchronize());
  return std::string();
}

std::string PhiloxFillUniformDeviceToHost(const PhiloxStream& stream,
                                          uint64_t first, uint64_t count,
                                          float* host_out) {
  if (count == 0) return std::string();
  float* device_out = nullptr;
  BERTLAB_RETURN_IF_CUDA_ERROR(
      cudaMalloc(reinterpret_cast<void**>(&device_out), count * sizeof(float)));
  std::string error = PhiloxFillUniformDevice(stream, first, count, device_out);
  if (error.empty()) {
    const cudaError_t copy_error = cudaMemcpy(
        host_out, device_out, count * sizeof(float), cudaMemcpyDeviceToHost);
    if (copy_error != cudaSuccess) {
      error = CudaErrorMessage(__FILE__, __LINE__, "cudaMemcpy", copy_error);
    }
  }
  const cudaError_t free_error = cudaFree(device_out);
  if (error.empty() && free_error != cudaSuccess) {
    error = CudaErrorMessage(__FILE__, __LINE__, "cudaFree", free_error);
  }
  return error;
}

}  // namespace bertlab
