#include "tasks/tokenizer_golden_for_test.h"

#include <sstream>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_split.h"
#include "common/file.h"
#include "gtest/gtest.h"
#include "tasks/tokenize_lines.h"

namespace bertlab {

void ExpectTokenizerGolden(const std::string& vocab_path,
                           FullTokenizerOptions options,
                           const std::string& golden_path) {
  absl::StatusOr<FullTokenizer> tokenizer =
      FullTokenizer::FromVocabFile(vocab_path, std::move(options));
  ASSERT_TRUE(tokenizer.ok()) << tokenizer.status();
  absl::StatusOr<std::string> input = ReadFileToString(kTokenizerGoldenInput);
  ASSERT_TRUE(input.ok()) << input.status();
  absl::StatusOr<std::string> golden = ReadFileToString(golden_path);
  ASSERT_TRUE(golden.ok()) << golden.status();

  std::istringstream in(*input);
  std::ostringstream out;
  const absl::Status status =
      TokenizeLines(*tokenizer, TokenizeOutput::kWordpieces, in, out);
  ASSERT_TRUE(status.ok()) << status;
  const std::string actual = out.str();
  const std::vector<absl::string_view> input_lines =
      absl::StrSplit(*input, '\n');
  const std::vector<absl::string_view> actual_lines =
      absl::StrSplit(actual, '\n');
  const std::vector<absl::string_view> golden_lines =
      absl::StrSplit(*golden, '\n');
  ASSERT_EQ(actual_lines.size(), golden_lines.size());
  ASSERT_EQ(input_lines.size(), golden_lines.size());
  EXPECT_GE(golden_lines.size(), 200u);
  int mismatches = 0;
  for (size_t i = 0; i < golden_lines.size(); ++i) {
    if (actual_lines[i] == golden_lines[i]) continue;
    ++mismatches;
    EXPECT_EQ(actual_lines[i], golden_lines[i])
        << golden_path << " line " << i + 1 << ", input: " << input_lines[i];
  }
  EXPECT_EQ(mismatches, 0);
}

}  // namespace bertlab
