#include "model/train/training_checkpoint.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <exception>
#include <filesystem>
#include <system_error>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/strip.h"
#include "common/check.h"
#include "common/file.h"
#include "common/split_mix.h"
#include "common/status_macros.h"
#include "model/bert/checkpoint.h"
#include "model/optim/optimizer_state.h"
#include "model/safetensors.h"
#include "model/train/checkpoint_manifest.h"
#include "nlohmann/json.hpp"

namespace bertlab {
namespace {

using Json = nlohmann::ordered_json;
namespace fs = std::filesystem;

constexpr char kStepPrefix[] = "step-";
constexpr char kTempPrefix[] = ".tmp-";

std::string JoinPath(const std::string& dir, absl::string_view name) {
  return absl::StrCat(dir, "/", name);
}

// Makes a rename inside `dir` durable.
absl::Status FsyncDirectory(const std::string& dir) {
  const int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) {
    return absl::ErrnoToStatus(errno, absl::StrCat("cannot open ", dir));
  }
  const int result = ::fsync(fd);
  const int error = errno;
  ::close(fd);
  if (result != 0) {
    return absl::ErrnoToStatus(error, absl::StrCat("cannot fsync ", dir));
  }
  return absl::OkStatus();
}

absl::Status RemoveTree(const std::string& path) {
  std::error_code error;
  fs::remove_all(path, error);
  if (error) {
    return absl::InternalError(
        absl::StrCat("cannot remove ", path, ": ", error.message()));
  }
  return absl::OkStatus();
}

// The step of a directory named step-<digits>, or -1.
int64_t StepOfName(absl::string_view name) {
  if (!absl::ConsumePrefix(&name, kStepPrefix) || name.empty()) return -1;
  for (char c : name) {
    if (!absl::ascii_isdigit(static_cast<unsigned char>(c))) return -1;
  }
  int64_t step = -1;
  if (!absl::SimpleAtoi(name, &step)) return -1;
  return step;
}

}  // namespace

std::string TrainerStateToJson(const TrainerState& state) {
  Json json = Json::object();
  json["format"] = kTrainerStateFormat;
  json["version"] = kTrainerStateVersion;
  json["step"] = state.step;
  json["skipped_steps"] = state.skipped_steps;
  json["phase"] = state.phase;
  json["data_epoch"] = state.data_position.epoch;
  json["data_index"] = state.data_position.index;
  json["seed"] = state.seed;
  json["rng"] = {{"init_seed", state.init_seed},
                 {"dropout_seed", state.dropout_seed},
                 {"shuffle_seed", state.shuffle_seed},
                 {"dropout_step", state.step}};
  json["train_seconds"] = state.train_seconds;
  json["tokens_seen"] = state.tokens_seen;
  json["predictions_seen"] = state.predictions_seen;
  json["training_flops"] = state.training_flops;
  json["run_config_hash"] = state.run_config_hash;
  json["run_config"] = state.run_config;
  return json.dump(2) + "\n";
}

