// Throughput of the whole pre-training loop (RunPretraining: batches read
// from shards, forward + backward, gradient clipping, AdamW, logging) at the
// shape of //model:pretraining_step_benchmark, whose bare step (zero the
// gradients, forward + backward) is the reference:
//
//   bazel run -c opt //model/train:pretrain_loop_benchmark --
//       [--size=L4_H256_A4] [--batch=32] [--steps=12] [--threads=2]
//   bazel run -c opt //model:pretraining_step_benchmark --
//       --benchmark_filter='PretrainingStep/L4_H256_A4/batch:32/dropout:1$'
//
// The shape: sequence length 128, every token real, 20 masked-LM predictions
// per sequence, NSP, dropout 0.1, a BERT-sized vocabulary (30522). The data
// are synthetic shards (model/train/test_shards.h) written to a temporary
// directory first. tokens/s counts batch * 128 tokens per step over the
// steps after the first two (which touch every buffer for the first time),
// from the step times in metrics.jsonl; the evaluation and the checkpoint
// after the last step are outside the step times, as they are outside the
// step benchmark.
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <string>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"
#include "common/check.h"
#include "common/file.h"
#include "common/parallel.h"
#include "model/bert/config.h"
#include "model/train/pretrainer.h"
#include "model/train/test_shards.h"
#include "nlohmann/json.hpp"

ABSL_FLAG(std::string, size, "L4_H256_A4", "model size (config.h)");
ABSL_FLAG(int64_t, batch, 32, "sequences per step");
ABSL_FLAG(int64_t, steps, 12, "steps to run (the first two are not timed)");
ABSL_FLAG(int, threads, 2, "threads");
ABSL_FLAG(int, vocab_size, 30522, "vocabulary size");

namespace bertlab {
namespace {

constexpr int kSeqLen = 128;
constexpr int kPredictions = 20;

int Main() {
  SetNumThreads(absl::GetFlag(FLAGS_threads));
  const int64_t batch = absl::GetFlag(FLAGS_batch);
  const int64_t steps = absl::GetFlag(FLAGS_steps);
  CHECK_GE(steps, 3);
  char pattern[] = "/tmp/pretrain_loop_benchmark.XXXXXX";
  CHECK(mkdtemp(pattern) != nullptr);
  const std::string dir = pattern;

  TinyShardOptions data;
  data.num_instances = batch * steps;
  data.max_seq_length = kSeqLen;
  data.max_predictions_per_seq = kPredictions;
  data.vocab_size = absl::GetFlag(FLAGS_vocab_size);
  data.num_documents = 64;
  data.document_length = 512;
  data.full_length = true;
  data.masked_lm_prob = 0.16;  // round(0.16 * 125) = 20 predictions
  CHECK_OK(WriteTinyShards(dir + "/shards", data));

  PretrainingOptions options;
  absl::StatusOr<BertConfig> config =
      ConfigForSize(absl::GetFlag(FLAGS_size), data.vocab_size);
  CHECK_OK(config.status());
  options.model = *config;
  options.objective = LanguageModel::kMaskedLm;
  options.next_sentence = true;
  options.clip_norm = 1.0;
  options.gradient_accumulation_steps = 1;
  options.seed = 12345;
  options.keep_last_checkpoints = 1;
  options.max_consecutive_skipped_steps = 1;
  options.eval_batches = 1;
  SequencePhase phase;
  phase.fraction_of_steps = 1;
  phase.max_seq_length = kSeqLen;
  phase.batch_size = batch;
  phase.max_predictions_per_seq = kPredictions;
  phase.shard_dirs = {dir + "/shards"};
  options.phases = {phase};
  options.held_out_fraction = 0;
  options.schedule.base_learning_rate = 1e-4;
  options.schedule.warmup_steps = 0;
  options.schedule.total_steps = steps;
  options.output_dir = dir + "/run";
  options.log_every_steps = 1;
  options.progress = ProgressMode::kOff;
  absl::StatusOr<PretrainingResult> result = RunPretraining(options);
  CHECK_OK(result.status());

  absl::StatusOr<std::string> log =
      ReadFileToString(options.output_dir + "/metrics.jsonl");
  CHECK_OK(log.status());
  double seconds = 0;
  int64_t timed = 0;
  std::vector<double> step_seconds;
  for (absl::string_view line : absl::StrSplit(*log, '\n', absl::SkipEmpty())) {
    const nlohmann::json entry = nlohmann::json::parse(line);
    if (entry["type"] != "train") continue;
    step_seconds.push_back(entry["step_seconds"].get<double>());
    if (entry["step"].get<int64_t>() <= 2) continue;
    seconds += entry["step_seconds"].get<double>();
    ++timed;
  }
  std::sort(step_seconds.begin() + 2, step_seconds.end());
  const double tokens = static_cast<double>(batch * kSeqLen);
  std::cout << absl::StrFormat(
      "pretrain loop %s batch %d seq %d vocab %d, %d threads: %d timed "
      "steps, mean %.1f ms/step = %.0f tokens/s (fastest step %.1f ms = "
      "%.0f tokens/s); whole run incl. first steps %.0f tokens/s\n",
      absl::GetFlag(FLAGS_size), batch, kSeqLen, data.vocab_size, NumThreads(),
      timed, 1e3 * seconds / timed, tokens * timed / seconds,
      1e3 * step_seconds[2], tokens / step_seconds[2],
      result->tokens_per_second);
  std::filesystem::remove_all(dir);
  return 0;
}

}  // namespace
}  // namespace bertlab

int main(int argc, char** argv) {
  absl::ParseCommandLine(argc, argv);
  return bertlab::Main();
}
