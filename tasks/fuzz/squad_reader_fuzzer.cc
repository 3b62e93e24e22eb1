// Fuzz target: any bytes as a SQuAD v1.1 / v2.0 JSON file for ParseSquadJson
// (tasks/squad/squad_reader.h), once for evaluation and once for training
// (read_squad_examples' is_training).
//
// Invariants, each a CHECK:
//   * An error names the source. Training is the stricter mode: when it
//     parses, evaluation parses too, with the same paragraphs.
//   * Every paragraph's doc tokens are non-empty, hold no doc whitespace and
//     are the context without its whitespace; char_to_word_offset has one
//     entry per code point, never decreasing, each in [-1, doc tokens).
//   * Every example points at a paragraph. A known span (start_position >=
//     0) lies inside the paragraph's doc tokens, start <= end. Evaluation
//     keeps every question; training keeps every question but the counted
//     skips, and a kept answerable one has exactly one answer, its text as
//     orig_answer_text, and a span whose doc tokens hold that text
//     (whitespace-normalized, as the reference checks).
//   * The counts add up: num_questions, num_impossible, skipped.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/match.h"
#include "absl/strings/str_join.h"
#include "absl/strings/string_view.h"
#include "common/check.h"
#include "tasks/squad/squad_reader.h"
#include "tasks/unicode_text.h"
#include "tasks/utf8.h"

namespace bertlab {
namespace {

constexpr char kSource[] = "fuzz.json";

void CheckParagraph(const SquadParagraph& paragraph) {
  std::string joined;
  for (const std::string& token : paragraph.doc_tokens) {
    CHECK(!token.empty());
    for (char32_t c : DecodeUtf8Lenient(token)) {
      CHECK(!IsSquadDocWhitespace(c)) << "whitespace in doc token " << token;
    }
    joined += token;
  }
  std::string context_without_whitespace;
  const std::u32string chars = DecodeUtf8Lenient(paragraph.context);
  for (size_t i = 0, byte = 0; i < chars.size(); ++i) {
    char32_t c;
    const size_t length = DecodeUtf8At(paragraph.context, byte, &c);
    CHECK_EQ(c, chars[i]);
    if (!IsSquadDocWhitespace(c)) {
      context_without_whitespace.append(paragraph.context, byte, length);
    }
    byte += length;
  }
  CHECK(joined == context_without_whitespace) << "doc tokens lose or add text";
  CHECK_EQ(paragraph.char_to_word_offset.size(), chars.size());
  int32_t previous = -1;
  for (int32_t offset : paragraph.char_to_word_offset) {
    CHECK_GE(offset, previous);
    CHECK_LT(offset, static_cast<int32_t>(paragraph.doc_tokens.size()));
    previous = offset;
  }
}

// " ".join(text.split()): the words of `text` between Python's whitespace.
std::string JoinWords(absl::string_view text) {
  std::vector<std::string> words(1);
  for (char32_t c : DecodeUtf8Lenient(text)) {
    if (!IsPythonWhitespace(c)) {
      AppendUtf8(c, &words.back());
    } else if (!words.back().empty()) {
      words.emplace_back();
    }
  }
  if (words.back().empty()) words.pop_back();
  return absl::StrJoin(words, " ");
}

void CheckDataset(const SquadDataset& dataset, bool is_training) {
  CHECK_EQ(dataset.source, kSource);
  for (const SquadParagraph& paragraph : dataset.paragraphs) {
    CheckParagraph(paragraph);
  }
  int64_t impossible = 0;
  for (const SquadExample& example : dataset.examples) {
    CHECK_GE(example.paragraph_index, 0);
    CHECK_LT(example.paragraph_index,
             static_cast<int64_t>(dataset.paragraphs.size()));
    CHECK_GE(example.line, 0);
    const SquadParagraph& paragraph =
        dataset.paragraphs[example.paragraph_index];
    const int32_t num_tokens =
        static_cast<int32_t>(paragraph.doc_tokens.size());
    if (example.is_impossible) ++impossible;
    if (example.start_position >= 0) {
      CHECK_LE(example.start_position, example.end_position) << example.qid;
      CHECK_LT(example.end_position, num_tokens) << example.qid;
      CHECK(!example.orig_answer_text.empty()) << example.qid;
    } else {
      CHECK_EQ(example.start_position, -1) << example.qid;
      CHECK_LT(example.end_position, num_tokens) << example.qid;
    }
    if (is_training && !example.is_impossible) {
      CHECK_EQ(example.answers.size(), 1u) << example.qid;
      CHECK(example.orig_answer_text == example.answers[0].text);
      CHECK_GE(example.start_position, 0) << example.qid;
      const std::string span = absl::StrJoin(
          paragraph.doc_tokens.begin() + example.start_position,
          paragraph.doc_tokens.begin() + example.end_position + 1, " ");
      const std::string answer = JoinWords(example.orig_answer_text);
      CHECK(!answer.empty()) << example.qid;
      CHECK(absl::StrContains(span, answer))
          << example.qid << ": '" << span << "' does not hold '" << answer
          << "'";
    }
    if (example.is_impossible && is_training) {
      CHECK_EQ(example.start_position, -1);
      CHECK_EQ(example.end_position, -1);
    }
  }
  const SquadReadStats& stats = dataset.stats;
  CHECK_EQ(stats.num_impossible, impossible);
  CHECK_EQ(stats.skipped.size(),
           static_cast<size_t>(stats.num_skipped_answer_not_found));
  CHECK_EQ(static_cast<int64_t>(dataset.examples.size()) +
               stats.num_skipped_answer_not_found,
           stats.num_questions);
  if (!is_training) {
    CHECK_EQ(stats.num_skipped_answer_not_found, 0);
  } else {
    CHECK_EQ(stats.num_answers_not_at_offset, 0);
  }
}

}  // namespace
}  // namespace bertlab

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const absl::string_view text(reinterpret_cast<const char*>(data), size);
  absl::StatusOr<bertlab::SquadDataset> parsed[2];
  for (bool is_training : {false, true}) {
    bertlab::SquadReadOptions options;
    options.is_training = is_training;
    absl::StatusOr<bertlab::SquadDataset>& dataset = parsed[is_training];
    dataset = bertlab::ParseSquadJson(text, bertlab::kSource, options);
    if (!dataset.ok()) {
      CHECK(absl::StrContains(dataset.status().message(), bertlab::kSource))
          << "an error that does not name the source: " << dataset.status();
      continue;
    }
    bertlab::CheckDataset(*dataset, is_training);
  }
  const absl::StatusOr<bertlab::SquadDataset>& evaluation = parsed[0];
  const absl::StatusOr<bertlab::SquadDataset>& training = parsed[1];
  if (training.ok()) {
    CHECK(evaluation.ok()) << "training parses, evaluation does not: "
                           << evaluation.status();
    CHECK_EQ(evaluation->stats.num_questions, training->stats.num_questions);
    CHECK_EQ(evaluation->examples.size(),
             static_cast<size_t>(evaluation->stats.num_questions));
    CHECK_EQ(evaluation->paragraphs.size(), training->paragraphs.size());
    for (size_t p = 0; p < training->paragraphs.size(); ++p) {
      CHECK(evaluation->paragraphs[p].doc_tokens ==
            training->paragraphs[p].doc_tokens);
    }
  }
  return 0;
}
