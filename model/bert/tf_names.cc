#include "model/bert/tf_names.h"

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"

namespace bertlab {
namespace {

// What the last component of a dense or LayerNorm variable may be.
enum class Module { kDense, kLayerNorm };

// The modules under bert/encoder/layer_N/, relative to it.
struct LayerModule {
  const char* path;
  Module module;
};
constexpr LayerModule kLayerModules[] = {
    {"attention/self/query", Module::kDense},
    {"attention/self/key", Module::kDense},
    {"attention/self/value", Module::kDense},
    {"attention/output/dense", Module::kDense},
    {"attention/output/LayerNorm", Module::kLayerNorm},
    {"intermediate/dense", Module::kDense},
    {"output/dense", Module::kDense},
    {"output/LayerNorm", Module::kLayerNorm},
};

// The modules outside the layers, by their full TF path.
constexpr LayerModule kOtherModules[] = {
    {"bert/embeddings/LayerNorm", Module::kLayerNorm},
    {"bert/pooler/dense", Module::kDense},
    {"cls/predictions/transform/dense", Module::kDense},
    {"cls/predictions/transform/LayerNorm", Module::kLayerNorm},
};

// Variables that map one to one without a module/leaf split.
struct DirectName {
  const char* tf_name;
  const char* hf_name;
};
constexpr DirectName kDirectNames[] = {
    {"bert/embeddings/word_embeddings",
     "bert.embeddings.word_embeddings.weight"},
    {"bert/embeddings/position_embeddings",
     "bert.embeddings.position_embeddings.weight"},
    {"bert/embeddings/token_type_embeddings",
     "bert.embeddings.token_type_embeddings.weight"},
    {"cls/predictions/output_bias", "cls.predictions.bias"},
    {"cls/seq_relationship/output_weights", "cls.seq_relationship.weight"},
    {"cls/seq_relationship/output_bias", "cls.seq_relationship.bias"},
};

absl::Status UnknownVariable(absl::string_view tf_name) {
  return absl::InvalidArgumentError(absl::StrCat(
      "TF variable '", tf_name,
      "' is not a BERT parameter bertlab knows (see the name map in "
      "model/bert/tf_names.h)"));
}

// "layer_12" -> 12; false for anything else, including leading zeros.
bool ParseLayerComponent(absl::string_view component, int64_t* index) {
  if (!absl::ConsumePrefix(&component, "layer_")) return false;
  if (component.empty() || (component.size() > 1 && component[0] == '0')) {
    return false;
  }
  for (char c : component) {
    if (c < '0' || c > '9') return false;
  }
  return absl::SimpleAtoi(component, index);
}

// Maps the leaf of a dense or LayerNorm module: "<hf_module>.<hf_leaf>".
bool MapLeaf(Module module, absl::string_view leaf, absl::string_view hf_module,
             TfVariableMapping* mapping) {
  const char* hf_leaf = nullptr;
  bool transpose = false;
  if (module == Module::kDense) {
    if (leaf == "kernel") {
      hf_leaf = "weight";
      transpose = true;
    } else if (leaf == "bias") {
      hf_leaf = "bias";
    }
  } else {
    if (leaf == "gamma") {
      hf_leaf = "weight";
    } else if (leaf == "beta") {
      hf_leaf = "bias";
    }
  }
  if (hf_leaf == nullptr) return false;
  mapping->kind = TfVariableMapping::Kind::kParameter;
  mapping->hf_name = absl::StrCat(hf_module, ".", hf_leaf);
  mapping->transpose = transpose;
  return true;
}

std::string DotsForSlashes(absl::string_view path) {
  return absl::StrJoin(absl::StrSplit(path, '/'), ".");
}

}  // namespace

absl::StatusOr<TfVariableMapping> MapTfVariable(absl::string_view tf_name) {
  TfVariableMapping mapping;
  const std::vector<absl::string_view> parts = absl::StrSplit(tf_name, '/');
  if (tf_name == "global_step" || parts.back() == "adam_m" ||
      parts.back() == "adam_v") {
    mapping.kind = TfVariableMapping::Kind::kSkip;
    return mapping;
  }
  for (const DirectName& direct : kDirectNames) {
    if (tf_name == direct.tf_name) {
      mapping.hf_name = direct.hf_name;
      return mapping;
    }
  }
  if (parts.size() < 2) return UnknownVariable(tf_name);
  const absl::string_view leaf = parts.back();
  const absl::string_view module_path =
      tf_name.substr(0, tf_name.size() - leaf.size() - 1);

  for (const LayerModule& other : kOtherModules) {
    if (module_path == other.path) {
      if (MapLeaf(other.module, leaf, DotsForSlashes(module_path), &mapping)) {
        return mapping;
      }
      return UnknownVariable(tf_name);
    }
  }

  // bert/encoder/layer_N/<module>/<leaf>
  int64_t layer = 0;
  absl::string_view in_layer = module_path;
  if (parts.size() < 4 || parts[0] != "bert" || parts[1] != "encoder" ||
      !ParseLayerComponent(parts[2], &layer) ||
      !absl::ConsumePrefix(&in_layer,
                           absl::StrCat("bert/encoder/", parts[2], "/"))) {
    return UnknownVariable(tf_name);
  }
  for (const LayerModule& module : kLayerModules) {
    if (in_layer == module.path) {
      if (MapLeaf(module.module, leaf,
                  absl::StrCat("bert.encoder.layer.", layer, ".",
                               DotsForSlashes(in_layer)),
                  &mapping)) {
        return mapping;
      }
      break;
    }
  }
  return UnknownVariable(tf_name);
}

}  // namespace bertlab
