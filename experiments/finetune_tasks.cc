#include "experiments/finetune_tasks.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <map>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "common/check.h"
#include "common/directory.h"
#include "common/file.h"
#include "common/file_lock.h"
#include "common/run_lock.h"
#include "common/split_mix.h"
#include "common/status_macros.h"
#include "eval/glue_scoring.h"
#include "eval/squad_decoded.h"
#include "eval/squad_eval.h"
#include "nlohmann/json.hpp"
#include "tasks/finetune/input_baselines.h"
#include "tasks/finetune/trivial_baseline.h"
#include "tasks/glue/glue_features.h"
#include "tasks/glue/glue_predictions.h"
#include "tasks/glue/glue_reader.h"
#include "tasks/glue/glue_tasks.h"
#include "tasks/squad/squad_decode.h"
#include "tasks/squad/squad_features.h"
#include "tasks/squad/squad_reader.h"
#include "tasks/swag/swag.h"

namespace bertlab {
namespace experiments {
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

// ---- GLUE and the derived pair task ----------------------------------------

// The scorer's fractions in the records' units (x100).
// Whether training example (SQuAD: article) `index` is in the tune split
// of `fraction`: a fixed hash of its position, so that every run of a task
// holds out the same examples (FinetuneTaskSpec.tune_fraction).
constexpr uint64_t kTuneSalt = 0x74756e6573706c74;  // "tunesplt"

bool InTuneSplit(int64_t index, double fraction) {
  return static_cast<double>(
             SplitMix64(kTuneSalt ^ SplitMix64(static_cast<uint64_t>(index)))) <
         fraction * 18446744073709551616.0;
}

// Which of `count` training items (in order) go to the tune split; an error
// when either side would be empty.
absl::StatusOr<std::vector<bool>> TuneMask(const std::string& task,
                                           const FinetuneTaskSpec& spec,
                                           int64_t count,
                                           absl::string_view items) {
  std::vector<bool> mask(count, false);
  int64_t tune = 0;
  for (int64_t i = 0; i < count; ++i) {
    mask[i] = InTuneSplit(i, spec.tune_fraction());
    tune += mask[i];
  }
  if (tune == 0 || tune == count) {
    return absl::FailedPreconditionError(absl::StrCat(
        "task ", task, ": tune_fraction ", spec.tune_fraction(), " of ", count,
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
absl::StatusOr<std::vector<bool>> HoldOutTune(const FinetuneTaskInfo& info,
                                              const FinetuneTaskSpec& spec,
                                              std::vector<T>* train,
                                              std::vector<T>* tune) {
  ASSIGN_OR_RETURN(std::vector<bool> mask,
                   TuneMask(info.key, spec, static_cast<int64_t>(train->size()),
                            "examples"));
  SplitByMask(mask, train, tune);
  return mask;
}

std::map<std::string, double> InRecordUnits(const GlueScores& scores) {
  std::map<std::string, double> metrics;
  for (const auto& [metric, value] : scores.values) {
    metrics[GlueMetricName(metric)] = 100.0 * value;
  }
  return metrics;
}

class GlueTask : public FinetuneTask {
 public:
  static absl::StatusOr<std::unique_ptr<FinetuneTask>> Load(
      const FinetuneTaskInfo& info, const FinetuneTaskSpec& spec,
      const FullTokenizer& tokenizer, const TaskSources& sources) {
    auto result = std::unique_ptr<GlueTask>(new GlueTask);
    result->info_ = &info;
    ASSIGN_OR_RETURN(result->spec_, FindGlueTask(info.format));
    CHECK_EQ(result->spec_->num_labels, info.num_labels) << info.key;
    CHECK_EQ(result->spec_->is_regression, info.num_labels == 1) << info.key;
    CHECK_EQ(result->spec_->dev_files.size(), info.dev_set_keys.size())
        << info.key;
    const std::string dir = TaskDirectory(info, sources);
    result->data_source_ = info.derived ? kDerivedSource : dir;
    const int max_seq = spec.max_seq_length();
    for (GlueSplit split : {GlueSplit::kTrain, GlueSplit::kDev}) {
      for (const GlueFileSpec& file : result->spec_->Files(split)) {
        const std::string path = Join(dir, file.file_name);
        result->data_files_[DataFilePrefix(info) + file.file_name] = path;
        ASSIGN_OR_RETURN(const GlueSet set,
                         ReadGlueFile(*result->spec_, GlueFileKind::kLabelled,
                                      path, file.set_name));
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
          Truncate(&encoded.examples, spec.max_train_examples());
          Truncate(&pairs, spec.max_train_examples());
          result->train_ = std::move(encoded.examples);
          result->train_pairs_ = std::move(pairs);
        } else {
          Truncate(&encoded.examples, spec.max_eval_examples());
          Truncate(&pairs, spec.max_eval_examples());
          result->dev_.push_back(std::move(encoded));
          result->dev_pairs_.push_back(std::move(pairs));
        }
      }
    }
    // Unlabelled test sets, when present, get predictions in the GLUE
    // submission layout (the derived task's test set too).
    for (const GlueFileSpec& file : result->spec_->Files(GlueSplit::kTest)) {
      const std::string path = Join(dir, file.file_name);
      if (!IsFile(path)) continue;
      ASSIGN_OR_RETURN(const GlueSet set,
                       ReadGlueFile(*result->spec_, GlueFileKind::kTest, path,
                                    file.set_name));
      ASSIGN_OR_RETURN(GlueEncodedSet encoded,
                       EncodeGlueSet(set, tokenizer, max_seq));
      Truncate(&encoded.examples, spec.max_eval_examples());
      result->test_.push_back(std::move(encoded));
      result->test_files_.push_back(file.submission_file_name);
    }
    if (spec.tune_fraction() > 0) {
      ASSIGN_OR_RETURN(
          const std::vector<bool> mask,
          HoldOutTune(info, spec, &result->train_, &result->tune_));
      if (!result->train_pairs_.empty()) {
        std::vector<LabelledPair> tune_pairs;
        SplitByMask(mask, &result->train_pairs_, &tune_pairs);
      }
      result->tune_size_ = static_cast<int64_t>(result->tune_.size());
    }
    result->train_size_ = result->train_.size();
    for (const auto& set : result->dev_) {
      result->dev_size_ += set.examples.size();
    }
    result->trivial_ = result->ScoreTrivial();
    return std::unique_ptr<FinetuneTask>(std::move(result));
  }

  TrainingSet Train() const override {
    return TrainingSet::Classification(&train_);
  }

  absl::StatusOr<std::vector<TaskMetrics>> Evaluate(
      Finetuner* tuner, const std::string& output_dir) const override {
    std::vector<TaskMetrics> results;
    for (size_t d = 0; d < dev_.size(); ++d) {
      const GlueEncodedSet& set = dev_[d];
      ASSIGN_OR_RETURN(reports::DevExamples examples,
                       Predict(tuner, set.examples));
      RETURN_IF_ERROR(WriteGluePredictions(
          Join(output_dir, absl::StrCat(set.set_name, ".dev_predictions.tsv")),
          *spec_, GluePredictions(examples)));
      TaskMetrics metrics;
      metrics.task = info_->dev_set_keys[d];
      metrics.metrics = InRecordUnits(Score(examples));
      metrics.examples = std::move(examples);
      results.push_back(std::move(metrics));
    }
    for (size_t t = 0; t < test_.size(); ++t) {
      ASSIGN_OR_RETURN(const reports::DevExamples examples,
                       Predict(tuner, test_[t].examples));
      RETURN_IF_ERROR(WriteGluePredictions(
          Join(output_dir, absl::StrCat("test_", test_files_[t])), *spec_,
          GluePredictions(examples)));
    }
    return results;
  }

  absl::StatusOr<std::map<std::string, double>> EvaluateTune(
      Finetuner* tuner) const override {
    ASSIGN_OR_RETURN(const reports::DevExamples examples,
                     Predict(tuner, tune_));
    return InRecordUnits(Score(examples));
  }

 private:
  // The model's prediction for each of `examples`, with the gold answers.
  absl::StatusOr<reports::DevExamples> Predict(
      Finetuner* tuner, const std::vector<ClassificationExample>& set) const {
    ASSIGN_OR_RETURN(const std::vector<float> logits,
                     tuner->PredictClassification(set));
    const int labels = spec_->num_labels;
    reports::DevExamples examples;
    examples.kind = spec_->is_regression ? reports::DevExampleKind::kScores
                                         : reports::DevExampleKind::kLabels;
    for (size_t i = 0; i < set.size(); ++i) {
      examples.ids.push_back(set[i].guid);
      if (spec_->is_regression) {
        examples.gold_scores.push_back(set[i].score);
        examples.predicted_scores.push_back(logits[i]);
      } else {
        const float* row = logits.data() + i * labels;
        examples.gold_labels.push_back(set[i].label);
        examples.predicted_labels.push_back(
            static_cast<int32_t>(std::max_element(row, row + labels) - row));
      }
    }
    return examples;
  }

  // `examples`' predictions in the layout of the prediction files.
  std::vector<GluePrediction> GluePredictions(
      const reports::DevExamples& examples) const {
    std::vector<GluePrediction> predictions;
    for (size_t i = 0; i < examples.ids.size(); ++i) {
      GluePrediction p;
      p.guid = examples.ids[i];
      if (spec_->is_regression) {
        p.score = examples.predicted_scores[i];
      } else {
        p.label = examples.predicted_labels[i];
      }
      predictions.push_back(p);
    }
    return predictions;
  }

  GlueScores Score(const reports::DevExamples& examples) const {
    return spec_->is_regression
               ? ScoreGlueRegression(*spec_, examples.gold_scores,
                                     examples.predicted_scores)
               : ScoreGlueClassification(*spec_, examples.gold_labels,
                                         examples.predicted_labels);
  }

  // Train's majority class (its mean score for STS-B) on every dev set,
  // through the scorer Evaluate uses.
  absl::StatusOr<std::vector<TrivialMetrics>> ScoreTrivial() const {
    std::vector<TrivialMetrics> results;
    for (size_t d = 0; d < dev_.size(); ++d) {
      const GlueEncodedSet& set = dev_[d];
      if (set.examples.empty()) {
        return absl::InvalidArgumentError(absl::StrCat(
            set.set_name, ": no dev examples to score the trivial predictor"));
      }
      TrivialMetrics trivial;
      trivial.task = info_->dev_set_keys[d];
      if (spec_->is_regression) {
        ASSIGN_OR_RETURN(const MeanScore mean, FitMeanScore(train_));
        std::vector<double> gold;
        for (const ClassificationExample& example : set.examples) {
          gold.push_back(example.score);
        }
        trivial.metrics = InRecordUnits(ScoreGlueRegression(
            *spec_, gold, std::vector<double>(gold.size(), mean.score)));
        // A constant's Pearson and Spearman are 0/0 (NaN); records hold
        // finite numbers only, and 0 is what a constant earns.
        for (auto& [name, value] : trivial.metrics) {
          if (!std::isfinite(value)) value = 0.0;
        }
        trivial.predictor = mean.predictor;
      } else {
        ASSIGN_OR_RETURN(const MajorityClass majority,
                         FitMajorityClass(train_, spec_->labels));
        std::vector<int32_t> gold;
        for (const ClassificationExample& example : set.examples) {
          gold.push_back(example.label);
        }
        trivial.metrics = InRecordUnits(ScoreGlueClassification(
            *spec_, gold, std::vector<int32_t>(gold.size(), majority.label)));
        trivial.predictor = majority.predictor;
        if (!train_pairs_.empty() &&
            dev_pairs_[d].size() == set.examples.size()) {
          ASSIGN_OR_RETURN(const WordOverlapClassifier overlap,
                           FitWordOverlap(train_pairs_, spec_->labels));
          std::vector<int32_t> predicted;
          for (const LabelledPair& pair : dev_pairs_[d]) {
            predicted.push_back(overlap.Predict(pair.text_a, pair.text_b));
          }
          trivial.baselines.push_back(
              {overlap.predictor,
               InRecordUnits(ScoreGlueClassification(*spec_, gold, predicted)),
               kWordOverlapBaseline});
        }
      }
      results.push_back(std::move(trivial));
    }
    return results;
  }

  const GlueTaskSpec* spec_ = nullptr;
  std::vector<ClassificationExample> train_;
  // Pair tasks: the texts of train_ and of each dev set (empty otherwise).
  std::vector<LabelledPair> train_pairs_;
  std::vector<std::vector<LabelledPair>> dev_pairs_;
  std::vector<ClassificationExample> tune_;  // FinetuneTaskSpec.tune_fraction
  std::vector<GlueEncodedSet> dev_;
  std::vector<GlueEncodedSet> test_;
  std::vector<std::string> test_files_;  // submission file names
};

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

class SquadTask : public FinetuneTask {
 public:
  static absl::StatusOr<std::unique_ptr<FinetuneTask>> Load(
      const FinetuneTaskInfo& info, const FinetuneTaskSpec& spec,
      const FullTokenizer& tokenizer, const TaskSources& sources) {
    auto result = std::unique_ptr<SquadTask>(new SquadTask(tokenizer));
    result->info_ = &info;
    const std::string& version = info.format;
    result->v2_ = version == "v2.0";
    const std::string dir = TaskDirectory(info, sources);
    result->data_source_ = info.derived ? kDerivedSource : dir;
    ASSIGN_OR_RETURN(const auto files,
                     SquadFiles(dir, version, sources.scratch_dir));
    for (const std::string& path : files.read) {
      result->data_files_[DataFilePrefix(info) +
                          fs::path(path).filename().string()] = path;
    }

    SquadReadOptions read;
    read.is_training = true;
    ASSIGN_OR_RETURN(SquadDataset train, ReadSquadFile(files.train, read));
    const SquadReadStats& stats = train.stats;
    if (stats.num_skipped_answer_not_found > 0) {
      result->warnings_.push_back(absl::StrCat(
          files.train, ": ", stats.num_skipped_answer_not_found, " of ",
          stats.num_questions,
          " training questions skipped: the answer text is not at its "
          "answer_start (run_squad.py skips them too)"));
      for (size_t i = 0; i < stats.skipped.size() && i < kQuotedExamples; ++i) {
        result->warnings_.push_back(absl::StrCat("skipped ", stats.skipped[i]));
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
    if (spec.tune_fraction() > 0) {
      // Spread like dev, so that the tune split (drawn by article) finds
      // articles on both sides: the first max_train_examples questions are
      // two or three articles'. Without a tune split, the first ones, as
      // runs before tune splits read them.
      Spread(&train.examples, spec.max_train_examples());
      // By article, so that no tune question shares a context with a
      // training one.
      int64_t articles = 0;
      for (const SquadParagraph& paragraph : train.paragraphs) {
        articles = std::max(articles, paragraph.article + 1);
      }
      ASSIGN_OR_RETURN(const std::vector<bool> tune_articles,
                       TuneMask(info.key, spec, articles, "articles"));
      std::vector<bool> mask;
      for (const SquadExample& example : train.examples) {
        mask.push_back(
            tune_articles[train.paragraphs[example.paragraph_index].article]);
      }
      result->tune_ = train;  // the paragraphs; the questions follow
      result->tune_.examples.clear();
      SplitByMask(mask, &train.examples, &result->tune_.examples);
      if (train.examples.empty() || result->tune_.examples.empty()) {
        return absl::FailedPreconditionError(
            absl::StrCat("task ", info.key, ": the tune split's articles hold ",
                         result->tune_.examples.size(), " of ",
                         result->tune_.examples.size() + train.examples.size(),
                         " training questions; change tune_fraction or "
                         "max_train_examples"));
      }
      result->tune_size_ = static_cast<int64_t>(result->tune_.examples.size());
    } else {
      Truncate(&train.examples, spec.max_train_examples());
    }
    // The answer lengths the v1.1 trivial predictor is fitted on.
    std::vector<int64_t> train_answer_words;
    for (const SquadExample& example : train.examples) {
      if (example.start_position >= 0) {
        train_answer_words.push_back(example.end_position -
                                     example.start_position + 1);
      }
    }
    read.is_training = false;
    ASSIGN_OR_RETURN(result->dev_, ReadSquadFile(files.dev, read));
    if (result->dev_.stats.num_answers_not_at_offset > 0) {
      result->warnings_.push_back(absl::StrCat(
          files.dev, ": ", result->dev_.stats.num_answers_not_at_offset,
          " dev answers are not at their answer_start (kept: the evaluation "
          "compares answer texts only)"));
    }
    Spread(&result->dev_.examples, spec.max_eval_examples());

    SquadFeatureOptions features;
    features.max_seq_length = spec.max_seq_length();
    features.doc_stride = spec.doc_stride();
    features.max_query_length = spec.max_query_length();
    features.is_training = true;
    features.keep_decoding_info = false;
    ASSIGN_OR_RETURN(
        SquadFeatures train_features,
        ConvertSquadExamplesToFeatures(train, tokenizer, features));
    result->train_ = std::move(train_features.features);
    features.is_training = false;
    features.keep_decoding_info = true;
    ASSIGN_OR_RETURN(
        result->dev_features_,
        ConvertSquadExamplesToFeatures(result->dev_, tokenizer, features));
    if (result->tune_size_ > 0) {
      ASSIGN_OR_RETURN(
          result->tune_features_,
          ConvertSquadExamplesToFeatures(result->tune_, tokenizer, features));
    }
    result->train_size_ = train.examples.size();
    result->dev_size_ = result->dev_.examples.size();
    result->trivial_ = result->ScoreTrivial(std::move(train_answer_words));
    return std::unique_ptr<FinetuneTask>(std::move(result));
  }

  TrainingSet Train() const override { return TrainingSet::Spans(&train_); }

  absl::StatusOr<std::vector<TaskMetrics>> Evaluate(
      Finetuner* tuner, const std::string& output_dir) const override {
    ASSIGN_OR_RETURN(std::vector<SquadPrediction> predictions,
                     Decode(tuner, dev_, dev_features_));
    const SquadGold gold = ToSquadGold(dev_);
    TaskMetrics metrics;
    metrics.task = info_->dev_set_keys.front();
    ASSIGN_OR_RETURN(metrics.metrics, Score(dev_, &predictions));
    if (v2_) {
      RETURN_IF_ERROR(WriteSquadNullOddsFile(Join(output_dir, "null_odds.json"),
                                             predictions));
    }
    RETURN_IF_ERROR(WriteSquadPredictionsFile(
        Join(output_dir, "predictions.json"), predictions));
    // Per question, as the official script scores the predictions just
    // written (v2.0: at the chosen threshold).
    ASSIGN_OR_RETURN(const SquadMetrics written,
                     EvaluateSquad(gold, ToSquadPredictionMap(predictions),
                                   nullptr, SquadEvalOptions()));
    const SquadPredictionMap texts = ToSquadPredictionMap(predictions);
    metrics.examples.kind = reports::DevExampleKind::kSpans;
    // Each question's article: the bootstrap draws articles, not questions.
    std::map<std::string, int64_t> article_of;
    for (const SquadExample& example : dev_.examples) {
      article_of[example.qid] =
          dev_.paragraphs[example.paragraph_index].article;
    }
    for (const SquadQuestionScore& score : written.per_question) {
      metrics.examples.ids.push_back(score.qid);
      const auto article = article_of.find(score.qid);
      CHECK(article != article_of.end()) << score.qid;
      metrics.examples.groups.push_back(absl::StrCat(article->second));
      metrics.examples.exact_match.push_back(score.exact);
      metrics.examples.f1.push_back(score.f1);
      const auto text = texts.find(score.qid);
      metrics.examples.predictions.push_back(
          text == texts.end() ? std::string() : text->second);
    }
    return std::vector<TaskMetrics>{metrics};
  }

  absl::StatusOr<std::map<std::string, double>> EvaluateTune(
      Finetuner* tuner) const override {
    ASSIGN_OR_RETURN(std::vector<SquadPrediction> predictions,
                     Decode(tuner, tune_, tune_features_));
    return Score(tune_, &predictions);
  }

 private:
  explicit SquadTask(const FullTokenizer& tokenizer) : tokenizer_(tokenizer) {}

  // The model's decoded answers to the questions of `dataset`.
  absl::StatusOr<std::vector<SquadPrediction>> Decode(
      Finetuner* tuner, const SquadDataset& dataset,
      const SquadFeatures& features) const {
    std::vector<float> start, end;
    RETURN_IF_ERROR(tuner->PredictSpans(features.features, &start, &end));
    const int64_t t = tuner->options().max_seq_length;
    std::vector<SpanLogits> logits(features.features.size());
    for (size_t i = 0; i < logits.size(); ++i) {
      logits[i].start_logits.assign(start.begin() + i * t,
                                    start.begin() + (i + 1) * t);
      logits[i].end_logits.assign(end.begin() + i * t,
                                  end.begin() + (i + 1) * t);
    }
    SquadDecodeOptions decode;
    decode.version_2_with_negative = v2_;
    return DecodeSquadPredictions(dataset, features, logits, tokenizer_,
                                  decode);
  }

  // The official metrics of *predictions on `dataset`: v1.1 exact_match and
  // f1; v2.0 those at the no-answer threshold chosen for best F1 on the same
  // questions (as the official script reports), their _at_0 twins and the
  // null_threshold, which is then applied to *predictions.
  absl::StatusOr<std::map<std::string, double>> Score(
      const SquadDataset& dataset,
      std::vector<SquadPrediction>* predictions) const {
    const SquadGold gold = ToSquadGold(dataset);
    std::map<std::string, double> metrics;
    if (!v2_) {
      ASSIGN_OR_RETURN(const SquadMetrics scores,
                       EvaluateSquad(gold, ToSquadPredictionMap(*predictions),
                                     nullptr, SquadEvalOptions()));
      metrics["exact_match"] = scores.exact;
      metrics["f1"] = scores.f1;
      return metrics;
    }
    const SquadNaProbs na_probs = ToSquadNaProbs(*predictions);
    ASSIGN_OR_RETURN(const SquadMetrics at_zero,
                     EvaluateSquad(gold, ToSquadPredictionMap(*predictions),
                                   &na_probs, SquadEvalOptions()));
    ASSIGN_OR_RETURN(const SquadMetrics chosen,
                     ChooseSquadNullThreshold(
                         gold, ToSquadBestNonNullMap(*predictions), na_probs));
    metrics["exact_match_at_0"] = at_zero.exact;
    metrics["f1_at_0"] = at_zero.f1;
    metrics["exact_match"] = chosen.best_exact->best_score;
    metrics["f1"] = chosen.best_f1->best_score;
    metrics["null_threshold"] = chosen.best_f1->threshold;
    ApplySquadNullThreshold(chosen.best_f1->threshold, predictions);
    return metrics;
  }

  // v1.1: the first k words of each context, k the median training answer
  // length; v2.0: no answer anywhere, which every no-answer threshold
  // leaves as it is, so the chosen-threshold metrics are the threshold-0
  // ones. Scored with the official evaluation, as Evaluate scores the model.
  absl::StatusOr<std::vector<TrivialMetrics>> ScoreTrivial(
      std::vector<int64_t> train_answer_words) const {
    if (dev_.examples.empty()) {
      return absl::InvalidArgumentError(absl::StrCat(
          dev_.source, ": no dev questions to score the trivial predictor"));
    }
    TrivialMetrics trivial;
    trivial.task = info_->dev_set_keys.front();
    SquadPredictionMap predictions;
    if (!v2_) {
      ASSIGN_OR_RETURN(const FirstWords rule,
                       FitFirstWords(std::move(train_answer_words)));
      for (const SquadExample& example : dev_.examples) {
        predictions[example.qid] =
            rule.Predict(dev_.paragraphs[example.paragraph_index].doc_tokens);
      }
      trivial.predictor = rule.predictor;
    } else {
      for (const SquadExample& example : dev_.examples) {
        predictions[example.qid] = "";
      }
      trivial.predictor = kAlwaysNoAnswerPredictor;
    }
    ASSIGN_OR_RETURN(const SquadMetrics scores,
                     EvaluateSquad(ToSquadGold(dev_), predictions, nullptr,
                                   SquadEvalOptions()));
    trivial.metrics["exact_match"] = scores.exact;
    trivial.metrics["f1"] = scores.f1;
    if (v2_) {
      trivial.metrics["exact_match_at_0"] = scores.exact;
      trivial.metrics["f1_at_0"] = scores.f1;
      return std::vector<TrivialMetrics>{trivial};
    }
    // v1.1: the baselines that read the question and the context.
    const std::pair<const char*, const char*> baselines[] = {
        {kStringAlignmentBaseline, kStringAlignmentPredictor},
        {kFrequentNameBaseline, kFrequentNamePredictor}};
    for (const auto& [name, predictor] : baselines) {
      SquadPredictionMap answers;
      for (const SquadExample& example : dev_.examples) {
        const std::vector<std::string>& doc_tokens =
            dev_.paragraphs[example.paragraph_index].doc_tokens;
        answers[example.qid] =
            absl::string_view(name) == kStringAlignmentBaseline
                ? AlignSpan(example.question_text, doc_tokens)
                : FrequentName(example.question_text, doc_tokens);
      }
      ASSIGN_OR_RETURN(const SquadMetrics scored,
                       EvaluateSquad(ToSquadGold(dev_), answers, nullptr,
                                     SquadEvalOptions()));
      trivial.baselines.push_back(
          {predictor,
           {{"exact_match", scored.exact}, {"f1", scored.f1}},
           name});
    }
    return std::vector<TrivialMetrics>{trivial};
  }

  const FullTokenizer& tokenizer_;
  bool v2_ = false;
  std::vector<SpanFeature> train_;
  SquadDataset dev_;
  SquadFeatures dev_features_;
  // FinetuneTaskSpec.tune_fraction: the training questions held out.
  SquadDataset tune_;
  SquadFeatures tune_features_;
};

// ---- SWAG and the derived four-way task ------------------------------------

class SwagTask : public FinetuneTask {
 public:
  static absl::StatusOr<std::unique_ptr<FinetuneTask>> Load(
      const FinetuneTaskInfo& info, const FinetuneTaskSpec& spec,
      const FullTokenizer& tokenizer, const TaskSources& sources) {
    CHECK_EQ(info.num_choices, kSwagNumChoices) << info.key;
    auto result = std::unique_ptr<SwagTask>(new SwagTask);
    result->info_ = &info;
    const std::string dir = TaskDirectory(info, sources);
    result->data_source_ = info.derived ? kDerivedSource : dir;
    SwagEncodeOptions options;
    options.max_seq_length = spec.max_seq_length();
    for (const char* name : {"train.csv", "val.csv"}) {
      const std::string path = Join(dir, name);
      result->data_files_[DataFilePrefix(info) + name] = path;
      ASSIGN_OR_RETURN(std::vector<MultipleChoiceExample> examples,
                       LoadSwagExamples(path, tokenizer, options));
      const bool train = std::string(name) == "train.csv";
      if (train && examples.empty()) {
        return NoTrainingExamples(path,
                                  "the file has no data rows below its header");
      }
      Truncate(&examples,
               train ? spec.max_train_examples() : spec.max_eval_examples());
      (train ? result->train_ : result->dev_) = std::move(examples);
    }
    if (spec.tune_fraction() > 0) {
      RETURN_IF_ERROR(
          HoldOutTune(info, spec, &result->train_, &result->tune_).status());
      result->tune_size_ = static_cast<int64_t>(result->tune_.size());
    }
    result->train_size_ = result->train_.size();
    result->dev_size_ = result->dev_.size();
    result->trivial_ = result->ScoreTrivial();
    return std::unique_ptr<FinetuneTask>(std::move(result));
  }

  TrainingSet Train() const override {
    return TrainingSet::MultipleChoice(&train_);
  }

  absl::StatusOr<std::vector<TaskMetrics>> Evaluate(
      Finetuner* tuner, const std::string& output_dir) const override {
    ASSIGN_OR_RETURN(const std::vector<int32_t> predicted,
                     Choices(tuner, dev_));
    TaskMetrics metrics;
    metrics.examples.kind = reports::DevExampleKind::kLabels;
    std::string lines = "guid\tprediction\tlabel\n";
    for (size_t i = 0; i < dev_.size(); ++i) {
      const int32_t best = predicted[i];
      metrics.examples.ids.push_back(dev_[i].guid);
      metrics.examples.gold_labels.push_back(dev_[i].label);
      metrics.examples.predicted_labels.push_back(best);
      absl::StrAppend(&lines, dev_[i].guid, "\t", best, "\t", dev_[i].label,
                      "\n");
    }
    RETURN_IF_ERROR(
        WriteFileAtomically(Join(output_dir, "dev_predictions.tsv"), lines));
    metrics.task = info_->dev_set_keys.front();
    metrics.metrics["accuracy"] = AccuracyPercent(dev_, predicted);
    return std::vector<TaskMetrics>{metrics};
  }

  absl::StatusOr<std::map<std::string, double>> EvaluateTune(
      Finetuner* tuner) const override {
    ASSIGN_OR_RETURN(const std::vector<int32_t> predicted,
                     Choices(tuner, tune_));
    return std::map<std::string, double>{
        {"accuracy", AccuracyPercent(tune_, predicted)}};
  }

 private:
  // The model's choice for each of `examples`.
  static absl::StatusOr<std::vector<int32_t>> Choices(
      Finetuner* tuner, const std::vector<MultipleChoiceExample>& examples) {
    ASSIGN_OR_RETURN(const std::vector<float> scores,
                     tuner->PredictMultipleChoice(examples));
    std::vector<int32_t> choices;
    for (size_t i = 0; i < examples.size(); ++i) {
      const float* row = scores.data() + i * kSwagNumChoices;
      choices.push_back(static_cast<int32_t>(
          std::max_element(row, row + kSwagNumChoices) - row));
    }
    return choices;
  }

  // Percent of `examples` whose right choice is predicted[i].
  static double AccuracyPercent(
      const std::vector<MultipleChoiceExample>& examples,
      const std::vector<int32_t>& predicted) {
    CHECK_EQ(predicted.size(), examples.size());
    int64_t correct = 0;
    for (size_t i = 0; i < examples.size(); ++i) {
      correct += predicted[i] == examples[i].label;
    }
    return examples.empty()
               ? 0.0
               : 100.0 * correct / static_cast<double>(examples.size());
  }

  // Train's most frequent right choice for every dev example.
  absl::StatusOr<std::vector<TrivialMetrics>> ScoreTrivial() const {
    if (dev_.empty()) {
      return absl::InvalidArgumentError(absl::StrCat(
          info_->key, ": no dev examples to score the trivial predictor"));
    }
    ASSIGN_OR_RETURN(const MajorityChoice rule,
                     FitMajorityChoice(train_, kSwagNumChoices));
    TrivialMetrics trivial;
    trivial.task = info_->dev_set_keys.front();
    trivial.predictor = rule.predictor;
    trivial.metrics["accuracy"] =
        AccuracyPercent(dev_, std::vector<int32_t>(dev_.size(), rule.choice));
    return std::vector<TrivialMetrics>{trivial};
  }

  std::vector<MultipleChoiceExample> train_, dev_;
  std::vector<MultipleChoiceExample> tune_;  // FinetuneTaskSpec.tune_fraction
};

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

absl::StatusOr<std::unique_ptr<FinetuneTask>> LoadFinetuneTask(
    FinetuneTaskId task, const FinetuneTaskSpec& spec,
    const FullTokenizer& tokenizer, const TaskSources& sources) {
  const FinetuneTaskInfo& info = FinetuneTaskOf(task);
  switch (info.reader) {
    case TaskReader::kGlueTsv:
      return GlueTask::Load(info, spec, tokenizer, sources);
    case TaskReader::kSquadJson:
      return SquadTask::Load(info, spec, tokenizer, sources);
    case TaskReader::kSwagCsv:
      return SwagTask::Load(info, spec, tokenizer, sources);
  }
  return absl::InternalError(absl::StrCat("task ", info.key, ": no reader"));
}

FinetuneModelOptions FinetuneTask::ModelOptions() const {
  return HeadOptions(info());
}

FinetuneModelOptions HeadOptions(const FinetuneTaskInfo& info) {
  FinetuneModelOptions options;
  switch (info.reader) {
    case TaskReader::kGlueTsv:
      options.head = FinetuneHead::kClassifier;
      options.num_labels = info.num_labels;
      break;
    case TaskReader::kSquadJson:
      options.head = FinetuneHead::kSpan;
      break;
    case TaskReader::kSwagCsv:
      options.head = FinetuneHead::kMultipleChoice;
      options.num_choices = info.num_choices;
      break;
  }
  return options;
}

FinetuneOptions ToFinetuneOptions(const FinetuneTaskSpec& spec,
                                  const FinetuneOptimizerSpec& optimizer,
                                  const FinetuneModelOptions& model,
                                  double learning_rate, int restart) {
  FinetuneOptions options;
  options.model = model;
  options.max_seq_length = spec.max_seq_length();
  options.batch_size = spec.batch_size();
  options.num_epochs = spec.num_epochs();
  options.learning_rate = learning_rate;
  options.warmup_proportion = spec.warmup_proportion();
  options.seed = spec.seed() + restart;
  options.adamw.beta1 = optimizer.beta1();
  options.adamw.beta2 = optimizer.beta2();
  options.adamw.epsilon = optimizer.epsilon();
  options.adamw.weight_decay = optimizer.weight_decay();
  options.adamw.bias_correction = optimizer.bias_correction();
  options.clip_norm = optimizer.clip_norm();
  options.gradient_accumulation_steps = optimizer.gradient_accumulation_steps();
  return options;
}

}  // namespace experiments
}  // namespace bertlab
