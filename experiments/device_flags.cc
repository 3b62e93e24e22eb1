#include "experiments/device_flags.h"

#include "absl/flags/flag.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "common/status_macros.h"
#include "model/ops/cpu_gemm_engine.h"
#include "model/ops/gemm_onednn.h"

ABSL_FLAG(std::string, device, "cpu",
          "where pre-training runs: cpu, or cuda in a binary built with "
          "--config=cuda (fine-tuning runs on the CPU)");
ABSL_FLAG(std::string, precision, "",
          "training arithmetic: fp32, or bf16 (mixed precision: GEMM inputs "
          "in BF16 with FP32 sums, FP32 master weights, optimizer state, "
          "norms, softmax and losses); empty: the experiment's precision "
          "(RunSpec.precision, FP32 unless set). On the cpu device bf16 runs "
          "every float product, pre-training and fine-tuning, on oneDNN's "
          "bf16 matmul (needs AVX-512; --cpu_gemm=onednn_bf16)");
ABSL_FLAG(std::string, cpu_gemm, "",
          "the library of the float matrix products on the CPU: openblas, "
          "onednn (oneDNN's f32 matmul) or onednn_bf16 (oneDNN's bf16 "
          "matmul, what --precision=bf16 on the cpu device uses); empty: "
          "onednn_bf16 for bf16 on the cpu device, else onednn where oneDNN "
          "has AVX-512 and openblas on other CPUs (the faster engine of "
          "each, model/ops/cpu_gemm_engine.h). Results "
          "differ in the last bits, so run ids cover it (double products "
          "always use OpenBLAS)");

namespace bertlab {

absl::Status ReadDeviceFlags(experiments::RunSpec::Precision experiment,
                             std::string* device, BackendPrecision* precision) {
  const std::string cpu_gemm = absl::GetFlag(FLAGS_cpu_gemm);
  const std::string flag = absl::GetFlag(FLAGS_precision);
  // What the messages call the precision: the flag, or the file's field.
  const std::string named =
      flag.empty()
          ? absl::StrCat("the experiment's precision (",
                         experiments::RunSpec::Precision_Name(experiment), ")")
          : absl::StrCat("--precision=", flag);
  ASSIGN_OR_RETURN(const BackendPrecision parsed_precision,
                   flag.empty() ? experiment == experiments::RunSpec::BF16
                                      ? BackendPrecision::kBfloat16Mixed
                                      : BackendPrecision::kFloat32
                                : ParseBackendPrecision(flag));
  const std::string parsed_device = absl::GetFlag(FLAGS_device);
  const bool cpu_bf16 = parsed_device == "cpu" &&
                        parsed_precision == BackendPrecision::kBfloat16Mixed;
  CpuGemmEngine engine =
      cpu_bf16 ? CpuGemmEngine::kOneDnnBf16 : DefaultCpuGemmEngine();
  if (!cpu_gemm.empty()) {
    const absl::StatusOr<CpuGemmEngine> named = ParseCpuGemmEngine(cpu_gemm);
    if (!named.ok()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "--cpu_gemm=", cpu_gemm, ": use openblas, onednn or onednn_bf16"));
    }
    engine = *named;
  }
  // The records say fp32 or bf16 once, for the whole run: the engine must
  // agree with the precision on the cpu device.
  const bool bf16_engine = engine == CpuGemmEngine::kOneDnnBf16;
  if (cpu_bf16 && !bf16_engine) {
    return absl::InvalidArgumentError(absl::StrCat(
        named,
        " on the cpu device computes with oneDNN's bf16 matmul; "
        "--cpu_gemm=",
        cpu_gemm, " is float32 (leave --cpu_gemm out, or give onednn_bf16)"));
  }
  if (parsed_device == "cpu" && !cpu_bf16 && bf16_engine) {
    return absl::InvalidArgumentError(
        absl::StrCat("--cpu_gemm=onednn_bf16 is bf16 mixed precision: give "
                     "--precision=bf16 with it (the precision now: ",
                     named, ")"));
  }
  if (bf16_engine && !OneDnnBf16MatmulAvailable()) {
    return absl::FailedPreconditionError(absl::StrCat(
        named,
        " on the CPU needs oneDNN's bf16 matmul, which this CPU does not "
        "have (oneDNN 2.6 needs AVX-512); use --precision=fp32"));
  }
  *device = parsed_device;
  *precision = parsed_precision;
  SetCpuGemmEngine(engine);
  return absl::OkStatus();
}

}  // namespace bertlab
