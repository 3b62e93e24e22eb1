#include "tasks/pretraining_data/language_model.h"

#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace bertlab {
namespace {

using ::testing::HasSubstr;

TEST(LanguageModelTest, NamesRoundTrip) {
  for (LanguageModel model :
       {LanguageModel::kMaskedLm, LanguageModel::kLeftToRight,
        LanguageModel::kRightToLeft}) {
    absl::StatusOr<LanguageModel> parsed =
        ParseLanguageModel(LanguageModelName(model));
    ASSERT_TRUE(parsed.ok()) << parsed.status();
    EXPECT_EQ(*parsed, model);
  }
  EXPECT_EQ(LanguageModelName(LanguageModel::kMaskedLm), "mlm");
  EXPECT_EQ(LanguageModelName(LanguageModel::kLeftToRight), "ltr");
  EXPECT_EQ(LanguageModelName(LanguageModel::kRightToLeft), "rtl");
}

TEST(LanguageModelTest, UnknownNameListsTheKnownOnes) {
  const absl::StatusOr<LanguageModel> parsed = ParseLanguageModel("mlm+nsp");
  ASSERT_FALSE(parsed.ok());
  EXPECT_THAT(std::string(parsed.status().message()),
              HasSubstr("unknown language model \"mlm+nsp\": use mlm"));
}

TEST(LanguageModelTest, BothDirectionsReadLeftToRightInstances) {
  EXPECT_EQ(InstanceLanguageModel(LanguageModel::kMaskedLm),
            LanguageModel::kMaskedLm);
  EXPECT_EQ(InstanceLanguageModel(LanguageModel::kLeftToRight),
            LanguageModel::kLeftToRight);
  EXPECT_EQ(InstanceLanguageModel(LanguageModel::kRightToLeft),
            LanguageModel::kLeftToRight);
}

}  // namespace
}  // namespace bertlab
