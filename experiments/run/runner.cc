#include "experiments/run/runner.h"

#include <algorithm>
#include <chrono>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <sstream>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "common/check.h"
#include "common/directory.h"
#include "common/file.h"
#include "common/file_lock.h"
#include "common/fnv1a.h"
#include "common/parallel.h"
#include "common/run_lock.h"
#include "common/sha256.h"
#include "common/status_macros.h"
#include "experiments/cloze_evaluation.h"
#include "experiments/config_loader.h"
#include "experiments/epoch_choice.h"
#include "experiments/pretraining_corpus.h"
#include "experiments/pretraining_curve.h"
#include "experiments/pretraining_options.h"
#include "experiments/pretraining_seeds.h"
#include "experiments/run/pretraining_cache.h"
#include "experiments/run/run_plan.h"
#include "experiments/run/slurm_launcher.h"
#include "experiments/spec_conversions.h"
#include "experiments/task_evaluation.h"
#include "google/protobuf/text_format.h"
#include "model/bert/checkpoint.h"
#include "model/ops/cpu_gemm_engine.h"
#include "model/train/finetuner.h"
#include "model/train/pretrainer.h"
#include "nlohmann/json.hpp"
#include "reports/dev_examples.h"
#include "reports/render.h"
#include "reports/run_records.h"
#include "tasks/corpus/contamination_filter.h"
#include "tasks/default_tasks/default_tasks.h"
#include "tasks/finetune/finetune_task_table.h"
#include "tasks/full_tokenizer.h"
#include "tasks/pretraining_data/evaluation_text.h"
#include "tasks/pretraining_data/pretraining_data_prep.h"

namespace bertlab {
namespace experiments {
namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::system_clock;

std::string Join(const std::string& a, const std::string& b) {
  return (fs::path(a) / b).string();
}

absl::StatusOr<std::string> ReadText(const std::string& path) {
  std::ifstream in(path);
  if (!in) return absl::NotFoundError(absl::StrCat("cannot read ", path));
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

std::string IsoTime(Clock::time_point t) {
  const std::time_t seconds = Clock::to_time_t(t);
  std::tm utc;
  gmtime_r(&seconds, &utc);
  char text[32];
  std::strftime(text, sizeof(text), "%Y-%m-%dT%H:%M:%SZ", &utc);
  return text;
}

std::string ProtoText(const google::protobuf::Message& message) {
  std::string text;
  google::protobuf::TextFormat::PrintToString(message, &text);
  return text;
}

// What execution.json says of the fine-tuning run ids: "per_cell" since
// they stopped covering the task's whole grid (learning_rates, restarts). A
// directory without it holds ids of the grid kind, which this runner would
// rerun under new ids beside the old records.
constexpr char kExecutionRunIds[] = "per_cell";

// How the runs execute, beside what they are: a run's bits depend on the
// CPU GEMM engine (model/ops/cpu_gemm_engine.h), and on the device and
// precision (pretraining_device / pretraining_precision: the device of
// pre-training and fine-tuning alike, named as the records have always
// named it), so these are part of every run id, written into
// every record and kept in <output_dir>/execution.json. The thread count is
// recorded but is not part of the ids: a run's bits do not depend on it
// (model/ops/README.md, "Determinism"), which is what lets --jobs=N run
// runs side by side on a share of the threads each. The engine appears (in
// ids and JSON) only when it is not OpenBLAS, the engine of every run before
// the setting existed.
struct Execution {
  int threads = 1;
  std::string cpu_gemm = "openblas";
  std::string pretraining_device;
  std::string pretraining_precision;

  bool OpenBlasCpuGemm() const { return cpu_gemm == "openblas"; }
  nlohmann::json Json() const {
    nlohmann::json json = {{"pretraining_device", pretraining_device},
                           {"pretraining_precision", pretraining_precision},
                           {"finetune_run_ids", kExecutionRunIds}};
    if (!OpenBlasCpuGemm()) json["cpu_gemm"] = cpu_gemm;
    return json;
  }
  reports::RunExecution Record() const {
    reports::RunExecution record;
    record.threads = threads;
    record.pretraining_device = pretraining_device;
    record.pretraining_precision = pretraining_precision;
    record.cpu_gemm = cpu_gemm;
    return record;
  }
  // The flags that give these settings (the engine always named: the
  // default engine is not OpenBLAS any more).
  std::string Flags() const {
    return absl::StrCat("--cpu_gemm=", cpu_gemm,
                        " --device=", pretraining_device,
                        " --precision=", pretraining_precision);
  }
  // What fine-tuning run ids add for the device (fine-tuning runs on the
  // pre-training device): nothing on the cpu device (fine-tuning there is
  // FP32 whatever the precision).
  std::string FinetuneDeviceIdText() const {
    if (pretraining_device == "cpu") return "";
    return absl::StrCat("finetune_device ", pretraining_device,
                        "\nfinetune_precision ", pretraining_precision, "\n");
  }
  // What run ids add for the engine: nothing for OpenBLAS (see above).
  std::string CpuGemmIdText() const {
    return OpenBlasCpuGemm() ? "" : absl::StrCat("\ncpu_gemm ", cpu_gemm);
  }
};

// The newest checkpoint directory (checkpoints/step-N) of a pre-training run.
absl::StatusOr<std::string> NewestCheckpoint(const std::string& run_dir) {
  const std::string dir = Join(run_dir, "checkpoints");
  std::string best;
  std::error_code error;
  for (const auto& entry : fs::directory_iterator(dir, error)) {
    const std::string name = entry.path().filename().string();
    if (absl::StartsWith(name, "step-") && name > fs::path(best).filename()) {
      best = entry.path().string();
    }
  }
  if (best.empty()) {
    return absl::NotFoundError(absl::StrCat("no checkpoint in ", dir));
  }
  return best;
}

// The parts of a run record every kind shares.
reports::RunRecord RecordBase(
    const Experiment& experiment, const RunnerOptions& options,
    const Execution& execution, const ResolvedRun& run,
    const std::string& variant, const std::string& description,
    const std::string& run_id, const BertConfig& config) {
  reports::RunRecord record;
  record.experiment = experiment.name();
  record.table = experiment.report().table();
  record.scale = options.scale;
  record.run_id = run_id;
  record.variant = variant;
  for (const Variant& v : experiment.variants()) {
    // One of a row's pre-training seeds (Variant.row).
    if (v.name() == variant && VariantRow(v) != variant) record.row = v.row();
  }
  record.variant_description = description;
  record.code_version = options.code_version;
  record.execution = execution.Record();
  const ModelSpec& model = run.spec.model();
  record.model.name =
      model.has_size()
          ? model.size()
          : absl::StrCat("L", config.num_hidden_layers, "_H",
                         config.hidden_size, "_A", config.num_attention_heads);
  record.model.layers = config.num_hidden_layers;
  record.model.hidden = config.hidden_size;
  record.model.heads = config.num_attention_heads;
  return record;
}

void SetTimings(Clock::time_point start, Clock::time_point end,
                reports::RunRecord* record) {
  record->wall_seconds = std::chrono::duration<double>(end - start).count();
  record->started_at = IsoTime(start);
  record->finished_at = IsoTime(end);
}

// The metrics and timings of a pre-training result.json (the runner's own
// file in the cache) into `record`.
absl::Status ReadPretrainingResult(const nlohmann::json& result,
                                   const std::string& path,
                                   reports::RunRecord* record) {
  const auto corrupt = [&](const std::string& what) {
    return absl::DataLossError(absl::StrCat(
        path, ": ", what, "; delete its directory to train again"));
  };
  const nlohmann::json& metrics = result.at("metrics");
  if (!metrics.is_object()) return corrupt("\"metrics\" is not an object");
  for (auto it = metrics.begin(); it != metrics.end(); ++it) {
    if (!it.value().is_number()) {
      return corrupt(absl::StrCat("metric \"", it.key(), "\" is not a number"));
    }
    record->metrics[it.key()] = it.value().get<double>();
  }
  const auto timings = result.find("timings");
  const auto has = [&](const char* field, bool number) {
    const auto it = timings->find(field);
    return it != timings->end() && (number ? it->is_number() : it->is_string());
  };
  if (timings == result.end() || !timings->is_object() ||
      !has("wall_seconds", true) || !has("started_at", false) ||
      !has("finished_at", false)) {
    return corrupt("\"timings\" lacks wall_seconds, started_at or finished_at");
  }
  record->wall_seconds = (*timings)["wall_seconds"].get<double>();
  record->started_at = (*timings)["started_at"].get<std::string>();
  record->finished_at = (*timings)["finished_at"].get<std::string>();
  // Absent in results of runners before it, or of a run resumed from a
  // checkpoint that did not count it.
  const auto compute = result.find("compute");
  if (compute != result.end()) {
    const auto integer = [&](const char* field, int64_t* out) {
      const auto it = compute->find(field);
      if (it == compute->end() || !it->is_number_integer()) return false;
      *out = it->get<int64_t>();
      return true;
    };
    reports::PretrainingCompute& out = record->compute.emplace();
    const auto flops = compute->find("flops");
    if (!compute->is_object() || !integer("steps", &out.steps) ||
        !integer("tokens", &out.tokens) ||
        !integer("predicted_positions", &out.predicted_positions) ||
        flops == compute->end() || !flops->is_number()) {
      return corrupt(
          "\"compute\" lacks steps, tokens, predicted_positions or flops");
    }
    out.flops = flops->get<double>();
  }
  return absl::OkStatus();
}

absl::Status WriteRecord(const std::string& dir,
                         const reports::RunRecord& record) {
  RETURN_IF_ERROR(CreateDirectories(dir));
  return WriteFileAtomically(Join(dir, reports::kRunRecordFileName),
                             reports::RunRecordToJson(record).dump(2) + "\n");
}

nlohmann::json Timings(Clock::time_point start, Clock::time_point end) {
  return {{"wall_seconds", std::chrono::duration<double>(end - start).count()},
          {"started_at", IsoTime(start)},
          {"finished_at", IsoTime(end)}};
}

std::string LearningRateText(double lr) { return absl::StrFormat("%g", lr); }

double SecondsSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
      .count();
}

// Whether `dir` holds a run record anywhere below it.
bool HoldsRunRecords(const std::string& dir) {
  std::error_code error;
  fs::recursive_directory_iterator it(
      dir, fs::directory_options::skip_permission_denied, error);
  for (; !error && it != fs::recursive_directory_iterator();
       it.increment(error)) {
    if (it->path().filename() == "run.json") return true;
  }
  return false;
}

// One output directory holds one experiment's runs: the report and
// `render` read every record there, so the runs of another experiment (its
// experiment.textproto names it) are refused before any work.
absl::Status CheckOneExperiment(const std::string& output_dir,
                                const std::string& name) {
  const std::string path = Join(output_dir, "experiment.textproto");
  ASSIGN_OR_RETURN(const bool exists, PathExists(path));
  if (!exists) return absl::OkStatus();
  ASSIGN_OR_RETURN(const std::string text, ReadText(path));
  Experiment there;
  google::protobuf::TextFormat::Parser parser;
  parser.AllowPartialMessage(true);
  if (!parser.ParseFromString(text, &there) || there.name() == name) {
    return absl::OkStatus();
  }
  return absl::FailedPreconditionError(absl::StrCat(
      output_dir, " holds the runs of experiment \"", there.name(), "\" (",
      path, "), not of \"", name,
      "\": an output directory holds one experiment's runs; give another "
      "--output_dir"));
}

// Records `execution` in <output_dir>/execution.json, or checks it against
// what is there: one output directory holds runs made one way, else a rerun
// with another --cpu_gemm or --precision would make a second record of every
// run (new ids) and the report would refuse the duplicates after all the work.
absl::Status CheckExecution(const std::string& output_dir,
                            const Execution& execution) {
  const std::string path = Join(output_dir, "execution.json");
  ASSIGN_OR_RETURN(FileLock lock,
                   LockRunDirectory(Join(output_dir, "execution"),
                                    "the output directory's settings"));
  ASSIGN_OR_RETURN(const bool exists, PathExists(path));
  if (!exists) {
    if (HoldsRunRecords(output_dir)) {
      return absl::FailedPreconditionError(absl::StrCat(
          output_dir,
          " holds run records but no execution.json: they come from a runner "
          "whose run ids did not cover the thread count, device and "
          "precision, so this one cannot continue them; give another "
          "--output_dir, or move the old runs away"));
    }
    return WriteFileAtomically(path, execution.Json().dump(2) + "\n");
  }
  ASSIGN_OR_RETURN(const std::string text, ReadText(path));
  const nlohmann::json recorded = nlohmann::json::parse(text, nullptr, false);
  if (recorded == execution.Json()) return absl::OkStatus();
  if (recorded.is_object() && recorded.contains("threads")) {
    return absl::FailedPreconditionError(absl::StrCat(
        output_dir,
        " was made by a runner whose run ids included the thread "
        "count (",
        path,
        "), so this one cannot continue it: its runs would "
        "get new ids beside the old ones; give another --output_dir, or move "
        "the old runs away"));
  }
  if (recorded.is_object() && !recorded.contains("finetune_run_ids")) {
    nlohmann::json upgraded = recorded;
    upgraded["finetune_run_ids"] = kExecutionRunIds;
    if (upgraded == execution.Json()) {
      // Made the same way by a runner whose fine-tuning ids covered the
      // whole grid: its pre-training runs are still valid, its fine-tuning
      // records are not.
      const std::string finetune = Join(output_dir, "finetune");
      if (HoldsRunRecords(finetune)) {
        return absl::FailedPreconditionError(absl::StrCat(
            output_dir,
            " was made by a runner whose fine-tuning run ids covered each "
            "task's whole learning-rate grid and restarts (",
            path,
            " has no \"finetune_run_ids\"), so its fine-tuning runs would run "
            "again under new ids beside the old records: move ",
            finetune,
            " away and rerun (the pre-trainings are kept), or give another "
            "--output_dir"));
      }
      return WriteFileAtomically(path, upgraded.dump(2) + "\n");
    }
  }
  std::string before = "settings it cannot read";
  if (recorded.is_object() &&
      recorded.value("pretraining_device", nlohmann::json()).is_string() &&
      recorded.value("pretraining_precision", nlohmann::json()).is_string()) {
    Execution old;
    old.pretraining_device = recorded["pretraining_device"].get<std::string>();
    old.pretraining_precision =
        recorded["pretraining_precision"].get<std::string>();
    if (recorded.value("cpu_gemm", nlohmann::json()).is_string()) {
      old.cpu_gemm = recorded["cpu_gemm"].get<std::string>();
    }
    before = old.Flags();
  }
  return absl::FailedPreconditionError(absl::StrCat(
      output_dir, " was made with ", before, " (", path,
      "); this command runs with ", execution.Flags(),
      ", and a run's numbers depend on them: rerun with the settings of the "
      "directory, or give another --output_dir"));
}

class Runner {
 public:
  explicit Runner(const RunnerOptions& options)
      : options_(options),
        collective_(options.collective != nullptr ? options.collective
                                                  : SingleProcessCollective()),
        experiment_(options.experiment),
        slurm_(options.launcher == "slurm"),
        mode_(!options.run_id.empty()                           ? Mode::kOne
              : options.jobs > 1 || slurm_ || options.list_runs ? Mode::kPlan
                                                                : Mode::kAll) {}

