// Experiment.pretraining_seeds: every pre-trained variant of an experiment
// once per pre-training seed, as ordinary variants the runner needs nothing
// new for, grouped back into one report row by Variant.row.
//
//   variants { name: "full" }                    full.seed1     row full
//   variants { name: "bilstm"                    full.seed2     row full
//              pretrained_from: "full" }    ->   bilstm.seed1   from full.seed1
//   variants { name: "no_pretraining"            bilstm.seed2   from full.seed2
//              pretrained_from: "full"           no_pretraining from full.seed1
//              random_init: true }
//   pretraining_seeds: [1, 2]
//
// The no-pre-training control is not repeated: it takes its source's
// config and vocabulary, not its weights, so its runs differ by fine-tuning
// seed alone. A variant with max_pretraining_seeds: N runs the first N
// seeds only (bilstm with 1: bilstm.seed1 alone), and one that reads
// another's checkpoint no more seeds than that one has.
#ifndef BERTLAB_EXPERIMENTS_PRETRAINING_SEEDS_H_
#define BERTLAB_EXPERIMENTS_PRETRAINING_SEEDS_H_

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/string_view.h"
#include "experiments/experiment.pb.h"

namespace bertlab {
namespace experiments {

// "full.seed12345": the variant `name` pre-trained with `seed`.
std::string SeedVariantName(absl::string_view name, uint64_t seed);

// The report row of `variant`: its row, or its name when unset.
const std::string& VariantRow(const Variant& variant);

// What is wrong with the experiment's pretraining_seeds and Variant.row, as
// (field path, message) pairs in the loader's form: a seed given twice, a
// variant that sets its own pretraining.seed beside the list, a row that is
// not [A-Za-z0-9_.-]+, a name the expansion would make that another variant
// already has, a max_pretraining_seeds of 0, on the control or without the
// list. Empty when nothing is.
std::vector<std::pair<std::string, std::string>> PretrainingSeedProblems(
    const Experiment& experiment);

// Replaces the variants of an experiment with pretraining_seeds by their
// expansion (above) and clears the list, so a second expansion changes
// nothing and the written experiment loads as it ran. An experiment without
// variants expands its base into "base.seed<seed>" variants of row "base".
// For an experiment PretrainingSeedProblems finds nothing wrong with.
void ExpandPretrainingSeeds(Experiment* experiment);

}  // namespace experiments
}  // namespace bertlab

#endif  // BERTLAB_EXPERIMENTS_PRETRAINING_SEEDS_H_
