#include "experiments/task_evaluation.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <map>
#include <utility>
#include <variant>

#include "absl/strings/str_cat.h"
#include "common/check.h"
#include "common/file.h"
#include "common/status_macros.h"
#include "eval/glue_scoring.h"
#include "eval/squad_decoded.h"
#include "eval/squad_eval.h"
#include "tasks/finetune/input_baselines.h"
#include "tasks/finetune/trivial_baseline.h"
#include "tasks/glue/glue_predictions.h"
#include "tasks/squad/squad_decode.h"
#include "tasks/swag/swag.h"

namespace bertlab {
namespace experiments {
namespace {

std::string Join(const std::string& a, const std::string& b) {
  return (std::filesystem::path(a) / b).string();
}

// ---- GLUE and the derived pair task ----------------------------------------

// The scorer's fractions in the records' units (x100).
std::map<std::string, double> InRecordUnits(const GlueScores& scores) {
  std::map<std::string, double> metrics;
  for (const auto& [metric, value] : scores.values) {
    metrics[GlueMetricName(metric)] = 100.0 * value;
  }
  return metrics;
}

class GlueTask : public FinetuneTask {
 public:
  explicit GlueTask(FinetuneTaskData data)
      : FinetuneTask(std::move(data)),
        glue_(std::get<GlueTaskData>(data_.sets)) {
    trivial_ = ScoreTrivial();
  }

  TrainingSet Train() const override {
    return TrainingSet::Classification(&glue_.train);
  }

  absl::StatusOr<std::vector<TaskMetrics>> Evaluate(
      Finetuner* tuner, const std::string& output_dir) const override {
    std::vector<TaskMetrics> results;
    for (size_t d = 0; d < glue_.dev.size(); ++d) {
      const GlueEncodedSet& set = glue_.dev[d];
      ASSIGN_OR_RETURN(reports::DevExamples examples,
                       Predict(tuner, set.examples));
      RETURN_IF_ERROR(WriteGluePredictions(
          Join(output_dir, absl::StrCat(set.set_name, ".dev_predictions.tsv")),
          *glue_.spec, GluePredictions(examples)));
      TaskMetrics metrics;
      metrics.task = data_.info->dev_set_keys[d];
      metrics.metrics = InRecordUnits(Score(examples));
      metrics.examples = std::move(examples);
      results.push_back(std::move(metrics));
    }
    for (size_t t = 0; t < glue_.test.size(); ++t) {
      ASSIGN_OR_RETURN(const reports::DevExamples examples,
                       Predict(tuner, glue_.test[t].examples));
      RETURN_IF_ERROR(WriteGluePredictions(
          Join(output_dir, absl::StrCat("test_", glue_.test_files[t])),
          *glue_.spec, GluePredictions(examples)));
    }
    return results;
  }

  absl::StatusOr<std::map<std::string, double>> EvaluateTune(
      Finetuner* tuner) const override {
    ASSIGN_OR_RETURN(const reports::DevExamples examples,
                     Predict(tuner, glue_.tune));
    return InRecordUnits(Score(examples));
  }