  absl::StatusOr<RunnerSummary> Run() {
    const auto start = std::chrono::steady_clock::now();
    RETURN_IF_ERROR(CheckModeFlags());
    RETURN_IF_ERROR(Open());
    ASSIGN_OR_RETURN(const std::set<std::string> selected,
                     SelectedVariants(experiment_, options_.variants));
    RETURN_IF_ERROR(WalkRuns(selected));
    if (mode_ == Mode::kOne) {
      if (!matched_) {
        return absl::NotFoundError(absl::StrCat(
            "--run_id=", options_.run_id, ": no run of experiment ",
            experiment_.name(),
            options_.variants.empty()
                ? ""
                : absl::StrCat(" (variants ",
                               absl::StrJoin(options_.variants, ","), ")"),
            " has this id (a run's id is the run_id of its run.json; its "
            "directory name holds the first 8 digits)"));
      }
      summary_.seconds = SecondsSince(start);
      return summary_;
    }
    if (options_.list_runs) {
      for (const PlannedRun& run : planned_) {
        summary_.runs.push_back(
            {run.run_id, run.label, run.pretraining, run.done, run.needs});
      }
      summary_.seconds = SecondsSince(start);
      return summary_;
    }
    if (mode_ == Mode::kPlan) {
      RETURN_IF_ERROR(RunPlannedJobs());
      // The records come when the arrays have run.
      if (!summary_.submitted.empty()) {
        summary_.seconds = SecondsSince(start);
        return summary_;
      }
    }
    RETURN_IF_ERROR(WriteReport());
    summary_.seconds = SecondsSince(start);
    return summary_;
  }

 private:
  // The flags that decide how the runs run, checked against each other.
  absl::Status CheckModeFlags() const {
    if (options_.jobs < 1) {
      return absl::InvalidArgumentError(
          absl::StrCat("--jobs=", options_.jobs, ": must be at least 1"));
    }
    if (mode_ == Mode::kOne && options_.jobs > 1) {
      return absl::InvalidArgumentError(
          absl::StrCat("--run_id runs one run, so --jobs=", options_.jobs,
                       " has nothing to run side by side: drop one of them"));
    }
    if (options_.launcher != "local" && !slurm_) {
      return absl::InvalidArgumentError(absl::StrCat(
          "--launcher=", options_.launcher, ": use local or slurm"));
    }
    if (options_.list_runs &&
        (options_.jobs > 1 || slurm_ || !options_.run_id.empty())) {
      return absl::InvalidArgumentError(
          "--list_runs lists the runs and runs none: drop --jobs, "
          "--launcher=slurm and --run_id");
    }
    if (slurm_ && (options_.jobs > 1 || mode_ == Mode::kOne)) {
      return absl::InvalidArgumentError(
          "--launcher=slurm submits every run to Slurm: --jobs and --run_id "
          "are for running here");
    }
    return absl::OkStatus();
  }

