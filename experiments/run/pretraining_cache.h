// A pre-training run's entry in the cache, checked before it is trusted
// (issue 39): cache_dir/pretrain/<run id>/ holds the run's checkpoints
// (model/train/training_checkpoint.h, each with its manifest of SHA-256s),
// metrics.jsonl, and result.json, written last and sealed to the final
// checkpoint:
//
//   {"metrics": {...}, "timings": {...}, "compute": {...},
//    "checkpoint": {"name": "step-000800",
//                   "manifest_sha256": "<SHA-256 of its manifest.json>"},
//    "sha256": "<SHA-256 of this object without \"sha256\", dumped compact>"}
//
// Before an entry's result is used (its record written, its checkpoint
// handed on), ReadCachedPretraining checks the seal (an edited metric
// changes the hash), that the sealed checkpoint is there and that its
// manifest is the one sealed. Before the checkpoint's weights are read (a
// fine-tuning run, the cloze test), VerifyCheckpointForUse checks every file
// against that manifest and the files against each other
// (ReadVerifiedTrainerState): hashing the weights costs a read of them, so
// it is done where they are read, once per process. Anything else is
// refused, never used: DataLoss naming the file, what differs (both hashes
// where there are two) and the directory to delete to train again.
//
// A result written by runners before the seal (no "sha256") is checked the
// long way once: its newest checkpoint must verify file by file, be at the
// step the result counted, and the result's perplexities must be those of
// metrics.jsonl's evaluation at that step; it is then sealed in place (and
// CachedPretraining.sealed_now says so). Its other numbers (final loss,
// speed, timings) have nothing to be checked against.
//
// A run killed after its final checkpoint and before its result has no
// result to trust: RemoveUnrecordedFinalCheckpoint takes that checkpoint
// away before the run is resumed, so the last stretch is trained again (bit
// for bit, resume is exact) and the result is measured, not made up.
#ifndef BERTLAB_EXPERIMENTS_RUN_PRETRAINING_CACHE_H_
#define BERTLAB_EXPERIMENTS_RUN_PRETRAINING_CACHE_H_

#include <cstdint>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "nlohmann/json.hpp"

namespace bertlab {
namespace experiments {

inline constexpr char kPretrainingResultFile[] = "result.json";

struct CachedPretraining {
  nlohmann::json result;    // metrics, timings, compute (without the seal)
  std::string checkpoint;   // the final checkpoint's directory
  bool sealed_now = false;  // an unsealed result, checked and sealed
};

// Seals `result` (an object of metrics, timings and compute) to
// checkpoint_dir, which must verify, and writes train_dir/result.json
// atomically. Errors: the checkpoint's, or the write's.
absl::Status WriteSealedPretrainingResult(const std::string& train_dir,
                                          const std::string& checkpoint_dir,
                                          nlohmann::json result);

// Reads and checks train_dir's result and final checkpoint (top of file).
absl::StatusOr<CachedPretraining> ReadCachedPretraining(
    const std::string& train_dir);

// The checkpoint a cache entry's result was sealed to, checked file by file
// before its weights are used; DataLoss says what differs and what to
// delete.
absl::Status VerifyCheckpointForUse(const std::string& checkpoint_dir);

// With no result.json in train_dir: removes checkpoints/step-<total_steps>
// if it is there. True when it removed one.
absl::StatusOr<bool> RemoveUnrecordedFinalCheckpoint(
    const std::string& train_dir, int64_t total_steps);

}  // namespace experiments
}  // namespace bertlab

#endif  // BERTLAB_EXPERIMENTS_RUN_PRETRAINING_CACHE_H_
