#include "model/bert/checkpoint.h"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <map>
#include <string>
#include <system_error>
#include <utility>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "common/file.h"
#include "common/status_macros.h"
#include "model/bert/tf_names.h"

namespace bertlab {
namespace {

constexpr char kWordEmbeddings[] = "bert.embeddings.word_embeddings.weight";
constexpr char kMlmBias[] = "cls.predictions.bias";
constexpr char kDecoderWeight[] = "cls.predictions.decoder.weight";
constexpr char kDecoderBias[] = "cls.predictions.decoder.bias";

// How many names each category of a load error lists.
constexpr size_t kMaxListedPerCategory = 20;

std::string JoinPath(const std::string& dir, const char* file_name) {
  if (dir.empty()) return file_name;
  if (dir.back() == '/') return absl::StrCat(dir, file_name);
  return absl::StrCat(dir, "/", file_name);
}

std::string ShapeString(const std::vector<int64_t>& shape) {
  return absl::StrCat("[", absl::StrJoin(shape, ", "), "]");
}

bool HasAnyPrefix(absl::string_view name,
                  const std::vector<std::string>& prefixes) {
  for (const std::string& prefix : prefixes) {
    if (absl::StartsWith(name, prefix)) return true;
  }
  return false;
}

// Old LayerNorm spellings -> the current ones (rule 1).
std::string ModernLayerNormName(absl::string_view name) {
  constexpr absl::string_view kGamma = "LayerNorm.gamma";
  constexpr absl::string_view kBeta = "LayerNorm.beta";
  if (absl::EndsWith(name, kGamma)) {
    return absl::StrCat(name.substr(0, name.size() - kGamma.size()),
                        "LayerNorm.weight");
  }
  if (absl::EndsWith(name, kBeta)) {
    return absl::StrCat(name.substr(0, name.size() - kBeta.size()),
                        "LayerNorm.bias");
  }
  return std::string(name);
}

// One file tensor that loads into one layout parameter.
struct PlannedLoad {
  std::string file_name;
  const TensorInfo* tensor;
  const ParameterInfo* parameter;
  bool transpose;  // file [in, out] -> layout [out, in]
};

// A category of load error: its heading and one line per problem.
struct ProblemList {
  const char* heading;
  const char* hint;  // how to accept the problem, or ""
  std::vector<std::string> items;
};

void AppendCategory(const ProblemList& list, std::string* message) {
  if (list.items.empty()) return;
  absl::StrAppend(message, "\n  ", list.heading, " (", list.items.size(), ")",
                  list.hint, ":");
  const size_t listed = std::min(list.items.size(), kMaxListedPerCategory);
  for (size_t i = 0; i < listed; ++i) {
    absl::StrAppend(message, "\n    ", list.items[i]);
  }
  if (list.items.size() > listed) {
    absl::StrAppend(message, "\n    and ", list.items.size() - listed, " more");
  }
}

bool IsFloatDType(DType dtype) {
  return dtype == DType::kF32 || dtype == DType::kF16 || dtype == DType::kBF16;
}

}  // namespace

absl::StatusOr<CheckpointLoadReport> LoadParameters(
    const SafetensorsFile& file, const ParameterLayout& layout,
    const CheckpointLoadOptions& options, float* values) {
  const ParameterInfo* word_embeddings = layout.Find(kWordEmbeddings);
  const ParameterInfo* mlm_bias = layout.Find(kMlmBias);
  // Rule 4 applies when the layout has the MLM head but not a decoder of its
  // own.
  const bool tied_decoder_weight = mlm_bias != nullptr &&
                                   word_embeddings != nullptr &&
                                   layout.Find(kDecoderWeight) == nullptr;
  const bool tied_decoder_bias =
      mlm_bias != nullptr && layout.Find(kDecoderBias) == nullptr;

  CheckpointLoadReport report;
  std::vector<PlannedLoad> loads;
  const TensorInfo* decoder_bias = nullptr;
  ProblemList unexpected{
      "unexpected tensors",
      "; skip them with CheckpointLoadOptions.ignore_unexpected_prefixes",
      {}};
  ProblemList shape_mismatches{"shape mismatches", "", {}};
  ProblemList wrong_dtypes{"tensors of a non-float dtype", "", {}};

  for (const std::string& file_name : file.TensorNames()) {
    const TensorInfo* tensor = file.Find(file_name);
    std::string name;
    bool transpose = false;
    // TF's step counter has no '/' but no HF counterpart either.
    if (absl::StrContains(file_name, '/') || file_name == "global_step") {
      absl::StatusOr<TfVariableMapping> mapping = MapTfVariable(file_name);
      if (!mapping.ok()) {
        if (HasAnyPrefix(file_name, options.ignore_unexpected_prefixes)) {
          report.ignored.push_back(file_name);
        } else {
          unexpected.items.push_back(
              absl::StrCat(file_name, " (not in the TF name map)"));
        }
        continue;
      }
      if (mapping->kind == TfVariableMapping::Kind::kSkip) {
        report.ignored.push_back(file_name);
        continue;
      }
      name = mapping->hf_name;
      transpose = mapping->transpose;
    } else {
      name = ModernLayerNormName(file_name);
      if (name == "bert.embeddings.position_ids" ||
          name == "embeddings.position_ids") {
        report.ignored.push_back(file_name);
        continue;
      }
      if (layout.Find(name) == nullptr &&
          layout.Find(absl::StrCat("bert.", name)) != nullptr) {
        name = absl::StrCat("bert.", name);
      }
    }

    if (const ParameterInfo* parameter = layout.Find(name)) {
      loads.push_back({file_name, tensor, parameter, transpose});
    } else if (name == kDecoderWeight && tied_decoder_weight) {
      if (tensor->shape != word_embeddings->shape) {
        shape_mismatches.items.push_back(absl::StrCat(
            file_name, ": expected ", ShapeString(word_embeddings->shape),
            " (tied to ", kWordEmbeddings, "), file has ",
            ShapeString(tensor->shape)));
      }
      report.ignored.push_back(file_name);
    } else if (name == kDecoderBias && tied_decoder_bias) {
      decoder_bias = tensor;
    } else if (HasAnyPrefix(file_name, options.ignore_unexpected_prefixes) ||
               HasAnyPrefix(name, options.ignore_unexpected_prefixes)) {
      report.ignored.push_back(file_name);
    } else {
      unexpected.items.push_back(file_name);
    }
  }

  // The decoder bias stands in for the MLM bias only when the file has no
  // tensor of its own for it.
  if (decoder_bias != nullptr) {
    const bool has_mlm_bias = std::any_of(
        loads.begin(), loads.end(),
        [&](const PlannedLoad& load) { return load.parameter == mlm_bias; });
    if (has_mlm_bias) {
      report.ignored.push_back(kDecoderBias);
    } else {
      loads.push_back({kDecoderBias, decoder_bias, mlm_bias, false});
    }
  }
  std::sort(report.ignored.begin(), report.ignored.end());

  // A NaN or an infinity would train (or evaluate) silently to NaN losses.
  ProblemList non_finite{"tensors with a NaN or an infinity", "", {}};
  ProblemList conflicts{"tensors that load into the same parameter", "", {}};
  std::map<std::string, std::vector<std::string>> sources;
  for (const PlannedLoad& load : loads) {
    sources[load.parameter->name].push_back(load.file_name);
    if (!IsFloatDType(load.tensor->dtype)) {
      wrong_dtypes.items.push_back(absl::StrCat(load.file_name, ": ",
                                                DTypeName(load.tensor->dtype),
                                                ", expected F32, F16 or BF16"));
    }
    std::vector<int64_t> expected = load.parameter->shape;
    if (load.transpose) std::reverse(expected.begin(), expected.end());
    if (load.tensor->shape != expected) {
      std::string target;
      if (load.file_name != load.parameter->name) {
        target = absl::StrCat(" (for ", load.parameter->name,
                              load.transpose ? ", transposed" : "", ")");
      }
      shape_mismatches.items.push_back(absl::StrCat(
          load.file_name, target, ": expected ", ShapeString(expected),
          ", file has ", ShapeString(load.tensor->shape)));
    }
    if (const int64_t bad = FirstNonFiniteElement(*load.tensor); bad >= 0) {
      non_finite.items.push_back(
          DescribeNonFiniteElement(load.file_name, *load.tensor, bad));
    }
  }
  for (const auto& [parameter, file_names] : sources) {
    if (file_names.size() > 1) {
      conflicts.items.push_back(
          absl::StrCat(parameter, " <- ", absl::StrJoin(file_names, ", ")));
    }
  }

  ProblemList missing{"missing tensors",
                      "; keep their initial values with "
                      "CheckpointLoadOptions.allow_missing_prefixes",
                      {}};
  for (const ParameterInfo& parameter : layout.parameters()) {
    if (sources.count(parameter.name) > 0) {
      report.loaded.push_back(parameter.name);
    } else if (HasAnyPrefix(parameter.name, options.allow_missing_prefixes)) {
      report.left_initialised.push_back(parameter.name);
    } else {
      missing.items.push_back(parameter.name);
    }
  }

  if (!missing.items.empty() || !unexpected.items.empty() ||
      !shape_mismatches.items.empty() || !wrong_dtypes.items.empty() ||
      !non_finite.items.empty() || !conflicts.items.empty()) {
    std::string message = absl::StrCat(
        file.display_name(), ": the checkpoint does not match the model's ",
        layout.parameters().size(), " parameters");
    for (const ProblemList* list : {&missing, &unexpected, &shape_mismatches,
                                    &wrong_dtypes, &non_finite, &conflicts}) {
      AppendCategory(*list, &message);
    }
    return absl::InvalidArgumentError(message);
  }

  if (values == nullptr) return report;  // checked only
  for (const PlannedLoad& load : loads) {
    ASSIGN_OR_RETURN(const std::vector<float> data,
                     file.ReadFloat32(load.file_name));
    float* destination = values + load.parameter->offset;
    if (load.transpose && load.parameter->shape.size() == 2) {
      const int64_t out = load.parameter->shape[0];
      const int64_t in = load.parameter->shape[1];
      for (int64_t o = 0; o < out; ++o) {
        for (int64_t i = 0; i < in; ++i) {
          destination[o * in + i] = data[i * out + o];
        }
      }
    } else if (!data.empty()) {
      std::memcpy(destination, data.data(), data.size() * sizeof(float));
    }
  }
  return report;
}

absl::Status SaveParameters(
    const std::string& path, const ParameterLayout& layout, const float* values,
    const std::map<std::string, std::string>& metadata) {
  SafetensorsWriter writer;
  for (const auto& [key, value] : metadata) {
    if (key == "format" && value != "pt") {
      return absl::InvalidArgumentError(
          absl::StrCat(path, ": metadata \"format\" must be \"pt\" (what ",
                       "Hugging Face's loader expects), got \"", value, "\""));
    }
    writer.SetMetadata(key, value);
  }
  writer.SetMetadata("format", "pt");
  for (const ParameterInfo& parameter : layout.parameters()) {
    RETURN_IF_ERROR(writer.AddFloat32(
        parameter.name, parameter.shape,
        absl::MakeConstSpan(values + parameter.offset,
                            static_cast<size_t>(parameter.size))));
  }
  return writer.WriteFile(path);
}

absl::Status SaveCheckpointDirectory(const std::string& dir,
                                     const BertConfig& config,
                                     const ParameterLayout& layout,
                                     const float* values) {
  std::error_code error;
  std::filesystem::create_directories(dir, error);
  if (error) {
    return absl::InternalError(absl::StrCat(
        "cannot create checkpoint directory ", dir, ": ", error.message()));
  }
  RETURN_IF_ERROR(
      SaveParameters(JoinPath(dir, kWeightsFileName), layout, values));
  return WriteFileAtomically(JoinPath(dir, kConfigFileName),
                             ConfigToJson(config));
}

absl::StatusOr<BertConfig> ReadCheckpointConfig(const std::string& dir) {
  const std::string path = JoinPath(dir, kConfigFileName);
  ASSIGN_OR_RETURN(const std::string text, ReadFileToString(path));
  return ParseConfigJson(text, path);
}

absl::StatusOr<CheckpointLoadReport> LoadCheckpointDirectory(
    const std::string& dir, const ParameterLayout& layout,
    const CheckpointLoadOptions& options, float* values) {
  ASSIGN_OR_RETURN(const SafetensorsFile file,
                   SafetensorsFile::Open(JoinPath(dir, kWeightsFileName)));
  return LoadParameters(file, layout, options, values);
}

}  // namespace bertlab
