#include "experiments/device_flags.h"

#include "absl/flags/flag.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "common/status_macros.h"
#include "model/ops/cpu_gemm_engine.h"

ABSL_FLAG(std::string, device, "cpu",
          "where pre-training runs: cpu, or cuda in a binary built with "
          "--config=cuda (fine-tuning runs on the CPU)");
ABSL_FLAG(std::string, precision, "fp32",
          "pre-training arithmetic: fp32, or bf16 (mixed precision: BF16 "
          "math inputs and activations, FP32 master weights and optimizer "
          "state; cuda only)");
ABSL_FLAG(std::string, cpu_gemm, "openblas",
          "the library of the float matrix products on the CPU: openblas, "
          "or onednn (oneDNN's matmul); results differ in the last bits, so "
          "run ids cover it (double products always use OpenBLAS)");

namespace bertlab {

absl::Status ReadDeviceFlags(std::string* device, BackendPrecision* precision) {
  const std::string cpu_gemm = absl::GetFlag(FLAGS_cpu_gemm);
  const absl::StatusOr<CpuGemmEngine> engine = ParseCpuGemmEngine(cpu_gemm);
  if (!engine.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat("--cpu_gemm=", cpu_gemm, ": use openblas or onednn"));
  }
  ASSIGN_OR_RETURN(const BackendPrecision parsed_precision,
                   ParseBackendPrecision(absl::GetFlag(FLAGS_precision)));
  *device = absl::GetFlag(FLAGS_device);
  *precision = parsed_precision;
  SetCpuGemmEngine(*engine);
  return absl::OkStatus();
}

}  // namespace bertlab
