#include "model/parity/gradient_parity.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <string>
#include <vector>

#include "common/check.h"
#include "gtest/gtest.h"

namespace bertlab {
namespace {

constexpr char kKeyBias[] = "attention.self.key.bias";
constexpr char kQueryBias[] = "attention.self.query.bias";

bool EndsWith(const std::string& text, const std::string& suffix) {
  return text.size() >= suffix.size() &&
         text.compare(text.size() - suffix.size(), suffix.size(), suffix) == 0;
}

std::vector<float> Slice(const std::vector<float>& flat,
                         const ParameterInfo& info) {
  return std::vector<float>(flat.begin() + info.offset,
                            flat.begin() + info.offset + info.size);
}

const ParameterInfo& FindParameter(const ParameterLayout& layout,
                                   const std::string& name) {
  for (const ParameterInfo& info : layout.parameters()) {
    if (info.name == name) return info;
  }
  CHECK(false) << "no parameter " << name;
  return layout.parameters().front();
}

// The analytically zero gradients of `layout` (name -> the parameter whose
// gradient sets the scale of its rounding noise); see the header.
std::map<std::string, std::string> AnalyticallyZeroGradients(
    const ParameterLayout& layout) {
  std::map<std::string, std::string> zero;
  bool span_head = false;
  bool bilstm = false;
  std::string last_layer_prefix;
  int last_layer = -1;
  for (const ParameterInfo& info : layout.parameters()) {
    if (EndsWith(info.name, kKeyBias)) {
      zero[info.name] =
          info.name.substr(0, info.name.size() - (sizeof(kKeyBias) - 1)) +
          kQueryBias;
    }
    if (info.name == "qa_outputs.bias") span_head = true;
    if (info.name.rfind("bilstm.", 0) == 0) bilstm = true;
    int layer = -1;
    if (std::sscanf(info.name.c_str(), "bert.encoder.layer.%d.", &layer) == 1 &&
        layer > last_layer) {
      last_layer = layer;
      last_layer_prefix =
          "bert.encoder.layer." + std::to_string(layer) + ".output.LayerNorm.";
    }
  }
  if (span_head) {
    zero["qa_outputs.bias"] = "qa_outputs.weight";
    // Only where the head reads the encoder itself: a BiLSTM between them
    // is not linear.
    if (last_layer >= 0 && !bilstm) {
      zero[last_layer_prefix + "bias"] = last_layer_prefix + "weight";
    }
  }
  return zero;
}

}  // namespace

void ExpectGradientParity(const ParameterLayout& layout,
                          const std::vector<float>& actual,
                          const std::vector<float>& reference,
                          ParityDtype dtype, int64_t reduction_length,
                          const std::map<std::string, std::string>& also_zero) {
  std::map<std::string, std::string> zero = AnalyticallyZeroGradients(layout);
  zero.insert(also_zero.begin(), also_zero.end());
  for (const ParameterInfo& info : layout.parameters()) {
    const auto found = zero.find(info.name);
    if (found == zero.end()) {
      const ParityReport report =
          CompareParity("d " + info.name, Slice(actual, info),
                        Slice(reference, info), dtype, reduction_length);
      EXPECT_TRUE(report.ok) << report.message;
      continue;
    }
    const std::string& reference_name = found->second;
    const std::vector<float> scale =
        Slice(reference, FindParameter(layout, reference_name));
    double sum_squares = 0.0;
    for (float value : scale) {
      sum_squares += static_cast<double>(value) * value;
    }
    const double allowed =
        ParityRelativeBound(dtype, reduction_length) *
        std::sqrt(sum_squares / static_cast<double>(scale.size()));
    double largest = 0.0;
    for (float value : Slice(actual, info)) {
      largest = std::max(largest, std::abs(static_cast<double>(value)));
    }
    EXPECT_LE(largest, allowed)
        << "d " << info.name << " (analytically zero) exceeds the rounding "
        << "noise allowed at the scale of d " << reference_name;
  }
}

}  // namespace bertlab
