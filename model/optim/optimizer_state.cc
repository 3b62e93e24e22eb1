#include "model/optim/optimizer_state.h"

#include <algorithm>
#include <cstdint>
#include <exception>
#include <tuple>
#include <utility>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/types/span.h"
#include "common/check.h"
#include "nlohmann/json.hpp"

namespace bertlab {
namespace {

using Json = nlohmann::json;

constexpr char kMomentPrefix[] = "optimizer.";
constexpr const char* kMomentNames[] = {"m", "v"};

// Round-trip precision, so a message never shows two different values alike.
std::string Exact(double value) { return absl::StrFormat("%.17g", value); }

std::string ShapeString(const std::vector<int64_t>& shape) {
  return absl::StrCat("[", absl::StrJoin(shape, ", "), "]");
}

}  // namespace

std::string OptimizerMomentName(absl::string_view moment,
                                absl::string_view parameter) {
  return absl::StrCat(kMomentPrefix, moment, ".", parameter);
}

std::string AdamWOptionsToJson(const AdamWOptions& options) {
  Json json = Json::object();
  json["type"] = "adamw";
  json["beta1"] = options.beta1;
  json["beta2"] = options.beta2;
  json["epsilon"] = options.epsilon;
  json["weight_decay"] = options.weight_decay;
  json["bias_correction"] = options.bias_correction;
  return json.dump();
}

absl::StatusOr<AdamWOptions> ParseAdamWOptionsJson(absl::string_view text,
                                                   absl::string_view source) {
  Json json;
  try {
    json = Json::parse(text.begin(), text.end());
  } catch (const std::exception& error) {
    return absl::InvalidArgumentError(
        absl::StrCat(source, ": malformed optimizer JSON: ", error.what()));
  }
  if (!json.is_object()) {
    return absl::InvalidArgumentError(
        absl::StrCat(source, ": optimizer metadata is not a JSON object"));
  }
  for (const auto& item : json.items()) {
    const std::string& key = item.key();
    if (key != "type" && key != "beta1" && key != "beta2" && key != "epsilon" &&
        key != "weight_decay" && key != "bias_correction") {
      return absl::InvalidArgumentError(
          absl::StrCat(source, ": unknown optimizer field \"", key, "\""));
    }
  }
  auto type = json.find("type");
  if (type == json.end() || !type->is_string() ||
      type->get<std::string>() != "adamw") {
    return absl::InvalidArgumentError(absl::StrCat(
        source, ": optimizer \"type\" must be \"adamw\", got ",
        type == json.end() ? std::string("nothing") : type->dump()));
  }
  AdamWOptions options;
  for (auto [key, out] :
       {std::pair<const char*, double*>{"beta1", &options.beta1},
        {"beta2", &options.beta2},
        {"epsilon", &options.epsilon},
        {"weight_decay", &options.weight_decay}}) {
    auto it = json.find(key);
    if (it == json.end() || !it->is_number()) {
      return absl::InvalidArgumentError(absl::StrCat(
          source, ": optimizer \"", key, "\" must be a number, got ",
          it == json.end() ? std::string("nothing") : it->dump()));
    }
    *out = it->get<double>();
  }
  auto bias_correction = json.find("bias_correction");
  if (bias_correction == json.end() || !bias_correction->is_boolean()) {
    return absl::InvalidArgumentError(absl::StrCat(
        source, ": optimizer \"bias_correction\" must be true or false, got ",
        bias_correction == json.end() ? std::string("nothing")
                                      : bias_correction->dump()));
  }
  options.bias_correction = bias_correction->get<bool>();
  if (absl::Status valid = ValidateAdamWOptions(options); !valid.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat(source, ": ", valid.message()));
  }
  return options;
}

absl::Status AddAdamWState(const ParameterLayout& layout,
                           const AdamW<float>& optimizer,
                           SafetensorsWriter* writer) {
  CHECK_EQ(optimizer.size(), layout.total_size());
  const std::vector<float>* moments[] = {&optimizer.m(), &optimizer.v()};
  for (const ParameterInfo& info : layout.parameters()) {
    for (int k = 0; k < 2; ++k) {
      absl::Status added = writer->AddFloat32(
          OptimizerMomentName(kMomentNames[k], info.name), info.shape,
          absl::MakeConstSpan(moments[k]->data() + info.offset, info.size));
      if (!added.ok()) return added;
    }
  }
  const int64_t step = optimizer.step();
  absl::Status added =
      writer->AddInt64(kOptimizerStepTensor, {}, absl::MakeConstSpan(&step, 1));
  if (!added.ok()) return added;
  writer->SetMetadata(kOptimizerMetadataKey,
                      AdamWOptionsToJson(optimizer.options()));
  return absl::OkStatus();
}

