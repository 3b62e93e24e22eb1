// ParameterLayout: where every named parameter tensor lives in one flat
// buffer. Parameters, their gradients and the optimizer's moments are each a
// single std::vector<T> of total_size() elements laid out the same way, so an
// optimizer step or a global norm is one loop, and a checkpoint maps names to
// offsets.
//
// Names are Hugging Face's (e.g. "bert.encoder.layer.0.attention.self.query.
// weight"), shapes are HF's ([out, in] for linear weights).
#ifndef BERTLAB_MODEL_BERT_PARAMETER_LAYOUT_H_
#define BERTLAB_MODEL_BERT_PARAMETER_LAYOUT_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/string_view.h"

namespace bertlab {

// How a parameter is initialised (model/bert/initialize.h).
struct Initializer {
  enum class Kind {
    kTruncatedNormal,  // N(0, scale^2) redrawn outside +-2 scale, as TF does
    kUniform,          // U(-scale, scale)
    kConstant,         // every element = scale
  };
  Kind kind = Kind::kConstant;
  double scale = 0.0;

  static Initializer TruncatedNormal(double stddev) {
    return {Kind::kTruncatedNormal, stddev};
  }
  static Initializer Uniform(double bound) { return {Kind::kUniform, bound}; }
  static Initializer Constant(double value) { return {Kind::kConstant, value}; }
};

struct ParameterInfo {
  std::string name;
  std::vector<int64_t> shape;
  int64_t offset = 0;  // in elements, into the flat buffer
  int64_t size = 0;    // product of shape
  Initializer initializer;
};

class ParameterLayout {
 public:
  // Appends a tensor and returns its offset. CHECKs that the name is new and
  // the shape non-negative.
  int64_t Add(std::string name, std::vector<int64_t> shape,
              Initializer initializer);

  // nullptr when absent.
  const ParameterInfo* Find(absl::string_view name) const;

  // In the order they were added.
  const std::vector<ParameterInfo>& parameters() const { return parameters_; }
  int64_t total_size() const { return total_size_; }

 private:
  std::vector<ParameterInfo> parameters_;
  absl::flat_hash_map<std::string, size_t> index_;
  int64_t total_size_ = 0;
};

// BERT's decoupled weight decay skips LayerNorm parameters and biases (the
// reference excludes every name containing "LayerNorm", "layer_norm" or
// "bias").
bool ExcludedFromWeightDecay(absl::string_view name);

}  // namespace bertlab

#endif  // BERTLAB_MODEL_BERT_PARAMETER_LAYOUT_H_
