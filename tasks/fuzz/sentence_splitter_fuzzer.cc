// Fuzz target: any bytes as a paragraph for SplitSentences and
// CollapseWhitespace (tasks/corpus/sentence_splitter.h).
//
// Invariants, each a CHECK:
//   * every sentence is non-empty, without ASCII whitespace at either end
//     and with no ASCII whitespace but single spaces inside (rule 3);
//   * the sentences joined by single spaces are CollapseWhitespace of the
//     paragraph: splitting loses and adds nothing;
//   * CollapseWhitespace is idempotent, and SplitSentences of the collapsed
//     paragraph gives the same sentences (splits depend on whitespace
//     only through its presence);
//   * appending to a non-empty vector keeps what was there.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/str_join.h"
#include "absl/strings/string_view.h"
#include "common/check.h"
#include "tasks/corpus/sentence_splitter.h"

namespace bertlab {
namespace {

bool IsAsciiSpace(char c) {
  return absl::ascii_isspace(static_cast<unsigned char>(c));
}

void CheckSentences(absl::string_view paragraph) {
  const std::vector<std::string> sentences = SplitSentences(paragraph);
  for (const std::string& sentence : sentences) {
    CHECK(!sentence.empty());
    CHECK(!IsAsciiSpace(sentence.front()) && !IsAsciiSpace(sentence.back()))
        << "untrimmed sentence";
    for (size_t i = 0; i < sentence.size(); ++i) {
      if (!IsAsciiSpace(sentence[i])) continue;
      CHECK(sentence[i] == ' ') << "whitespace other than a space";
      CHECK(sentence[i + 1] != ' ') << "two spaces in a row";
    }
  }
  const std::string collapsed = CollapseWhitespace(paragraph);
  CHECK(absl::StrJoin(sentences, " ") == collapsed)
      << "the sentences do not add up to the paragraph";
  CHECK(CollapseWhitespace(collapsed) == collapsed);
  CHECK(SplitSentences(collapsed) == sentences)
      << "splitting depends on the kind of whitespace";

  std::vector<std::string> appended = {"before"};
  SplitSentences(paragraph, &appended);
  CHECK_EQ(appended.size(), sentences.size() + 1);
  CHECK(appended[0] == "before");
}

}  // namespace
}  // namespace bertlab

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  bertlab::CheckSentences(
      absl::string_view(reinterpret_cast<const char*>(data), size));
  return 0;
}
