// Loading experiments (experiment.proto): strict text-format parsing, paths
// resolved against the file, validation that names the field and the fix,
// and variants merged onto the base. What a resolved run becomes for the
// model, the trainers and the tasks is spec_conversions.h's.
//
//   absl::StatusOr<Experiment> experiment = LoadExperiment(path);
//   for (const ResolvedRun& run : ResolveRuns(*experiment)) {
//     BertConfig model = ToBertConfig(run.spec.model(), vocab.size()).value();
//   }
//
// Errors read "FILE:LINE:COLUMN: message", 1-based (protobuf counts from 0).
// A validation message names the field by its path from the top of the file,
// e.g.
//   exp.textproto:14:5: base.pretraining.schedule.warmup_steps (12000) must
//   be less than total_steps (10000); lower warmup_steps or raise total_steps
// and, for a run of a variant, the place the offending value comes from:
// "variants[2].overrides.<path>" when the variant sets it, "base.<path>"
// otherwise (with the variants it breaks, unless it breaks all of them). A
// required field that is missing points at the message that should hold it.
// All problems are reported at once, one per line.
#ifndef BERTLAB_EXPERIMENTS_CONFIG_LOADER_H_
#define BERTLAB_EXPERIMENTS_CONFIG_LOADER_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "experiments/config_merge.h"
#include "experiments/experiment.pb.h"
#include "google/protobuf/message.h"

namespace bertlab {
namespace experiments {

struct LoadOptions {
  // Every (path_role) = INPUT_PATH file (vocab_file, corpus_files, held-out
  // files) must exist. Off for checking an experiment away from its data.
  bool check_input_files = true;
  // Non-empty: replaces the experiment's pretraining_seeds before it is
  // validated and expanded (run_experiment --pretraining_seeds).
  std::vector<uint64_t> pretraining_seeds;
};

// Reads `path` and does what ParseExperiment does. Under `bazel run`, pass a
// user's path through ResolveUserPath (common/user_path.h) first.
absl::StatusOr<Experiment> LoadExperiment(const std::string& path,
                                          const LoadOptions& options = {});

// Parses `text` strictly: unknown fields, unknown enum values, a singular
// field given twice, two members of a oneof and malformed values are errors.
// Relative (path_role) fields are made relative to the directory of `source`
// (the file the text came from; it also names the file in messages). Then runs
// Validate and, with options.check_input_files, checks the input files, and
// expands pretraining_seeds into variants (pretraining_seeds.h): messages
// name the variants as written, the result holds the expanded ones.
absl::StatusOr<Experiment> ParseExperiment(absl::string_view text,
                                           absl::string_view source,
                                           const LoadOptions& options = {});

// Checks the experiment (its name, the variants' names) and the RunSpec of
// every run ResolveRuns makes: required fields, every numeric range and the
// consistency between fields (phase fractions sum to 1, max_seq_length <=
// max_position_embeddings, LEFT_TO_RIGHT needs CAUSAL attention and no next
// sentence, RIGHT_TO_LEFT REVERSE_CAUSAL and no next sentence, the masking
// mix sums to 1, ...). Messages name fields by path;
// without the text there are no line numbers.
absl::Status Validate(const Experiment& experiment);

struct ResolvedRun {
  // The variant's name, or "base" for an experiment without variants.
  std::string name;
  // The base with the variant's overrides merged on, defaults filled in.
  RunSpec spec;
};

// The runs of an experiment, in the order of its variants.
std::vector<ResolvedRun> ResolveRuns(const Experiment& experiment);

// The step at which each sequence phase ends (exclusive), by the trainer's
// rule (model/optim/schedule.h PhaseEndSteps). For a validated spec.
std::vector<int64_t> SequencePhaseEndSteps(const PretrainingSpec& pretraining);

}  // namespace experiments
}  // namespace bertlab

#endif  // BERTLAB_EXPERIMENTS_CONFIG_LOADER_H_
