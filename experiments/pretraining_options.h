// The pre-training options of one run of an experiment: a resolved RunSpec
// plus the shard directories of its sequence phases become the
// PretrainingOptions of model/train/pretrainer.h (spec_conversions.h
// ToPretrainingOptions), after checking that the shards are what the run
// needs. //experiments:pretrain and the experiment runner both go through
// here.
#ifndef BERTLAB_EXPERIMENTS_PRETRAINING_OPTIONS_H_
#define BERTLAB_EXPERIMENTS_PRETRAINING_OPTIONS_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "experiments/experiment.pb.h"
#include "model/train/pretrainer.h"

namespace bertlab {
namespace experiments {

// Every shard header must match the run: objective, lengths, masking, data
// seed and dupe factor as ToInstanceConfig gives them (fields that cannot
// change the instances of this objective are not compared: the masking
// settings and NSP ratio for left-to-right, the next_sentence flag for No
// NSP, whose instances are the same bytes), the vocabulary (its hash when the
// model names a vocab_file, else its size) and the casing. A mismatch is
// refused naming the field and both values. `shards` and `held_out` (may be
// empty: hold out held_out_fraction) name one directory per phase.
// output_dir, progress and stop_after_step are left for the caller.
absl::StatusOr<PretrainingOptions> OptionsFromSpec(
    const RunSpec& spec, const std::vector<std::string>& shards,
    const std::vector<std::string>& held_out);

}  // namespace experiments
}  // namespace bertlab

#endif  // BERTLAB_EXPERIMENTS_PRETRAINING_OPTIONS_H_
