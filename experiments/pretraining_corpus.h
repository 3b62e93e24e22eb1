// The corpus a pre-training run reads, once the runner knows its --data_dir.
//
// PretrainingData names its corpus in one of two forms, one source (format
// and corpus_files) or several (sources), and may add with_data_dir: sources
// under the runner's --data_dir that replace the corpus when the runner is
// given one (the mini scale's Wikipedia and books under ../shared/data), and
// are ignored without it (the mini scale then reads the embedded corpus).
// The runner resolves that once, right after ResolveRuns, so that the data
// preparation, the run records (data_source, data_hashes), --dry_run and the
// check for the embedded corpus all see the corpus that is read:
//
//   std::vector<ResolvedRun> runs = ResolveRuns(experiment);
//   RETURN_IF_ERROR(UseEffectiveCorpus(options.data_dir, &runs));
//
// The effective corpus is written in one canonical form: with_data_dir is
// gone (resolved or ignored), its files are absolute and its wildcards
// expanded (sorted by name), and a corpus of one source is written as
// format/corpus_files, so a spec means the same data, with the same corpus
// key (tasks/pretraining_data/pretraining_data_prep.h), whichever form it was
// written in. What the data preparation reads of it is
// spec_conversions.h ToCorpusSources.
#ifndef BERTLAB_EXPERIMENTS_PRETRAINING_CORPUS_H_
#define BERTLAB_EXPERIMENTS_PRETRAINING_CORPUS_H_

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "experiments/config_loader.h"
#include "experiments/experiment.pb.h"

namespace bertlab {
namespace experiments {

// `data` (of a validated spec) with with_data_dir resolved against
// `data_dir` (empty: no --data_dir, and with_data_dir is dropped), in the
// canonical form above. Errors (NotFound) name the field, the pattern and
// the data directory: a wildcard that matches no file, a file that is not
// there.
absl::StatusOr<PretrainingData> EffectiveCorpus(const PretrainingData& data,
                                                const std::string& data_dir);

// EffectiveCorpus applied to every run's pretraining.data; errors are
// prefixed "variant <name>: ".
absl::Status UseEffectiveCorpus(const std::string& data_dir,
                                std::vector<ResolvedRun>* runs);

}  // namespace experiments
}  // namespace bertlab

#endif  // BERTLAB_EXPERIMENTS_PRETRAINING_CORPUS_H_
