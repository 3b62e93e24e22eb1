// --device, --precision and --cpu_gemm, shared by //experiments:pretrain and
// //experiments:run_experiment: where pre-training's arithmetic runs
// (model/train/pretraining_backend.h), in which precision, and which library
// computes the float products on the CPU (model/ops/cpu_gemm_engine.h).
#ifndef BERTLAB_EXPERIMENTS_DEVICE_FLAGS_H_
#define BERTLAB_EXPERIMENTS_DEVICE_FLAGS_H_

#include <string>

#include "absl/status/status.h"
#include "experiments/experiment.pb.h"
#include "model/train/pretraining_backend.h"

namespace bertlab {

// The flags' values, --precision defaulting to `experiment`'s (the runs'
// RunSpec.precision, one per experiment): pre-training's precision, which
// the backend is given (fine-tuning computes in FP32). An error naming the
// flag (or the experiment's field) for a bad precision or CPU GEMM engine,
// and for bf16 on the cpu device of a CPU without oneDNN's bf16 matmul.
// Also sets the process-wide CPU GEMM engine (SetCpuGemmEngine), like
// ApplyThreadsFlag sets the thread count: --cpu_gemm, or the machine's
// default (DefaultCpuGemmEngine: onednn where oneDNN has AVX-512, openblas
// elsewhere); nothing is changed on an error. Whether the binary has the
// device is checked when the backend is made.
absl::Status ReadDeviceFlags(experiments::RunSpec::Precision experiment,
                             std::string* device, Precision* precision);

}  // namespace bertlab

#endif  // BERTLAB_EXPERIMENTS_DEVICE_FLAGS_H_
