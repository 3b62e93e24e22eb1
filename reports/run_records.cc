#include "reports/run_records.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <limits>
#include <map>
#include <set>
#include <system_error>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "common/file.h"
#include "common/status_macros.h"
#include "nlohmann/json.hpp"

namespace bertlab {
namespace reports {
namespace {

using Json = nlohmann::json;

const char* TypeName(const Json& value) {
  if (value.is_number_integer() || value.is_number_unsigned()) {
    return "integer";
  }
  return value.type_name();
}

// Reads the fields of one JSON object, remembering which it used so that
// Finish() can reject the rest. `prefix` is the field path ("model.").
class ObjectReader {
 public:
  ObjectReader(const Json& object, std::string path, std::string prefix)
      : object_(object), path_(std::move(path)), prefix_(std::move(prefix)) {}

  absl::Status Error(absl::string_view field, absl::string_view what) const {
    return absl::InvalidArgumentError(
        absl::StrCat(path_, ": field \"", prefix_, field, "\": ", what));
  }

  const Json* Find(const std::string& field) {
    used_.insert(field);
    auto it = object_.find(field);
    return it == object_.end() ? nullptr : &*it;
  }

  bool Has(const std::string& field) const {
    return object_.find(field) != object_.end();
  }

  absl::StatusOr<const Json*> Required(const std::string& field) {
    const Json* value = Find(field);
    if (value == nullptr) return Error(field, "missing (required)");
    return value;
  }

  absl::StatusOr<std::string> String(const std::string& field,
                                     bool allow_empty = false) {
    ASSIGN_OR_RETURN(const Json* value, Required(field));
    return StringValue(field, *value, allow_empty);
  }

  absl::StatusOr<std::string> StringValue(const std::string& field,
                                          const Json& value,
                                          bool allow_empty) const {
    if (!value.is_string()) {
      return Error(field,
                   absl::StrCat("expected a string, got ", TypeName(value)));
    }
    std::string text = value.get<std::string>();
    if (!allow_empty && text.empty()) return Error(field, "must not be empty");
    return text;
  }

  absl::StatusOr<double> Number(const std::string& field) {
    ASSIGN_OR_RETURN(const Json* value, Required(field));
    return NumberValue(field, *value);
  }

  absl::StatusOr<double> NumberValue(const std::string& field,
                                     const Json& value) const {
    if (!value.is_number()) {
      return Error(field,
                   absl::StrCat("expected a number, got ", TypeName(value)));
    }
    const double number = value.get<double>();
    if (!std::isfinite(number)) return Error(field, "must be finite");
    return number;
  }

  absl::StatusOr<int64_t> Integer(const std::string& field) {
    ASSIGN_OR_RETURN(const Json* value, Required(field));
    if (!value->is_number_integer()) {
      return Error(field,
                   absl::StrCat("expected an integer, got ", TypeName(*value),
                                value->is_number() ? " " + value->dump() : ""));
    }
    return value->get<int64_t>();
  }

  absl::StatusOr<bool> Bool(const std::string& field) {
    ASSIGN_OR_RETURN(const Json* value, Required(field));
    if (!value->is_boolean()) {
      return Error(field, absl::StrCat("expected true or false, got ",
                                       TypeName(*value)));
    }
    return value->get<bool>();
  }

  absl::StatusOr<const Json*> Object(const std::string& field) {
    ASSIGN_OR_RETURN(const Json* value, Required(field));
    if (!value->is_object()) {
      return Error(field,
                   absl::StrCat("expected an object, got ", TypeName(*value)));
    }
    return value;
  }

  absl::Status OneOf(const std::string& field, const std::string& value,
                     const std::vector<std::string>& allowed) const {
    if (std::find(allowed.begin(), allowed.end(), value) != allowed.end()) {
      return absl::OkStatus();
    }
    return Error(field, absl::StrCat("\"", value, "\" is not one of ",
                                     absl::StrJoin(allowed, ", ")));
  }

  // Rejects fields nobody asked for.
  absl::Status Finish() const {
    for (auto it = object_.begin(); it != object_.end(); ++it) {
      if (used_.count(it.key()) == 0) {
        return Error(it.key(),
                     "unknown field (docs/RUN_RECORDS.md lists the "
                     "fields of schema 1)");
      }
    }
    return absl::OkStatus();
  }