absl::StatusOr<TrainerState> ParseTrainerStateJson(absl::string_view text,
                                                   absl::string_view source) {
  Json json;
  try {
    json = Json::parse(text.begin(), text.end());
  } catch (const std::exception& error) {
    return absl::DataLossError(
        absl::StrCat(source, ": malformed JSON: ", error.what()));
  }
  if (!json.is_object()) {
    return absl::DataLossError(absl::StrCat(source, ": not a JSON object"));
  }
  const auto field = [&](const Json& object, const char* key,
                         bool (Json::*is_type)() const,
                         const char* type) -> absl::StatusOr<const Json*> {
    auto it = object.find(key);
    if (it == object.end()) {
      return absl::DataLossError(
          absl::StrCat(source, ": missing field \"", key, "\""));
    }
    if (!((*it).*is_type)()) {
      return absl::DataLossError(absl::StrCat(source, ": field \"", key,
                                              "\" must be ", type, ", got ",
                                              it->dump()));
    }
    return &*it;
  };
  ASSIGN_OR_RETURN(const Json* format,
                   field(json, "format", &Json::is_string, "a string"));
  if (format->get<std::string>() != kTrainerStateFormat) {
    return absl::DataLossError(absl::StrCat(source, ": format ", format->dump(),
                                            " is not \"", kTrainerStateFormat,
                                            "\""));
  }
  ASSIGN_OR_RETURN(
      const Json* version,
      field(json, "version", &Json::is_number_integer, "an integer"));
  if (version->get<int64_t>() != kTrainerStateVersion) {
    return absl::FailedPreconditionError(
        absl::StrCat(source, ": trainer state version ", version->dump(),
                     "; this build reads version ", kTrainerStateVersion));
  }
  TrainerState state;
  const auto integer = [&](const Json& object, const char* key,
                           int64_t* out) -> absl::Status {
    ASSIGN_OR_RETURN(
        const Json* value,
        field(object, key, &Json::is_number_integer, "an integer"));
    *out = value->get<int64_t>();
    if (*out < 0) {
      return absl::DataLossError(
          absl::StrCat(source, ": field \"", key, "\" is negative"));
    }
    return absl::OkStatus();
  };
  const auto unsigned_integer = [&](const Json& object, const char* key,
                                    uint64_t* out) -> absl::Status {
    ASSIGN_OR_RETURN(
        const Json* value,
        field(object, key, &Json::is_number_integer, "an integer"));
    if (value->is_number_unsigned()) {
      *out = value->get<uint64_t>();
    } else {
      const int64_t signed_value = value->get<int64_t>();
      if (signed_value < 0) {
        return absl::DataLossError(
            absl::StrCat(source, ": field \"", key, "\" is negative"));
      }
      *out = static_cast<uint64_t>(signed_value);
    }
    return absl::OkStatus();
  };
  int64_t phase = 0;
  RETURN_IF_ERROR(integer(json, "step", &state.step));
  RETURN_IF_ERROR(integer(json, "skipped_steps", &state.skipped_steps));
  RETURN_IF_ERROR(integer(json, "phase", &phase));
  state.phase = static_cast<int>(phase);
  RETURN_IF_ERROR(integer(json, "data_epoch", &state.data_position.epoch));
  RETURN_IF_ERROR(integer(json, "data_index", &state.data_position.index));
  RETURN_IF_ERROR(unsigned_integer(json, "seed", &state.seed));
  ASSIGN_OR_RETURN(const Json* rng,
                   field(json, "rng", &Json::is_object, "an object"));
  RETURN_IF_ERROR(unsigned_integer(*rng, "init_seed", &state.init_seed));
  RETURN_IF_ERROR(unsigned_integer(*rng, "dropout_seed", &state.dropout_seed));
  RETURN_IF_ERROR(unsigned_integer(*rng, "shuffle_seed", &state.shuffle_seed));
  int64_t dropout_step = 0;
  RETURN_IF_ERROR(integer(*rng, "dropout_step", &dropout_step));
  ASSIGN_OR_RETURN(const Json* seconds,
                   field(json, "train_seconds", &Json::is_number, "a number"));
  state.train_seconds = seconds->get<double>();
  RETURN_IF_ERROR(integer(json, "tokens_seen", &state.tokens_seen));
  if (json.contains("predictions_seen") || json.contains("training_flops")) {
    RETURN_IF_ERROR(integer(json, "predictions_seen", &state.predictions_seen));
    ASSIGN_OR_RETURN(const Json* flops, field(json, "training_flops",
                                              &Json::is_number, "a number"));
    state.training_flops = flops->get<double>();
  } else {
    state.predictions_seen = -1;
    state.training_flops = -1;
  }
  ASSIGN_OR_RETURN(const Json* hash, field(json, "run_config_hash",
                                           &Json::is_string, "a string"));
  state.run_config_hash = hash->get<std::string>();
  ASSIGN_OR_RETURN(const Json* config,
                   field(json, "run_config", &Json::is_string, "a string"));
  state.run_config = config->get<std::string>();
  // The fields that must agree with each other (a changed byte in one of
  // them would resume a different run silently).
  if (dropout_step != state.step) {
    return absl::DataLossError(
        absl::StrCat(source, ": rng.dropout_step ", dropout_step,
                     " disagrees with step ", state.step));
  }
  if (state.skipped_steps > state.step) {
    return absl::DataLossError(absl::StrCat(source, ": skipped_steps ",
                                            state.skipped_steps,
                                            " exceeds step ", state.step));
  }
  TrainerState seeded;
  SetTrainerSeeds(state.seed, &seeded);
  if (state.init_seed != seeded.init_seed ||
      state.dropout_seed != seeded.dropout_seed ||
      state.shuffle_seed != seeded.shuffle_seed) {
    return absl::DataLossError(absl::StrCat(
        source, ": the rng seeds (", state.init_seed, ", ", state.dropout_seed,
        ", ", state.shuffle_seed, ") are not the ones seed ", state.seed,
        " gives (", seeded.init_seed, ", ", seeded.dropout_seed, ", ",
        seeded.shuffle_seed, ")"));
  }
  return state;
}

void SetTrainerSeeds(uint64_t seed, TrainerState* state) {
  state->seed = seed;
  state->init_seed = seed;
  state->dropout_seed = SplitMix64(seed ^ 0x64726f706f7574ULL);  // "dropout"
  state->shuffle_seed = SplitMix64(seed ^ 0x73687566666c65ULL);  // "shuffle"
}

