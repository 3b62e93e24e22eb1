// The part of the CUDA runtime API the project calls, on the host, for the
// host CUDA build (host_cuda/include/cuda_runtime.h): the CUDA backend's own
// sources compiled by g++, kernels run by the SIMT emulator
// (simt_emulator.h, launched through kernel_decl.h's BERTLAB_LAUNCH), so the
// GPU parity tests run on the CPU in plain `bazel test`.
//
// "Device" memory is host memory (cudaMalloc is an aligned malloc, filled
// with 0xFF so unwritten floats read as NaN); copies and sets are memcpy /
// memset; a stream is a tag and everything runs synchronously in issue
// order, so cudaStreamSynchronize and cudaDeviceSynchronize have nothing to
// wait for. One device, described as an sm_90 part with 227 KiB of opt-in
// shared memory per block. Test-only: what it cannot show (GPU rounding,
// concurrency, the memory model, speed) is simt_emulator.h's list.
#ifndef BERTLAB_MODEL_CUDA_TESTING_HOST_CUDA_RUNTIME_H_
#define BERTLAB_MODEL_CUDA_TESTING_HOST_CUDA_RUNTIME_H_

#include <cstddef>
#include <cstdlib>
#include <cstring>

#include "model/cuda/testing/simt_emulator.h"

enum cudaError_t {
  cudaSuccess = 0,
  cudaErrorInvalidValue = 1,
  cudaErrorMemoryAllocation = 2,
  cudaErrorInvalidPitchValue = 12,
  cudaErrorInvalidDevice = 101,
};
using cudaError = cudaError_t;

inline const char* cudaGetErrorName(cudaError_t error) {
  switch (error) {
    case cudaSuccess:
      return "cudaSuccess";
    case cudaErrorInvalidValue:
      return "cudaErrorInvalidValue";
    case cudaErrorMemoryAllocation:
      return "cudaErrorMemoryAllocation";
    case cudaErrorInvalidPitchValue:
      return "cudaErrorInvalidPitchValue";
    case cudaErrorInvalidDevice:
      return "cudaErrorInvalidDevice";
  }
  return "cudaErrorUnknown";
}
inline const char* cudaGetErrorString(cudaError_t error) {
  return error == cudaSuccess ? "no error" : "host CUDA emulation error";
}
// Launches run to completion or abort loudly: nothing is ever pending.
inline cudaError_t cudaGetLastError() { return cudaSuccess; }
inline cudaError_t cudaPeekAtLastError() { return cudaSuccess; }

struct CUstream_st {
  int tag;
};
using cudaStream_t = CUstream_st*;
constexpr unsigned int cudaStreamNonBlocking = 1;

inline cudaError_t cudaStreamCreateWithFlags(cudaStream_t* stream,
                                             unsigned int) {
  *stream = new CUstream_st{0};
  return cudaSuccess;
}
inline cudaError_t cudaStreamDestroy(cudaStream_t stream) {
  delete stream;
  return cudaSuccess;
}
inline cudaError_t cudaStreamSynchronize(cudaStream_t) { return cudaSuccess; }
inline cudaError_t cudaDeviceSynchronize() { return cudaSuccess; }

inline cudaError_t cudaSetDevice(int device) {
  return device == 0 ? cudaSuccess : cudaErrorInvalidDevice;
}
inline cudaError_t cudaGetDevice(int* device) {
  *device = 0;
  return cudaSuccess;
}
inline cudaError_t cudaGetDeviceCount(int* count) {
  *count = 1;
  return cudaSuccess;
}

struct cudaDeviceProp {
  char name[256];
  int major, minor;
  int multiProcessorCount;
  size_t totalGlobalMem;
  size_t sharedMemPerBlockOptin;
};
inline cudaError_t cudaGetDeviceProperties(cudaDeviceProp* properties,
                                           int device) {
  if (device != 0) return cudaErrorInvalidDevice;
  *properties = cudaDeviceProp{};
  std::strcpy(properties->name, "host CUDA emulation");
  properties->major = 9;
  properties->minor = 0;
  properties->multiProcessorCount = 1;
  properties->totalGlobalMem = size_t{1} << 34;
  properties->sharedMemPerBlockOptin = 227 * 1024;
  return cudaSuccess;
}

