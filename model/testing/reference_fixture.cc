#include "model/testing/reference_fixture.h"

#include <algorithm>
#include <cmath>
#include <utility>

#include "common/check.h"

namespace bertlab {
namespace testing {

ReferenceFixture::ReferenceFixture(const std::string& name) {
  const std::string path = "model/testdata/" + name;
  absl::StatusOr<SafetensorsFile> opened = SafetensorsFile::Open(path);
  CHECK_OK(opened.status());
  file_ = std::make_unique<SafetensorsFile>(std::move(*opened));
  auto it = file_->metadata().find("config");
  CHECK(it != file_->metadata().end()) << path << " has no config";
  absl::StatusOr<BertConfig> config = ParseConfigJson(it->second, path);
  CHECK_OK(config.status());
  config_ = *config;
}

std::vector<float> ReferenceFixture::Floats(const std::string& tensor) const {
  absl::StatusOr<std::vector<float>> values = file_->ReadFloat32(tensor);
  CHECK_OK(values.status());
  return *values;
}

std::vector<int32_t> ReferenceFixture::Ints(const std::string& tensor) const {
  absl::StatusOr<std::vector<int64_t>> values = file_->ReadInt64(tensor);
  CHECK_OK(values.status());
  return std::vector<int32_t>(values->begin(), values->end());
}

double Rms(const std::vector<float>& values) {
  double sum_squares = 0;
  for (float v : values) sum_squares += static_cast<double>(v) * v;
  return std::sqrt(sum_squares / std::max<size_t>(1, values.size()));
}

::testing::AssertionResult Matches(const std::string& what, const float* ours,
                                   const std::vector<float>& reference,
                                   double tolerance, double scale) {
  const double floor = scale >= 0 ? scale : Rms(reference);
  size_t bad = 0, worst = 0;
  double worst_ratio = 0;
  for (size_t i = 0; i < reference.size(); ++i) {
    const double allowed = tolerance * (std::abs(reference[i]) + floor);
    const double error = std::abs(static_cast<double>(ours[i]) - reference[i]);
    const double ratio = allowed > 0 ? error / allowed : (error > 0 ? 1e30 : 0);
    if (!(ratio <= 1)) ++bad;
    if (!(ratio <= worst_ratio)) {
      worst_ratio = ratio;
      worst = i;
    }
  }
  if (bad == 0) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure()
         << what << ": " << bad << " of " << reference.size()
         << " entries off; worst [" << worst << "] ours=" << ours[worst]
         << " reference=" << reference[worst] << " (" << worst_ratio
         << "x the allowed error)";
}

}  // namespace testing
}  // namespace bertlab
