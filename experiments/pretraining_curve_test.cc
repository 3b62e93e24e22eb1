#include "experiments/pretraining_curve.h"

#include <cstdlib>
#include <string>

#include "absl/strings/str_cat.h"
#include "common/check.h"
#include "common/file.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace bertlab {
namespace {

using ::testing::HasSubstr;

std::string WriteLog(const std::string& name, const std::string& text) {
  const std::string path =
      absl::StrCat(std::getenv("TEST_TMPDIR"), "/", name, ".jsonl");
  CHECK_OK(WriteFileAtomically(path, text));
  return path;
}

TEST(ReadEvalCurveTest, ReadsTheObjectivesEvalLinesInOrder) {
  const std::string path =
      WriteLog("ltr",
               "{\"type\":\"start\",\"step\":0}\n"
               "{\"type\":\"eval\",\"step\":0,\"ltr_perplexity\":8122.5,"
               "\"ltr_accuracy\":0.0001}\n"
               "{\"type\":\"train\",\"step\":50,\"loss\":7.6}\n"
               "{\"type\":\"eval\",\"step\":250,\"ltr_perplexity\":91.25,"
               "\"ltr_accuracy\":0.25,\"unigram_perplexity\":377}\n");
  absl::StatusOr<std::vector<reports::EvalPoint>> curve =
      ReadEvalCurve(path, LanguageModel::kLeftToRight);
  ASSERT_TRUE(curve.ok()) << curve.status();
  ASSERT_EQ(curve->size(), 2u);
  EXPECT_EQ((*curve)[0].step, 0);
  EXPECT_EQ((*curve)[0].perplexity, 8122.5);
  EXPECT_EQ((*curve)[1].step, 250);
  EXPECT_EQ((*curve)[1].perplexity, 91.25);
  EXPECT_DOUBLE_EQ((*curve)[1].accuracy, 25.0);  // percent
}

TEST(ReadEvalCurveTest, AnotherObjectivesLineOrADamagedLineIsNamed) {
  const std::string mlm =
      WriteLog("mlm",
               "{\"type\":\"eval\",\"step\":0,\"mlm_perplexity\":9.0,"
               "\"mlm_accuracy\":0.1}\n");
  EXPECT_THAT(
      ReadEvalCurve(mlm, LanguageModel::kRightToLeft).status().message(),
      HasSubstr(":1: an eval line needs an integer \"step\" and "
                "numbers \"rtl_perplexity\""));
  const std::string cut =
      WriteLog("cut",
               "{\"type\":\"eval\",\"step\":0,\"mlm_perplexity\":9.0,"
               "\"mlm_accuracy\":0.1}\n{\"type\":\"ev\n");
  EXPECT_THAT(ReadEvalCurve(cut, LanguageModel::kMaskedLm).status().message(),
              HasSubstr("cut.jsonl:2: not a JSON object"));
  const std::string backwards =
      WriteLog("backwards",
               "{\"type\":\"eval\",\"step\":5,\"mlm_perplexity\":9.0,"
               "\"mlm_accuracy\":0.1}\n{\"type\":\"eval\",\"step\":5,"
               "\"mlm_perplexity\":8.0,\"mlm_accuracy\":0.2}\n");
  EXPECT_THAT(
      ReadEvalCurve(backwards, LanguageModel::kMaskedLm).status().message(),
      HasSubstr(":2: step 5 after step 5: steps must rise"));
}

}  // namespace
}  // namespace bertlab
