// The pre-training loop: shards in, checkpoints, a metrics log and a progress
// line out. The paper's Table 5 variants are options, not code paths:
//
//   BERT (full)     objective kMaskedLm,    next_sentence true
//   No NSP          objective kMaskedLm,    next_sentence false (the same
//                   shards; the model has no NSP head)
//   LTR & No NSP    objective kLeftToRight, next_sentence false, and
//                   model.attention_mode kCausal, which config.json of every
//                   checkpoint records ("attention_mode": "causal"), so
//                   fine-tuning applies the same mask
//   RTL & No NSP    objective kRightToLeft, next_sentence false, and
//                   model.attention_mode kReverseCausal ("reverse_causal"):
//                   the mirror, every position predicting the previous token
//                   (section 5.1's ELMo-style backward LM); it reads the
//                   left-to-right shards
// and model size, the sequence-length schedule (phases), the optimizer and
// the learning-rate schedule are data too.
//
// One step (model/optim/gradient_accumulation.h gives the order):
//   zero the gradients; for each of gradient_accumulation_steps micro-batches
//   of batch_size / gradient_accumulation_steps sequences (the next instances
//   of the phase's shuffled walk, pretraining_data.h):
//     PretrainingForwardBackward with dropout (dropout_seed,
//     step * gradient_accumulation_steps + micro-batch)
//   average the gradients; clip to global norm clip_norm (0: no clipping,
//   the norm is still measured); a non-finite loss or gradient norm stops
//   the run (or skips the update, below); else
//   AdamW.Step(LearningRateAt(schedule, step)).
// The arithmetic of a step (and of the evaluation's forward pass) runs on
// options.device through pretraining_backend.h: "cpu" here, "cuda" where the
// binary links pretraining_backend_cuda; checkpoints hold the same host state
// either way, so a run may resume on another device.
// `step` is the global step, which equals the optimizer's step count unless
// non-finite steps were skipped; the schedule follows the global step so a
// run with skipped steps still ends at learning rate 0 on time.
//
// Seeds: init_seed = seed (InitializeParameters), dropout_seed and
// shuffle_seed are SplitMix64 mixes of seed, so no two uses share a Philox
// stream. Everything random is addressed by (seed, step or epoch), so the
// run is a pure function of the options and the data, for a given thread
// count.
//
// Sequence-length schedule: phase i runs global steps [end(i-1), end(i)),
// end(i) = round(total_steps * (fraction_0 + ... + fraction_i)), the last
// phase ending at total_steps (model/optim/schedule.h PhaseEndSteps). Each
// phase reads its own shards (the 512-token phase needs 512-token
// instances) from the start of its own shuffled walk, with its own batch
// size and buffers.
//
// Held-out evaluation (evaluation.h): each phase evaluates on held_out_dirs
// when given; otherwise the LAST ceil(held_out_fraction * N) instances of
// its shards (file order) are held out and never trained on. The builder
// shuffles instances before writing, so they are a random sample of the
// instances; note that with dupe_factor > 1 the same text also occurs in
// training instances under other masks and segment pairs, so only separate
// held-out shards (made from held-out documents) measure generalisation to
// unseen text. An evaluation runs eval_batches micro-batches of the first
// held-out instances (always the same ones; the last batch padded with empty
// rows that carry no labels) without dropout, at step 0 of a fresh run,
// every eval_every_steps and after the last step, on the held-out data of
// the phase of the last step done (so the last evaluation of a two-phase run
// measures the 512-token phase). The unigram baseline is fitted on the
// labels of the first unigram_instances training instances of the phase.
//
// Data parallelism (options.collective with N ranks, e.g. under mpirun):
// every rank walks the same instance order and takes micro-batches
// [r * k, (r + 1) * k) of each step, k = gradient_accumulation_steps / N (a
// power of two; anything else is refused), with the dropout addresses of
// those micro-batches. Gradients are summed in the tree order of
// common/collective.h (each rank's k first, then across the ranks), and each
// micro-batch's losses and counts are gathered and added in micro-batch
// order, so every rank holds the same parameters and a run's checkpoints,
// metrics and records have the same bits as on one process with the same
// gradient_accumulation_steps. The optimizer runs on every rank; every
// rank evaluates (so the ranks stay in step) and reads the checkpoint it
// resumes from, which rank 0 picks; only rank 0 takes the lock, writes the
// metrics log and checkpoints and shows progress. A resumption may use
// another rank count. A rank that dies or stops answering ends the job
// (the collective's timeout); the last checkpoint stays whole (atomic
// writes).
//
// Files under output_dir:
//   metrics.jsonl      one JSON object per line: {"type":"start"} per start
//                      or resume; {"type":"train"} every log_every_steps
//                      (step, phase, loss, mlm_loss / ltr_loss / rtl_loss,
//                      nsp_loss -- means over the steps since the last
//                      entry --,
//                      learning_rate and grad_norm of the step,
//                      tokens_per_second (padded B*T tokens, step time only),
//                      real_tokens_per_second, skipped_steps, elapsed
//                      seconds); {"type":"eval"} (accuracy, perplexity,
//                      loss, unigram_perplexity, nsp_accuracy, counts);
//                      {"type":"non_finite"}. On resume, entries with a
//                      step beyond the checkpoint's are dropped first, so
//                      the log reads as one run.
//   checkpoints/       training_checkpoint.h; one every
//                      checkpoint_every_steps, after the last step and when
//                      stop_after_step stops the run; the last
//                      keep_last_checkpoints kept.
// A run whose output_dir holds checkpoints continues from the newest
// (resume), after checking that the run config (PretrainingRunConfig below)
// is the one the checkpoint records; a difference is refused naming the
// first differing line with both values.
//
// Progress goes to stderr: with a terminal, one line rewritten in place
// (step/total, loss, tokens/s, ETA); otherwise a plain line every
// progress_interval_seconds. Evaluations print a line either way.
#ifndef BERTLAB_MODEL_TRAIN_PRETRAINER_H_
#define BERTLAB_MODEL_TRAIN_PRETRAINER_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "common/collective.h"
#include "model/bert/config.h"
#include "model/optim/adamw.h"
#include "model/optim/schedule.h"
#include "model/train/evaluation.h"
#include "model/train/pretraining_backend.h"
#include "model/train/pretraining_data.h"