  // The runs with their corpus, the execution settings, the output and cache
  // directories (checked to hold this experiment as it executes) and the
  // task sources.
  absl::Status Open() {
    runs_ = ResolveRuns(experiment_);
    // The corpus each run reads, with or without --data_dir, before anything
    // is keyed, prepared or recorded.
    RETURN_IF_ERROR(UseEffectiveCorpus(options_.data_dir, &runs_));
    execution_.threads = NumThreads();
    execution_.cpu_gemm = CpuGemmEngineName(ActiveCpuGemmEngine());
    execution_.pretraining_device = options_.pretraining_device;
    execution_.pretraining_precision =
        std::string(PrecisionName(options_.pretraining_precision));
    if (Follower() && mode_ != Mode::kOne) {
      return absl::InvalidArgumentError(absl::StrCat(
          "this is rank ", collective_->rank(), " of ", collective_->Describe(),
          ": data-parallel ranks run one run together; give its --run_id"));
    }
    if (!Follower()) {
      RETURN_IF_ERROR(CreateDirectories(options_.output_dir));
      if (!options_.cache_dir.empty()) {
        RETURN_IF_ERROR(CreateDirectories(options_.cache_dir));
      }
      RETURN_IF_ERROR(
          CheckOneExperiment(options_.output_dir, experiment_.name()));
      RETURN_IF_ERROR(CheckExecution(options_.output_dir, execution_));
    }
    // A single run (a job of --jobs=N) leaves the file to the command that
    // started it.
    if (mode_ != Mode::kOne) {
      RETURN_IF_ERROR(
          WriteFileAtomically(Join(options_.output_dir, "experiment.textproto"),
                              ProtoText(experiment_)));
    }
    sources_.data_dir = options_.data_dir;
    sources_.default_tasks_dir =
        Join(options_.output_dir,
             absl::StrCat("data/default_tasks-v", kDefaultTasksVersion));
    sources_.scratch_dir = Join(options_.output_dir, "data/tasks");

    if (mode_ != Mode::kOne) {
      Say(absl::StrCat("experiment ", experiment_.name(), " (", options_.scale,
                       "): ", runs_.size(), " variant(s), output ",
                       options_.output_dir,
                       options_.data_dir.empty()
                           ? ", no --data_dir: derived default tasks only"
                           : absl::StrCat(", data ", options_.data_dir)));
    }
    return absl::OkStatus();
  }

  // Every selected run in order: the pre-trainings, then each variant's
  // cloze test and fine-tuning grid (planned, run here or found done).
  absl::Status WalkRuns(const std::set<std::string>& selected) {
    for (const ResolvedRun& run : runs_) {
      if (NeedsPretraining(experiment_, run.name, selected)) {
        RETURN_IF_ERROR(Pretrain(run));
      }
    }
    // One pre-training run asked for and done: the fine-tuning walk (which
    // loads every task) is not needed.
    const bool pretraining_matched = matched_;
    for (size_t i = 0; i < runs_.size() && !pretraining_matched; ++i) {
      if (!selected.empty() && selected.count(runs_[i].name) == 0) continue;
      const bool matched_before = matched_;
      RETURN_IF_ERROR(Cloze(runs_[i], Description(i)));
      // kOne: the run was this variant's cloze test; its tasks are not
      // loaded.
      if (matched_ && !matched_before) continue;
      RETURN_IF_ERROR(Finetune(runs_[i], Description(i)));
    }
    return absl::OkStatus();
  }

  // The report of the runs this experiment has, under its lock.
  absl::Status WriteReport() {
    summary_.report_dir = Join(options_.output_dir, "report");
    ASSIGN_OR_RETURN(const FileLock report_lock,
                     LockRunDirectory(summary_.report_dir, "the report"));
    reports::RenderOptions render;
    render.table = experiment_.report().table();
    render.scale = options_.scale;
    if (!options_.variants.empty()) {
      // The rows of the variants run (a row's name selects its seeds).
      ASSIGN_OR_RETURN(const std::set<std::string> selected,
                       SelectedVariants(experiment_, options_.variants));
      std::set<std::string> rows;
      for (const Variant& v : experiment_.variants()) {
        if (selected.count(v.name()) > 0) rows.insert(VariantRow(v));
      }
      render.rows.assign(rows.begin(), rows.end());
    }
    render.generated_at = options_.report_date;
    render.run_ids = run_ids_;
    ASSIGN_OR_RETURN(const reports::RenderResult report,
                     reports::RenderReport(options_.output_dir,
                                           summary_.report_dir, render));
    if (report.records_left_out > 0 && options_.progress) {
      std::cerr << "experiment: " << report.records_left_out
                << " run records below " << options_.output_dir
                << " are not runs of this experiment as it is now (an "
                   "earlier version or configuration wrote them); the "
                   "report leaves them out\n";
    }
    summary_.report_markdown = report.markdown;
    return absl::OkStatus();
  }

  // kAll: every run, one after another (--jobs=1). kPlan (--jobs=N): the
  // runs' ids and whether they are done, nothing trained; then each undone
  // run as a job of its own (RunPlannedJobs). kOne (--run_id): only the run
  // with that id, no report: what each of those jobs executes.
  enum class Mode { kAll, kPlan, kOne };

  struct Pretrained {
    std::string run_id;
    // Empty while the pre-training has not finished (kPlan, kOne).
    std::string checkpoint;
    std::string vocab_file;
    std::string corpus_hash;
    // The no-pre-training control (Variant.random_init): fine-tuning takes
    // the checkpoint's config only (FinetuneOptions.random_init).
    bool random_init = false;
    // The pre-training run that makes `checkpoint`, and its variant: the
    // run_id of a random-init control is its own.
    std::string pretraining_run_id;
    std::string variant;
    // The prepared corpus (train.txt, held_out.txt) and the casing of its
    // vocabulary: the cloze test's text.
    std::string corpus_dir;
    bool cased = false;
  };

  // A run as kPlan finds it. Two variants with the same run (the same id)
  // are one job that records both.
  struct PlannedRun {
    std::string run_id;
    std::string label;     // "pre-training full"
    std::string log_name;  // under <output_dir>/logs
    bool pretraining = false;
    bool cloze = false;  // a cloze test (neither pre-training nor fine-tuning)
    // The pre-training runs (ids) whose checkpoints a fine-tuning run needs.
    std::vector<std::string> needs;
    // Fine-tuning: the variants with a run of this id (the job's
    // --variants, so that it loads only their tasks).
    std::set<std::string> variants;
    bool done = true;
  };

  void Plan(PlannedRun run) {
    const auto [it, inserted] =
        planned_index_.emplace(run.run_id, planned_.size());
    if (inserted) {
      planned_.push_back(std::move(run));
      return;
    }
    PlannedRun& same = planned_[it->second];
    same.done = same.done && run.done;
    same.variants.insert(run.variants.begin(), run.variants.end());
  }

  // A data-parallel rank other than 0: it trains its share of the run and
  // writes nothing (no lock, record, result or report); rank 0 does.
  bool Follower() const { return collective_->rank() != 0; }

  // Whether this run is to be executed now; in kOne it is the one.
  bool Executes(const std::string& run_id) {
    if (mode_ == Mode::kAll) return true;
    if (mode_ == Mode::kPlan || run_id != options_.run_id) return false;
    matched_ = true;
    return true;
  }

