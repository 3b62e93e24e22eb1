#include "model/bert/parameter_layout.h"

#include <utility>

#include "absl/strings/match.h"
#include "common/check.h"

namespace bertlab {

int64_t ParameterLayout::Add(std::string name, std::vector<int64_t> shape,
                             Initializer initializer) {
  CHECK(index_.find(name) == index_.end()) << "duplicate parameter " << name;
  ParameterInfo info;
  info.offset = total_size_;
  info.size = 1;
  for (int64_t dim : shape) {
    CHECK_GE(dim, 0) << name;
    info.size *= dim;
  }
  info.initializer = initializer;
  info.name = std::move(name);
  info.shape = std::move(shape);
  total_size_ += info.size;
  index_.emplace(info.name, parameters_.size());
  parameters_.push_back(std::move(info));
  return parameters_.back().offset;
}

const ParameterInfo* ParameterLayout::Find(absl::string_view name) const {
  auto it = index_.find(name);
  return it == index_.end() ? nullptr : &parameters_[it->second];
}

bool ExcludedFromWeightDecay(absl::string_view name) {
  return absl::StrContains(name, "LayerNorm") ||
         absl::StrContains(name, "layer_norm") ||
         absl::StrContains(name, "bias");
}

}  // namespace bertlab