namespace bertlab {

// One stretch of training at one sequence length.
struct SequencePhase {
  // Share of total_steps, in (0, 1]; the shares sum to 1.
  double fraction_of_steps = 0;
  // Must equal the shards' max_seq_length.
  int64_t max_seq_length = 0;
  // Sequences per optimizer step (all micro-batches together).
  int64_t batch_size = 0;
  // Masked LM: must equal the shards' max_predictions_per_seq. Ignored by
  // left-to-right.
  int64_t max_predictions_per_seq = 0;
  // Data-set directories of shards (tasks/pretraining_data).
  std::vector<std::string> shard_dirs;
  // Held-out shards; empty: hold out held_out_fraction of shard_dirs.
  std::vector<std::string> held_out_dirs;
};

enum class NonFinitePolicy {
  kStop,      // return an error naming the step; no checkpoint is written
  kSkipStep,  // drop the update, count it, go on
};

enum class ProgressMode {
  kAuto,      // kLive when stderr is a terminal, else kPeriodic
  kLive,      // one line rewritten with '\r'
  kPeriodic,  // a line every progress_interval_seconds
  kOff,
};

// The lock file in output_dir that keeps a second trainer out
// (common/file_lock.h).
inline constexpr char kPretrainLockFile[] = "pretrain.lock";

// No field has a default of its own: the experiment schema
// (experiments/experiment.proto) holds every default, and
// experiments/spec_conversions.h ToPretrainingOptions sets every field
// from a resolved spec. Zeros here are "unset", and most are refused
// (ValidatePretrainingOptions); tests set every field they train with.
struct PretrainingOptions {
  // What is trained; the run config (PretrainingRunConfig) covers these.
  BertConfig model;
  LanguageModel objective = LanguageModel::kMaskedLm;
  bool next_sentence = false;
  std::vector<SequencePhase> phases;
  double held_out_fraction = 0;  // [0, 0.5]
  AdamWOptions optimizer;
  double clip_norm = 0;  // 0: no clipping
  int64_t gradient_accumulation_steps = 0;
  LearningRateSchedule schedule;  // total_steps is the run's length
  uint64_t seed = 0;
  // What the shards were made from, where the caller knows it (the
  // experiment runner: the corpus's SHA-256); part of the run config.
  // Empty: left out (the shards' fingerprints still are in it).
  std::string corpus_hash;