const std::vector<std::string>& TrainingCheckpointFiles() {
  static const std::vector<std::string>* files =
      new std::vector<std::string>{kConfigFileName, kWeightsFileName,
                                   kOptimizerStateFile, kTrainerStateFile};
  return *files;
}

std::string CheckpointName(int64_t step) {
  CHECK_GE(step, 0);
  return absl::StrFormat("%s%06d", kStepPrefix, step);
}

absl::StatusOr<std::string> WriteTrainingCheckpoint(
    const std::string& checkpoints_dir, const BertConfig& config,
    const ParameterLayout& layout, const float* params,
    const AdamW<float>& optimizer, const TrainerState& state) {
  const std::string name = CheckpointName(state.step);
  const std::string temp = JoinPath(checkpoints_dir, kTempPrefix + name);
  const std::string final_path = JoinPath(checkpoints_dir, name);
  RETURN_IF_ERROR(RemoveTree(temp));
  // Creates checkpoints_dir and temp.
  RETURN_IF_ERROR(SaveCheckpointDirectory(temp, config, layout, params));
  SafetensorsWriter writer;
  RETURN_IF_ERROR(AddAdamWState(layout, optimizer, &writer));
  writer.SetMetadata("step", absl::StrCat(state.step));
  RETURN_IF_ERROR(writer.WriteFile(JoinPath(temp, kOptimizerStateFile)));
  RETURN_IF_ERROR(WriteFileAtomically(JoinPath(temp, kTrainerStateFile),
                                      TrainerStateToJson(state)));
  // Last: the sizes and hashes of the files above, as they are on disk.
  RETURN_IF_ERROR(WriteCheckpointManifest(temp, TrainingCheckpointFiles()));
  RETURN_IF_ERROR(FsyncDirectory(temp));
  if (fs::exists(final_path)) RETURN_IF_ERROR(RemoveTree(final_path));
  if (std::rename(temp.c_str(), final_path.c_str()) != 0) {
    return absl::ErrnoToStatus(
        errno, absl::StrCat("cannot rename ", temp, " to ", final_path));
  }
  RETURN_IF_ERROR(FsyncDirectory(checkpoints_dir));
  return final_path;
}

absl::StatusOr<std::vector<std::pair<int64_t, std::string>>>
ListTrainingCheckpoints(const std::string& checkpoints_dir) {
  std::vector<std::pair<int64_t, std::string>> checkpoints;
  std::error_code error;
  if (!fs::exists(checkpoints_dir, error)) return checkpoints;
  fs::directory_iterator it(checkpoints_dir, error);
  if (error) {
    return absl::InternalError(
        absl::StrCat("cannot list ", checkpoints_dir, ": ", error.message()));
  }
  for (const fs::directory_entry& entry : it) {
    const int64_t step = StepOfName(entry.path().filename().string());
    if (step < 0 || !entry.is_directory()) continue;
    const std::string path = entry.path().string();
    if (!fs::exists(JoinPath(path, kTrainerStateFile))) continue;
    checkpoints.emplace_back(step, path);
  }
  std::sort(checkpoints.begin(), checkpoints.end());
  return checkpoints;
}

absl::Status KeepLastCheckpoints(const std::string& checkpoints_dir, int keep) {
  CHECK_GE(keep, 1);
  ASSIGN_OR_RETURN(const auto checkpoints,
                   ListTrainingCheckpoints(checkpoints_dir));
  const int64_t excess = static_cast<int64_t>(checkpoints.size()) - keep;
  for (int64_t i = 0; i < excess; ++i) {
    RETURN_IF_ERROR(RemoveTree(checkpoints[i].second));
  }
  return absl::OkStatus();
}

absl::Status RemoveIncompleteCheckpoints(const std::string& checkpoints_dir) {
  std::error_code error;
  if (!fs::exists(checkpoints_dir, error)) return absl::OkStatus();
  std::vector<std::string> stale;
  for (const fs::directory_entry& entry :
       fs::directory_iterator(checkpoints_dir, error)) {
    if (absl::StartsWith(entry.path().filename().string(), kTempPrefix)) {
      stale.push_back(entry.path().string());
    }
  }
  if (error) {
    return absl::InternalError(
        absl::StrCat("cannot list ", checkpoints_dir, ": ", error.message()));
  }
  for (const std::string& path : stale) RETURN_IF_ERROR(RemoveTree(path));
  return absl::OkStatus();
}

absl::StatusOr<TrainerState> ReadTrainerState(
    const std::string& checkpoint_dir) {
  const std::string path = JoinPath(checkpoint_dir, kTrainerStateFile);
  ASSIGN_OR_RETURN(const std::string text, ReadFileToString(path));
  return ParseTrainerStateJson(text, path);
}

