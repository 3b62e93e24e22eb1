// What the decontamination tests share: a one-phase pre-training spec to
// prepare data for, the prepared corpus's text, and the count of sentences
// found in it.
#ifndef BERTLAB_EXPERIMENTS_DECONTAMINATION_FOR_TEST_H_
#define BERTLAB_EXPERIMENTS_DECONTAMINATION_FOR_TEST_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "experiments/experiment.pb.h"
#include "experiments/pretraining_data_prep.h"

namespace bertlab {
namespace experiments {

// The spec of a tiny model's one-phase pre-training: `vocabulary` is the
// model's vocabulary field (`vocab_file: "..."` or `train_vocab { ... }`),
// `data` the inside of pretraining.data.
absl::StatusOr<RunSpec> DecontaminationSpec(const std::string& vocabulary,
                                            const std::string& data,
                                            int max_seq_length);

// train.txt then held_out.txt of the corpus `prepared` was made from.
absl::StatusOr<std::string> PreparedText(const PreparedData& prepared);

// How many of `sentences` of at least kMinContaminationWords words are,
// normalised (NormalizeForContamination), a line of `text`.
int SentencesFoundAsLines(const std::vector<std::string>& sentences,
                          const std::string& text);

}  // namespace experiments
}  // namespace bertlab

#endif  // BERTLAB_EXPERIMENTS_DECONTAMINATION_FOR_TEST_H_
