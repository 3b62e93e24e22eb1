// Peak FLOP/s of the GPU a benchmark runs on, for MFU (flops.h): a small table
// keyed by a substring of the device name (cudaDeviceProp::name), and the
// benchmarks' own flags that override it. Shared by encoder_benchmark_cuda and
// train_step_benchmark_cuda. Plain C++ (the caller reads the device name),
// tested without a GPU (device_peaks_test).
//
// The table's numbers are vendor datasheet values (dense, no sparsity) written
// from memory: check them against the datasheet of the machine before
// quoting an MFU. FP32 is the non-tensor-core peak (what the FP32 step
// computes in unless TF32 is allowed); BF16 is the dense tensor-core peak,
// the one MFU is usually quoted against (PAPER.md 5e).
#ifndef BERTLAB_MODEL_CUDA_DEVICE_PEAKS_H_
#define BERTLAB_MODEL_CUDA_DEVICE_PEAKS_H_

#include <string>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"

namespace bertlab {

struct DevicePeaks {
  const char* name_contains;  // matched against the device name, in order
  double fp32_tflops;         // FP32, non-tensor-core
  double bf16_tflops;         // dense BF16 tensor core
};

// The first table entry whose name_contains occurs in device_name (specific
// variants precede their family name), or nullptr.
const DevicePeaks* FindDevicePeaks(absl::string_view device_name);

// What a benchmark measures against: 0 = unknown (MFU reported as 0).
struct PeakSettings {
  double fp32_tflops = 0.0;
  double bf16_tflops = 0.0;
  bool allow_tf32 = false;
};

// Takes --peak_fp32_tflops=X, --peak_bf16_tflops=Y (X, Y > 0) and
// --allow_tf32 out of argv (Google Benchmark rejects unknown flags) into
// *settings; other arguments stay, in order. A malformed value is an
// InvalidArgument error naming the flag.
absl::Status ParsePeakFlags(int* argc, char** argv, PeakSettings* settings);

// Fills the peaks the flags left at 0 from the table entry of device_name and
// returns a line saying what will be used and where it came from.
std::string ResolvePeaks(absl::string_view device_name, PeakSettings* settings);

}  // namespace bertlab

#endif  // BERTLAB_MODEL_CUDA_DEVICE_PEAKS_H_