absl::StatusOr<TrainerState> ReadVerifiedTrainerState(
    const std::string& checkpoint_dir) {
  RETURN_IF_ERROR(
      VerifyCheckpointManifest(checkpoint_dir, TrainingCheckpointFiles()));
  ASSIGN_OR_RETURN(TrainerState state, ReadTrainerState(checkpoint_dir));
  const int64_t named_step =
      StepOfName(fs::path(checkpoint_dir).filename().string());
  if (named_step >= 0 && named_step != state.step) {
    return absl::DataLossError(absl::StrCat(
        checkpoint_dir, "/", kTrainerStateFile, ": step ", state.step,
        " disagrees with the directory's name (step ", named_step, ")"));
  }
  const std::string optimizer_path =
      JoinPath(checkpoint_dir, kOptimizerStateFile);
  ASSIGN_OR_RETURN(const SafetensorsFile optimizer,
                   SafetensorsFile::Open(optimizer_path));
  const auto step = optimizer.metadata().find("step");
  if (step == optimizer.metadata().end() ||
      step->second != absl::StrCat(state.step)) {
    return absl::DataLossError(absl::StrCat(
        optimizer_path, ": metadata step ",
        step == optimizer.metadata().end() ? "(none)" : step->second,
        " disagrees with trainer_state.json's step ", state.step));
  }
  // Every step done applied an update except the skipped ones.
  const int64_t updates = state.step - state.skipped_steps;
  absl::StatusOr<std::vector<int64_t>> optimizer_step =
      optimizer.Find(kOptimizerStepTensor) == nullptr
          ? absl::DataLossError("missing")
          : optimizer.ReadInt64(kOptimizerStepTensor);
  if (!optimizer_step.ok() || optimizer_step->size() != 1 ||
      (*optimizer_step)[0] != updates) {
    return absl::DataLossError(absl::StrCat(
        optimizer_path, ": the optimizer's step is ",
        optimizer_step.ok() && optimizer_step->size() == 1
            ? absl::StrCat((*optimizer_step)[0])
            : std::string("unreadable"),
        " but trainer_state.json has ", state.step, " steps of which ",
        state.skipped_steps, " were skipped (", updates, " updates)"));
  }
  return state;
}

absl::StatusOr<std::optional<ResumePoint>> FindResumableCheckpoint(
    const std::string& checkpoints_dir,
    const std::function<absl::Status(const ResumePoint&)>& check,
    std::vector<std::string>* notes) {
  ASSIGN_OR_RETURN(const auto checkpoints,
                   ListTrainingCheckpoints(checkpoints_dir));
  std::vector<std::string> corrupt;
  for (auto it = checkpoints.rbegin(); it != checkpoints.rend(); ++it) {
    absl::StatusOr<TrainerState> state = ReadVerifiedTrainerState(it->second);
    absl::Status status = state.status();
    if (status.ok()) status = check(ResumePoint{it->second, *state});
    if (status.ok()) {
      if (!corrupt.empty()) {
        notes->push_back(absl::StrCat("falling back to ", it->second,
                                      ", the newest intact checkpoint"));
      }
      return ResumePoint{it->second, *std::move(state)};
    }
    if (status.code() != absl::StatusCode::kDataLoss) return status;
    notes->push_back(
        absl::StrCat(it->second, " is corrupt: ", status.message()));
    corrupt.push_back(it->second);
  }
  if (!corrupt.empty()) {
    return absl::DataLossError(
        absl::StrCat("every checkpoint in ", checkpoints_dir, " is corrupt (",
                     absl::StrJoin(corrupt, ", "),
                     "); move them away to start the run again from step 0"));
  }
  return std::optional<ResumePoint>();
}

absl::Status LoadTrainingCheckpoint(const std::string& checkpoint_dir,
                                    const BertConfig& config,
                                    const ParameterLayout& layout,
                                    float* params, AdamW<float>* optimizer) {
  ASSIGN_OR_RETURN(const BertConfig stored,
                   ReadCheckpointConfig(checkpoint_dir));
  const std::string stored_json = ConfigToJson(stored);
  const std::string expected_json = ConfigToJson(config);
  if (stored_json != expected_json) {
    return absl::FailedPreconditionError(absl::StrCat(
        checkpoint_dir, "/config.json describes another model than this run:\n",
        stored_json, "vs this run's\n", expected_json));
  }
  RETURN_IF_ERROR(
      LoadCheckpointDirectory(checkpoint_dir, layout, {}, params).status());
  ASSIGN_OR_RETURN(
      const SafetensorsFile file,
      SafetensorsFile::Open(JoinPath(checkpoint_dir, kOptimizerStateFile)));
  return ReadAdamWState(file, layout, optimizer);
}

}  // namespace bertlab