  // Where and how: may change between a run and its resumption.
  std::string output_dir;
  // The training device (pretraining_backend.h): "cpu", or "cuda" in a
  // binary built with --config=cuda; and its arithmetic.
  std::string device = "cpu";
  Precision precision = Precision::kFloat32;
  NonFinitePolicy on_non_finite = NonFinitePolicy::kStop;
  // With kSkipStep: this many skipped steps in a row end the run with an
  // error (a run that has diverged skips every step from then on).
  int64_t max_consecutive_skipped_steps = 0;
  int64_t eval_every_steps = 0;  // 0: only at the start and end
  int64_t eval_batches = 0;      // per evaluation; 0: all held out
  // For the unigram baseline; not in the schema (an implementation limit).
  int64_t unigram_instances = 100000;
  int64_t checkpoint_every_steps = 0;  // 0: only after the last step
  int keep_last_checkpoints = 0;
  int64_t log_every_steps = 0;
  // > 0: end this invocation after this global step (with a checkpoint),
  // e.g. to split a run into time-boxed parts; a later run resumes.
  int64_t stop_after_step = 0;
  ProgressMode progress = ProgressMode::kAuto;
  double progress_interval_seconds = 30;
  // The data-parallel job this process is a rank of (common/collective.h);
  // nullptr: a process alone. See "Data parallelism" above.
  Collective* collective = nullptr;
};

// Every field in range and the fields consistent with each other (phase
// shares sum to 1, batch sizes divisible by the accumulation steps, lengths
// within max_position_embeddings, left-to-right with causal attention,
// right-to-left with reverse-causal attention, both without NSP, ...); the
// message names the field.
//
// These are the trainer's invariants, not its user interface: every run
// reaches the trainer from an experiment file (experiments/config_loader.h
// validates it once, with messages that point into the file, and
// experiments/spec_conversions.h converts it), and the loader's fuzzer
// checks that what it accepts satisfies them. RunPretraining and
// PretrainingRunConfig CHECK them (CheckPretrainingOptions).
absl::Status ValidatePretrainingOptions(const PretrainingOptions& options);
void CheckPretrainingOptions(const PretrainingOptions& options);

// Every phase's shards, opened and checked against the options once
// (OpenPretrainingShards: shape, vocabulary, next-sentence labels, the
// held-out split), so that a caller that needs the run's identity before it
// trains (the experiment runner) reads them once. Only for the options they
// were opened with (CHECKed).
class PretrainingShards {
 public:
  struct Phases;  // pretrainer.cc
  explicit PretrainingShards(std::unique_ptr<Phases> phases);
  PretrainingShards(PretrainingShards&&) noexcept;
  PretrainingShards& operator=(PretrainingShards&&) noexcept;
  ~PretrainingShards();
  const Phases& phases() const { return *phases_; }

 private:
  std::unique_ptr<Phases> phases_;
};

absl::StatusOr<PretrainingShards> OpenPretrainingShards(
    const PretrainingOptions& options);

// What the run trains, as the canonical text every checkpoint stores and a
// resumption must match, one "key: value" per line: the model config, the
// objective, each phase with its data's fingerprint (instance count,
// instance config and vocabulary hashes), the optimizer, the schedule, the
// seed and corpus_hash. Without `shards`, opens them.
absl::StatusOr<std::string> PretrainingRunConfig(
    const PretrainingOptions& options);
absl::StatusOr<std::string> PretrainingRunConfig(
    const PretrainingOptions& options, const PretrainingShards& shards);

// A pre-training run's one identity: its run config, then what its recorded
// numbers also depend on though a resumption may change it (the evaluation
// settings; the non-finite policy, which a stopped run may switch to
// skipping). The experiment runner's run id hashes this with how the run
// executes (device, precision, CPU GEMM engine; not the thread count, on
// which the bits do not depend).
absl::StatusOr<std::string> PretrainingRunIdentity(
    const PretrainingOptions& options);
absl::StatusOr<std::string> PretrainingRunIdentity(
    const PretrainingOptions& options, const PretrainingShards& shards);

// The global step at which each phase ends (exclusive): PhaseEndSteps of
// model/optim/schedule.h for the phases' fractions.
std::vector<int64_t> PhaseEndSteps(const PretrainingOptions& options);

struct PretrainingResult {
  int64_t start_step = 0;  // where this invocation began (0, or resumed)
  int64_t final_step = 0;
  int64_t skipped_steps = 0;
  std::string last_checkpoint;  // path
  bool has_eval = false;
  HeldOutMetrics last_eval;      // at final_step
  double last_loss = 0;          // of the last step
  double tokens_per_second = 0;  // padded tokens over step time, this run
  // The whole run's (from step 0, across resumptions) padded tokens, LM
  // positions predicted and training FLOPs (model/bert/flops.h); the last
  // two are -1 when the run resumed from a checkpoint that lacks them.
  int64_t tokens_seen = 0;
  int64_t predictions_seen = 0;
  double training_flops = 0;
};

// Trains (or resumes) as described above; without `shards`, opens them.
absl::StatusOr<PretrainingResult> RunPretraining(
    const PretrainingOptions& options);
absl::StatusOr<PretrainingResult> RunPretraining(
    const PretrainingOptions& options, PretrainingShards shards);

}  // namespace bertlab

#endif  // BERTLAB_MODEL_TRAIN_PRETRAINER_H_
