// --device, --precision and --cpu_gemm, shared by //experiments:pretrain and
// //experiments:run_experiment: where the training arithmetic runs
// (model/train/pretraining_backend.h; run_experiment's fine-tuning too,
// model/train/finetune_backend.h), in which precision, and which library
// computes the float products on the CPU (model/ops/cpu_gemm_engine.h).
#ifndef BERTLAB_EXPERIMENTS_DEVICE_FLAGS_H_
#define BERTLAB_EXPERIMENTS_DEVICE_FLAGS_H_

#include <string>

#include "absl/status/statusor.h"
#include "experiments/experiment.pb.h"
#include "model/ops/cpu_gemm_engine.h"
#include "model/ops/precision.h"

namespace bertlab {

// What the three flags ask for.
struct DeviceFlags {
  std::string device = "cpu";
  Precision precision = Precision::kFloat32;
  // --cpu_gemm, or the machine's default (DefaultCpuGemmEngine: onednn where
  // oneDNN has AVX-512, openblas elsewhere). The command opens a
  // ScopedCpuGemmEngine with it around its work.
  CpuGemmEngine cpu_gemm = CpuGemmEngine::kOpenBlas;
};

// The flags' values, --precision defaulting to `experiment`'s (the runs'
// RunSpec.precision, one per experiment): the backends' precision (on the
// cpu device fine-tuning computes in FP32 whatever it says). An error naming
// the flag (or the experiment's field) for a bad precision or CPU GEMM engine,
// and for bf16 on the cpu device of a CPU without oneDNN's bf16 matmul.
// Whether the binary has the device is checked when the backend is made.
absl::StatusOr<DeviceFlags> ReadDeviceFlags(
    experiments::RunSpec::Precision experiment);

}  // namespace bertlab

#endif  // BERTLAB_EXPERIMENTS_DEVICE_FLAGS_H_