  // Every undone planned run as a job, each the same command with --run_id:
  // here at most options_.jobs at once on a share of the threads, or
  // submitted to Slurm on --cpus-per-task threads.
  absl::Status RunPlannedJobs() {
    if (options_.job_command.empty()) {
      return absl::InvalidArgumentError(
          "--jobs=N needs the command that runs one run "
          "(RunnerOptions.job_command)");
    }
    const std::string log_dir = Join(options_.output_dir, "logs");
    RETURN_IF_ERROR(CreateDirectories(log_dir));
    const int threads = slurm_ ? options_.slurm.cpus_per_task
                               : std::max(1, NumThreads() / options_.jobs);
    std::vector<std::string> common = options_.job_command;
    for (const std::string& flag :
         {absl::StrCat("--launcher=local"), absl::StrCat("--jobs=1"),
          absl::StrCat("--threads=", threads),
          absl::StrCat("--output_dir=", options_.output_dir),
          absl::StrCat("--cache_dir=", options_.cache_dir),
          absl::StrCat("--data_dir=", options_.data_dir),
          absl::StrCat("--default_corpus=", options_.default_corpus)}) {
      common.push_back(flag);
    }
    std::set<std::string> pending;
    std::map<std::string, int*> done_count;  // the summary's count of its kind
    std::vector<Job> jobs;
    for (const PlannedRun& run : planned_) {
      if (run.done) {
        ++summary_.cached_runs;
        continue;
      }
      Job job;
      job.name = run.run_id;
      job.label = run.label;
      job.log_file = Join(log_dir, run.log_name);
      for (const std::string& need : run.needs) {
        if (pending.count(need) > 0) job.needs.push_back(need);
      }
      job.argv = common;
      job.argv.push_back(absl::StrCat("--run_id=", run.run_id));
      if (!run.pretraining) {
        job.argv.push_back(
            absl::StrCat("--variants=", absl::StrJoin(run.variants, ",")));
      }
      pending.insert(run.run_id);
      done_count[run.run_id] = run.pretraining ? &summary_.pretrain_runs
                               : run.cloze     ? &summary_.cloze_runs
                                               : &summary_.finetune_runs;
      jobs.push_back(std::move(job));
    }
    if (slurm_) {
      Say(absl::StrCat(jobs.size(), " run(s) to submit to Slurm on ", threads,
                       " thread(s) each (", summary_.cached_runs,
                       " done earlier); logs in ", log_dir));
      if (jobs.empty()) return absl::OkStatus();
      SlurmOptions slurm = options_.slurm;
      slurm.job_name = absl::StrCat("bertlab-", experiment_.name());
      ASSIGN_OR_RETURN(
          summary_.submitted,
          SubmitJobArrays(jobs, slurm, Join(options_.output_dir, "slurm")));
      return absl::OkStatus();
    }
    Say(absl::StrCat(jobs.size(), " run(s) to do, ", options_.jobs,
                     " at once on ", threads, " thread(s) each (",
                     summary_.cached_runs, " done earlier); logs in ",
                     log_dir));
    JobPoolOptions pool;
    pool.max_running = options_.jobs;
    pool.progress = options_.progress;
    ASSIGN_OR_RETURN(JobPoolResult result, RunJobs(jobs, pool));
    for (const std::string& name : result.succeeded) ++*done_count.at(name);
    summary_.failed = std::move(result.failures);
    return absl::OkStatus();
  }

  void Say(const std::string& text) const {
    if (options_.progress && !Follower()) {
      std::cerr << "experiment: " << text << "\n";
    }
  }
  // What the user must hear even without progress lines: a repair.
  void Warn(const std::string& text) const {
    if (!Follower()) std::cerr << "experiment: " << text << "\n";
  }
  // ReadCachedPretraining, saying so when it sealed an older result.
  absl::StatusOr<CachedPretraining> ReadCached(
      const std::string& train_dir) const {
    ASSIGN_OR_RETURN(CachedPretraining cached,
                     ReadCachedPretraining(train_dir));
    if (cached.sealed_now) {
      Warn(absl::StrCat(train_dir,
                        ": a result from before results were "
                        "sealed, checked against its checkpoint and "
                        "metrics.jsonl, now sealed"));
    }
    return cached;
  }

  std::string Description(size_t index) const {
    if (experiment_.variants_size() == 0) return experiment_.description();
    return experiment_.variants(static_cast<int>(index)).description();
  }

  // What pre-training on `data` must leave out (issue 38): the derived
  // tasks' text when it reads the embedded corpus, and the evaluation text
  // under --data_dir (GLUE dev and test, SQuAD) when it reads files. Each
  // part is read once per runner.
  absl::StatusOr<const ContaminationFilter*> LeaveOut(
      const PretrainingData& data) {
    bool embedded = false, files = false;
    for (const CorpusSource& source : ToCorpusSources(data)) {
      (source.format == CorpusFormat::kDefaultCorpus ? embedded : files) = true;
    }
    const bool evaluation = files && !options_.data_dir.empty();
    const int key = (embedded ? 1 : 0) | (evaluation ? 2 : 0);
    auto found = leave_out_.find(key);
    if (found != leave_out_.end()) return &found->second;
    ContaminationFilter filter;
    if (embedded) {
      ASSIGN_OR_RETURN(const std::vector<Document> documents,
                       ReadReferenceFormatDocuments(options_.default_corpus));
      filter.Merge(DefaultTasksText(documents, DefaultTasksOptions()));
    }
    if (evaluation) {
      ASSIGN_OR_RETURN(const EvaluationText text,
                       ReadEvaluationText(options_.data_dir));
      Say(absl::StrCat("pre-training leaves out text of ", text.files,
                       " evaluation files under ", options_.data_dir));
      filter.Merge(text.filter);
    }
    return &leave_out_.emplace(key, std::move(filter)).first->second;
  }

  // A pre-training run as Pretrain finds it before it runs: its prepared
  // data, trainer options and opened shards, its id and where it lives.
  struct PretrainingJob {
    PreparedData data;
    PretrainingOptions options;
    std::optional<PretrainingShards> shards;  // until RunPretraining
    std::string run_id;
    std::string what;         // "pre-training full"
    std::string train_dir;    // in the cache
    std::string record_dir;   // in the experiment's output
    std::string result_path;  // train_dir's sealed result
    Pretrained pretrained;
  };

  // A pre-training: planned, found done, or trained into the cache (where
  // every experiment that pre-trains the same spec on the same corpus finds
  // it), then recorded with the experiment.
  absl::Status Pretrain(const ResolvedRun& run) {
    ASSIGN_OR_RETURN(PretrainingJob job, PreparePretraining(run));
    run_ids_.insert(job.run_id);
    // kPlan leaves a run to a job unless another experiment has trained it
    // (it is in the cache): then only its record is to be written, here.
    ASSIGN_OR_RETURN(const bool in_cache, PathExists(job.result_path));
    if (!Executes(job.run_id) && !(mode_ == Mode::kPlan && in_cache)) {
      // Planned, or another run's source (kOne): its checkpoint once it
      // has finished.
      if (in_cache) {
        ASSIGN_OR_RETURN(const CachedPretraining cached,
                         ReadCached(job.train_dir));
        job.pretrained.checkpoint = cached.checkpoint;
      }
      pretrained_[run.name] = job.pretrained;
      if (mode_ == Mode::kPlan) PlanPretraining(run, job, false);
      return absl::OkStatus();
    }
    // Listed though trained already: its record is written below.
    if (options_.list_runs) PlanPretraining(run, job, true);
    // The record's directory, then the cache entry: every process takes
    // them in this order, so two never wait for each other. Rank 0 of a
    // data-parallel run holds them for all its ranks.
    std::optional<FileLock> record_lock, train_lock;
    if (!Follower()) {
      ASSIGN_OR_RETURN(record_lock, LockRunDirectory(job.record_dir, job.what));
      ASSIGN_OR_RETURN(train_lock, LockRunDirectory(job.train_dir, job.what));
    }
    ASSIGN_OR_RETURN(const bool recorded,
                     PathExists(Join(job.record_dir, "run.json")));
    ASSIGN_OR_RETURN(const bool trained, PathExists(job.result_path));
    if (recorded && trained) {
      ++summary_.cached_runs;
      ASSIGN_OR_RETURN(const CachedPretraining cached,
                       ReadCached(job.train_dir));
      job.pretrained.checkpoint = cached.checkpoint;
      pretrained_[run.name] = job.pretrained;
      Say(absl::StrCat("pre-training ", run.name, ": done earlier (",
                       job.train_dir, ")"));
      return absl::OkStatus();
    }
    nlohmann::json result;
    if (trained) {
      ++summary_.cached_runs;
      Say(absl::StrCat("pre-training ", run.name, ": the same run is in the ",
                       "cache (", job.train_dir, ")"));
      ASSIGN_OR_RETURN(result, ReadCachedResult(&job));
    } else {
      ASSIGN_OR_RETURN(result, TrainIntoCache(run, &job));
      if (Follower()) return absl::OkStatus();
    }
    RETURN_IF_ERROR(WritePretrainingRecord(run, job, result));
    pretrained_[run.name] = job.pretrained;
    return absl::OkStatus();
  }

  // Prepares the run's data, converts its spec to the trainer's options,
  // opens its shards (once, for the id and the training) and names it.
  absl::StatusOr<PretrainingJob> PreparePretraining(const ResolvedRun& run) {
    PretrainingJob job;
    DataPrepOptions prep;
    prep.root = Join(options_.cache_dir, "data");
    prep.default_corpus = options_.default_corpus;
    prep.verbose = options_.progress;
    prep.file_keys = &corpus_file_keys_;
    // Not prefixed by the variant: a file under --data_dir that does not
    // parse is the data's fault, named by its file:line:column.
    ASSIGN_OR_RETURN(prep.leave_out, LeaveOut(run.spec.pretraining().data()));
    ASSIGN_OR_RETURN(const PretrainingDataConfig data_config,
                     ToPretrainingDataConfig(run.spec),
                     _.Prepend("variant ", run.name, ": "));
    ASSIGN_OR_RETURN(job.data, PreparePretrainingData(data_config, prep),
                     _.Prepend("variant ", run.name, ": "));
    ASSIGN_OR_RETURN(
        job.options,
        OptionsFromSpec(run.spec, job.data.shard_dirs, job.data.held_out_dirs),
        _.Prepend("variant ", run.name, ": "));
    job.options.device = options_.pretraining_device;
    job.options.precision = options_.pretraining_precision;
    job.options.corpus_hash = job.data.corpus_hash;
    ASSIGN_OR_RETURN(job.shards, OpenPretrainingShards(job.options),
                     _.Prepend("variant ", run.name, ": "));
    // The run's one identity is the trainer's (model, objective, phases
    // with their shards' fingerprints, the vocabulary by content, optimizer,
    // schedule, seed, evaluation, the corpus's hash); the id adds how it
    // executes, which changes its bits.
    ASSIGN_OR_RETURN(const std::string identity,
                     PretrainingRunIdentity(job.options, *job.shards),
                     _.Prepend("variant ", run.name, ": "));
    job.run_id = Fnv1a64Hex(Fnv1a64(absl::StrCat(
        identity, "device ", execution_.pretraining_device, "\nprecision ",
        execution_.pretraining_precision, execution_.CpuGemmIdText())));
    job.what = absl::StrCat("pre-training ", run.name);
    job.train_dir = Join(Join(options_.cache_dir, "pretrain"), job.run_id);
    job.record_dir = Join(Join(options_.output_dir, "pretrain"),
                          absl::StrCat(run.name, "-", job.run_id.substr(0, 8)));
    job.result_path = Join(job.train_dir, kPretrainingResultFile);
    job.pretrained = {job.run_id,
                      "",
                      job.data.vocab_file,
                      job.data.corpus_hash,
                      false,
                      job.run_id,
                      run.name,
                      job.data.corpus_dir,
                      run.spec.model().cased()};
    return job;
  }

