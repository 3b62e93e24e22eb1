// Which GPU a process trains on; see local_device.h.
#include "model/train/local_device.h"

#include <cuda_runtime.h>

#include <cstdlib>

#include "absl/strings/str_cat.h"
#include "model/cuda/cuda_check.h"

namespace bertlab {
namespace cuda {

int LocalDevice(int devices) {
  for (const char* variable : {"OMPI_COMM_WORLD_LOCAL_RANK", "SLURM_LOCALID",
                               "OMPI_COMM_WORLD_RANK", "SLURM_PROCID"}) {
    const char* text = std::getenv(variable);
    if (text == nullptr || *text == '\0') continue;
    char* end = nullptr;
    const long rank = std::strtol(text, &end, 10);
    if (*end == '\0' && rank >= 0) return static_cast<int>(rank % devices);
  }
  return 0;
}

std::string DeviceName(int device) {
  cudaDeviceProp properties;
  BERTLAB_CUDA_CHECK(cudaGetDeviceProperties(&properties, device));
  return properties.name;
}

absl::StatusOr<int> ChooseLocalDevice() {
  int devices = 0;
  const cudaError_t error = cudaGetDeviceCount(&devices);
  if (error != cudaSuccess || devices == 0) {
    return absl::FailedPreconditionError(absl::StrCat(
        "device cuda: no usable GPU (",
        error != cudaSuccess ? cudaGetErrorString(error) : "0 devices", ")"));
  }
  return LocalDevice(devices);
}

CudaContextOptions OnDevice(int device) {
  CudaContextOptions options;
  options.device = device;
  return options;
}

std::string DescribeCudaBackend(int device, bool bf16) {
  return absl::StrCat(
      "cuda (", DeviceName(device), "), ",
      bf16 ? "bf16 mixed precision (fp32 master weights)" : "fp32");
}

}  // namespace cuda
}  // namespace bertlab