 private:
  const Json& object_;
  std::string path_;
  std::string prefix_;
  std::set<std::string> used_;
};

bool IsLowerHex(absl::string_view text) {
  return !text.empty() && std::all_of(text.begin(), text.end(), [](char c) {
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
  });
}

bool IsTaskKey(absl::string_view text) {
  return !text.empty() && std::all_of(text.begin(), text.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_';
  });
}

absl::Status ParseModel(const Json& json, const std::string& path,
                        ModelSize& model) {
  ObjectReader reader(json, path, "model.");
  ASSIGN_OR_RETURN(model.name, reader.String("size"));
  for (auto [field, target] :
       {std::pair<const char*, int64_t*>{"num_hidden_layers", &model.layers},
        {"hidden_size", &model.hidden},
        {"num_attention_heads", &model.heads}}) {
    ASSIGN_OR_RETURN(const int64_t value, reader.Integer(field));
    if (value <= 0 || value > (1 << 20)) {
      return reader.Error(field, absl::StrCat("must be positive, got ", value));
    }
    *target = value;
  }
  return reader.Finish();
}

absl::Status ParseExecution(const Json& json, const std::string& path,
                            RunExecution& execution) {
  ObjectReader reader(json, path, "execution.");
  ASSIGN_OR_RETURN(const int64_t threads, reader.Integer("threads"));
  if (threads < 1 || threads > (1 << 20)) {
    return reader.Error("threads",
                        absl::StrCat("must be positive, got ", threads));
  }
  execution.threads = static_cast<int>(threads);
  ASSIGN_OR_RETURN(execution.pretraining_device,
                   reader.String("pretraining_device"));
  ASSIGN_OR_RETURN(execution.pretraining_precision,
                   reader.String("pretraining_precision"));
  RETURN_IF_ERROR(reader.OneOf("pretraining_precision",
                               execution.pretraining_precision,
                               {"fp32", "bf16"}));
  if (reader.Has("cpu_gemm")) {
    ASSIGN_OR_RETURN(execution.cpu_gemm, reader.String("cpu_gemm"));
    RETURN_IF_ERROR(reader.OneOf("cpu_gemm", execution.cpu_gemm,
                                 {"openblas", "onednn", "onednn_bf16"}));
  }
  return reader.Finish();
}

absl::Status ParseCompute(const Json& json, const std::string& path,
                          PretrainingCompute& compute) {
  ObjectReader reader(json, path, "compute.");
  for (auto [field, target] :
       {std::pair<const char*, int64_t*>{"steps", &compute.steps},
        {"tokens", &compute.tokens},
        {"predicted_positions", &compute.predicted_positions}}) {
    ASSIGN_OR_RETURN(*target, reader.Integer(field));
    if (*target < 0) {
      return reader.Error(field, absl::StrCat("must be >= 0, got ", *target));
    }
  }
  ASSIGN_OR_RETURN(compute.flops, reader.Number("flops"));
  if (compute.flops < 0) {
    return reader.Error("flops",
                        absl::StrCat("must be >= 0, got ", compute.flops));
  }
  return reader.Finish();
}

absl::Status ParseTraining(const Json& json, const std::string& path,
                           FinetuneTraining& training) {
  ObjectReader reader(json, path, "training.");
  for (auto [field, target] :
       {std::pair<const char*, double*>{"first_step_loss",
                                        &training.first_step_loss},
        {"lowest_step_loss", &training.lowest_step_loss}}) {
    ASSIGN_OR_RETURN(*target, reader.Number(field));
    if (!(*target >= 0) || !std::isfinite(*target)) {
      return reader.Error(
          field, absl::StrCat("must be a finite loss >= 0, got ", *target));
    }
  }
  if (training.lowest_step_loss > training.first_step_loss) {
    return reader.Error(
        "lowest_step_loss",
        absl::StrCat(training.lowest_step_loss, " is above first_step_loss ",
                     training.first_step_loss, ", which it includes"));
  }
  return reader.Finish();
}

// "finetune full/mrpc lr 2e-05 restart 0 (run 3f2a9c0d)": which record of a
// file a message is about.
std::string DescribeRecord(const RunRecord& record) {
  std::string text = absl::StrCat(record.kind, " ", record.variant);
  if (record.is_cloze()) absl::StrAppend(&text, "/", record.task);
  if (record.is_finetune()) {
    absl::StrAppend(&text, "/", record.task, " lr ",
                    absl::StrFormat("%g", record.learning_rate), " restart ",
                    record.restart);
  }
  absl::StrAppend(&text, " (run ", record.run_id, ")");
  return text;
}

std::string Bound(double value) {
  return std::isinf(value) ? (value > 0 ? "inf" : "-inf")
                           : absl::StrFormat("%g", value);
}

// The metric's value against its range, with a little slack for the last
// bit of a mean (100 * 3 / 3 may come out as 100.00000000000001).
absl::Status CheckMetric(const RunRecord& record, absl::string_view prefix,
                         const std::string& name, double value) {
  const std::string where =
      absl::StrCat(record.path, ": record ", DescribeRecord(record),
                   ": field \"", prefix, name, "\": ");
  const MetricRange* range = FindMetricRange(name);
  if (range == nullptr) {
    return absl::InvalidArgumentError(
        absl::StrCat(where,
                     "not a metric of schema 1 (docs/RUN_RECORDS.md lists the "
                     "metric names and their units)"));
  }
  const auto slack = [](double bound) {
    return std::isinf(bound) ? 0.0 : 1e-9 * std::max(1.0, std::abs(bound));
  };
  if (value < range->min - slack(range->min) ||
      value > range->max + slack(range->max)) {
    return absl::InvalidArgumentError(absl::StrCat(
        where, absl::StrFormat("%g", value), " is outside [", Bound(range->min),
        ", ", Bound(range->max), "]: ", name, " is ", range->unit));
  }
  return absl::OkStatus();
}

// The trivial predictor's metrics: the same names and ranges as the
// record's own, and every metric the record has (a column reads both).
// A baseline (`prefix` "baselines[i].") has a name as well.
absl::Status ParseTrivial(const Json& json, const std::string& path,
                          const std::string& prefix, RunRecord& record,
                          TrivialBaseline& trivial) {
  ObjectReader reader(json, path, prefix);
  if (prefix != "trivial.") {
    ASSIGN_OR_RETURN(trivial.name, reader.String("name"));
    if (!IsTaskKey(trivial.name)) {
      return reader.Error("name", "must match [a-z0-9_]+");
    }
  }
  ASSIGN_OR_RETURN(trivial.predictor, reader.String("predictor"));
  ASSIGN_OR_RETURN(const Json* metrics, reader.Object("metrics"));
  for (auto it = metrics->begin(); it != metrics->end(); ++it) {
    const std::string field = absl::StrCat("metrics.", it.key());
    ASSIGN_OR_RETURN(const double value, reader.NumberValue(field, it.value()));
    RETURN_IF_ERROR(
        CheckMetric(record, absl::StrCat(prefix, "metrics."), it.key(), value));
    trivial.metrics[it.key()] = value;
  }
  if (trivial.metrics.count(record.primary_metric) == 0) {
    return reader.Error(
        absl::StrCat("metrics.", record.primary_metric),
        "missing: the trivial predictor must be scored on the primary metric");
  }
  return reader.Finish();
}

absl::Status ParseTimings(const Json& json, const std::string& path,
                          RunRecord& record) {
  ObjectReader reader(json, path, "timings.");
  ASSIGN_OR_RETURN(record.wall_seconds, reader.Number("wall_seconds"));
  if (record.wall_seconds < 0) {
    return reader.Error("wall_seconds", "must not be negative");
  }
  ASSIGN_OR_RETURN(record.started_at, reader.String("started_at"));
  ASSIGN_OR_RETURN(record.finished_at, reader.String("finished_at"));
  return reader.Finish();
}

}  // namespace

const MetricRange* FindMetricRange(absl::string_view name) {
  constexpr double kInf = std::numeric_limits<double>::infinity();
  static const auto* ranges =
      new std::map<std::string, MetricRange, std::less<>>{
          {"accuracy", {0, 100, "a percentage"}},
          {"f1", {0, 100, "a percentage"}},
          {"exact_match", {0, 100, "a percentage"}},
          {"exact_match_at_0", {0, 100, "a percentage"}},
          {"f1_at_0", {0, 100, "a percentage"}},
          {"matthews", {-100, 100, "a correlation x100"}},
          {"pearson", {-100, 100, "a correlation x100"}},
          {"spearman", {-100, 100, "a correlation x100"}},
          {"mlm_accuracy", {0, 100, "a percentage"}},
          {"lm_accuracy", {0, 100, "a percentage"}},
          {"nsp_accuracy", {0, 100, "a percentage"}},
          {"mlm_perplexity", {1, kInf, "a perplexity (exp of a loss >= 0)"}},
          {"lm_perplexity", {1, kInf, "a perplexity (exp of a loss >= 0)"}},
          {"unigram_perplexity",
           {1, kInf, "a perplexity (exp of a loss >= 0)"}},
          {"final_loss", {0, kInf, "a cross-entropy loss"}},
          {"tokens_per_second", {0, kInf, "a throughput"}},
          {"null_threshold", {-kInf, kInf, "a score difference"}},
      };
  const auto it = ranges->find(name);
  return it == ranges->end() ? nullptr : &it->second;
}

bool IsScaleName(absl::string_view scale) {
  return std::find(std::begin(kScaleNames), std::end(kScaleNames), scale) !=
         std::end(kScaleNames);
}

std::string ScaleNamesText() {
  std::string text;
  const size_t n = std::size(kScaleNames);
  for (size_t i = 0; i < n; ++i) {
    absl::StrAppend(&text, i == 0 ? "" : (i + 1 == n ? " or " : ", "),
                    kScaleNames[i]);
  }
  return text;
}

std::string RunRecord::column_task() const {
  if (!scores_task()) return "pretrain";
  return stands_in_for.empty() ? task : stands_in_for;
}

namespace {

// "tune": the tune split's score and the epoch it chose.
absl::Status ParseTune(const Json& json, const std::string& file,
                       const RunRecord& record, TuneScore& score) {
  ObjectReader tune_reader(json, file, "tune.");
  ASSIGN_OR_RETURN(score.examples, tune_reader.Integer("examples"));
  if (score.examples < 1) {
    return tune_reader.Error("examples", "must be at least 1");
  }
  ASSIGN_OR_RETURN(const Json* metrics, tune_reader.Object("metrics"));
  for (auto it = metrics->begin(); it != metrics->end(); ++it) {
    ASSIGN_OR_RETURN(const double value,
                     tune_reader.NumberValue(absl::StrCat("metrics.", it.key()),
                                             it.value()));
    RETURN_IF_ERROR(CheckMetric(record, "tune.metrics.", it.key(), value));
    score.metrics[it.key()] = value;
  }
  if (score.metrics.count(record.primary_metric) == 0) {
    return tune_reader.Error(
        absl::StrCat("metrics.", record.primary_metric),
        "missing: the tune split chooses by the primary metric");
  }
  if (tune_reader.Has("epoch")) {
    ASSIGN_OR_RETURN(score.epoch, tune_reader.Integer("epoch"));
    if (score.epoch < 1) {
      return tune_reader.Error("epoch", "must be at least 1 (1-based)");
    }
  }
  return tune_reader.Finish();
}

// A field that must hold an array of objects; the error names the field or
// the element ("baselines[2]").
absl::Status CheckArrayOfObjects(const ObjectReader& reader,
                                 absl::string_view field, const Json& value) {
  if (!value.is_array()) {
    return reader.Error(
        field, absl::StrCat("expected an array, got ", TypeName(value)));
  }
  for (size_t i = 0; i < value.size(); ++i) {
    if (!value[i].is_object()) {
      return reader.Error(
          absl::StrCat(field, "[", i, "]"),
          absl::StrCat("expected an object, got ", TypeName(value[i])));
    }
  }
  return absl::OkStatus();
}

// "baselines": the predictors scored beside the run, each named once.
absl::Status ParseBaselines(const ObjectReader& reader, const Json* baselines,
                            const std::string& file, RunRecord& record) {
  RETURN_IF_ERROR(CheckArrayOfObjects(reader, "baselines", *baselines));
  for (size_t i = 0; i < baselines->size(); ++i) {
    const std::string prefix = absl::StrCat("baselines[", i, "].");
    RETURN_IF_ERROR(ParseTrivial((*baselines)[i], file, prefix, record,
                                 record.baselines.emplace_back()));
    for (size_t j = 0; j + 1 < record.baselines.size(); ++j) {
      if (record.baselines[j].name == record.baselines.back().name) {
        return reader.Error(absl::StrCat(prefix, "name"),
                            absl::StrCat("\"", record.baselines.back().name,
                                         "\" appears twice"));
      }
    }
  }
  return absl::OkStatus();
}

// "eval_curve": held-out points at rising steps.
absl::Status ParseEvalCurve(const ObjectReader& reader, const Json* curve,
                            const std::string& file, RunRecord& record) {
  RETURN_IF_ERROR(CheckArrayOfObjects(reader, "eval_curve", *curve));
  for (size_t i = 0; i < curve->size(); ++i) {
    const std::string where = absl::StrCat("eval_curve[", i, "]");
    ObjectReader point_reader((*curve)[i], file, where + ".");
    EvalPoint point;
    ASSIGN_OR_RETURN(point.step, point_reader.Integer("step"));
    ASSIGN_OR_RETURN(point.perplexity, point_reader.Number("perplexity"));
    ASSIGN_OR_RETURN(point.accuracy, point_reader.Number("accuracy"));
    RETURN_IF_ERROR(point_reader.Finish());
    if (point.step < 0 || (!record.eval_curve.empty() &&
                           point.step <= record.eval_curve.back().step)) {
      return reader.Error(
          where + ".step",
          absl::StrCat(point.step, ": steps must be >= 0 and rise"));
    }
    if (!(point.perplexity >= 1)) {
      return reader.Error(
          where + ".perplexity",
          absl::StrCat(point.perplexity, " is below 1: not a perplexity"));
    }
    if (!(point.accuracy >= 0 && point.accuracy <= 100)) {
      return reader.Error(where + ".accuracy",
                          absl::StrCat(point.accuracy,
                                       " is outside [0, 100] (a "
                                       "percentage)"));
    }
    record.eval_curve.push_back(point);
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<RunRecord> ParseRunRecord(absl::string_view json_text,
                                         absl::string_view path) {
  const std::string file(path);
  Json json;
  try {
    json = Json::parse(json_text.begin(), json_text.end());
  } catch (const Json::parse_error& error) {
    return absl::InvalidArgumentError(
        absl::StrCat(file, ": not valid JSON: ", error.what()));
  }
  if (!json.is_object()) {
    return absl::InvalidArgumentError(absl::StrCat(
        file, ": expected a JSON object at the top, got ", TypeName(json)));
  }
  RunRecord record;
  record.path = file;
  ObjectReader reader(json, file, "");

  ASSIGN_OR_RETURN(const int64_t schema, reader.Integer("schema"));
  if (schema != kRunRecordSchema) {
    return reader.Error(
        "schema", absl::StrCat("this reader knows schema ", kRunRecordSchema,
                               ", the file "
                               "has ",
                               schema));
  }
  record.schema = static_cast<int>(schema);
  ASSIGN_OR_RETURN(record.experiment, reader.String("experiment"));
  ASSIGN_OR_RETURN(record.table, reader.String("table"));
  RETURN_IF_ERROR(reader.OneOf(
      "table", record.table,
      {"table1", "table2", "table3", "table4", "table5", "table6", "table8"}));
  ASSIGN_OR_RETURN(record.scale, reader.String("scale"));
  RETURN_IF_ERROR(
      reader.OneOf("scale", record.scale,
                   std::vector<std::string>(std::begin(kScaleNames),
                                            std::end(kScaleNames))));
  ASSIGN_OR_RETURN(record.run_id, reader.String("run_id"));
  if (!IsLowerHex(record.run_id)) {
    return reader.Error("run_id", absl::StrCat("expected lowercase hex, got \"",
                                               record.run_id, "\""));
  }
  ASSIGN_OR_RETURN(record.kind, reader.String("kind"));
  RETURN_IF_ERROR(
      reader.OneOf("kind", record.kind, {"pretrain", "finetune", "cloze"}));
  ASSIGN_OR_RETURN(record.variant, reader.String("variant"));
  if (const Json* value = reader.Find("row")) {
    ASSIGN_OR_RETURN(record.row, reader.StringValue("row", *value, false));
  }
  ASSIGN_OR_RETURN(record.variant_description,
                   reader.String("variant_description", true));
  ASSIGN_OR_RETURN(record.data_source, reader.String("data_source"));
  ASSIGN_OR_RETURN(record.derived, reader.Bool("derived"));

  const bool finetune = record.is_finetune();
  const bool scored = record.scores_task();
  // A field the record's kind does not have.
  const auto not_of_kind = [&](const char* field, const char* who) {
    return reader.Error(
        field,
        absl::StrCat("only ", who, " have it (kind is \"", record.kind, "\")"));
  };
  constexpr char kFinetuneOnly[] = "fine-tuning records";
  constexpr char kScoredOnly[] = "fine-tuning and cloze records";
  constexpr char kPretrainOnly[] = "pre-training records";
  for (const char* field :
       {"stands_in_for", "learning_rate", "restart", "seed"}) {
    if (!finetune && reader.Has(field))
      return not_of_kind(field, kFinetuneOnly);
  }
  for (const char* field : {"task", "primary_metric"}) {
    if (!scored && reader.Has(field)) return not_of_kind(field, kScoredOnly);
  }
  if (scored) {
    ASSIGN_OR_RETURN(record.task, reader.String("task"));
    if (!IsTaskKey(record.task)) {
      return reader.Error("task", absl::StrCat("\"", record.task,
                                               "\" is not a lowercase task "
                                               "key ([a-z0-9_]+)"));
    }
    ASSIGN_OR_RETURN(record.primary_metric, reader.String("primary_metric"));
  }
  if (finetune) {
    if (const Json* value = reader.Find("stands_in_for")) {
      ASSIGN_OR_RETURN(record.stands_in_for,
                       reader.StringValue("stands_in_for", *value, false));
      if (!record.derived) {
        return reader.Error("stands_in_for",
                            "only derived records (\"derived\": true) stand "
                            "in for another task");
      }
      if (!IsTaskKey(record.stands_in_for)) {
        return reader.Error("stands_in_for", "not a lowercase task key");
      }
    }
    ASSIGN_OR_RETURN(record.learning_rate, reader.Number("learning_rate"));
    if (record.learning_rate <= 0) {
      return reader.Error(
          "learning_rate",
          absl::StrCat("must be positive, got ", record.learning_rate));
    }
    ASSIGN_OR_RETURN(const int64_t restart, reader.Integer("restart"));
    if (restart < 0 || restart > 1000000) {
      return reader.Error("restart",
                          absl::StrCat("must be in [0, 1e6], got ", restart));
    }
    record.restart = static_cast<int>(restart);
    ASSIGN_OR_RETURN(record.seed, reader.Integer("seed"));
  }

  ASSIGN_OR_RETURN(const Json* metrics, reader.Object("metrics"));
  for (auto it = metrics->begin(); it != metrics->end(); ++it) {
    const std::string field = absl::StrCat("metrics.", it.key());
    ASSIGN_OR_RETURN(const double value, reader.NumberValue(field, it.value()));
    RETURN_IF_ERROR(CheckMetric(record, "metrics.", it.key(), value));
    record.metrics[it.key()] = value;
  }
  if (scored && record.metrics.count(record.primary_metric) == 0) {
    return reader.Error(
        absl::StrCat("metrics.", record.primary_metric),
        "missing: primary_metric names it, so metrics must hold it");
  }
  if (record.metrics.empty()) return reader.Error("metrics", "is empty");
  if (reader.Has("trivial")) {
    if (!scored) return not_of_kind("trivial", kScoredOnly);
    ASSIGN_OR_RETURN(const Json* trivial, reader.Object("trivial"));
    RETURN_IF_ERROR(ParseTrivial(*trivial, file, "trivial.", record,
                                 record.trivial.emplace()));
  }
  if (reader.Has("tune")) {
    if (!finetune) return not_of_kind("tune", kFinetuneOnly);
    ASSIGN_OR_RETURN(const Json* tune, reader.Object("tune"));
    RETURN_IF_ERROR(ParseTune(*tune, file, record, record.tune.emplace()));
  }
  if (reader.Has("baselines")) {
    if (!scored) return not_of_kind("baselines", kScoredOnly);
    RETURN_IF_ERROR(
        ParseBaselines(reader, reader.Find("baselines"), file, record));
  }

  ASSIGN_OR_RETURN(const Json* timings, reader.Object("timings"));
  RETURN_IF_ERROR(ParseTimings(*timings, file, record));
  ASSIGN_OR_RETURN(record.code_version, reader.String("code_version"));
  ASSIGN_OR_RETURN(const Json* hashes, reader.Object("data_hashes"));
  for (auto it = hashes->begin(); it != hashes->end(); ++it) {
    const std::string field = absl::StrCat("data_hashes.", it.key());
    ASSIGN_OR_RETURN(std::string hash,
                     reader.StringValue(field, it.value(), false));
    if (hash.size() != 64 || !IsLowerHex(hash)) {
      return reader.Error(field, absl::StrCat("expected a sha256 as 64 "
                                              "lowercase hex digits, got \"",
                                              hash, "\""));
    }
    record.data_hashes[it.key()] = std::move(hash);
  }
  ASSIGN_OR_RETURN(const Json* model, reader.Object("model"));
  RETURN_IF_ERROR(ParseModel(*model, file, record.model));
  if (reader.Has("compute")) {
    if (scored) return not_of_kind("compute", kPretrainOnly);
    ASSIGN_OR_RETURN(const Json* compute, reader.Object("compute"));
    RETURN_IF_ERROR(ParseCompute(*compute, file, record.compute.emplace()));
  }
  if (reader.Has("training")) {
    if (!finetune) return not_of_kind("training", kFinetuneOnly);
    ASSIGN_OR_RETURN(const Json* training, reader.Object("training"));
    RETURN_IF_ERROR(ParseTraining(*training, file, record.training.emplace()));
  }
  if (const Json* curve = reader.Find("eval_curve")) {
    if (scored) return not_of_kind("eval_curve", kPretrainOnly);
    RETURN_IF_ERROR(ParseEvalCurve(reader, curve, file, record));
  }
  if (reader.Has("execution")) {
    ASSIGN_OR_RETURN(const Json* execution, reader.Object("execution"));
    RETURN_IF_ERROR(
        ParseExecution(*execution, file, record.execution.emplace()));
  }
  if (const Json* warnings = reader.Find("warnings")) {
    if (!warnings->is_array()) {
      return reader.Error("warnings", absl::StrCat("expected an array, got ",
                                                   TypeName(*warnings)));
    }
    for (size_t i = 0; i < warnings->size(); ++i) {
      ASSIGN_OR_RETURN(std::string warning,
                       reader.StringValue(absl::StrCat("warnings[", i, "]"),
                                          (*warnings)[i], false));
      record.warnings.push_back(std::move(warning));
    }
  }
  RETURN_IF_ERROR(reader.Finish());
  return record;
}

nlohmann::json RunRecordToJson(const RunRecord& record) {
  Json json = {
      {"schema", record.schema},
      {"experiment", record.experiment},
      {"table", record.table},
      {"scale", record.scale},
      {"run_id", record.run_id},
      {"kind", record.kind},
      {"variant", record.variant},
      {"variant_description", record.variant_description},
      {"data_source", record.data_source},
      {"derived", record.derived},
      {"metrics", record.metrics},
      {"timings",
       {{"wall_seconds", record.wall_seconds},
        {"started_at", record.started_at},
        {"finished_at", record.finished_at}}},
      {"code_version", record.code_version},
      {"data_hashes", record.data_hashes},
      {"model",
       {{"size", record.model.name},
        {"num_hidden_layers", record.model.layers},
        {"hidden_size", record.model.hidden},
        {"num_attention_heads", record.model.heads}}},
  };
  if (!record.row.empty()) json["row"] = record.row;
  if (record.scores_task()) {
    json["task"] = record.task;
    json["primary_metric"] = record.primary_metric;
  }
  if (record.is_finetune()) {
    if (!record.stands_in_for.empty()) {
      json["stands_in_for"] = record.stands_in_for;
    }
    json["learning_rate"] = record.learning_rate;
    json["restart"] = record.restart;
    json["seed"] = record.seed;
  }
  if (record.scores_task()) {
    if (record.trivial.has_value()) {
      json["trivial"] = {{"predictor", record.trivial->predictor},
                         {"metrics", record.trivial->metrics}};
    }
    if (!record.baselines.empty()) {
      Json baselines = Json::array();
      for (const TrivialBaseline& baseline : record.baselines) {
        baselines.push_back({{"name", baseline.name},
                             {"predictor", baseline.predictor},
                             {"metrics", baseline.metrics}});
      }
      json["baselines"] = std::move(baselines);
    }
  }
  if (record.tune.has_value()) {
    json["tune"] = {{"examples", record.tune->examples},
                    {"metrics", record.tune->metrics}};
    if (record.tune->epoch > 0) json["tune"]["epoch"] = record.tune->epoch;
  }
  if (record.compute.has_value()) {
    json["compute"] = {
        {"steps", record.compute->steps},
        {"tokens", record.compute->tokens},
        {"predicted_positions", record.compute->predicted_positions},
        {"flops", record.compute->flops}};
  }
  if (record.training.has_value()) {
    json["training"] = {
        {"first_step_loss", record.training->first_step_loss},
        {"lowest_step_loss", record.training->lowest_step_loss}};
  }
  if (!record.eval_curve.empty()) {
    nlohmann::json curve = nlohmann::json::array();
    for (const EvalPoint& point : record.eval_curve) {
      curve.push_back({{"step", point.step},
                       {"perplexity", point.perplexity},
                       {"accuracy", point.accuracy}});
    }
    json["eval_curve"] = std::move(curve);
  }
  if (record.execution.has_value()) {
    json["execution"] = {
        {"threads", record.execution->threads},
        {"pretraining_device", record.execution->pretraining_device},
        {"pretraining_precision", record.execution->pretraining_precision}};
    if (record.execution->cpu_gemm != "openblas") {
      json["execution"]["cpu_gemm"] = record.execution->cpu_gemm;
    }
  }
  if (!record.warnings.empty()) json["warnings"] = record.warnings;
  return json;
}

absl::StatusOr<std::vector<RunRecord>> LoadRunRecords(
    const std::string& runs_dir) {
  namespace fs = std::filesystem;
  std::error_code error;
  if (!fs::is_directory(runs_dir, error)) {
    return absl::NotFoundError(absl::StrCat(
        "runs directory ", runs_dir, " does not exist or is not a directory"));
  }
  std::vector<std::string> paths;
  fs::recursive_directory_iterator it(
      runs_dir, fs::directory_options::skip_permission_denied, error);
  for (; !error && it != fs::recursive_directory_iterator();
       it.increment(error)) {
    if (it->path().filename() == kRunRecordFileName &&
        it->is_regular_file(error)) {
      paths.push_back(it->path().string());
    }
  }
  if (error) {
    return absl::InternalError(
        absl::StrCat("listing ", runs_dir, ": ", error.message()));
  }
  if (paths.empty()) {
    return absl::NotFoundError(absl::StrCat("no run records (files named ",
                                            kRunRecordFileName,
                                            ") found below ", runs_dir));
  }
  std::sort(paths.begin(), paths.end());
  std::vector<RunRecord> records;
  records.reserve(paths.size());
  for (const std::string& path : paths) {
    ASSIGN_OR_RETURN(const std::string text, ReadFileToString(path));
    ASSIGN_OR_RETURN(RunRecord record, ParseRunRecord(text, path));
    if (record.scores_task()) {
      const std::string examples_path =
          (fs::path(path).parent_path() / kDevExamplesFileName).string();
      if (fs::is_regular_file(examples_path, error)) {
        ASSIGN_OR_RETURN(const std::string examples_text,
                         ReadFileToString(examples_path));
        ASSIGN_OR_RETURN(DevExamples examples,
                         ParseDevExamples(examples_text, examples_path));
        record.dev_examples =
            std::make_shared<const DevExamples>(std::move(examples));
      }
    }
    records.push_back(std::move(record));
  }
  return records;
}

bool RunCollapsed(const RunRecord& record) {
  if (record.dev_examples != nullptr &&
      PredictionsAreConstant(*record.dev_examples)) {
    return true;
  }
  return record.training.has_value() &&
         record.training->lowest_step_loss >= record.training->first_step_loss;
}

double Mean(const std::vector<double>& values) {
  if (values.empty()) return 0.0;
  double sum = 0.0;
  for (double value : values) sum += value;
  return sum / static_cast<double>(values.size());
}

double SampleStd(const std::vector<double>& values) {
  if (values.size() < 2) return 0.0;
  const double mean = Mean(values);
  double sum = 0.0;
  for (double value : values) sum += (value - mean) * (value - mean);
  return std::sqrt(sum / static_cast<double>(values.size() - 1));
}

absl::StatusOr<CellSelection> SelectBestLearningRate(
    const std::vector<const RunRecord*>& records, absl::string_view metric) {
  if (records.empty()) {
    return absl::InvalidArgumentError("no records to select from");
  }
  CellSelection cell;
  cell.primary_metric = records.front()->primary_metric;
  // learning rate -> (variant, restart) -> record; several variants are
  // one row's pre-training seeds (RunRecord::row).
  std::map<double, std::map<std::pair<std::string, int>, const RunRecord*>>
      grid;
  for (const RunRecord* record : records) {
    if (!record->scores_task()) {
      return absl::InvalidArgumentError(
          absl::StrCat(record->path, ": not a fine-tuning or cloze record"));
    }
    if (record->primary_metric != cell.primary_metric) {
      return absl::InvalidArgumentError(absl::StrCat(
          record->path, ": primary_metric \"", record->primary_metric,
          "\" differs from \"", cell.primary_metric, "\" in ",
          records.front()->path, " (same variant and task)"));
    }
    if (record->metrics.count(std::string(metric)) == 0) {
      return absl::InvalidArgumentError(
          absl::StrCat(record->path, ": field \"metrics.", metric,
                       "\": missing, and the report's column needs it"));
    }
    auto [slot, inserted] = grid[record->learning_rate].emplace(
        std::make_pair(record->variant, record->restart), record);
    if (!inserted) {
      return absl::InvalidArgumentError(absl::StrCat(
          record->path, " and ", slot->second->path, " are both restart ",
          record->restart, " at learning rate ", record->learning_rate,
          " of variant \"", record->variant, "\", task \"", record->task,
          "\"; remove the stale one (their run_ids: ", record->run_id, ", ",
          slot->second->run_id, ")"));
    }
  }
  cell.chosen_on_tune =
      std::all_of(records.begin(), records.end(), [&](const RunRecord* record) {
        return record->tune.has_value() &&
               record->tune->metrics.count(cell.primary_metric) > 0;
      });
  for (const auto& [learning_rate, restarts] : grid) {
    LearningRatePoint point;
    point.learning_rate = learning_rate;
    std::vector<double> primary;
    for (const auto& [key, record] : restarts) {
      point.variants.push_back(key.first);
      point.restarts.push_back(key.second);
      point.records.push_back(record);
      point.values.push_back(record->metrics.at(std::string(metric)));
      primary.push_back(cell.chosen_on_tune
                            ? record->tune->metrics.at(cell.primary_metric)
                            : record->metrics.at(cell.primary_metric));
    }
    point.mean = Mean(point.values);
    point.std = SampleStd(point.values);
    point.selection_mean = Mean(primary);
    cell.sweep.push_back(std::move(point));
  }
  cell.best = 0;
  for (size_t i = 1; i < cell.sweep.size(); ++i) {
    // Strictly better only, so ties keep the smaller learning rate.
    if (cell.sweep[i].selection_mean > cell.sweep[cell.best].selection_mean) {
      cell.best = static_cast<int>(i);
    }
  }
  return cell;
}

}  // namespace reports
}  // namespace bertlab