  void PlanPretraining(const ResolvedRun& run, const PretrainingJob& job,
                       bool done) {
    Plan({job.run_id,
          job.what,
          absl::StrCat("pretrain-", run.name, "-", job.run_id.substr(0, 8),
                       ".log"),
          true,
          false,
          {},
          {},
          done});
  }

  // The result another process or experiment left in the cache.
  absl::StatusOr<nlohmann::json> ReadCachedResult(PretrainingJob* job) {
    ASSIGN_OR_RETURN(CachedPretraining cached, ReadCached(job->train_dir));
    if (!cached.result.contains("metrics")) {
      return absl::DataLossError(
          absl::StrCat(job->result_path, ": not a pre-training result; delete ",
                       job->train_dir, " to train again"));
    }
    job->pretrained.checkpoint = cached.checkpoint;
    return std::move(cached.result);
  }

  // Trains (or resumes) the run in its cache directory and seals its result
  // there: held-out metrics, compute and timings. A follower rank trains
  // its share and returns an empty result.
  absl::StatusOr<nlohmann::json> TrainIntoCache(const ResolvedRun& run,
                                                PretrainingJob* job) {
    Say(absl::StrCat("pre-training ", run.name, " -> ", job->train_dir));
    PretrainingOptions& options = job->options;
    // A final checkpoint without a result: trained again from the one
    // before, so that the result is measured (pretraining_cache.h).
    if (!Follower()) {
      ASSIGN_OR_RETURN(const bool removed,
                       RemoveUnrecordedFinalCheckpoint(
                           job->train_dir, options.schedule.total_steps));
      if (removed) {
        Warn(absl::StrCat("pre-training ", run.name,
                          ": its final checkpoint has no result (the run "
                          "stopped between the two); training its last "
                          "stretch again"));
      }
    }
    options.output_dir = job->train_dir;
    options.progress =
        options_.progress ? ProgressMode::kAuto : ProgressMode::kOff;
    options.collective = collective_;
    const auto start = Clock::now();
    ASSIGN_OR_RETURN(const PretrainingResult trained,
                     RunPretraining(options, *std::move(job->shards)),
                     _.Prepend("variant ", run.name, ": "));
    job->shards.reset();
    const auto end = Clock::now();
    if (Follower()) return nlohmann::json();
    nlohmann::json metrics = nlohmann::json::object();
    if (trained.has_eval) {
      const HeldOutMetrics& eval = trained.last_eval;
      const bool masked = options.objective == LanguageModel::kMaskedLm;
      metrics[masked ? "mlm_perplexity" : "lm_perplexity"] =
          eval.lm_perplexity();
      metrics[masked ? "mlm_accuracy" : "lm_accuracy"] =
          100.0 * eval.lm_accuracy();
      metrics["unigram_perplexity"] = eval.unigram_perplexity();
      if (options.next_sentence) {
        metrics["nsp_accuracy"] = 100.0 * eval.next_sentence_accuracy();
      }
    }
    metrics["final_loss"] = trained.last_loss;
    metrics["tokens_per_second"] = trained.tokens_per_second;
    nlohmann::json result;
    result["metrics"] = metrics;
    if (trained.predictions_seen >= 0) {
      result["compute"] = {{"steps", trained.final_step},
                           {"tokens", trained.tokens_seen},
                           {"predicted_positions", trained.predictions_seen},
                           {"flops", trained.training_flops}};
    }
    result["timings"] = Timings(start, end);
    ASSIGN_OR_RETURN(job->pretrained.checkpoint,
                     NewestCheckpoint(job->train_dir));
    RETURN_IF_ERROR(WriteSealedPretrainingResult(
        job->train_dir, job->pretrained.checkpoint, result));
    ++summary_.pretrain_runs;
    return result;
  }

  // The experiment's record of the run: the cached result, the held-out
  // curve, the corpus and its files' hashes.
  absl::Status WritePretrainingRecord(const ResolvedRun& run,
                                      const PretrainingJob& job,
                                      const nlohmann::json& result) {
    ASSIGN_OR_RETURN(const BertConfig config,
                     ReadCheckpointConfig(job.pretrained.checkpoint));
    reports::RunRecord record =
        RecordBase(experiment_, options_, execution_, run, run.name,
                   DescriptionOf(run.name), job.run_id, config);
    record.kind = "pretrain";
    record.derived = false;
    record.data_source =
        DescribeCorpus(ToCorpusSources(run.spec.pretraining().data()));
    if (job.data.left_out_documents > 0) {
      absl::StrAppend(&record.data_source, "; ", job.data.left_out_documents,
                      " documents (", job.data.left_out_words,
                      " words) left out: they share a sentence with the "
                      "fine-tuning tasks' text");
    }
    RETURN_IF_ERROR(ReadPretrainingResult(result, job.result_path, &record));
    ASSIGN_OR_RETURN(record.eval_curve,
                     ReadEvalCurve(Join(job.train_dir, "metrics.jsonl"),
                                   job.options.objective));
    for (const CorpusSource& source :
         ToCorpusSources(run.spec.pretraining().data())) {
      if (source.format == CorpusFormat::kDefaultCorpus) {
        ASSIGN_OR_RETURN(record.data_hashes["default_corpus.txt"],
                         FileSha256(options_.default_corpus));
        continue;
      }
      for (const std::string& file : source.files) {
        // By file name; by path where two sources share one (wiki_00).
        std::string name = fs::path(file).filename().string();
        if (record.data_hashes.count(name) > 0) name = file;
        ASSIGN_OR_RETURN(record.data_hashes[name], FileSha256(file));
      }
    }
    return WriteRecord(job.record_dir, record);
  }

  std::string DescriptionOf(const std::string& variant) const {
    for (const Variant& v : experiment_.variants()) {
      if (v.name() == variant) return v.description();
    }
    return experiment_.description();
  }

  // The loaded task for (task, vocabulary, spec), shared across variants.
  absl::StatusOr<const FinetuneTask*> Task(FinetuneTaskId task,
                                           const FinetuneTaskSpec& spec,
                                           const std::string& vocab_file,
                                           bool cased) {
    const FinetuneTaskInfo& info = FinetuneTaskOf(task);
    const std::string key = absl::StrCat(info.key, "\n", vocab_file, "\n",
                                         cased, "\n", ProtoText(spec));
    auto it = tasks_.find(key);
    if (it != tasks_.end()) return it->second.get();
    if (info.derived) RETURN_IF_ERROR(EnsureDefaultTasks());
    ASSIGN_OR_RETURN(
        FullTokenizer tokenizer,
        FullTokenizer::FromVocabFile(
            vocab_file, cased ? CasedOptions() : UncasedOptions()));
    tokenizers_.push_back(
        std::make_unique<FullTokenizer>(std::move(tokenizer)));
    ASSIGN_OR_RETURN(std::unique_ptr<FinetuneTask> loaded,
                     LoadFinetuneTask(task, ToFinetuneDataOptions(spec),
                                      *tokenizers_.back(), sources_));
    Say(absl::StrCat("task ", info.key, ": ", loaded->train_size(), " train, ",
                     loaded->dev_size(), " dev examples from ",
                     loaded->data_source()));
    // Whatever the progress setting: they are about the data, and each
    // run record of the task repeats them.
    for (const std::string& warning : loaded->warnings()) {
      std::cerr << "experiment: warning: task " << info.key << ": " << warning
                << "\n";
    }
    const FinetuneTask* result = loaded.get();
    tasks_[key] = std::move(loaded);
    return result;
  }

