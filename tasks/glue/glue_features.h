// GLUE examples -> model inputs, as google-research/bert run_classifier.py's
// convert_single_example does (padding is left to the fine-tuning driver):
//
//   pair:    [CLS] A [SEP] B [SEP]   segments 0 ... 0 (through the first
//                                    [SEP]) then 1 ... 1
//   single:  [CLS] A [SEP]           all segment 0
//
// Truncation (_truncate_seq_pair): while len(A) + len(B) > max_seq_length - 3,
// drop the last token of the longer segment (of B when they are equally
// long); a single sentence keeps its first max_seq_length - 2 tokens.
#ifndef BERTLAB_TASKS_GLUE_GLUE_FEATURES_H_
#define BERTLAB_TASKS_GLUE_GLUE_FEATURES_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "tasks/finetune/encoded_example.h"
#include "tasks/full_tokenizer.h"
#include "tasks/glue/glue_reader.h"
#include "tasks/glue/glue_tasks.h"

namespace bertlab {

// Pops from the end of the longer of *a and *b until
// a->size() + b->size() <= max_total (ties pop from *b, as the reference).
void TruncateSequencePair(std::vector<int>* a, std::vector<int>* b,
                          int max_total);

// Encodes one example. Errors: max_seq_length too small (< 3 for a pair,
// < 2 for a single sentence), [CLS] or [SEP] missing from the vocabulary.
// label/score/has_label are copied (label = kNoLabel when unlabelled).
absl::StatusOr<ClassificationExample> EncodeGlueExample(
    const GlueRawExample& example, const FullTokenizer& tokenizer,
    int max_seq_length);

// A split's file after encoding (GlueSet with ClassificationExamples).
struct GlueEncodedSet {
  std::string set_name;  // "MRPC", "MNLI-m", "MNLI-mm", ...
  std::string path;
  std::vector<ClassificationExample> examples;
  int64_t skipped_rows = 0;  // QQP short rows (glue_reader.h)
  // Examples whose A + B did not fit and were truncated.
  int64_t truncated_examples = 0;
};

absl::StatusOr<GlueEncodedSet> EncodeGlueSet(const GlueSet& set,
                                             const FullTokenizer& tokenizer,
                                             int max_seq_length);

// Reads and encodes `split` of the task called `task_name` (FindGlueTask)
// from `glue_dir` (glue_reader.h's layout): one set per file, so MNLI's dev
// and test give [matched, mismatched].
absl::StatusOr<std::vector<GlueEncodedSet>> LoadGlueSplit(
    const std::string& glue_dir, absl::string_view task_name, GlueSplit split,
    const FullTokenizer& tokenizer, int max_seq_length);

}  // namespace bertlab

#endif  // BERTLAB_TASKS_GLUE_GLUE_FEATURES_H_
