// What an experiment would run, without running it (run_experiment
// --dry_run): per variant, the encoder and its size, the pre-training
// (objective, steps, tokens) or the checkpoint it reuses, and the
// fine-tuning grid. For checking a configuration on a machine that cannot
// run it (a paper-scale one on a CPU).
#ifndef BERTLAB_EXPERIMENTS_RUN_RUN_PLAN_H_
#define BERTLAB_EXPERIMENTS_RUN_RUN_PLAN_H_

#include <set>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "experiments/experiment.pb.h"

namespace bertlab {
namespace experiments {

// The variants named in `requested` (a --variants flag), each checked
// against the experiment's (an unknown name is an error with a
// did-you-mean); a row's name (Variant.row) names all its variants, each
// pre-training seed's; an experiment without variants has the one run
// "base".
absl::StatusOr<std::set<std::string>> SelectedVariants(
    const Experiment& experiment, const std::vector<std::string>& requested);

// The variants whose pre-trained checkpoints the fine-tuning of `variant`
// starts from: `variant` itself, or its pretrained_from; then its
// concatenate_with (the ELMo-style row's right-to-left encoder).
std::vector<std::string> CheckpointSources(const Experiment& experiment,
                                           const std::string& variant);

// Whether `variant` is the no-pre-training control (Variant.random_init):
// its fine-tuning takes the config and vocabulary of CheckpointSources'
// first entry, not its weights.
bool RandomInit(const Experiment& experiment, const std::string& variant);

// Whether a run of `spec` has a cloze test of its own: RunSpec.cloze is set
// and the run is not a "+ BiLSTM" one (FinetuningSpec.bilstm), whose encoder
// is the one it is fine-tuned from, tested in that variant's run.
bool RunsClozeTest(const RunSpec& spec);

// Whether `variant` is pre-trained (it reuses no other's checkpoint) in a
// run of `selected` (empty: all): it is selected, or a selected variant
// fine-tunes from its checkpoint.
bool NeedsPretraining(const Experiment& experiment, const std::string& variant,
                      const std::set<std::string>& selected);

// One line per run of `experiment` (a loaded, hence valid, one) in
// `selected` (empty: all), then a total; a pre-trained run names its corpus
// as the runner given `data_dir` (its --data_dir; empty: none) would read it
// (pretraining_corpus.h). Errors from the conversion to the encoder config
// (a vocabulary file that cannot be read) and from resolving the corpus
// under `data_dir`.
absl::StatusOr<std::string> DescribeRunPlan(
    const Experiment& experiment, const std::set<std::string>& selected,
    const std::string& data_dir = "");

}  // namespace experiments
}  // namespace bertlab

#endif  // BERTLAB_EXPERIMENTS_RUN_RUN_PLAN_H_
