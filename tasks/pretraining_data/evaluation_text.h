// The text that fine-tuning with --data_dir evaluates on, as a contamination
// filter (tasks/corpus/contamination_filter.h) for the pre-training corpus:
// a masked LM pre-trained on Wikipedia must not have read the SQuAD articles
// or a GLUE dev sentence (issue 38).
//
// Read from `data_dir` in the shared data's layout:
//   glue/<TASK>/ dev and test files of every GLUE task whose directory is
//                there (GlueTaskSpec's file names): each text column, whole
//                and sentence by sentence (SplitSentences);
//   squad/**.json every SQuAD file below squad/, train files included (the
//                local dev sets are carved from the train file by article):
//                every context, sentence by sentence, and every question.
// Files of other names are not read. Errors name the file (and line, or JSON
// path) that does not parse.
#ifndef BERTLAB_TASKS_PRETRAINING_DATA_EVALUATION_TEXT_H_
#define BERTLAB_TASKS_PRETRAINING_DATA_EVALUATION_TEXT_H_

#include <string>

#include "absl/status/statusor.h"
#include "tasks/corpus/contamination_filter.h"

namespace bertlab {

// What was read, for the runner's message and the run records.
struct EvaluationText {
  ContaminationFilter filter;
  int64_t files = 0;
};

absl::StatusOr<EvaluationText> ReadEvaluationText(const std::string& data_dir);

}  // namespace bertlab

#endif  // BERTLAB_TASKS_PRETRAINING_DATA_EVALUATION_TEXT_H_