  absl::Status EnsureDefaultTasks() {
    const std::string dir = sources_.default_tasks_dir;
    ASSIGN_OR_RETURN(const FileLock lock,
                     LockRunDirectory(dir, "the derived default tasks"));
    ASSIGN_OR_RETURN(const bool done, PathExists(Join(dir, "DONE")));
    if (done) return absl::OkStatus();
    Say(absl::StrCat("making the derived default tasks in ", dir));
    ASSIGN_OR_RETURN(const std::vector<Document> documents,
                     ReadReferenceFormatDocuments(options_.default_corpus));
    RETURN_IF_ERROR(MakeDefaultTasks(documents, DefaultTasksOptions(), dir));
    return WriteFileAtomically(Join(dir, "DONE"), "");
  }

  // What the fine-tuning of `variant` starts from: `source`'s pre-training,
  // or for the no-pre-training control its config and vocabulary under an id
  // of their own, so the control's runs never pass for the pre-trained row's.
  Pretrained FinetuneSource(const std::string& variant,
                            const std::string& source) const {
    Pretrained pretrained = pretrained_.at(source);
    if (RandomInit(experiment_, variant)) {
      pretrained.run_id = Fnv1a64Hex(
          Fnv1a64(absl::StrCat("random_init of ", pretrained.run_id)));
      pretrained.random_init = true;
    }
    return pretrained;
  }

  // The pre-training runs (ids) a run that reads `pretrained` (and `rtl`,
  // the ELMo-style row's right-to-left encoder, when not null) needs.
  static std::vector<std::string> Needs(const Pretrained& pretrained,
                                        const Pretrained* rtl) {
    std::vector<std::string> needs = {pretrained.pretraining_run_id};
    if (rtl != nullptr) needs.push_back(rtl->pretraining_run_id);
    return needs;
  }

  // FailedPrecondition, naming `what`, where a checkpoint it reads is not
  // there yet (kOne: a job started before its pre-training finished).
  static absl::Status RequireFinished(const std::string& what,
                                      const Pretrained& pretrained,
                                      const Pretrained* rtl) {
    for (const Pretrained* source : {&pretrained, rtl}) {
      if (source != nullptr && source->checkpoint.empty()) {
        return absl::FailedPreconditionError(
            absl::StrCat(what, ": pre-training ", source->variant,
                         " has not finished; run it first (--run_id=",
                         source->pretraining_run_id, ")"));
      }
    }
    return absl::OkStatus();
  }

  // The items of `spec` on `pretrained`'s corpus and vocabulary, made once
  // per runner.
  absl::StatusOr<const ClozeTest*> ClozeTestOf(const Pretrained& pretrained,
                                               const ClozeSpec& spec) {
    const std::string key =
        absl::StrCat(pretrained.corpus_dir, "\n", pretrained.vocab_file, "\n",
                     pretrained.cased, "\n", ProtoText(spec));
    auto found = cloze_tests_.find(key);
    if (found != cloze_tests_.end()) return &found->second;
    ASSIGN_OR_RETURN(FullTokenizer tokenizer,
                     FullTokenizer::FromVocabFile(
                         pretrained.vocab_file,
                         pretrained.cased ? CasedOptions() : UncasedOptions()));
    ASSIGN_OR_RETURN(ClozeTest test,
                     MakeClozeTest(pretrained.corpus_dir, tokenizer, spec));
    Say(absl::StrCat("cloze test: ", test.items.size(), " items from ",
                     test.held_out_sentences, " held-out sentences of ",
                     pretrained.corpus_dir));
    return &cloze_tests_.emplace(key, std::move(test)).first->second;
  }

  // The cloze test of `run`'s encoder (RunSpec.cloze, cloze_evaluation.h;
  // RunsClozeTest says which runs have one), a run of its own after the
  // pre-training it reads.
  absl::Status Cloze(const ResolvedRun& run, const std::string& description) {
    if (!RunsClozeTest(run.spec)) return absl::OkStatus();
    const ClozeSpec& spec = run.spec.cloze();
    const std::vector<std::string> sources =
        CheckpointSources(experiment_, run.name);
    const Pretrained pretrained = FinetuneSource(run.name, sources[0]);
    const Pretrained* rtl =
        sources.size() > 1 ? &pretrained_.at(sources[1]) : nullptr;
    // The random-init control's parameters.
    const uint64_t seed = run.spec.pretraining().seed();
    ASSIGN_OR_RETURN(const std::string vocab_hash,
                     FileSha256(pretrained.vocab_file));
    const std::string held_out = Join(pretrained.corpus_dir, "held_out.txt");
    // The corpus hash covers train.txt and held_out.txt, which with the
    // vocabulary and the spec make the items.
    const std::string run_id = Fnv1a64Hex(Fnv1a64(absl::StrCat(
        "cloze\npretrain ", pretrained.run_id, "\n",
        rtl == nullptr ? "" : absl::StrCat("rtl_pretrain ", rtl->run_id, "\n"),
        pretrained.random_init ? absl::StrCat("random_init seed ", seed, "\n")
                               : "",
        "corpus ", pretrained.corpus_hash, "\nvocab ", vocab_hash, "\ncased ",
        pretrained.cased, "\n", ProtoText(spec), execution_.CpuGemmIdText())));
    run_ids_.insert(run_id);
    const std::string dir =
        Join(Join(Join(options_.output_dir, "cloze"), run.name),
             run_id.substr(0, 8));
    // Written last: the run is done once it exists.
    const std::string last_record = Join(Join(dir, kClozeTask), "run.json");
    const std::string label = absl::StrCat("cloze test ", run.name);
    if (!Executes(run_id)) {
      if (mode_ == Mode::kPlan) {
        ASSIGN_OR_RETURN(const bool done, PathExists(last_record));
        Plan(
            {run_id,
             label,
             absl::StrCat("cloze-", run.name, "-", run_id.substr(0, 8), ".log"),
             false,
             true,
             Needs(pretrained, rtl),
             {run.name},
             done});
      }
      return absl::OkStatus();
    }
    RETURN_IF_ERROR(RequireFinished(label, pretrained, rtl));
    // Rank 0 scores; data-parallel ranks have nothing to share here.
    if (Follower()) return absl::OkStatus();
    ASSIGN_OR_RETURN(const FileLock lock, LockRunDirectory(dir, label));
    ASSIGN_OR_RETURN(const bool done, PathExists(last_record));
    if (done) {
      ++summary_.cached_runs;
      Say(absl::StrCat(label, ": done earlier"));
      return absl::OkStatus();
    }
    RETURN_IF_ERROR(VerifyForUse(pretrained, rtl));
    ASSIGN_OR_RETURN(const ClozeTest* test, ClozeTestOf(pretrained, spec),
                     _.Prepend(label, ": "));
    const auto start = Clock::now();
    ASSIGN_OR_RETURN(
        std::vector<ClozeOutcome> outcomes,
        RunClozeTest(*test, ClozeEncoder{pretrained.checkpoint,
                                         rtl == nullptr ? "" : rtl->checkpoint,
                                         pretrained.random_init, seed}),
        _.Prepend(label, ": "));
    const auto end = Clock::now();
    ASSIGN_OR_RETURN(const BertConfig config,
                     ReadCheckpointConfig(pretrained.checkpoint));
    ASSIGN_OR_RETURN(const std::string held_out_hash, FileSha256(held_out));
    // kClozeTask last.
    std::reverse(outcomes.begin(), outcomes.end());
    for (const ClozeOutcome& outcome : outcomes) {
      reports::RunRecord record =
          RecordBase(experiment_, options_, execution_, run, run.name,
                     description, run_id, config);
      record.kind = "cloze";
      record.task = outcome.task;
      record.derived = false;
      record.data_source = absl::StrCat(
          test->items.size(), " cloze items from ", test->held_out_sentences,
          " held-out sentences of the pre-training corpus (",
          DescribeCorpus(ToCorpusSources(run.spec.pretraining().data())), ")");
      record.primary_metric = "accuracy";
      record.metrics = {{"accuracy", outcome.accuracy}};
      record.trivial = ClozeChance(*test);
      record.baselines = ClozeBaselines(*test);
      SetTimings(start, end, &record);
      record.data_hashes = {{"held_out.txt", held_out_hash},
                            {"vocab.txt", vocab_hash}};
      const std::string record_dir = Join(dir, outcome.task);
      RETURN_IF_ERROR(CreateDirectories(record_dir));
      RETURN_IF_ERROR(
          WriteFileAtomically(Join(record_dir, reports::kDevExamplesFileName),
                              reports::DevExamplesTsv(outcome.examples)));
      RETURN_IF_ERROR(WriteRecord(record_dir, record));
      Say(absl::StrFormat("%s (%s): accuracy %.2f on %d items", label,
                          outcome.task, outcome.accuracy,
                          static_cast<int>(test->items.size())));
    }
    ++summary_.cloze_runs;
    return absl::OkStatus();
  }

