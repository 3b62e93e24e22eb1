// Fuzz target: any bytes as an experiment textproto for ParseExperiment
// (experiments/config_loader.h), the input files not checked (there are
// none), then every run it resolves converted as the runner converts it.
//
// Invariants, each a CHECK:
//   * The text is read as a file in a directory and as one in none (where
//     relative paths stay as written): both are OK or both fail; an error
//     has one problem per line, each naming the file ("dir/fuzz.textproto:
//     LINE:COL: ..." or "dir/fuzz.textproto: ...").
//   * An OK experiment is valid without its text too (Validate), and what
//     TextFormat prints of it parses back to the same experiment.
//   * ResolveRuns gives one run per variant (or "base"), named after it.
//     In each run the sequence phases end at increasing steps, the last at
//     total_steps; warmup is in [0, total_steps); every phase converts to an
//     InstanceConfig that ValidateInstanceConfig accepts; ToBertConfig
//     gives the run's shape or an error that names the model field; and
//     the run converts (ToPretrainingOptions) to trainer options that
//     ValidatePretrainingOptions accepts, the invariants the trainer CHECKs,
//     and each of its fine-tuning runs (ToFinetuneOptions) to options that
//     ValidateFinetuneOptions accepts.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/string_view.h"
#include "common/check.h"
#include "experiments/config_loader.h"
#include "experiments/experiment.pb.h"
#include "experiments/pretraining_options.h"
#include "experiments/spec_conversions.h"
#include "experiments/task_evaluation.h"
#include "google/protobuf/text_format.h"
#include "google/protobuf/util/message_differencer.h"
#include "model/bert/config.h"
#include "model/train/finetuner.h"
#include "model/train/pretrainer.h"
#include "tasks/finetune/finetune_task_table.h"
#include "tasks/pretraining_data/instance_config.h"

