// DeviceBuffer<T>: one named, owned allocation of GPU memory (RAII, move-only).
// The name appears in every error message about the buffer, so an
// out-of-memory report says which tensor did not fit (STYLE.md 11: every
// buffer has a name). Allocation happens in the constructor only; the ops never
// allocate (model/ops/README.md), callers size buffers once per step shape.
//
// Copies are synchronous and device-wide, meant for setup, tests and tools,
// not for the training step's hot loop: CudaContext's stream is non-blocking,
// so it does not wait for the legacy default stream that cudaMemcpy uses (nor
// that stream for it), and a pageable host-to-device cudaMemcpy may return
// before its DMA lands. Hence cudaDeviceSynchronize after an upload and
// before a download.
#ifndef BERTLAB_MODEL_CUDA_DEVICE_BUFFER_H_
#define BERTLAB_MODEL_CUDA_DEVICE_BUFFER_H_

#include <cuda_runtime.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <utility>
#include <vector>

#include "model/cuda/cuda_check.h"

namespace bertlab {

template <typename T>
class DeviceBuffer {
 public:
  DeviceBuffer() = default;

  // size elements of uninitialised device memory (none for size 0).
  DeviceBuffer(std::string name, int64_t size)
      : name_(std::move(name)), size_(size) {
    if (size_ < 0) {
      std::fprintf(stderr, "DeviceBuffer %s: negative size %lld\n",
                   name_.c_str(), static_cast<long long>(size_));
      std::abort();
    }
    if (size_ == 0) return;
    const cudaError_t error =
        cudaMalloc(reinterpret_cast<void**>(&data_), bytes());
    if (error != cudaSuccess) {
      std::fprintf(stderr,
                   "%s:%d: cudaMalloc of DeviceBuffer %s (%lld elements, "
                   "%zu bytes) failed: %s: %s\n",
                   __FILE__, __LINE__, name_.c_str(),
                   static_cast<long long>(size_), bytes(),
                   cudaGetErrorName(error), cudaGetErrorString(error));
      std::abort();
    }
  }

  // A buffer holding a copy of `host`.
  DeviceBuffer(std::string name, const std::vector<T>& host)
      : DeviceBuffer(std::move(name), static_cast<int64_t>(host.size())) {
    CopyFromHost(host);
  }

  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  DeviceBuffer(DeviceBuffer&& other) noexcept { Swap(other); }
  DeviceBuffer& operator=(DeviceBuffer&& other) noexcept {
    DeviceBuffer moved(std::move(other));
    Swap(moved);
    return *this;
  }
  ~DeviceBuffer() {
    // cudaFree synchronises; a failure here means the context is already
    // broken (an earlier kernel faulted), which was or will be reported.
    if (data_ != nullptr) BERTLAB_CUDA_CHECK(cudaFree(data_));
  }

  T* data() { return data_; }
  const T* data() const { return data_; }
  int64_t size() const { return size_; }
  size_t bytes() const { return static_cast<size_t>(size_) * sizeof(T); }
  const std::string& name() const { return name_; }

  // host.size() must equal size().
  void CopyFromHost(const std::vector<T>& host) {
    RequireSize(static_cast<int64_t>(host.size()), "CopyFromHost");
    if (size_ == 0) return;
    BERTLAB_CUDA_CHECK(
        cudaMemcpy(data_, host.data(), bytes(), cudaMemcpyHostToDevice));
    BERTLAB_CUDA_CHECK(cudaDeviceSynchronize());
  }

  std::vector<T> ToHost() const {
    std::vector<T> host(static_cast<size_t>(size_));
    if (size_ == 0) return host;
    BERTLAB_CUDA_CHECK(cudaDeviceSynchronize());
    BERTLAB_CUDA_CHECK(
        cudaMemcpy(host.data(), data_, bytes(), cudaMemcpyDeviceToHost));
    return host;
  }

  // Every byte zero (0.0f / bf16 +0 / integer 0), asynchronously on `stream`.
  void Zero(cudaStream_t stream) {
    if (size_ == 0) return;
    BERTLAB_CUDA_CHECK(cudaMemsetAsync(data_, 0, bytes(), stream));
  }

 private:
  void Swap(DeviceBuffer& other) noexcept {
    std::swap(name_, other.name_);
    std::swap(data_, other.data_);
    std::swap(size_, other.size_);
  }

  void RequireSize(int64_t host_size, const char* what) const {
    if (host_size != size_) {
      std::fprintf(stderr, "DeviceBuffer %s: %s of %lld elements into %lld\n",
                   name_.c_str(), what, static_cast<long long>(host_size),
                   static_cast<long long>(size_));
      std::abort();
    }
  }

  std::string name_;
  T* data_ = nullptr;
  int64_t size_ = 0;
};

}  // namespace bertlab

#endif  // BERTLAB_MODEL_CUDA_DEVICE_BUFFER_H_