  absl::Status Finetune(const ResolvedRun& run,
                        const std::string& description) {
    const FinetuningSpec& finetuning = run.spec.finetuning();
    if (finetuning.tasks_size() == 0) return absl::OkStatus();
    const std::vector<std::string> sources =
        CheckpointSources(experiment_, run.name);
    const Pretrained pretrained = FinetuneSource(run.name, sources[0]);
    // The ELMo-style row's right-to-left encoder (Variant.concatenate_with).
    const Pretrained* rtl =
        sources.size() > 1 ? &pretrained_.at(sources[1]) : nullptr;
    if (rtl != nullptr) {
      ASSIGN_OR_RETURN(const std::string ltr_vocab,
                       FileSha256(pretrained.vocab_file));
      ASSIGN_OR_RETURN(const std::string rtl_vocab,
                       FileSha256(rtl->vocab_file));
      if (ltr_vocab != rtl_vocab) {
        return absl::FailedPreconditionError(absl::StrCat(
            "variant ", run.name, ": the vocabularies of ", sources[0], " (",
            pretrained.vocab_file, ") and ", sources[1], " (", rtl->vocab_file,
            ") differ, so one tokenization cannot feed both encoders"));
      }
    }
    const bool cased = run.spec.model().cased();
    // kOne: once the run is found, the variant's other tasks are not loaded
    // (another selected variant may share the run's id, and records it too).
    const bool matched_before = matched_;
    for (const FinetuneTaskSpec& spec : finetuning.tasks()) {
      if (matched_ && !matched_before) break;
      FinetuneTaskId task = ToFinetuneTaskId(spec.task());
      // The real task whose column a fallback's results fill.
      const FinetuneTaskInfo* stands_in_for = nullptr;
      if (!TaskDataAvailable(task, sources_)) {
        if (!spec.has_fallback_task()) {
          const std::string note = absl::StrCat(
              FinetuneTaskOf(task).key, " (no data",
              options_.data_dir.empty() ? ": no --data_dir"
                                        : " under " + options_.data_dir,
              ")");
          if (std::find(summary_.unavailable.begin(),
                        summary_.unavailable.end(),
                        note) == summary_.unavailable.end()) {
            summary_.unavailable.push_back(note);
            Say(absl::StrCat("left out: ", note));
          }
          continue;
        }
        stands_in_for = &FinetuneTaskOf(task);
        task = ToFinetuneTaskId(spec.fallback_task());
      }
      ASSIGN_OR_RETURN(const FinetuneTask* loaded,
                       Task(task, spec, pretrained.vocab_file, cased));
      std::map<std::string, std::string> hashes;
      std::string data_hash_text;
      for (const auto& [name, path] : loaded->data_files()) {
        ASSIGN_OR_RETURN(const std::string hash, FileSha256(path));
        hashes[name] = hash;
        absl::StrAppend(&data_hash_text, name, "=", hash, "\n");
      }
      for (double lr : spec.learning_rates()) {
        for (int restart = 0; restart < spec.restarts(); ++restart) {
          RETURN_IF_ERROR(FinetuneOne(run, description, pretrained, rtl, spec,
                                      finetuning.optimizer(), *loaded,
                                      stands_in_for, hashes, data_hash_text, lr,
                                      restart, finetuning.bilstm()));
        }
      }
    }
    return absl::OkStatus();
  }

  // Sha256FileHex, once per file and process: every variant's runs record
  // the hashes of the task files and the corpus, and hashing them again for
  // each was a second of every run's start.
  absl::StatusOr<std::string> FileSha256(const std::string& path) {
    const auto known = file_sha256_.find(path);
    if (known != file_sha256_.end()) return known->second;
    ASSIGN_OR_RETURN(std::string hash, Sha256FileHex(path));
    return file_sha256_.emplace(path, std::move(hash)).first->second;
  }

  // The checkpoints a run reads weights (or, for the control, the config)
  // from, checked file by file against their manifests once per process
  // (pretraining_cache.h).
  absl::Status VerifyForUse(const Pretrained& pretrained,
                            const Pretrained* rtl) {
    for (const Pretrained* source : {&pretrained, rtl}) {
      if (source == nullptr ||
          verified_checkpoints_.count(source->checkpoint) > 0) {
        continue;
      }
      RETURN_IF_ERROR(VerifyCheckpointForUse(source->checkpoint));
      verified_checkpoints_.insert(source->checkpoint);
    }
    return absl::OkStatus();
  }

  // One cell's fine-tuning run (FinetuneOne): the variant's checkpoints,
  // the task, the rate and restart, and what follows from them.
  struct FinetuneCell {
    const ResolvedRun& run;
    const std::string& description;
    const Pretrained& pretrained;
    const Pretrained* rtl;
    const FinetuneTaskSpec& spec;
    const FinetuneTask& task;
    const FinetuneTaskInfo* stands_in_for;
    double lr;
    int restart;
    uint64_t seed;
    std::string run_id;
    std::string dir;
    std::vector<std::string> record_dirs;  // one per dev set
    std::string label;                     // "full/mrpc lr 0.0001 restart 0"
  };

  // What training a cell left: the tuner with the parameters dev is scored
  // with, and the tune split's score.
  struct TrainedCell {
    std::unique_ptr<Finetuner> tuner;
    std::optional<reports::TuneScore> tune;
    int64_t chosen_epoch = 0;  // > 0: chosen on the tune split
  };

  // A fine-tuning run: planned, found done, or trained, scored on dev and
  // recorded, one record per dev set.
  absl::Status FinetuneOne(
      const ResolvedRun& run, const std::string& description,
      const Pretrained& pretrained, const Pretrained* rtl,
      const FinetuneTaskSpec& spec, const FinetuneOptimizerSpec& optimizer,
      const FinetuneTask& task, const FinetuneTaskInfo* stands_in_for,
      const std::map<std::string, std::string>& hashes,
      const std::string& data_hash_text, double lr, int restart, bool bilstm) {
    const uint64_t seed = spec.seed() + restart;
    FinetuneCell cell{run,
                      description,
                      pretrained,
                      rtl,
                      spec,
                      task,
                      stands_in_for,
                      lr,
                      restart,
                      seed,
                      FinetuneRunId(pretrained, rtl, spec, optimizer, task,
                                    data_hash_text, lr, restart, seed, bilstm),
                      "",
                      {},
                      absl::StrCat(run.name, "/", task.key(), " lr ",
                                   LearningRateText(lr), " restart ", restart)};
    run_ids_.insert(cell.run_id);
    cell.dir = Join(
        Join(Join(Join(options_.output_dir, "finetune"), run.name), task.key()),
        absl::StrCat("lr", LearningRateText(lr), "-r", restart, "-",
                     cell.run_id.substr(0, 8)));
    // One record per dev set: MNLI's two in subdirectories.
    const std::vector<std::string>& dev_sets = task.info().dev_set_keys;
    for (const std::string& dev_set : dev_sets) {
      cell.record_dirs.push_back(dev_sets.size() > 1 ? Join(cell.dir, dev_set)
                                                     : cell.dir);
    }
    if (!Executes(cell.run_id)) {
      if (mode_ == Mode::kPlan) {
        ASSIGN_OR_RETURN(const bool done, AllRecorded(cell.record_dirs));
        Plan({cell.run_id,
              absl::StrCat("fine-tuning ", cell.label),
              absl::StrCat("finetune-", run.name, "-", task.key(), "-lr",
                           LearningRateText(lr), "-r", restart, "-",
                           cell.run_id.substr(0, 8), ".log"),
              false,
              false,
              Needs(pretrained, rtl),
              {run.name},
              done});
      }
      return absl::OkStatus();
    }
    RETURN_IF_ERROR(RequireFinished(absl::StrCat("fine-tuning ", cell.label),
                                    pretrained, rtl));
    std::optional<FileLock> lock;  // rank 0's, for all ranks
    if (!Follower()) {
      ASSIGN_OR_RETURN(
          lock,
          LockRunDirectory(cell.dir, absl::StrCat("fine-tuning ", cell.label)));
    }
    ASSIGN_OR_RETURN(const bool done, AllRecorded(cell.record_dirs));
    if (done) {
      ++summary_.cached_runs;
      Say(absl::StrCat("fine-tuning ", cell.label, ": done earlier"));
      return absl::OkStatus();
    }
    if (!Follower()) RETURN_IF_ERROR(CreateDirectories(cell.dir));
    RETURN_IF_ERROR(VerifyForUse(pretrained, rtl));
    ASSIGN_OR_RETURN(const BertConfig config,
                     ReadCheckpointConfig(pretrained.checkpoint));
    // Computed when the task was loaded; checked before training.
    const absl::StatusOr<std::vector<TrivialMetrics>>& trivial = task.Trivial();
    if (!trivial.ok()) {
      return absl::Status(trivial.status().code(),
                          absl::StrCat(cell.label, ": trivial baseline: ",
                                       trivial.status().message()));
    }
    FinetuneModelOptions model = task.ModelOptions();
    model.bilstm = bilstm;
    FinetuneOptions options =
        ToFinetuneOptions(spec, optimizer, model, lr, restart);
    CHECK_EQ(options.seed, seed);
    options.init_checkpoint = pretrained.checkpoint;
    options.random_init = pretrained.random_init;
    if (rtl != nullptr) options.rtl_checkpoint = rtl->checkpoint;
    options.progress = options_.progress;
    options.label = absl::StrCat("fine-tune ", cell.label);
    options.collective = collective_;
    options.device = execution_.pretraining_device;
    options.precision = options_.pretraining_precision;
    const std::string& primary_metric = FinetunePrimaryMetric(
        stands_in_for == nullptr ? task.info() : *stands_in_for,
        experiment_.report().table());
    const auto start = Clock::now();
    ASSIGN_OR_RETURN(TrainedCell trained,
                     TrainCell(cell, options, primary_metric));
    // Every rank holds the same parameters: rank 0 evaluates and records.
    if (Follower()) {
      ++summary_.finetune_runs;
      return absl::OkStatus();
    }
    ASSIGN_OR_RETURN(const std::vector<TaskMetrics> results,
                     task.Evaluate(trained.tuner.get(), cell.dir),
                     _.Prepend(cell.label, ": "));
    const auto end = Clock::now();
    for (size_t i = 0; i < results.size(); ++i) {
      reports::RunRecord record =
          RecordBase(experiment_, options_, execution_, run, run.name,
                     description, cell.run_id, config);
      record.primary_metric = primary_metric;
      SetTimings(start, end, &record);
      record.data_hashes = hashes;
      CHECK_EQ(trivial->size(), results.size()) << cell.label;
      CHECK_EQ((*trivial)[i].task, results[i].task) << cell.label;
      FillFinetuneRecord(cell, trained, results[i], (*trivial)[i], &record);
      // Before run.json, which marks the run finished.
      RETURN_IF_ERROR(WriteFileAtomically(
          Join(cell.record_dirs[i], reports::kDevExamplesFileName),
          reports::DevExamplesTsv(results[i].examples)));
      RETURN_IF_ERROR(WriteRecord(cell.record_dirs[i], record));
    }
    ++summary_.finetune_runs;
    return absl::OkStatus();
  }