enum cudaDeviceAttr { cudaDevAttrMaxSharedMemoryPerBlockOptin = 97 };
inline cudaError_t cudaDeviceGetAttribute(int* value, cudaDeviceAttr attribute,
                                          int device) {
  if (device != 0) return cudaErrorInvalidDevice;
  if (attribute != cudaDevAttrMaxSharedMemoryPerBlockOptin) {
    return cudaErrorInvalidValue;
  }
  *value = 227 * 1024;
  return cudaSuccess;
}

enum cudaFuncAttribute { cudaFuncAttributeMaxDynamicSharedMemorySize = 8 };
template <typename Kernel>
cudaError_t cudaFuncSetAttribute(Kernel*, cudaFuncAttribute, int value) {
  return value >= 0 && value <= 227 * 1024 ? cudaSuccess
                                           : cudaErrorInvalidValue;
}

inline cudaError_t cudaMalloc(void** pointer, size_t bytes) {
  *pointer = nullptr;
  if (bytes == 0) return cudaSuccess;
  if (posix_memalign(pointer, 256, bytes) != 0) {
    *pointer = nullptr;
    return cudaErrorMemoryAllocation;
  }
  std::memset(*pointer, 0xFF, bytes);
  return cudaSuccess;
}
inline cudaError_t cudaFree(void* pointer) {
  std::free(pointer);
  return cudaSuccess;
}

enum cudaMemcpyKind {
  cudaMemcpyHostToHost = 0,
  cudaMemcpyHostToDevice = 1,
  cudaMemcpyDeviceToHost = 2,
  cudaMemcpyDeviceToDevice = 3,
  cudaMemcpyDefault = 4,
};
inline cudaError_t cudaMemcpy(void* target, const void* source, size_t bytes,
                              cudaMemcpyKind) {
  if (bytes != 0) std::memmove(target, source, bytes);
  return cudaSuccess;
}
inline cudaError_t cudaMemcpyAsync(void* target, const void* source,
                                   size_t bytes, cudaMemcpyKind kind,
                                   cudaStream_t = nullptr) {
  return cudaMemcpy(target, source, bytes, kind);
}
// height rows of width bytes, rows target_pitch and source_pitch bytes
// apart (cudaErrorInvalidPitchValue when a row is wider than a pitch).
inline cudaError_t cudaMemcpy2D(void* target, size_t target_pitch,
                                const void* source, size_t source_pitch,
                                size_t width, size_t height, cudaMemcpyKind) {
  if (width > target_pitch || width > source_pitch) {
    return cudaErrorInvalidPitchValue;
  }
  for (size_t row = 0; row < height; ++row) {
    std::memmove(static_cast<char*>(target) + row * target_pitch,
                 static_cast<const char*>(source) + row * source_pitch, width);
  }
  return cudaSuccess;
}
inline cudaError_t cudaMemcpy2DAsync(void* target, size_t target_pitch,
                                     const void* source, size_t source_pitch,
                                     size_t width, size_t height,
                                     cudaMemcpyKind kind,
                                     cudaStream_t = nullptr) {
  return cudaMemcpy2D(target, target_pitch, source, source_pitch, width, height,
                      kind);
}
inline cudaError_t cudaMemset(void* target, int value, size_t bytes) {
  if (bytes != 0) std::memset(target, value, bytes);
  return cudaSuccess;
}
inline cudaError_t cudaMemsetAsync(void* target, int value, size_t bytes,
                                   cudaStream_t = nullptr) {
  return cudaMemset(target, value, bytes);
}

#endif  // BERTLAB_MODEL_CUDA_TESTING_HOST_CUDA_RUNTIME_H_