absl::Status ReadAdamWState(const SafetensorsFile& file,
                            const ParameterLayout& layout,
                            AdamW<float>* optimizer) {
  CHECK_EQ(optimizer->size(), layout.total_size());
  const std::string& source = file.display_name();

  auto metadata = file.metadata().find(kOptimizerMetadataKey);
  if (metadata == file.metadata().end()) {
    return absl::NotFoundError(
        absl::StrCat(source, ": no \"", kOptimizerMetadataKey,
                     "\" metadata entry; the file holds no optimizer state"));
  }
  absl::StatusOr<AdamWOptions> stored =
      ParseAdamWOptionsJson(metadata->second, source);
  if (!stored.ok()) return stored.status();
  const AdamWOptions& ours = optimizer->options();
  for (auto [field, theirs_value, ours_value] :
       {std::tuple<const char*, double, double>{"beta1", stored->beta1,
                                                ours.beta1},
        {"beta2", stored->beta2, ours.beta2},
        {"epsilon", stored->epsilon, ours.epsilon},
        {"weight_decay", stored->weight_decay, ours.weight_decay},
        {"bias_correction", stored->bias_correction ? 1.0 : 0.0,
         ours.bias_correction ? 1.0 : 0.0}}) {
    if (theirs_value != ours_value) {
      return absl::FailedPreconditionError(absl::StrCat(
          source, ": optimizer ", field, " is ", Exact(theirs_value),
          " in the checkpoint but ", Exact(ours_value),
          " in this run; resuming would not continue the same run"));
    }
  }

  // Read into copies, so an error leaves the optimizer as it was.
  std::vector<float> moments[2] = {std::vector<float>(optimizer->size()),
                                   std::vector<float>(optimizer->size())};
  for (const ParameterInfo& info : layout.parameters()) {
    for (int k = 0; k < 2; ++k) {
      const std::string name = OptimizerMomentName(kMomentNames[k], info.name);
      const TensorInfo* tensor = file.Find(name);
      if (tensor == nullptr) {
        return absl::NotFoundError(
            absl::StrCat(source, ": missing optimizer tensor ", name));
      }
      if (tensor->dtype != DType::kF32) {
        return absl::InvalidArgumentError(
            absl::StrCat(source, ": ", name, " is ", DTypeName(tensor->dtype),
                         "; optimizer state must be F32"));
      }
      if (tensor->shape != info.shape) {
        return absl::InvalidArgumentError(absl::StrCat(
            source, ": ", name, " has shape ", ShapeString(tensor->shape),
            " but the parameter has shape ", ShapeString(info.shape)));
      }
      if (const int64_t bad = FirstNonFiniteElement(*tensor); bad >= 0) {
        return absl::DataLossError(absl::StrCat(
            source, ": ", DescribeNonFiniteElement(name, *tensor, bad),
            "; optimizer state must be finite"));
      }
      absl::StatusOr<std::vector<float>> values = file.ReadFloat32(name);
      if (!values.ok()) return values.status();
      std::copy(values->begin(), values->end(),
                moments[k].begin() + info.offset);
    }
  }
  // Every optimizer.m/v tensor must belong to a parameter of the layout.
  for (const std::string& name : file.TensorNames()) {
    for (const char* moment : kMomentNames) {
      const std::string prefix = OptimizerMomentName(moment, "");
      if (absl::StartsWith(name, prefix) &&
          layout.Find(absl::string_view(name).substr(prefix.size())) ==
              nullptr) {
        return absl::InvalidArgumentError(
            absl::StrCat(source, ": optimizer tensor ", name,
                         " has no parameter in the model's layout"));
      }
    }
  }

  if (file.Find(kOptimizerStepTensor) == nullptr) {
    return absl::NotFoundError(
        absl::StrCat(source, ": missing ", kOptimizerStepTensor));
  }
  absl::StatusOr<std::vector<int64_t>> step =
      file.ReadInt64(kOptimizerStepTensor);
  if (!step.ok()) return step.status();
  if (step->size() != 1 || (*step)[0] < 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        source, ": ", kOptimizerStepTensor,
        " must be one non-negative integer, got ", absl::StrJoin(*step, ", ")));
  }

  *optimizer->mutable_m() = std::move(moments[0]);
  *optimizer->mutable_v() = std::move(moments[1]);
  optimizer->set_step((*step)[0]);
  return absl::OkStatus();
}

}  // namespace bertlab