  // The id covers this cell, not the task's grid: its own rate and restart
  // are hashed, so adding a rate or restarts to a task keeps the cells
  // already run (kExecutionRunIds).
  std::string FinetuneRunId(const Pretrained& pretrained, const Pretrained* rtl,
                            const FinetuneTaskSpec& spec,
                            const FinetuneOptimizerSpec& optimizer,
                            const FinetuneTask& task,
                            const std::string& data_hash_text, double lr,
                            int restart, uint64_t seed, bool bilstm) const {
    FinetuneTaskSpec cell_spec = spec;
    cell_spec.clear_learning_rates();
    cell_spec.clear_restarts();
    // No tune split is what runs before tune_fraction existed did: their
    // ids (and cached runs) stay valid.
    if (cell_spec.tune_fraction() == 0) cell_spec.clear_tune_fraction();
    if (!cell_spec.choose_epoch_on_tune()) {
      cell_spec.clear_choose_epoch_on_tune();
    }
    if (cell_spec.test_predictions()) cell_spec.clear_test_predictions();
    // Fine-tuning runs on the same device as pre-training. The pre-training
    // run's id carries its device and precision; on the cpu device (FP32
    // whatever the precision) nothing more is added, so the ids of every run
    // before fine-tuning had devices stay.
    return Fnv1a64Hex(Fnv1a64(absl::StrCat(
        "pretrain ", pretrained.run_id, "\ntask ", task.key(), "\n",
        ProtoText(cell_spec), "optimizer {\n", ProtoText(optimizer), "}\n",
        "lr ", LearningRateText(lr), "\nrestart ", restart, "\nseed ", seed,
        "\nbilstm ", bilstm, "\n",
        rtl == nullptr ? "" : absl::StrCat("rtl_pretrain ", rtl->run_id, "\n"),
        data_hash_text, execution_.CpuGemmIdText(),
        execution_.FinetuneDeviceIdText())));
  }

  // Whether every one of a run's record directories holds its run.json.
  absl::StatusOr<bool> AllRecorded(const std::vector<std::string>& dirs) {
    for (const std::string& dir : dirs) {
      ASSIGN_OR_RETURN(const bool recorded, PathExists(Join(dir, "run.json")));
      if (!recorded) return false;
    }
    return true;
  }

  // Trains the cell. With choose_epoch_on_tune rank 0 scores the tune split
  // after each epoch and keeps the best epoch's parameters for dev
  // (followers record nothing); otherwise the tune split is scored once,
  // after training.
  absl::StatusOr<TrainedCell> TrainCell(const FinetuneCell& cell,
                                        const FinetuneOptions& options,
                                        const std::string& primary_metric) {
    TrainedCell trained;
    ASSIGN_OR_RETURN(trained.tuner, Finetuner::Create(options),
                     _.Prepend(cell.label, ": "));
    Finetuner* const tuner = trained.tuner.get();
    EpochChoice best;
    Finetuner::EpochEnd epoch_end = nullptr;
    if (cell.spec.choose_epoch_on_tune() && cell.task.tune_size() > 0 &&
        !Follower()) {
      epoch_end = [&](int64_t epochs) -> absl::Status {
        ASSIGN_OR_RETURN(auto metrics, cell.task.EvaluateTune(tuner));
        return best.Offer(epochs, std::move(metrics), primary_metric,
                          tuner->parameters());
      };
    }
    if (absl::Status done = tuner->Train(cell.task.Train(), epoch_end);
        !done.ok()) {
      return absl::Status(done.code(),
                          absl::StrCat(cell.label, ": ", done.message()));
    }
    if (Follower()) return trained;
    if (best.epoch > 0) {
      RETURN_IF_ERROR(tuner->RestoreParameters(best.parameters));
      trained.tune = reports::TuneScore{cell.task.tune_size(),
                                        std::move(best.metrics), best.epoch};
      trained.chosen_epoch = best.epoch;
    } else if (cell.task.tune_size() > 0) {
      ASSIGN_OR_RETURN(auto tune_metrics, cell.task.EvaluateTune(tuner),
                       _.Prepend(cell.label, ": "));
      trained.tune =
          reports::TuneScore{cell.task.tune_size(), std::move(tune_metrics)};
    }
    return trained;
  }

  // The fine-tuning fields of one dev set's record, and its line.
  void FillFinetuneRecord(const FinetuneCell& cell, const TrainedCell& trained,
                          const TaskMetrics& result,
                          const TrivialMetrics& trivial,
                          reports::RunRecord* record) {
    record->kind = "finetune";
    record->task = result.task;
    record->derived = cell.task.derived();
    record->stands_in_for =
        cell.stands_in_for == nullptr ? "" : ColumnKey(*cell.stands_in_for);
    record->data_source = cell.task.data_source();
    record->learning_rate = cell.lr;
    record->restart = cell.restart;
    record->seed = static_cast<int64_t>(cell.seed);
    record->metrics = {result.metrics.begin(), result.metrics.end()};
    record->warnings = cell.task.warnings();
    record->trivial =
        reports::TrivialBaseline{trivial.predictor, trivial.metrics, ""};
    record->baselines = trivial.baselines;
    record->tune = trained.tune;
    const FinetuneStats& stats = trained.tuner->stats();
    record->training = reports::FinetuneTraining{stats.first_step_loss,
                                                 stats.lowest_step_loss};
    std::string summary;
    for (const auto& [name, value] : result.metrics) {
      absl::StrAppend(&summary, summary.empty() ? "" : ", ", name, " ",
                      absl::StrFormat("%.2f", value));
    }
    Say(absl::StrCat("fine-tuned ", cell.label, " (", result.task,
                     "): ", summary,
                     trained.chosen_epoch > 0
                         ? absl::StrCat(" at epoch ", trained.chosen_epoch,
                                        " (chosen on tune)")
                         : "",
                     absl::StrFormat(" in %.0f s, %.0f tokens/s", stats.seconds,
                                     stats.tokens_per_second)));
  }

  const RunnerOptions& options_;
  Collective* const collective_;
  const Experiment& experiment_;
  const bool slurm_;
  const Mode mode_;
  // kOne: the run has been found (and executed).
  bool matched_ = false;
  std::vector<PlannedRun> planned_;
  std::map<std::string, size_t> planned_index_;
  Execution execution_;
  std::vector<ResolvedRun> runs_;
  TaskSources sources_;
  std::map<int, ContaminationFilter> leave_out_;  // LeaveOut's, by its key
  CorpusFileKeys corpus_file_keys_;  // the corpus files read for their key
  // FileSha256's, by path.
  std::map<std::string, std::string> file_sha256_;
  // Every run this experiment has (its records are the report's).
  std::set<std::string> run_ids_;
  std::map<std::string, Pretrained> pretrained_;
  // Checkpoints whose files this process has checked against their
  // manifests (VerifyForUse).
  std::set<std::string> verified_checkpoints_;
  std::map<std::string, std::unique_ptr<FinetuneTask>> tasks_;
  std::vector<std::unique_ptr<FullTokenizer>> tokenizers_;
  // ClozeTestOf's, by corpus, vocabulary, casing and spec.
  std::map<std::string, ClozeTest> cloze_tests_;
  RunnerSummary summary_;
};

}  // namespace

absl::StatusOr<RunnerSummary> RunExperiment(const RunnerOptions& options) {
  Runner runner(options);
  return runner.Run();
}

}  // namespace experiments
}  // namespace bertlab