 private:
  // The model's prediction for each of `examples`, with the gold answers.
  absl::StatusOr<reports::DevExamples> Predict(
      Finetuner* tuner, const std::vector<ClassificationExample>& set) const {
    ASSIGN_OR_RETURN(const std::vector<float> logits,
                     tuner->PredictClassification(set));
    const int labels = glue_.spec->num_labels;
    reports::DevExamples examples;
    examples.kind = glue_.spec->is_regression
                        ? reports::DevExampleKind::kScores
                        : reports::DevExampleKind::kLabels;
    for (size_t i = 0; i < set.size(); ++i) {
      examples.ids.push_back(set[i].guid);
      if (glue_.spec->is_regression) {
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
      if (glue_.spec->is_regression) {
        p.score = examples.predicted_scores[i];
      } else {
        p.label = examples.predicted_labels[i];
      }
      predictions.push_back(p);
    }
    return predictions;
  }

  GlueScores Score(const reports::DevExamples& examples) const {
    return glue_.spec->is_regression
               ? ScoreGlueRegression(*glue_.spec, examples.gold_scores,
                                     examples.predicted_scores)
               : ScoreGlueClassification(*glue_.spec, examples.gold_labels,
                                         examples.predicted_labels);
  }

  // Train's majority class (its mean score for STS-B) on every dev set,
  // through the scorer Evaluate uses.
  absl::StatusOr<std::vector<TrivialMetrics>> ScoreTrivial() const {
    std::vector<TrivialMetrics> results;
    for (size_t d = 0; d < glue_.dev.size(); ++d) {
      const GlueEncodedSet& set = glue_.dev[d];
      if (set.examples.empty()) {
        return absl::InvalidArgumentError(absl::StrCat(
            set.set_name, ": no dev examples to score the trivial predictor"));
      }
      TrivialMetrics trivial;
      trivial.task = data_.info->dev_set_keys[d];
      if (glue_.spec->is_regression) {
        ASSIGN_OR_RETURN(const MeanScore mean, FitMeanScore(glue_.train));
        std::vector<double> gold;
        for (const ClassificationExample& example : set.examples) {
          gold.push_back(example.score);
        }
        trivial.metrics = InRecordUnits(ScoreGlueRegression(
            *glue_.spec, gold, std::vector<double>(gold.size(), mean.score)));
        // A constant's Pearson and Spearman are 0/0 (NaN); records hold
        // finite numbers only, and 0 is what a constant earns.
        for (auto& [name, value] : trivial.metrics) {
          if (!std::isfinite(value)) value = 0.0;
        }
        trivial.predictor = mean.predictor;
      } else {
        ASSIGN_OR_RETURN(const MajorityClass majority,
                         FitMajorityClass(glue_.train, glue_.spec->labels));
        std::vector<int32_t> gold;
        for (const ClassificationExample& example : set.examples) {
          gold.push_back(example.label);
        }
        trivial.metrics = InRecordUnits(ScoreGlueClassification(
            *glue_.spec, gold,
            std::vector<int32_t>(gold.size(), majority.label)));
        trivial.predictor = majority.predictor;
        if (!glue_.train_pairs.empty() &&
            glue_.dev_pairs[d].size() == set.examples.size()) {
          ASSIGN_OR_RETURN(
              const WordOverlapClassifier overlap,
              FitWordOverlap(glue_.train_pairs, glue_.spec->labels));
          std::vector<int32_t> predicted;
          for (const LabelledPair& pair : glue_.dev_pairs[d]) {
            predicted.push_back(overlap.Predict(pair.text_a, pair.text_b));
          }
          trivial.baselines.push_back({overlap.predictor,
                                       InRecordUnits(ScoreGlueClassification(
                                           *glue_.spec, gold, predicted)),
                                       kWordOverlapBaseline});
        }
      }
      results.push_back(std::move(trivial));
    }
    return results;
  }

  const GlueTaskData& glue_;
};

// ---- SQuAD v1.1 / v2.0 and the derived span task ---------------------------

class SquadTask : public FinetuneTask {
 public:
  SquadTask(FinetuneTaskData data, const FullTokenizer& tokenizer)
      : FinetuneTask(std::move(data)),
        squad_(std::get<SquadTaskData>(data_.sets)),
        tokenizer_(tokenizer) {
    trivial_ = ScoreTrivial(squad_.train_answer_words);
  }

  TrainingSet Train() const override {
    return TrainingSet::Spans(&squad_.train);
  }

  absl::StatusOr<std::vector<TaskMetrics>> Evaluate(
      Finetuner* tuner, const std::string& output_dir) const override {
    ASSIGN_OR_RETURN(std::vector<SquadPrediction> predictions,
                     Decode(tuner, squad_.dev, squad_.dev_features));
    const SquadGold gold = ToSquadGold(squad_.dev);
    TaskMetrics metrics;
    metrics.task = data_.info->dev_set_keys.front();
    ASSIGN_OR_RETURN(metrics.metrics, Score(squad_.dev, &predictions));
    if (squad_.v2) {
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
    for (const SquadExample& example : squad_.dev.examples) {
      article_of[example.qid] =
          squad_.dev.paragraphs[example.paragraph_index].article;
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
                     Decode(tuner, squad_.tune, squad_.tune_features));
    return Score(squad_.tune, &predictions);
  }

 private:
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
    decode.version_2_with_negative = squad_.v2;
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
    if (!squad_.v2) {
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
    if (squad_.dev.examples.empty()) {
      return absl::InvalidArgumentError(
          absl::StrCat(squad_.dev.source,
                       ": no dev questions to score the trivial predictor"));
    }
    TrivialMetrics trivial;
    trivial.task = data_.info->dev_set_keys.front();
    SquadPredictionMap predictions;
    if (!squad_.v2) {
      ASSIGN_OR_RETURN(const FirstWords rule,
                       FitFirstWords(std::move(train_answer_words)));
      for (const SquadExample& example : squad_.dev.examples) {
        predictions[example.qid] = rule.Predict(
            squad_.dev.paragraphs[example.paragraph_index].doc_tokens);
      }
      trivial.predictor = rule.predictor;
    } else {
      for (const SquadExample& example : squad_.dev.examples) {
        predictions[example.qid] = "";
      }
      trivial.predictor = kAlwaysNoAnswerPredictor;
    }
    ASSIGN_OR_RETURN(const SquadMetrics scores,
                     EvaluateSquad(ToSquadGold(squad_.dev), predictions,
                                   nullptr, SquadEvalOptions()));
    trivial.metrics["exact_match"] = scores.exact;
    trivial.metrics["f1"] = scores.f1;
    if (squad_.v2) {
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
      for (const SquadExample& example : squad_.dev.examples) {
        const std::vector<std::string>& doc_tokens =
            squad_.dev.paragraphs[example.paragraph_index].doc_tokens;
        answers[example.qid] =
            absl::string_view(name) == kStringAlignmentBaseline
                ? AlignSpan(example.question_text, doc_tokens)
                : FrequentName(example.question_text, doc_tokens);
      }
      ASSIGN_OR_RETURN(const SquadMetrics scored,
                       EvaluateSquad(ToSquadGold(squad_.dev), answers, nullptr,
                                     SquadEvalOptions()));
      trivial.baselines.push_back(
          {predictor,
           {{"exact_match", scored.exact}, {"f1", scored.f1}},
           name});
    }
    return std::vector<TrivialMetrics>{trivial};
  }

  const SquadTaskData& squad_;
  const FullTokenizer& tokenizer_;
};

// ---- SWAG and the derived four-way task ------------------------------------

class SwagTask : public FinetuneTask {
 public:
  explicit SwagTask(FinetuneTaskData data)
      : FinetuneTask(std::move(data)),
        swag_(std::get<SwagTaskData>(data_.sets)) {
    trivial_ = ScoreTrivial();
  }

