// --device, --precision and --cpu_gemm, shared by //experiments:pretrain and
// //experiments:run_experiment: where pre-training's arithmetic runs
// (model/train/pretraining_backend.h), in which precision, and which library
// computes the float products on the CPU (model/ops/cpu_gemm_engine.h).
#ifndef BERTLAB_EXPERIMENTS_DEVICE_FLAGS_H_
#define BERTLAB_EXPERIMENTS_DEVICE_FLAGS_H_

#include <string>

#include "absl/status/status.h"
#include "model/train/pretraining_backend.h"

namespace bertlab {

// The flags' values; an error naming the flag for a bad precision or CPU
// GEMM engine. Also sets the process-wide CPU GEMM engine from --cpu_gemm
// (SetCpuGemmEngine), like ApplyThreadsFlag sets the thread count; nothing
// is changed on an error. Whether the binary has the device is checked when
// the backend is made.
absl::Status ReadDeviceFlags(std::string* device, BackendPrecision* precision);

}  // namespace bertlab

#endif  // BERTLAB_EXPERIMENTS_DEVICE_FLAGS_H_
