// Property checks on a whole SQuAD file, shared by the tests that run them on
// data this project makes (the derived SQuAD task of //tasks/default_tasks,
// the eval fixtures) and on the real files in ../shared/data
// (released_squad_test). Each reports its failures through gtest.
#ifndef BERTLAB_TASKS_SQUAD_SQUAD_CHECKS_FOR_TEST_H_
#define BERTLAB_TASKS_SQUAD_SQUAD_CHECKS_FOR_TEST_H_

#include <cstddef>
#include <cstdint>
#include <string>

#include "tasks/full_tokenizer.h"
#include "tasks/squad/squad_reader.h"

namespace bertlab {

// Every answer's text sits at its answer_start (counted in code points,
// checked independently of the reader's char_to_word_offset). Returns the
// number of answers.
int64_t ExpectAnswersAtTheirOffsets(const SquadDataset& dataset);

// Training mode: every example has one answer, at its offset, whose
// doc-token span [start_position, end_position] holds it (the reference's
// check: the answer with its whitespace collapsed).
void ExpectTrainingSpansHoldTheAnswers(const SquadDataset& dataset);

// Training-mode features (the reference's settings: 384 / 128 / 64) of
// `dataset`: every window starts with [CLS] and ends with [SEP], every
// question is labelled in at least one window, and the labelled wordpiece
// spans are the answer itself in at least `min_exact_percent` of the windows
// (the rest are the whole words around a sub-word answer).
void ExpectFeatureSpansAreTheAnswers(const SquadDataset& dataset,
                                     const FullTokenizer& tokenizer,
                                     int min_exact_percent);

// Evaluation-mode features with several windows per question (128 / 32 /
// 32), at least `min_windows` of them: every start and end is 0, and over
// a question's windows each doc wordpiece is max-context exactly once.
void ExpectMaxContextPartitionsTheDocument(const SquadDataset& dataset,
                                           const FullTokenizer& tokenizer,
                                           size_t min_windows);

}  // namespace bertlab

#endif  // BERTLAB_TASKS_SQUAD_SQUAD_CHECKS_FOR_TEST_H_