  TrainingSet Train() const override {
    return TrainingSet::MultipleChoice(&swag_.train);
  }

  absl::StatusOr<std::vector<TaskMetrics>> Evaluate(
      Finetuner* tuner, const std::string& output_dir) const override {
    ASSIGN_OR_RETURN(const std::vector<int32_t> predicted,
                     Choices(tuner, swag_.dev));
    TaskMetrics metrics;
    metrics.examples.kind = reports::DevExampleKind::kLabels;
    std::string lines = "guid\tprediction\tlabel\n";
    for (size_t i = 0; i < swag_.dev.size(); ++i) {
      const int32_t best = predicted[i];
      metrics.examples.ids.push_back(swag_.dev[i].guid);
      metrics.examples.gold_labels.push_back(swag_.dev[i].label);
      metrics.examples.predicted_labels.push_back(best);
      absl::StrAppend(&lines, swag_.dev[i].guid, "\t", best, "\t",
                      swag_.dev[i].label, "\n");
    }
    RETURN_IF_ERROR(
        WriteFileAtomically(Join(output_dir, "dev_predictions.tsv"), lines));
    metrics.task = data_.info->dev_set_keys.front();
    metrics.metrics["accuracy"] = AccuracyPercent(swag_.dev, predicted);
    return std::vector<TaskMetrics>{metrics};
  }

  absl::StatusOr<std::map<std::string, double>> EvaluateTune(
      Finetuner* tuner) const override {
    ASSIGN_OR_RETURN(const std::vector<int32_t> predicted,
                     Choices(tuner, swag_.tune));
    return std::map<std::string, double>{
        {"accuracy", AccuracyPercent(swag_.tune, predicted)}};
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
    if (swag_.dev.empty()) {
      return absl::InvalidArgumentError(absl::StrCat(
          data_.info->key, ": no dev examples to score the trivial predictor"));
    }
    ASSIGN_OR_RETURN(const MajorityChoice rule,
                     FitMajorityChoice(swag_.train, kSwagNumChoices));
    TrivialMetrics trivial;
    trivial.task = data_.info->dev_set_keys.front();
    trivial.predictor = rule.predictor;
    trivial.metrics["accuracy"] = AccuracyPercent(
        swag_.dev, std::vector<int32_t>(swag_.dev.size(), rule.choice));
    return std::vector<TrivialMetrics>{trivial};
  }

  const SwagTaskData& swag_;
};

}  // namespace

absl::StatusOr<std::unique_ptr<FinetuneTask>> LoadFinetuneTask(
    FinetuneTaskId task, const FinetuneDataOptions& options,
    const FullTokenizer& tokenizer, const TaskSources& sources) {
  ASSIGN_OR_RETURN(FinetuneTaskData data,
                   LoadFinetuneTaskData(task, options, tokenizer, sources));
  switch (data.info->reader) {
    case TaskReader::kGlueTsv:
      return std::unique_ptr<FinetuneTask>(new GlueTask(std::move(data)));
    case TaskReader::kSquadJson:
      return std::unique_ptr<FinetuneTask>(
          new SquadTask(std::move(data), tokenizer));
    case TaskReader::kSwagCsv:
      return std::unique_ptr<FinetuneTask>(new SwagTask(std::move(data)));
  }
  return absl::InternalError(
      absl::StrCat("task ", data.info->key, ": no reader"));
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

}  // namespace experiments
}  // namespace bertlab
