#include "experiments/device_flags.h"

#include "absl/flags/flag.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "common/status_macros.h"
#include "model/ops/cpu_gemm_engine.h"
#include "model/ops/precision.h"
#include "model/train/pretraining_backend.h"

ABSL_FLAG(std::string, device, "cpu",
          "where pre-training runs: cpu, or cuda in a binary built with "
          "--config=cuda (fine-tuning runs on the CPU)");
ABSL_FLAG(std::string, precision, "",
          "pre-training's arithmetic: fp32, or bf16 (mixed precision: GEMM "
          "inputs in BF16 with FP32 sums, FP32 master weights, optimizer "
          "state, norms, softmax and losses); empty: the experiment's "
          "precision (RunSpec.precision, FP32 unless set). On the cpu device "
          "bf16 computes pre-training's products with oneDNN's bf16 matmul "
          "(needs AVX-512). Fine-tuning and the cloze test compute in fp32 "
          "on either device");
ABSL_FLAG(std::string, cpu_gemm, "",
          "the library of the float matrix products on the CPU: openblas or "
          "onednn (oneDNN's f32 matmul); empty: onednn where oneDNN has "
          "AVX-512 and openblas on other CPUs (the faster engine of each, "
          "model/ops/cpu_gemm_engine.h). Results differ in the last bits, so "
          "run ids cover it. --precision=bf16 on the cpu device computes "
          "pre-training's products with oneDNN's bf16 matmul whatever this "
          "says; double products always use OpenBLAS");

namespace bertlab {

absl::StatusOr<DeviceFlags> ReadDeviceFlags(
    experiments::RunSpec::Precision experiment) {
  const std::string cpu_gemm = absl::GetFlag(FLAGS_cpu_gemm);
  const std::string flag = absl::GetFlag(FLAGS_precision);
  Precision parsed_precision = experiment == experiments::RunSpec::BF16
                                   ? Precision::kBfloat16Mixed
                                   : Precision::kFloat32;
  if (!flag.empty()) {
    const absl::StatusOr<Precision> parsed = ParsePrecision(flag);
    if (!parsed.ok()) {
      return absl::InvalidArgumentError(
          absl::StrCat("--precision=", flag, ": use fp32 or bf16"));
    }
    parsed_precision = *parsed;
  }
  CpuGemmEngine engine = DefaultCpuGemmEngine();
  if (!cpu_gemm.empty()) {
    const absl::StatusOr<CpuGemmEngine> named = ParseCpuGemmEngine(cpu_gemm);
    if (!named.ok()) {
      return absl::InvalidArgumentError(
          absl::StrCat("--cpu_gemm=", cpu_gemm,
                       ": use openblas or onednn (bf16 products on the CPU: "
                       "--precision=bf16)"));
    }
    engine = *named;
  }
  const std::string parsed_device = absl::GetFlag(FLAGS_device);
  if (parsed_device == "cpu") {
    const absl::Status available = CheckCpuPrecisionAvailable(parsed_precision);
    if (!available.ok()) {
      return absl::Status(
          available.code(),
          absl::StrCat(
              flag.empty()
                  ? absl::StrCat(
                        "the experiment's precision (",
                        experiments::RunSpec::Precision_Name(experiment), ")")
                  : absl::StrCat("--precision=", flag),
              ": ", available.message()));
    }
  }
  DeviceFlags flags;
  flags.device = parsed_device;
  flags.precision = parsed_precision;
  flags.cpu_gemm = engine;
  return flags;
}

}  // namespace bertlab
