// What the decontamination tests share: the data config of a one-phase
// pre-training to prepare data for, the prepared corpus's text, and the
// count of sentences found in it.
#ifndef BERTLAB_TASKS_PRETRAINING_DATA_DECONTAMINATION_FOR_TEST_H_
#define BERTLAB_TASKS_PRETRAINING_DATA_DECONTAMINATION_FOR_TEST_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "tasks/pretraining_data/pretraining_data_prep.h"

namespace bertlab {

// One source of `format` and `files`, 2% of its documents held out with
// data seed 12345, and one masked-LM phase of `max_seq_length` tokens with
// 5 predictions per sequence and a dupe factor of 1 (the reference's
// masking otherwise). The caller sets the vocabulary (vocab_file or
// train_vocab_size).
PretrainingDataConfig DecontaminationConfig(CorpusFormat format,
                                            std::vector<std::string> files,
                                            int max_seq_length);

// train.txt then held_out.txt of the corpus `prepared` was made from.
absl::StatusOr<std::string> PreparedText(const PreparedData& prepared);

// How many of `sentences` of at least kMinContaminationWords words are,
// normalised (NormalizeForContamination), a line of `text`.
int SentencesFoundAsLines(const std::vector<std::string>& sentences,
                          const std::string& text);

}  // namespace bertlab

#endif  // BERTLAB_TASKS_PRETRAINING_DATA_DECONTAMINATION_FOR_TEST_H_