namespace bertlab {
namespace experiments {
namespace {

constexpr char kSource[] = "dir/fuzz.textproto";
constexpr char kSourceInNoDirectory[] = "fuzz.textproto";

LoadOptions NoFileChecks() {
  LoadOptions options;
  options.check_input_files = false;
  return options;
}

void CheckRun(const ResolvedRun& run) {
  const PretrainingSpec& pretraining = run.spec.pretraining();
  const int64_t total_steps = pretraining.schedule().total_steps();
  const std::vector<int64_t> ends = SequencePhaseEndSteps(pretraining);
  CHECK_EQ(ends.size(),
           static_cast<size_t>(pretraining.sequence_schedule().phases_size()));
  CHECK(!ends.empty()) << run.name;
  int64_t start = 0;
  for (int64_t end : ends) {
    CHECK_GT(end, start) << run.name << ": a phase without steps";
    start = end;
  }
  CHECK_EQ(ends.back(), total_steps) << run.name;
  const int64_t warmup = WarmupSteps(pretraining.schedule());
  CHECK_GE(warmup, 0) << run.name;
  CHECK_LT(warmup, total_steps) << run.name;
  for (int phase = 0; phase < static_cast<int>(ends.size()); ++phase) {
    const InstanceConfig config = ToInstanceConfig(pretraining, phase);
    const absl::Status valid = ValidateInstanceConfig(config);
    CHECK(valid.ok()) << run.name << " phase " << phase
                      << ": the loader accepts what the data pipeline refuses: "
                      << valid;
  }
  const ModelSpec& model = run.spec.model();
  const int64_t vocab_size =
      model.has_train_vocab() ? model.train_vocab().size() : 30522;
  const absl::StatusOr<BertConfig> config = ToBertConfig(model, vocab_size);
  if (!config.ok()) {
    CHECK(absl::StartsWith(config.status().message(), "model"))
        << config.status();
    return;
  }
  CHECK_EQ(config->vocab_size, vocab_size);
  CHECK_EQ(config->max_position_embeddings, model.max_position_embeddings());
  // The trainer CHECKs its invariants (model/train/pretrainer.h): whatever
  // the loader accepts must convert to options that satisfy them.
  const std::vector<std::string> shards(ends.size(), "shards");
  const std::vector<std::string> held_out(
      pretraining.data().has_held_out_fraction() ? 0 : ends.size(), "held_out");
  PretrainingOptions options =
      ToPretrainingOptions(run.spec, *config, shards, held_out);
  options.output_dir = "out";
  const absl::Status trainable = ValidatePretrainingOptions(options);
  CHECK(trainable.ok()) << run.name
                        << ": the loader accepts what the trainer refuses: "
                        << trainable;
  // And the same for every fine-tuning run of its grid.
  for (const FinetuneTaskSpec& task : run.spec.finetuning().tasks()) {
    FinetuneModelOptions head =
        HeadOptions(FinetuneTaskOf(ToFinetuneTaskId(task.task())));
    head.bilstm = run.spec.finetuning().bilstm();
    for (double lr : task.learning_rates()) {
      // Restarts differ only in the seed: two stand for any number.
      for (int restart = 0; restart < std::min(task.restarts(), 2); ++restart) {
        const absl::Status tunable = ValidateFinetuneOptions(ToFinetuneOptions(
            task, run.spec.finetuning().optimizer(), head, lr, restart));
        CHECK(tunable.ok())
            << run.name
            << ": the loader accepts what the Finetuner refuses: " << tunable;
      }
    }
  }
  if (model.has_shape()) {
    CHECK_EQ(config->num_hidden_layers, model.shape().num_hidden_layers());
    CHECK_EQ(config->hidden_size, model.shape().hidden_size());
    CHECK_EQ(config->num_attention_heads, model.shape().num_attention_heads());
  }
}

// The problems of a failed parse, each on its line naming `source`.
void CheckProblems(const absl::Status& status, absl::string_view source) {
  for (absl::string_view line : absl::StrSplit(status.message(), '\n')) {
    CHECK(absl::StartsWith(line, absl::StrCat(source, ":")))
        << "a problem that does not name the file: " << line;
  }
}

void CheckExperiment(absl::string_view text) {
  const absl::StatusOr<Experiment> experiment =
      ParseExperiment(text, kSource, NoFileChecks());
  const absl::StatusOr<Experiment> in_no_directory =
      ParseExperiment(text, kSourceInNoDirectory, NoFileChecks());
  CHECK_EQ(experiment.ok(), in_no_directory.ok())
      << "validity depends on the file's directory: " << experiment.status()
      << " vs " << in_no_directory.status();
  if (!experiment.ok()) {
    CheckProblems(experiment.status(), kSource);
    CheckProblems(in_no_directory.status(), kSourceInNoDirectory);
    return;
  }
  const absl::Status valid = Validate(*experiment);
  CHECK(valid.ok()) << "valid with its text, not without: " << valid;

  std::string printed;
  CHECK(
      google::protobuf::TextFormat::PrintToString(*in_no_directory, &printed));
  const absl::StatusOr<Experiment> again =
      ParseExperiment(printed, kSourceInNoDirectory, NoFileChecks());
  CHECK(again.ok()) << "what TextFormat prints does not load: "
                    << again.status() << "\n"
                    << printed;
  // Compared field by field: serializing a string that is not UTF-8 (which
  // proto2 allows) would log a complaint for every input.
  CHECK(google::protobuf::util::MessageDifferencer::Equals(*again,
                                                           *in_no_directory))
      << "printing and parsing changes the experiment:\n"
      << printed;

  const std::vector<ResolvedRun> runs = ResolveRuns(*experiment);
  if (experiment->variants_size() == 0) {
    CHECK_EQ(runs.size(), 1u);
    CHECK_EQ(runs[0].name, "base");
  } else {
    CHECK_EQ(runs.size(), static_cast<size_t>(experiment->variants_size()));
    for (size_t r = 0; r < runs.size(); ++r) {
      CHECK_EQ(runs[r].name, experiment->variants(static_cast<int>(r)).name());
    }
  }
  for (const ResolvedRun& run : runs) CheckRun(run);
}

}  // namespace
}  // namespace experiments
}  // namespace bertlab

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  bertlab::experiments::CheckExperiment(
      absl::string_view(reinterpret_cast<const char*>(data), size));
  return 0;
}
