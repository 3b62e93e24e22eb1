// Which GPU a process trains on, and how a device backend names it: shared
// by the "cuda" pre-training and fine-tuning backends.
#ifndef BERTLAB_MODEL_TRAIN_LOCAL_DEVICE_H_
#define BERTLAB_MODEL_TRAIN_LOCAL_DEVICE_H_

#include <string>

#include "absl/status/statusor.h"
#include "model/cuda/context.h"

namespace bertlab {
namespace cuda {

// The GPU of this process among `devices`: its launcher's local rank
// (OpenMPI's OMPI_COMM_WORLD_LOCAL_RANK, else Slurm's SLURM_LOCALID), else
// its rank in the job (OMPI_COMM_WORLD_RANK, else SLURM_PROCID), modulo the
// device count; device 0 for a process alone. More ranks than GPUs share
// them (then RankGradientSum sums through host memory).
int LocalDevice(int devices);

// cudaGetDeviceProperties' name of `device`.
std::string DeviceName(int device);

// The GPU this process trains on (LocalDevice), or FailedPrecondition
// naming why there is none ("device cuda: no usable GPU (...)").
absl::StatusOr<int> ChooseLocalDevice();

// A context's options for GPU `device`.
CudaContextOptions OnDevice(int device);

// A backend's Describe(): "cuda (<name of device>), fp32", or with bf16
// "..., bf16 mixed precision (fp32 master weights)".
std::string DescribeCudaBackend(int device, bool bf16);

}  // namespace cuda
}  // namespace bertlab

#endif  // BERTLAB_MODEL_TRAIN_LOCAL_DEVICE_H_
