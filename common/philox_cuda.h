// The GPU twin of common/philox.h: fills buffers with the uniform floats of a
// Philox stream on the device, bit for bit equal to PhiloxFillUniform on the
// CPU (both run the same BERTLAB_HOST_DEVICE code from philox.h).
//
// nvcc does not see Bazel deps, so this header needs nothing beyond the C++
// standard library and philox.h; CUDA types stay inside philox_cuda.cu.
// Errors come back as a message ("file:line: cudaMalloc failed: ...") rather
// than absl::Status, so the .cu file needs no Abseil; an empty string is
// success.
#ifndef BERTLAB_COMMON_PHILOX_CUDA_H_
#define BERTLAB_COMMON_PHILOX_CUDA_H_

#include <cstdint>
#include <string>

#include "common/philox.h"

namespace bertlab {

// device_out[j] = PhiloxUniform(stream, first + j) for j in [0, count).
// `device_out` is device memory. The kernel is launched on the default stream
// and this returns after it has finished (errors of the launch and of the
// kernel are both reported).
[[nodiscard]] std::string PhiloxFillUniformDevice(const PhiloxStream& stream,
                                                  uint64_t first,
                                                  uint64_t count,
                                                  float* device_out);

// The same into host memory: fills a temporary device buffer and copies it
// back, for tests and tools comparing the GPU with the CPU.
[[nodiscard]] std::string PhiloxFillUniformDeviceToHost(
    const PhiloxStream& stream, uint64_t first, uint64_t count,
    float* host_out);

}  // namespace bertlab

#endif  // BERTLAB_COMMON_PHILOX_CUDA_H_
