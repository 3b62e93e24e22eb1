#include "tasks/finetune/finetune_tasks.h"

#include <algorithm>
#include <filesystem>
#include <map>
#include <utility>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "common/check.h"
#include "common/directory.h"
#include "common/file.h"
#include "common/file_lock.h"
#include "common/run_lock.h"
#include "common/split_mix.h"
#include "common/status_macros.h"
#include "nlohmann/json.hpp"
#include "tasks/glue/glue_reader.h"
#include "tasks/swag/swag.h"

namespace bertlab {
namespace {

namespace fs = std::filesystem;

constexpr char kDerivedSource[] =
    "embedded default (derived from the World English Bible)";

std::string Join(const std::string& a, const std::string& b) {
  return (fs::path(a) / b).string();
}

bool IsFile(const std::string& path) {
  std::error_code error;
  return fs::is_regular_file(path, error);
}

// How many of a task's skipped or suspicious examples a warning quotes.
constexpr size_t kQuotedExamples = 3;

// The error for a training set that came out empty, with the reason.
absl::Status NoTrainingExamples(const std::string& file,
                                const std::string& reason) {
  return absl::InvalidArgumentError(
      absl::StrCat(file, ": no training examples: ", reason));
}

// The directory of the task's files: under data_dir, or a derived task's
// under default_tasks_dir.
std::string TaskDirectory(const FinetuneTaskInfo& info,
                          const TaskSources& sources) {
  return Join(info.derived ? sources.default_tasks_dir : sources.data_dir,
              info.directory);
}

// How data_files() names the task's files: "glue/MRPC/",
// "default_tasks/pair/".
std::string DataFilePrefix(const FinetuneTaskInfo& info) {
  return absl::StrCat(info.derived ? "default_tasks/" : "", info.directory,
                      "/");
}

template <typename T>
void Truncate(std::vector<T>* items, int64_t limit) {
  if (limit > 0 && static_cast<int64_t>(items->size()) > limit) {
    items->resize(limit);
  }
}

// At most `limit` of `items` (0: all), evenly spaced in their order (item
// floor(i * n / limit)): SQuAD's dev questions come article by article, and
// the first `limit` would be one or two articles' questions.
template <typename T>
void Spread(std::vector<T>* items, int64_t limit) {
  const int64_t n = static_cast<int64_t>(items->size());
  if (limit <= 0 || n <= limit) return;
  std::vector<T> kept;
  kept.reserve(limit);
  for (int64_t i = 0; i < limit; ++i) {
    kept.push_back(std::move(
        (*items)[static_cast<int64_t>(static_cast<__int128>(i) * n / limit)]));
  }
  *items = std::move(kept);
}

// Whether training example (SQuAD: article) `index` is in the tune split
// of `fraction`: a fixed hash of its position, so that every run of a task
// holds out the same examples (FinetuneDataOptions.tune_fraction).
constexpr uint64_t kTuneSalt = 0x74756e6573706c74;  // "tunesplt"

bool InTuneSplit(int64_t index, double fraction) {
  return static_cast<double>(
             SplitMix64(kTuneSalt ^ SplitMix64(static_cast<uint64_t>(index)))) <
         fraction * 18446744073709551616.0;
}

// Which of `count` training items (in order) go to the tune split; an error
// when either side would be empty.
absl::StatusOr<std::vector<bool>> TuneMask(const std::string& task,
                                           const FinetuneDataOptions& options,
                                           int64_t count,
                                           absl::string_view items) {
  std::vector<bool> mask(count, false);
  int64_t tune = 0;
  for (int64_t i = 0; i < count; ++i) {
    mask[i] = InTuneSplit(i, options.tune_fraction);
    tune += mask[i];
  }
  if (tune == 0 || tune == count) {
    return absl::FailedPreconditionError(absl::StrCat(
        "task ", task, ": tune_fraction ", options.tune_fraction, " of ", count,
        " training ", items, " leaves ", tune == 0 ? "no tune" : "no training",
        " ", items, "; change tune_fraction or max_train_examples"));
  }
  return mask;
}

// Moves the items `mask` marks from *train to *tune, keeping their order.
template <typename T>
void SplitByMask(const std::vector<bool>& mask, std::vector<T>* train,
                 std::vector<T>* tune) {
  std::vector<T> kept;
  for (size_t i = 0; i < train->size(); ++i) {
    ((mask[i]) ? tune : &kept)->push_back(std::move((*train)[i]));
  }
  *train = std::move(kept);
}

// The tune split of training examples: moves them from *train to *tune and
// returns which they were (TuneMask).
template <typename T>
absl::StatusOr<std::vector<bool>> HoldOutTune(
    const FinetuneTaskInfo& info, const FinetuneDataOptions& options,
    std::vector<T>* train, std::vector<T>* tune) {
  ASSIGN_OR_RETURN(std::vector<bool> mask,
                   TuneMask(info.key, options,
                            static_cast<int64_t>(train->size()), "examples"));
  SplitByMask(mask, train, tune);
  return mask;
}

// ---- GLUE and the derived pair task ----------------------------------------

absl::StatusOr<FinetuneTaskData> LoadGlue(const FinetuneTaskInfo& info,
                                          const FinetuneDataOptions& options,
                                          const FullTokenizer& tokenizer,
                                          const TaskSources& sources) {
  FinetuneTaskData result;
  result.info = &info;
  GlueTaskData& glue = result.sets.emplace<GlueTaskData>();
  ASSIGN_OR_RETURN(glue.spec, FindGlueTask(info.format));
  CHECK_EQ(glue.spec->num_labels, info.num_labels) << info.key;
  CHECK_EQ(glue.spec->is_regression, info.num_labels == 1) << info.key;
  CHECK_EQ(glue.spec->dev_files.size(), info.dev_set_keys.size()) << info.key;
  const std::string dir = TaskDirectory(info, sources);
  result.data_source = info.derived ? kDerivedSource : dir;
  const int max_seq = options.max_seq_length;
  for (GlueSplit split : {GlueSplit::kTrain, GlueSplit::kDev}) {
    for (const GlueFileSpec& file : glue.spec->Files(split)) {
      const std::string path = Join(dir, file.file_name);
      result.data_files[DataFilePrefix(info) + file.file_name] = path;
      ASSIGN_OR_RETURN(const GlueSet set,
                       ReadGlueFile(*glue.spec, GlueFileKind::kLabelled, path,
                                    file.set_name));
      ASSIGN_OR_RETURN(GlueEncodedSet encoded,
                       EncodeGlueSet(set, tokenizer, max_seq));
      // The texts, for the word-overlap baseline (pair tasks only).
      std::vector<LabelledPair> pairs;
      for (const GlueRawExample& example : set.examples) {
        if (!example.has_text_b) break;
        pairs.push_back({example.text_a, example.text_b, example.label});
      }
      if (split == GlueSplit::kTrain) {
        if (encoded.examples.empty()) {
          return NoTrainingExamples(
              path, "the file has no data rows below its header");
        }
        Truncate(&encoded.examples, options.max_train_examples);
        Truncate(&pairs, options.max_train_examples);
        glue.train = std::move(encoded.examples);
        glue.train_pairs = std::move(pairs);
      } else {
        Truncate(&encoded.examples, options.max_eval_examples);
        Truncate(&pairs, options.max_eval_examples);
        glue.dev.push_back(std::move(encoded));
        glue.dev_pairs.push_back(std::move(pairs));
      }
    }
  }
  // Unlabelled test sets, when present, get predictions in the GLUE
  // submission layout (the derived task's test set too).
  for (const GlueFileSpec& file : glue.spec->Files(GlueSplit::kTest)) {
    const std::string path = Join(dir, file.file_name);
    if (options.skip_test_sets || !IsFile(path)) continue;
    ASSIGN_OR_RETURN(
        const GlueSet set,
        ReadGlueFile(*glue.spec, GlueFileKind::kTest, path, file.set_name));
    ASSIGN_OR_RETURN(GlueEncodedSet encoded,
                     EncodeGlueSet(set, tokenizer, max_seq));
    Truncate(&encoded.examples, options.max_eval_examples);
    glue.test.push_back(std::move(encoded));
    glue.test_files.push_back(file.submission_file_name);
  }
  if (options.tune_fraction > 0) {
    ASSIGN_OR_RETURN(const std::vector<bool> mask,
                     HoldOutTune(info, options, &glue.train, &glue.tune));
    if (!glue.train_pairs.empty()) {
      std::vector<LabelledPair> tune_pairs;
      SplitByMask(mask, &glue.train_pairs, &tune_pairs);
    }
    result.tune_size = static_cast<int64_t>(glue.tune.size());
  }
  result.train_size = glue.train.size();
  for (const auto& set : glue.dev) {
    result.dev_size += set.examples.size();
  }
  return result;
}

// ---- SQuAD v1.1 / v2.0 and the derived span task ---------------------------

struct SquadFileSet {
  std::string train;
  std::string dev;
  std::vector<std::string> read;  // the files of `dir` they come from
};

// The train and dev files of SQuAD `version` ("v1.1" or "v2.0") in `dir`:
// the official pair, or one file split by article into scratch_dir.
absl::StatusOr<SquadFileSet> SquadFiles(const std::string& dir,
                                        const std::string& version,
                                        const std::string& scratch_dir) {
  const std::string train = Join(dir, absl::StrCat("train-", version, ".json"));
  const std::string dev = Join(dir, absl::StrCat("dev-", version, ".json"));
  if (IsFile(train) && IsFile(dev))
    return SquadFileSet{train, dev, {train, dev}};
  std::vector<std::string> candidates;
  std::error_code error;
  for (const auto& entry : fs::directory_iterator(dir, error)) {
    const std::string name = entry.path().filename().string();
    if (absl::EndsWith(name, ".json") && absl::StrContains(name, version)) {
      candidates.push_back(entry.path().string());
    }
  }
  std::sort(candidates.begin(), candidates.end());
  // Prefer a training file to split.
  std::string source;
  for (const std::string& c : candidates) {
    if (absl::StrContains(fs::path(c).filename().string(), "train")) source = c;
  }
  if (source.empty() && !candidates.empty()) source = candidates.front();
  if (source.empty()) {
    return absl::NotFoundError(absl::StrCat("no SQuAD ", version, " files (*",
                                            version, "*.json) in ", dir));
  }
  // The reader checks the file first, so that a malformed one is reported
  // with its line and column (or the JSON path of the bad field).
  ASSIGN_OR_RETURN(const std::string text, ReadFileToString(source));
  RETURN_IF_ERROR(ParseSquadJson(text, source, SquadReadOptions()).status());
  nlohmann::json json = nlohmann::json::parse(text, nullptr, false);
  if (json.is_discarded() || !json.contains("data") ||
      !json["data"].is_array() || json["data"].size() < 2) {
    return absl::InvalidArgumentError(absl::StrCat(
        source, ": has ",
        json.is_discarded() || !json["data"].is_array() ? 0
                                                        : json["data"].size(),
        " article(s); splitting one file into train and dev needs at least "
        "two (or give train-",
        version, ".json and dev-", version, ".json)"));
  }
  const size_t articles = json["data"].size();
  const size_t dev_articles = std::max<size_t>(1, articles / 4);
  nlohmann::json train_json = json, dev_json = json;
  train_json["data"] = nlohmann::json::array();
  dev_json["data"] = nlohmann::json::array();
  for (size_t i = 0; i < articles; ++i) {
    const bool train = i < articles - dev_articles;
    nlohmann::json article = json["data"][i];
    if (train) {
      // Training reads one answer per question (read_squad_examples); a
      // dev-format file lists several: the first is the training label.
      for (auto& paragraph : article["paragraphs"]) {
        for (auto& qa : paragraph["qas"]) {
          if (qa.contains("answers") && qa["answers"].is_array() &&
              qa["answers"].size() > 1) {
            qa["answers"] = nlohmann::json::array({qa["answers"][0]});
          }
        }
      }
    }
    (train ? train_json : dev_json)["data"].push_back(std::move(article));
  }
  const std::string split_dir =
      Join(scratch_dir, absl::StrCat("squad-", version, "-split"));
  ASSIGN_OR_RETURN(const FileLock lock,
                   LockRunDirectory(split_dir, "the split SQuAD files"));
  RETURN_IF_ERROR(CreateDirectories(split_dir));
  const std::string split_train = Join(split_dir, "train.json");
  const std::string split_dev = Join(split_dir, "dev.json");
  RETURN_IF_ERROR(WriteFileAtomically(split_train, train_json.dump()));
  RETURN_IF_ERROR(WriteFileAtomically(split_dev, dev_json.dump()));
  return SquadFileSet{split_train, split_dev, {source}};
}

absl::StatusOr<FinetuneTaskData> LoadSquad(const FinetuneTaskInfo& info,
                                           const FinetuneDataOptions& options,
                                           const FullTokenizer& tokenizer,
                                           const TaskSources& sources) {
  FinetuneTaskData result;
  result.info = &info;
  SquadTaskData& squad = result.sets.emplace<SquadTaskData>();
  const std::string& version = info.format;
  squad.v2 = version == "v2.0";
  const std::string dir = TaskDirectory(info, sources);
  result.data_source = info.derived ? kDerivedSource : dir;
  ASSIGN_OR_RETURN(const auto files,
                   SquadFiles(dir, version, sources.scratch_dir));
  for (const std::string& path : files.read) {
    result
        .data_files[DataFilePrefix(info) + fs::path(path).filename().string()] =
        path;
  }

  SquadReadOptions read;
  read.is_training = true;
  ASSIGN_OR_RETURN(SquadDataset train, ReadSquadFile(files.train, read));
  const SquadReadStats& stats = train.stats;
  if (stats.num_skipped_answer_not_found > 0) {
    result.warnings.push_back(absl::StrCat(
        files.train, ": ", stats.num_skipped_answer_not_found, " of ",
        stats.num_questions,
        " training questions skipped: the answer text is not at its "
        "answer_start (run_squad.py skips them too)"));
    for (size_t i = 0; i < stats.skipped.size() && i < kQuotedExamples; ++i) {
      result.warnings.push_back(absl::StrCat("skipped ", stats.skipped[i]));
    }
  }
  if (train.examples.empty()) {
    return NoTrainingExamples(
        files.train,
        stats.num_questions == 0
            ? std::string("the file has no questions")
            : absl::StrCat(
                  "all ", stats.num_questions,
                  " questions were skipped: the answer text is not at its "
                  "answer_start",
                  stats.skipped.empty()
                      ? ""
                      : absl::StrCat(" (first: ", stats.skipped[0], ")")));
  }
  if (options.tune_fraction > 0) {
    // Spread like dev, so that the tune split (drawn by article) finds
    // articles on both sides: the first max_train_examples questions are
    // two or three articles'. Without a tune split, the first ones, as
    // runs before tune splits read them.
    Spread(&train.examples, options.max_train_examples);
    // By article, so that no tune question shares a context with a
    // training one.
    int64_t articles = 0;
    for (const SquadParagraph& paragraph : train.paragraphs) {
      articles = std::max(articles, paragraph.article + 1);
    }
    ASSIGN_OR_RETURN(const std::vector<bool> tune_articles,
                     TuneMask(info.key, options, articles, "articles"));
    std::vector<bool> mask;
    for (const SquadExample& example : train.examples) {
      mask.push_back(
          tune_articles[train.paragraphs[example.paragraph_index].article]);
    }
    squad.tune = train;  // the paragraphs; the questions follow
    squad.tune.examples.clear();
    SplitByMask(mask, &train.examples, &squad.tune.examples);
    if (train.examples.empty() || squad.tune.examples.empty()) {
      return absl::FailedPreconditionError(
          absl::StrCat("task ", info.key, ": the tune split's articles hold ",
                       squad.tune.examples.size(), " of ",
                       squad.tune.examples.size() + train.examples.size(),
                       " training questions; change tune_fraction or "
                       "max_train_examples"));
    }
    result.tune_size = static_cast<int64_t>(squad.tune.examples.size());
  } else {
    Truncate(&train.examples, options.max_train_examples);
  }
  // The answer lengths the v1.1 trivial predictor is fitted on.
  for (const SquadExample& example : train.examples) {
    if (example.start_position >= 0) {
      squad.train_answer_words.push_back(example.end_position -
                                         example.start_position + 1);
    }
  }
  read.is_training = false;
  ASSIGN_OR_RETURN(squad.dev, ReadSquadFile(files.dev, read));
  if (squad.dev.stats.num_answers_not_at_offset > 0) {
    result.warnings.push_back(absl::StrCat(
        files.dev, ": ", squad.dev.stats.num_answers_not_at_offset,
        " dev answers are not at their answer_start (kept: the evaluation "
        "compares answer texts only)"));
  }
  Spread(&squad.dev.examples, options.max_eval_examples);

  SquadFeatureOptions features;
  features.max_seq_length = options.max_seq_length;
  features.doc_stride = options.doc_stride;
  features.max_query_length = options.max_query_length;
  features.is_training = true;
  features.keep_decoding_info = false;
  ASSIGN_OR_RETURN(SquadFeatures train_features,
                   ConvertSquadExamplesToFeatures(train, tokenizer, features));
  squad.train = std::move(train_features.features);
  features.is_training = false;
  features.keep_decoding_info = true;
  ASSIGN_OR_RETURN(squad.dev_features, ConvertSquadExamplesToFeatures(
                                           squad.dev, tokenizer, features));
  if (result.tune_size > 0) {
    ASSIGN_OR_RETURN(squad.tune_features, ConvertSquadExamplesToFeatures(
                                              squad.tune, tokenizer, features));
  }
  result.train_size = train.examples.size();
  result.dev_size = squad.dev.examples.size();
  return result;
}

// ---- SWAG and the derived four-way task ------------------------------------

absl::StatusOr<FinetuneTaskData> LoadSwag(const FinetuneTaskInfo& info,
                                          const FinetuneDataOptions& options,
                                          const FullTokenizer& tokenizer,
                                          const TaskSources& sources) {
  CHECK_EQ(info.num_choices, kSwagNumChoices) << info.key;
  FinetuneTaskData result;
  result.info = &info;
  SwagTaskData& swag = result.sets.emplace<SwagTaskData>();
  const std::string dir = TaskDirectory(info, sources);
  result.data_source = info.derived ? kDerivedSource : dir;
  SwagEncodeOptions encode;
  encode.max_seq_length = options.max_seq_length;
  for (const char* name : {"train.csv", "val.csv"}) {
    const std::string path = Join(dir, name);
    result.data_files[DataFilePrefix(info) + name] = path;
    ASSIGN_OR_RETURN(std::vector<MultipleChoiceExample> examples,
                     LoadSwagExamples(path, tokenizer, encode));
    const bool train = std::string(name) == "train.csv";
    if (train && examples.empty()) {
      return NoTrainingExamples(path,
                                "the file has no data rows below its header");
    }
    Truncate(&examples,
             train ? options.max_train_examples : options.max_eval_examples);
    (train ? swag.train : swag.dev) = std::move(examples);
  }
  if (options.tune_fraction > 0) {
    RETURN_IF_ERROR(
        HoldOutTune(info, options, &swag.train, &swag.tune).status());
    result.tune_size = static_cast<int64_t>(swag.tune.size());
  }
  result.train_size = swag.train.size();
  result.dev_size = swag.dev.size();
  return result;
}

}  // namespace

bool TaskDataAvailable(FinetuneTaskId task, const TaskSources& sources) {
  const FinetuneTaskInfo& info = FinetuneTaskOf(task);
  if (sources.data_dir.empty() || info.derived) return false;
  const std::string dir = TaskDirectory(info, sources);
  switch (info.reader) {
    case TaskReader::kGlueTsv:
      return IsFile(Join(dir, "train.tsv"));
    case TaskReader::kSquadJson: {
      std::error_code error;
      return fs::is_directory(dir, error) && !fs::is_empty(dir, error);
    }
    case TaskReader::kSwagCsv:
      return IsFile(Join(dir, "train.csv"));
  }
  return false;
}

absl::StatusOr<FinetuneTaskData> LoadFinetuneTaskData(
    FinetuneTaskId task, const FinetuneDataOptions& options,
    const FullTokenizer& tokenizer, const TaskSources& sources) {
  const FinetuneTaskInfo& info = FinetuneTaskOf(task);
  switch (info.reader) {
    case TaskReader::kGlueTsv:
      return LoadGlue(info, options, tokenizer, sources);
    case TaskReader::kSquadJson:
      return LoadSquad(info, options, tokenizer, sources);
    case TaskReader::kSwagCsv:
      return LoadSwag(info, options, tokenizer, sources);
  }
  return absl::InternalError(absl::StrCat("task ", info.key, ": no reader"));
}

}  // namespace bertlab
