#include "experiments/run/pretraining_cache.h"

#include <cmath>
#include <filesystem>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "common/directory.h"
#include "common/file.h"
#include "common/sha256.h"
#include "common/status_macros.h"
#include "model/train/checkpoint_manifest.h"
#include "model/train/training_checkpoint.h"

namespace bertlab {
namespace experiments {
namespace {

namespace fs = std::filesystem;

std::string Under(const std::string& dir, const std::string& name) {
  return (fs::path(dir) / name).string();
}

absl::Status Refused(const std::string& train_dir, const std::string& path,
                     const std::string& what) {
  return absl::DataLossError(
      absl::StrCat(path, ": ", what, "; the cache entry is not used: delete ",
                   train_dir, " to train again"));
}

// The checkpoint must verify (manifest, consistency); its manifest's hash.
absl::StatusOr<std::string> VerifiedManifestHash(
    const std::string& checkpoint_dir) {
  RETURN_IF_ERROR(ReadVerifiedTrainerState(checkpoint_dir).status());
  return Sha256FileHex(Under(checkpoint_dir, kCheckpointManifestFile));
}

// The last line of metrics.jsonl of type "eval", or null.
absl::StatusOr<nlohmann::json> LastEvaluation(const std::string& train_dir) {
  ASSIGN_OR_RETURN(const std::string text,
                   ReadFileToString(Under(train_dir, "metrics.jsonl")));
  nlohmann::json last;
  for (const absl::string_view line : absl::StrSplit(text, '\n')) {
    if (line.empty()) continue;
    nlohmann::json event = nlohmann::json::parse(line, nullptr, false);
    if (event.is_object() && event.value("type", "") == "eval") {
      last = std::move(event);
    }
  }
  return last;
}

// A result without a seal (top of the header), checked and sealed.
absl::StatusOr<CachedPretraining> SealOlderResult(const std::string& train_dir,
                                                  nlohmann::json result) {
  const std::string path = Under(train_dir, kPretrainingResultFile);
  ASSIGN_OR_RETURN(const auto checkpoints,
                   ListTrainingCheckpoints(Under(train_dir, "checkpoints")));
  if (checkpoints.empty()) {
    return Refused(train_dir, path,
                   "written before results were sealed, and no checkpoint "
                   "is left to check it against");
  }
  const std::string& dir = checkpoints.back().second;
  const absl::StatusOr<TrainerState> state = ReadVerifiedTrainerState(dir);
  if (!state.ok()) {
    return Refused(train_dir, dir,
                   absl::StrCat("the checkpoint does not verify: ",
                                state.status().message()));
  }
  const nlohmann::json* metrics =
      result.contains("metrics") && result["metrics"].is_object()
          ? &result["metrics"]
          : nullptr;
  const auto compute = result.find("compute");
  if (metrics == nullptr ||
      (compute != result.end() &&
       (!compute->is_object() || compute->value("steps", -1) != state->step))) {
    return Refused(train_dir, path,
                   absl::StrCat("written before results were sealed, and it "
                                "does not describe its newest checkpoint (",
                                dir, ", step ", state->step, ")"));
  }
  ASSIGN_OR_RETURN(const nlohmann::json eval, LastEvaluation(train_dir));
  int checked = 0;
  // The result's name, then metrics.jsonl's for the same number (the
  // left-to-right and right-to-left LMs log theirs by direction).
  const std::vector<std::pair<std::string, std::string>> pairs = {
      {"mlm_perplexity", "mlm_perplexity"},
      {"lm_perplexity", "ltr_perplexity"},
      {"lm_perplexity", "rtl_perplexity"},
      {"unigram_perplexity", "unigram_perplexity"}};
  const bool at_step =
      eval.is_object() && eval.value("step", -1) == state->step;
  for (const auto& [key, logged] : pairs) {
    if (!metrics->contains(key)) continue;
    // The other direction's name, where this run logged the one.
    if (key != logged && at_step && !eval.contains(logged)) continue;
    const nlohmann::json& ours = (*metrics)[key];
    const bool same =
        at_step && eval.contains(logged) && eval[logged].is_number() &&
        ours.is_number() &&
        std::abs(ours.get<double>() - eval[logged].get<double>()) <=
            1e-9 * std::abs(eval[logged].get<double>());
    if (!same) {
      return Refused(
          train_dir, path,
          absl::StrCat(
              "written before results were sealed, and its ", key, " (",
              ours.dump(), ") is not the evaluation at step ", state->step,
              " in metrics.jsonl (",
              at_step && eval.contains(logged) ? eval[logged].dump() : "none",
              ")"));
    }
    ++checked;
  }
  if (checked == 0) {
    return Refused(train_dir, path,
                   "written before results were sealed, and it has no "
                   "perplexity to check against metrics.jsonl");
  }
  RETURN_IF_ERROR(WriteSealedPretrainingResult(train_dir, dir, result));
  return CachedPretraining{std::move(result), dir, /*sealed_now=*/true};
}

}  // namespace

absl::Status WriteSealedPretrainingResult(const std::string& train_dir,
                                          const std::string& checkpoint_dir,
                                          nlohmann::json result) {
  ASSIGN_OR_RETURN(const std::string manifest,
                   VerifiedManifestHash(checkpoint_dir));
  result.erase("sha256");
  result["checkpoint"] = {
      {"name", fs::path(checkpoint_dir).filename().string()},
      {"manifest_sha256", manifest}};
  result["sha256"] = Sha256Hex(result.dump());
  return WriteFileAtomically(Under(train_dir, kPretrainingResultFile),
                             result.dump(2) + "\n");
}

absl::StatusOr<CachedPretraining> ReadCachedPretraining(
    const std::string& train_dir) {
  const std::string path = Under(train_dir, kPretrainingResultFile);
  ASSIGN_OR_RETURN(const std::string text, ReadFileToString(path));
  nlohmann::json result = nlohmann::json::parse(text, nullptr, false);
  if (result.is_discarded() || !result.is_object()) {
    return Refused(train_dir, path, "not a JSON object");
  }
  const auto sealed = result.find("sha256");
  if (sealed == result.end()) return SealOlderResult(train_dir, result);
  if (!sealed->is_string()) {
    return Refused(train_dir, path, "\"sha256\" is not a string");
  }
  const std::string recorded = sealed->get<std::string>();
  result.erase("sha256");
  const std::string actual = Sha256Hex(result.dump());
  if (actual != recorded) {
    return Refused(train_dir, path,
                   absl::StrCat("edited or corrupt: its content hashes to ",
                                actual, ", its seal says ", recorded));
  }
  const auto checkpoint = result.find("checkpoint");
  if (checkpoint == result.end() || !checkpoint->is_object() ||
      !checkpoint->contains("name") || !(*checkpoint)["name"].is_string() ||
      !checkpoint->contains("manifest_sha256") ||
      !(*checkpoint)["manifest_sha256"].is_string()) {
    return Refused(train_dir, path,
                   "\"checkpoint\" lacks its name or manifest_sha256");
  }
  const std::string name = (*checkpoint)["name"].get<std::string>();
  const std::string dir = Under(Under(train_dir, "checkpoints"), name);
  ASSIGN_OR_RETURN(const bool present, PathExists(dir));
  if (name.find('/') != std::string::npos || !present) {
    return Refused(train_dir, dir,
                   "the final checkpoint the result was sealed to is missing "
                   "(an older checkpoint is not a substitute)");
  }
  const absl::StatusOr<std::string> manifest =
      Sha256FileHex(Under(dir, kCheckpointManifestFile));
  if (!manifest.ok()) {
    return Refused(train_dir, dir,
                   absl::StrCat("the final checkpoint's manifest cannot be "
                                "read: ",
                                manifest.status().message()));
  }
  const std::string bound = (*checkpoint)["manifest_sha256"].get<std::string>();
  if (*manifest != bound) {
    return Refused(
        train_dir, Under(dir, kCheckpointManifestFile),
        absl::StrCat("not the manifest the result was sealed to: it hashes to ",
                     *manifest, ", the seal says ", bound));
  }
  result.erase("checkpoint");
  return CachedPretraining{std::move(result), dir};
}

absl::Status VerifyCheckpointForUse(const std::string& checkpoint_dir) {
  const absl::Status verified =
      ReadVerifiedTrainerState(checkpoint_dir).status();
  if (verified.ok()) return verified;
  const std::string train_dir =
      fs::path(checkpoint_dir).parent_path().parent_path().string();
  return Refused(
      train_dir, checkpoint_dir,
      absl::StrCat("the checkpoint does not verify: ", verified.message()));
}

absl::StatusOr<bool> RemoveUnrecordedFinalCheckpoint(
    const std::string& train_dir, int64_t total_steps) {
  ASSIGN_OR_RETURN(const bool recorded,
                   PathExists(Under(train_dir, kPretrainingResultFile)));
  if (recorded) return false;
  const std::string final_dir =
      Under(Under(train_dir, "checkpoints"), CheckpointName(total_steps));
  ASSIGN_OR_RETURN(const bool present, PathExists(final_dir));
  if (!present) return false;
  std::error_code error;
  fs::remove_all(final_dir, error);
  if (error) {
    return absl::InternalError(
        absl::StrCat("cannot remove ", final_dir, ": ", error.message()));
  }
  return true;
}

}  // namespace experiments
}  // namespace bertlab
