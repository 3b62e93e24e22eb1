// The committed PyTorch reference fixtures (model/testdata, written by
// tools/reference/bert_reference.py) and the comparator the tests use on them.
//
// Matches(): for an entry r of a reference tensor R,
//   |ours - r| <= tolerance * (|r| + scale)
// with scale = rms(R) unless given: the scale keeps entries that sit near zero
// from demanding absolute precision beyond float's.
#ifndef BERTLAB_MODEL_TESTING_REFERENCE_FIXTURE_H_
#define BERTLAB_MODEL_TESTING_REFERENCE_FIXTURE_H_

#include <memory>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "model/bert/config.h"
#include "model/safetensors.h"

namespace bertlab {
namespace testing {

// Outputs and losses in float32 against the float64 reference.
inline constexpr double kReferenceOutputTolerance = 1e-5;
// Parameter gradients (scale: rms of all the model's reference gradients).
inline constexpr double kReferenceGradientTolerance = 1e-4;

class ReferenceFixture {
 public:
  // name: a file in model/testdata, e.g. "bert_reference_causal.safetensors".
  // CHECK-fails when it cannot be read: the fixtures are committed.
  explicit ReferenceFixture(const std::string& name);

  const SafetensorsFile& file() const { return *file_; }
  const BertConfig& config() const { return config_; }
  std::vector<float> Floats(const std::string& tensor) const;
  std::vector<int32_t> Ints(const std::string& tensor) const;  // from I64

 private:
  std::unique_ptr<SafetensorsFile> file_;
  BertConfig config_;
};

double Rms(const std::vector<float>& values);

// scale < 0: rms(reference).
::testing::AssertionResult Matches(const std::string& what, const float* ours,
                                   const std::vector<float>& reference,
                                   double tolerance, double scale = -1);

}  // namespace testing
}  // namespace bertlab

#endif  // BERTLAB_MODEL_TESTING_REFERENCE_FIXTURE_H_
