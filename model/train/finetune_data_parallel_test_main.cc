// The program of //model/train:finetune_data_parallel_test: fine-tunes the
// toy tasks (toy_finetune_tasks.h) with 4 micro-batches per step on however
// many ranks it was started with (mpirun, or a process alone), and rank 0
// writes the trained parameters and the epoch losses to --output, so that
// the test can compare runs byte for byte.
//
//   finetune_data_parallel_test_main --head=classifier|span --output=FILE
//       [--gradient_accumulation_steps=4]
//
// 23 training examples in batches of 10: each epoch ends with a batch of 3
// rows, whose 4 micro-batches include an empty one.
#include <cstring>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "common/collective.h"
#include "common/exit_status.h"
#include "common/file.h"
#include "common/mpi_main.h"
#include "common/parallel.h"
#include "common/status_macros.h"
#include "model/train/finetuner.h"
#include "model/train/toy_finetune_tasks.h"

ABSL_FLAG(std::string, head, "classifier", "classifier or span");
ABSL_FLAG(std::string, output, "", "where rank 0 writes the result");
ABSL_FLAG(int64_t, gradient_accumulation_steps, 4, "micro-batches per step");

namespace bertlab {
namespace {

absl::Status Run(Collective* collective) {
  SetNumThreads(1);
  FinetuneOptions options;
  options.config = ToyBertConfig();
  options.max_seq_length = 16;
  options.batch_size = 10;
  options.num_epochs = 2;
  options.learning_rate = 2e-3;
  options.warmup_proportion = 0.1;
  options.clip_norm = 1.0;
  options.progress = false;
  options.seed = 7;
  options.gradient_accumulation_steps =
      absl::GetFlag(FLAGS_gradient_accumulation_steps);
  options.collective = collective;
  const std::string head = absl::GetFlag(FLAGS_head);
  std::vector<ClassificationExample> classification;
  std::vector<SpanFeature> spans;
  TrainingSet set;
  if (head == "classifier") {
    options.model.head = FinetuneHead::kClassifier;
    options.model.num_labels = 2;
    classification = MarkerTask(23, 1);
    set = TrainingSet::Classification(&classification);
  } else if (head == "span") {
    options.model.head = FinetuneHead::kSpan;
    spans = MarkerSpans(23, 1);
    set = TrainingSet::Spans(&spans);
  } else {
    return absl::InvalidArgumentError("--head: classifier or span");
  }
  ASSIGN_OR_RETURN(std::unique_ptr<Finetuner> tuner,
                   Finetuner::Create(options));
  RETURN_IF_ERROR(tuner->Train(set));
  if (collective->rank() != 0) return absl::OkStatus();
  const std::vector<float>& params = tuner->parameters();
  std::string bytes(params.size() * sizeof(float), '\0');
  std::memcpy(bytes.data(), params.data(), bytes.size());
  for (double loss : tuner->stats().epoch_losses) {
    absl::StrAppend(&bytes, "\nepoch loss ", absl::StrCat(loss));
  }
  absl::StrAppend(&bytes, "\nsteps ", tuner->stats().steps, "\n");
  return WriteFileAtomically(absl::GetFlag(FLAGS_output), bytes);
}

}  // namespace
}  // namespace bertlab

int main(int argc, char** argv) {
  return bertlab::RunMain("finetune_data_parallel_test_main", [&] {
    absl::ParseCommandLine(argc, argv);
    return bertlab::RunAsRank("finetune_data_parallel_test_main", &argc, &argv,
                              /*timeout_seconds=*/60, bertlab::Run);
  });
}
