// Pre-training checkpoints: everything a run needs to continue bit for bit,
// in a directory per step, written atomically.
//
//   <output_dir>/checkpoints/step-000100/
//     config.json            BertConfig, HF keys plus "attention_mode"
//     model.safetensors      parameters under HF names (model/bert/
//                            checkpoint.h): the directory loads as a Hugging
//                            Face BertForPreTraining model as it is
//     optimizer.safetensors  AdamW m, v and step (model/optim/
//                            optimizer_state.h)
//     trainer_state.json     TrainerState below: step, data position, seeds,
//                            skipped steps, the run config and its hash
//     manifest.json          the size and SHA-256 of each file above, written
//                            last (model/train/checkpoint_manifest.h)
//
// Trust. Before a checkpoint is resumed from, ReadVerifiedTrainerState checks
// the manifest and that the files agree with each other (the step in the
// directory name, trainer_state.json, its rng.dropout_step, the optimizer's
// metadata and its own update count, step - skipped_steps; seeds derived
// from the seed); the trainer adds the checks that need the run (the phase
// and data position the step implies). A
// checkpoint that fails is corrupt: FindResumableCheckpoint names it and
// falls back to the newest intact one.
//
// Atomic: the files are written (each with WriteFileAtomically) into
// checkpoints/.tmp-step-000100, which is then renamed to step-000100 and the
// parent directory fsynced. A directory named step-N therefore always holds a
// complete checkpoint; a kill at any moment leaves at most a .tmp-* directory
// (removed by RemoveIncompleteCheckpoints) and the earlier checkpoints
// untouched. Old checkpoints are deleted only after the new one is complete.
//
// Random state. Every random number of a run is a Philox draw addressed by
// (seed, step, tensor id) (common/philox.h): dropout masks by the global step,
// the instance order by the epoch. The RNG state is therefore the seeds and
// the counters (step, data position) recorded here; nothing else is carried
// between steps.
#ifndef BERTLAB_MODEL_TRAIN_TRAINING_CHECKPOINT_H_
#define BERTLAB_MODEL_TRAIN_TRAINING_CHECKPOINT_H_

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "model/bert/config.h"
#include "model/bert/parameter_layout.h"
#include "model/optim/adamw.h"
#include "model/train/pretraining_data.h"

namespace bertlab {

inline constexpr char kTrainerStateFormat[] = "bertlab.trainer_state";
inline constexpr int kTrainerStateVersion = 1;
inline constexpr char kTrainerStateFile[] = "trainer_state.json";
inline constexpr char kOptimizerStateFile[] = "optimizer.safetensors";

struct TrainerState {
  // Global steps done: updates applied plus steps skipped as non-finite.
  int64_t step = 0;
  int64_t skipped_steps = 0;
  // The sequence phase of the last step done (0 before any) and the position
  // of the walk over that phase's training instances.
  int phase = 0;
  DataPosition data_position;
  // The run's seed and the seeds derived from it.
  uint64_t seed = 0;
  uint64_t init_seed = 0;
  uint64_t dropout_seed = 0;
  uint64_t shuffle_seed = 0;
  // The run config (pretrainer.h PretrainingRunConfig) and its hash (16 hex
  // digits).
  std::string run_config;
  std::string run_config_hash;
  // Bookkeeping for logs: training time (steps only) and padded tokens seen.
  double train_seconds = 0;
  int64_t tokens_seen = 0;
  // The run's compute so far (the record's "compute"): LM positions
  // predicted and training FLOPs (model/bert/flops.h TrainingFlopsOfBatch).
  // -1: unknown, for a run resumed from a checkpoint written before these
  // were counted (the only fields a checkpoint may lack).
  int64_t predictions_seen = 0;
  double training_flops = 0;
};

std::string TrainerStateToJson(const TrainerState& state);
// Strict: every field present (but predictions_seen and training_flops,
// which older checkpoints lack) with the right type, format and version
// checked; errors name `source`.
absl::StatusOr<TrainerState> ParseTrainerStateJson(absl::string_view json,
                                                   absl::string_view source);

// "step-000100" (at least six digits).
std::string CheckpointName(int64_t step);

// Writes the checkpoint of `state.step` into checkpoints_dir/step-N as
// described above (creating checkpoints_dir) and returns its path. An
// existing checkpoint of the same step is replaced.
absl::StatusOr<std::string> WriteTrainingCheckpoint(
    const std::string& checkpoints_dir, const BertConfig& config,
    const ParameterLayout& layout, const float* params,
    const AdamW<float>& optimizer, const TrainerState& state);

// The complete checkpoints in checkpoints_dir as (step, path), ascending by
// step; none when the directory does not exist.
absl::StatusOr<std::vector<std::pair<int64_t, std::string>>>
ListTrainingCheckpoints(const std::string& checkpoints_dir);

// Deletes all but the newest `keep` (>= 1) complete checkpoints.
absl::Status KeepLastCheckpoints(const std::string& checkpoints_dir, int keep);

// Deletes the .tmp-* directories an interrupted write leaves behind.
absl::Status RemoveIncompleteCheckpoints(const std::string& checkpoints_dir);

// Sets state->seed and the seeds derived from it (the one place they are
// derived).
void SetTrainerSeeds(uint64_t seed, TrainerState* state);

// The files of a training checkpoint, as its manifest lists them.
const std::vector<std::string>& TrainingCheckpointFiles();

// checkpoint_dir/trainer_state.json, parsed (unverified: for inspection).
absl::StatusOr<TrainerState> ReadTrainerState(
    const std::string& checkpoint_dir);

// ReadTrainerState after the checks of "Trust" above that need nothing but
// the checkpoint; DataLoss names the file and what disagrees.
absl::StatusOr<TrainerState> ReadVerifiedTrainerState(
    const std::string& checkpoint_dir);

struct ResumePoint {
  std::string path;
  TrainerState state;
};

// The newest checkpoint of checkpoints_dir that ReadVerifiedTrainerState and
// then `check` accept; none when there is no checkpoint. A checkpoint whose
// check fails with DataLoss is corrupt: it is skipped, and `notes` gets a
// line naming it and its corruption (and one naming the fallback). Any other
// error of `check` (e.g. the checkpoint belongs to another run) is returned
// as it is; so is DataLoss when every checkpoint is corrupt.
absl::StatusOr<std::optional<ResumePoint>> FindResumableCheckpoint(
    const std::string& checkpoints_dir,
    const std::function<absl::Status(const ResumePoint&)>& check,
    std::vector<std::string>* notes);

// Restores parameters and optimizer state from checkpoint_dir. config.json
// must describe `config` exactly (else the message shows both); every tensor
// must be present with its shape.
absl::Status LoadTrainingCheckpoint(const std::string& checkpoint_dir,
                                    const BertConfig& config,
                                    const ParameterLayout& layout,
                                    float* params, AdamW<float>* optimizer);

}  // namespace bertlab

#endif  // BERTLAB_MODEL_TRAIN_TRAINING_CHECKPOINT_H_
