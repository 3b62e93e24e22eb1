#include "model/cuda/device_peaks.h"

#include <cstdlib>
#include <cstring>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace bertlab {
namespace {

// First match wins, so the specific variants precede the family name.
constexpr DevicePeaks kPeaks[] = {
    {"H200 NVL", 60.0, 835.0},  {"H200", 67.0, 989.0},
    {"H100 PCIe", 51.0, 756.0}, {"H100 NVL", 60.0, 835.0},
    {"H100", 67.0, 989.0},      {"A100", 19.5, 312.0},
    {"A10G", 31.2, 70.0},       {"L40S", 91.6, 362.0},
};

// Whether arg is `name=...`; if so parses the value into *value (> 0).
absl::Status ParseDoubleFlag(const char* arg, const char* name, bool* matched,
                             double* value) {
  const size_t length = std::strlen(name);
  *matched = std::strncmp(arg, name, length) == 0 && arg[length] == '=';
  if (!*matched) return absl::OkStatus();
  const char* text = arg + length + 1;
  char* end = nullptr;
  const double parsed = std::strtod(text, &end);
  if (end == text || *end != '\0' || !(parsed > 0.0)) {
    return absl::InvalidArgumentError(
        absl::StrCat(arg, ": expected a positive number of TFLOP/s"));
  }
  *value = parsed;
  return absl::OkStatus();
}

}  // namespace

const DevicePeaks* FindDevicePeaks(absl::string_view device_name) {
  for (const DevicePeaks& peaks : kPeaks) {
    if (absl::StrContains(device_name, peaks.name_contains)) return &peaks;
  }
  return nullptr;
}

absl::Status ParsePeakFlags(int* argc, char** argv, PeakSettings* settings) {
  int kept = 1;
  for (int i = 1; i < *argc; ++i) {
    bool matched = false;
    absl::Status status = ParseDoubleFlag(argv[i], "--peak_fp32_tflops",
                                          &matched, &settings->fp32_tflops);
    if (!status.ok()) return status;
    if (matched) continue;
    status = ParseDoubleFlag(argv[i], "--peak_bf16_tflops", &matched,
                             &settings->bf16_tflops);
    if (!status.ok()) return status;
    if (matched) continue;
    if (std::strcmp(argv[i], "--allow_tf32") == 0) {
      settings->allow_tf32 = true;
      continue;
    }
    argv[kept++] = argv[i];
  }
  *argc = kept;
  return absl::OkStatus();
}

std::string ResolvePeaks(absl::string_view device_name,
                         PeakSettings* settings) {
  const DevicePeaks* match = FindDevicePeaks(device_name);
  if (match != nullptr) {
    if (settings->fp32_tflops == 0.0)
      settings->fp32_tflops = match->fp32_tflops;
    if (settings->bf16_tflops == 0.0)
      settings->bf16_tflops = match->bf16_tflops;
  }
  return absl::StrFormat(
      "device: %s; peaks: FP32 %.1f TFLOP/s, BF16 %.1f TFLOP/s (%s); TF32 %s",
      device_name, settings->fp32_tflops, settings->bf16_tflops,
      match != nullptr ? "table, flags override"
                       : "not in the table: flags only, 0 = no MFU",
      settings->allow_tf32 ? "allowed" : "off");
}

}  // namespace bertlab
