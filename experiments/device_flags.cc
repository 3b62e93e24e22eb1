#include "experiments/device_flags.h"

#include "absl/flags/flag.h"
#include "absl/status/statusor.h"
#include "common/status_macros.h"

ABSL_FLAG(std::string, device, "cpu",
          "where pre-training runs: cpu, or cuda in a binary built with "
          "--config=cuda (fine-tuning runs on the CPU)");
ABSL_FLAG(std::string, precision, "fp32",
          "pre-training arithmetic: fp32, or bf16 (mixed precision: BF16 "
          "math inputs and activations, FP32 master weights and optimizer "
          "state; cuda only)");

namespace bertlab {

absl::Status ReadDeviceFlags(std::string* device, BackendPrecision* precision) {
  *device = absl::GetFlag(FLAGS_device);
  ASSIGN_OR_RETURN(*precision,
                   ParseBackendPrecision(absl::GetFlag(FLAGS_precision)));
  return absl::OkStatus();
}

}  // namespace bertlab
