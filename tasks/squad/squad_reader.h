// SQuAD v1.1 / v2.0 JSON -> examples, with the semantics of
// google-research/bert run_squad.py read_squad_examples (PAPER.md 2d):
//
//   * The context is split into doc tokens on " ", \t, \r, \n and U+202F
//     (nothing else: other Unicode spaces stay inside tokens), and every
//     character (Unicode code point, as Python's str indexes) gets the index
//     of its token in char_to_word_offset (whitespace: the preceding token).
//   * answer_start is a code-point offset into the context. An answer spans
//     the doc tokens of its first and last character.
//   * Training: a question needs exactly one answer unless it is impossible
//     (v2.0 "is_impossible"); an answer whose whitespace-normalized text is
//     not contained in the " "-joined doc tokens of its span is skipped, as
//     the reference does ("Could not find answer"), and counted in
//     SquadReadStats with the question id and file:line. An answer_start
//     outside the context, or an empty answer text, is an error (the
//     reference would crash or index from the end).
//   * Evaluation: every answer is kept as is (the official evaluation only
//     reads the texts); the span of the first answer is computed when it
//     fits, and answers whose text is not at their offset are only counted.
//
// A paragraph's context and doc tokens are stored once and shared by its
// questions (the reference copies a reference per question too).
#ifndef BERTLAB_TASKS_SQUAD_SQUAD_READER_H_
#define BERTLAB_TASKS_SQUAD_SQUAD_READER_H_

#include <stdint.h>

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace bertlab {

struct SquadParagraph {
  std::string context;                       // UTF-8, as in the file
  std::vector<std::string> doc_tokens;       // whitespace-split context
  std::vector<int32_t> char_to_word_offset;  // per code point of context
  int64_t article = 0;  // index of its article in the file's data[]
};

struct SquadAnswer {
  std::string text;
  int64_t answer_start = 0;  // code points into the context
};

struct SquadExample {
  std::string qid;
  std::string question_text;
  int64_t paragraph_index = 0;       // into SquadDataset::paragraphs
  std::vector<SquadAnswer> answers;  // v2.0 impossible: none
  bool is_impossible = false;
  // The answer the training labels come from (answers[0]); "" when
  // impossible or when there is none.
  std::string orig_answer_text;
  // Doc-token span of orig_answer_text, inclusive; -1 when impossible or
  // unknown (evaluation: no answer, or its offset is outside the context).
  int32_t start_position = -1;
  int32_t end_position = -1;
  int64_t line = 0;  // 1-based line of the question's "id" in the file
};

struct SquadReadOptions {
  // read_squad_examples(is_training=True): one answer per question, and
  // answers not found at their offset are skipped.
  bool is_training = false;
};

struct SquadReadStats {
  int64_t num_questions = 0;  // in the file
  int64_t num_impossible = 0;
  // Training: questions skipped because their answer text is not at its
  // offset; each entry is "file:line: question QID: 'doc text' vs. 'answer'".
  int64_t num_skipped_answer_not_found = 0;
  std::vector<std::string> skipped;
  // Evaluation: answers whose text is not at their offset (kept).
  int64_t num_answers_not_at_offset = 0;
};

struct SquadDataset {
  std::string source;           // the path or name it was read from
  std::string version;          // "version" of the file, "" when absent
  bool has_impossible = false;  // some question has "is_impossible"
  std::vector<SquadParagraph> paragraphs;
  std::vector<SquadExample> examples;  // in file order, minus skipped ones
  SquadReadStats stats;
};

// Parses the official JSON. Errors name `source`; a syntax error its line
// and column; a missing or mistyped field its JSON path
// (data[0].paragraphs[2].qas[1].answers[0].answer_start) and the question's
// line.
absl::StatusOr<SquadDataset> ParseSquadJson(absl::string_view json_text,
                                            absl::string_view source,
                                            const SquadReadOptions& options);
absl::StatusOr<SquadDataset> ReadSquadFile(const std::string& path,
                                           const SquadReadOptions& options);

// Whether `c` separates doc tokens (read_squad_examples' is_whitespace).
bool IsSquadDocWhitespace(char32_t c);

// The doc tokens and char_to_word_offset of `context`.
SquadParagraph SplitSquadContext(std::string context);

}  // namespace bertlab

#endif  // BERTLAB_TASKS_SQUAD_SQUAD_READER_H_
