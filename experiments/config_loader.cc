#include "experiments/config_loader.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <filesystem>
#include <limits>
#include <map>
#include <memory>
#include <set>
#include <system_error>
#include <tuple>
#include <type_traits>
#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "common/check.h"
#include "common/file.h"
#include "common/status_macros.h"
#include "experiments/config_merge.h"
#include "experiments/config_paths.h"
#include "experiments/config_references.h"
#include "experiments/config_text.h"
#include "experiments/pretraining_seeds.h"
#include "experiments/run_spec_checks.h"
#include "google/protobuf/descriptor.h"
#include "google/protobuf/util/message_differencer.h"
#include "model/optim/schedule.h"
#include "tasks/utf8.h"

namespace bertlab {
namespace experiments {
namespace {

using google::protobuf::Descriptor;
using google::protobuf::FieldDescriptor;
using google::protobuf::Message;

// [A-Za-z0-9_.-]+, not "." or "..": names become directory names.
bool IsPaperTableName(absl::string_view name) {
  for (const char* table :
       {"table1", "table2", "table3", "table4", "table5", "table6", "table8"}) {
    if (name == table) return true;
  }
  return false;
}

bool IsValidName(absl::string_view name) {
  if (name.empty() || name == "." || name == "..") return false;
  return std::all_of(name.begin(), name.end(), [](char c) {
    return absl::ascii_isalnum(c) || c == '_' || c == '.' || c == '-';
  });
}

enum class Source { kBase, kOverride };

// Where the value at `path` of a variant's run comes from. The override
// owns everything under a repeated field it sets (that list replaced the
// base's) and any field it sets; otherwise the one holding the deeper part
// of the path wins, and ties go to the base (a required field missing from
// both belongs in the base, which all variants share).
Source Attribute(const RunSpec& base, const RunSpec& overrides,
                 const std::vector<PathStep>& steps) {
  const Message* in_base = &base;
  const Message* in_override = &overrides;
  const Descriptor* descriptor = RunSpec::descriptor();
  size_t depth_base = 0, depth_override = 0;
  for (size_t k = 0; k < steps.size() && descriptor != nullptr; ++k) {
    const FieldDescriptor* field = StepField(descriptor, in_override, steps[k]);
    if (field == nullptr) field = StepField(descriptor, in_base, steps[k]);
    if (field == nullptr) break;
    const Message* child = nullptr;
    if (in_override != nullptr &&
        HasStep(*in_override, field, steps[k].index, &child)) {
      if (field->is_repeated()) return Source::kOverride;
      depth_override = k + 1;
      in_override = child;
    } else {
      in_override = nullptr;
    }
    if (in_base != nullptr &&
        HasStep(*in_base, field, steps[k].index, &child)) {
      depth_base = k + 1;
      in_base = child;
    } else {
      in_base = nullptr;
    }
    descriptor = field->message_type();
  }
  return depth_override == steps.size() || depth_override > depth_base
             ? Source::kOverride
             : Source::kBase;
}

// ---------------------------------------------------------------------------
// Whole-experiment validation.

// One line of the report, before rendering.
struct Finding {
  std::string path;  // from the Experiment
  std::string text;
  // The variants whose runs have this problem (empty for experiment-level
  // problems and for an experiment without variants).
  std::vector<std::string> variants;
};

class Findings {
 public:
  void Add(const std::string& path, const std::string& text,
           const std::string& variant) {
    const std::string key = absl::StrCat(path, "\n", text);
    auto [it, inserted] = index_.emplace(key, findings_.size());
    if (inserted) findings_.push_back(Finding{path, text, {}});
    if (!variant.empty()) findings_[it->second].variants.push_back(variant);
  }
  const std::vector<Finding>& findings() const { return findings_; }

 private:
  std::vector<Finding> findings_;
  std::map<std::string, size_t> index_;
};

// Variant.concatenate_with: the ELMo-style row fine-tunes the encoder of
// pretrained_from (left to right) beside that of concatenate_with (right to
// left), so both must be pre-trained variants of the two directions, of one
// model shape and vocabulary.
void CheckConcatenateWith(const Experiment& experiment,
                          const std::map<std::string, int>& first_index,
                          const std::vector<ResolvedRun>& runs,
                          Findings* findings) {
  for (int i = 0; i < experiment.variants_size(); ++i) {
    const Variant& variant = experiment.variants(i);
    if (!variant.has_concatenate_with()) continue;
    const std::string path = absl::StrCat("variants[", i, "].concatenate_with");
    const std::string& name = variant.concatenate_with();
    if (!variant.has_pretrained_from()) {
      findings->Add(path,
                    absl::StrCat("(\"", name,
                                 "\") needs pretrained_from: the left-to-right "
                                 "variant whose encoder goes first"),
                    "");
      continue;
    }
    auto it = first_index.find(name);
    auto ltr = first_index.find(variant.pretrained_from());
    if (it == first_index.end() || it->second == i) {
      findings->Add(
          path, absl::StrCat("(\"", name, "\") must name another variant"), "");
      continue;
    }
    const Variant& rtl_variant = experiment.variants(it->second);
    if (rtl_variant.has_pretrained_from() ||
        rtl_variant.has_concatenate_with()) {
      findings->Add(path,
                    absl::StrCat("(\"", name,
                                 "\") must be pre-trained itself, not reuse "
                                 "another variant's checkpoint"),
                    "");
      continue;
    }
    if (ltr == first_index.end() ||
        static_cast<size_t>(ltr->second) >= runs.size()) {
      continue;  // pretrained_from's own finding says why
    }
    const RunSpec& ltr_spec = runs[ltr->second].spec;
    const RunSpec& rtl_spec = runs[it->second].spec;
    if (ltr_spec.pretraining().objectives().language_model() !=
            PretrainingObjectives::LEFT_TO_RIGHT ||
        ltr_spec.model().attention_mode() != ModelSpec::CAUSAL) {
      findings->Add(
          path,
          absl::StrCat("needs pretrained_from (\"", variant.pretrained_from(),
                       "\") to be a LEFT_TO_RIGHT variant with CAUSAL "
                       "attention (ablations/variants/"
                       "ltr_no_nsp.textproto)"),
          "");
    }
    if (rtl_spec.pretraining().objectives().language_model() !=
            PretrainingObjectives::RIGHT_TO_LEFT ||
        rtl_spec.model().attention_mode() != ModelSpec::REVERSE_CAUSAL) {
      findings->Add(path,
                    absl::StrCat("(\"", name,
                                 "\") must be a RIGHT_TO_LEFT variant with "
                                 "REVERSE_CAUSAL attention (ablations/"
                                 "variants/rtl_no_nsp.textproto)"),
                    "");
    }
    ModelSpec ltr_model = ltr_spec.model();
    ModelSpec rtl_model = rtl_spec.model();
    ltr_model.clear_attention_mode();
    rtl_model.clear_attention_mode();
    if (!google::protobuf::util::MessageDifferencer::Equals(ltr_model,
                                                            rtl_model) ||
        !google::protobuf::util::MessageDifferencer::Equals(
            ltr_spec.pretraining().data(), rtl_spec.pretraining().data())) {
      findings->Add(path,
                    absl::StrCat("(\"", name, "\") and pretrained_from (\"",
                                 variant.pretrained_from(),
                                 "\") must have the same model (but for "
                                 "attention_mode) and pre-training data, so "
                                 "their encoders share a shape and a "
                                 "vocabulary"),
                    "");
    }
    if (variant.overrides().finetuning().bilstm()) {
      findings->Add(path,
                    "cannot be combined with finetuning.bilstm: the "
                    "concatenated model has no BiLSTM",
                    "");
    }
  }
}

// Variant.random_init: the no-pre-training control fine-tunes the encoder
// of pretrained_from (its shape and vocabulary) from random parameters, so
// it needs that variant, one encoder, and the model and pre-training as
// that variant has them.
// RunSpec.precision: the process computes in one precision (the CPU GEMM
// engine is process-wide) and an output directory records one.
void CheckOnePrecision(const Experiment& experiment,
                       const std::vector<ResolvedRun>& runs,
                       Findings* findings) {
  for (size_t r = 1; r < runs.size(); ++r) {
    const RunSpec::Precision precision = runs[r].spec.precision();
    if (precision == runs[0].spec.precision()) continue;
    const bool own =
        experiment.variants(static_cast<int>(r)).overrides().has_precision();
    findings->Add(
        own ? absl::StrCat("variants[", r, "].overrides.precision")
            : "base.precision",
        absl::StrCat("(", RunSpec::Precision_Name(precision),
                     ") differs from that of ", runs[0].name, " (",
                     RunSpec::Precision_Name(runs[0].spec.precision()),
                     "): every run of an experiment has one precision; run "
                     "the other as an experiment of its own"),
        own ? "" : runs[r].name);
  }
}

void CheckRandomInit(const Experiment& experiment, Findings* findings) {
  for (int i = 0; i < experiment.variants_size(); ++i) {
    const Variant& variant = experiment.variants(i);
    if (!variant.random_init()) continue;
    const std::string path = absl::StrCat("variants[", i, "].random_init");
    if (!variant.has_pretrained_from()) {
      findings->Add(path,
                    "needs pretrained_from: the pre-trained variant whose "
                    "model (shape, vocabulary) the randomly initialised "
                    "encoder takes",
                    "");
      continue;
    }
    if (variant.has_concatenate_with()) {
      findings->Add(path,
                    "cannot be combined with concatenate_with: the "
                    "two-encoder model is made of two pre-trained encoders",
                    "");
    }
    if (variant.overrides().has_pretraining() ||
        variant.overrides().has_model()) {
      findings->Add(
          path,
          absl::StrCat("takes the model and vocabulary of \"",
                       variant.pretrained_from(),
                       "\" and is not pre-trained itself, so the variant may "
                       "override finetuning only"),
          "");
    }
  }
}

void CollectFindings(const Experiment& experiment, Findings* findings) {
  if (!experiment.has_name()) {
    findings->Add("name",
                  "is required: name the experiment ([A-Za-z0-9_.-]+; it "
                  "names the output directory)",
                  "");
  } else if (!IsValidName(experiment.name())) {
    findings->Add("name",
                  absl::StrCat("(\"", experiment.name(),
                               "\") must be [A-Za-z0-9_.-]+ (it names the "
                               "output directory)"),
                  "");
  }
  // Descriptions go into every record (JSON, UTF-8): refused here, not
  // when the first record is written after pre-training.
  const auto check_text = [&](const std::string& path,
                              const std::string& text) {
    if (!IsValidUtf8(text)) {
      findings->Add(path,
                    "is not valid UTF-8 (save the file as UTF-8, or remove "
                    "the bytes that are not)",
                    "");
    }
  };
  check_text("description", experiment.description());
  for (int i = 0; i < experiment.variants_size(); ++i) {
    check_text(absl::StrCat("variants[", i, "].description"),
               experiment.variants(i).description());
  }
  if (!experiment.has_base()) {
    findings->Add("base",
                  "is required: give base { model { ... } "
                  "pretraining { ... } }",
                  "");
    return;
  }
  std::map<std::string, int> first_index;
  for (int i = 0; i < experiment.variants_size(); ++i) {
    const Variant& variant = experiment.variants(i);
    const std::string path = absl::StrCat("variants[", i, "].name");
    if (!variant.has_name()) {
      findings->Add(path, "is required: name the variant ([A-Za-z0-9_.-]+)",
                    "");
    } else if (!IsValidName(variant.name())) {
      findings->Add(path,
                    absl::StrCat("(\"", variant.name(),
                                 "\") must be [A-Za-z0-9_.-]+ (it names the "
                                 "run's directory)"),
                    "");
    } else if (auto [it, inserted] = first_index.emplace(variant.name(), i);
               !inserted) {
      findings->Add(path,
                    absl::StrCat("(\"", variant.name(),
                                 "\") is already the name of variants[",
                                 it->second, "]; names must be unique"),
                    "");
    }
  }

  for (int i = 0; i < experiment.variants_size(); ++i) {
    const Variant& variant = experiment.variants(i);
    if (!variant.has_pretrained_from()) continue;
    const std::string path = absl::StrCat("variants[", i, "].pretrained_from");
    auto it = first_index.find(variant.pretrained_from());
    if (it == first_index.end() || it->second == i) {
      findings->Add(path,
                    absl::StrCat("(\"", variant.pretrained_from(),
                                 "\") must name another variant"),
                    "");
    } else if (experiment.variants(it->second).has_pretrained_from()) {
      findings->Add(path,
                    absl::StrCat("(\"", variant.pretrained_from(),
                                 "\") is itself pretrained_from another "
                                 "variant; name that one"),
                    "");
    } else if (!variant.random_init() &&  // CheckRandomInit's finding
               (variant.overrides().has_pretraining() ||
                variant.overrides().has_model())) {
      findings->Add(
          path,
          absl::StrCat("reuses the checkpoint of \"", variant.pretrained_from(),
                       "\" and its model and pre-training, so the "
                       "variant may override finetuning only"),
          "");
    }
  }
  for (int i = 0; i < experiment.variants_size(); ++i) {
    const Variant& variant = experiment.variants(i);
    if (variant.has_row() && !IsValidName(variant.row())) {
      findings->Add(absl::StrCat("variants[", i, "].row"),
                    absl::StrCat("(\"", variant.row(),
                                 "\") must be [A-Za-z0-9_.-]+ (it names a "
                                 "report row)"),
                    "");
    }
  }
  for (const auto& [path, text] : PretrainingSeedProblems(experiment)) {
    findings->Add(path, text, "");
  }
  if (experiment.has_report() &&
      !IsPaperTableName(experiment.report().table())) {
    findings->Add("report.table",
                  absl::StrCat("(\"", experiment.report().table(),
                               "\") must be one of table1 .. table6, table8"),
                  "");
  }

  const std::vector<ResolvedRun> runs = ResolveRuns(experiment);
  CheckOnePrecision(experiment, runs, findings);
  CheckConcatenateWith(experiment, first_index, runs, findings);
  CheckRandomInit(experiment, findings);
  std::set<std::string> variant_rate_paths;
  for (size_t r = 0; r < runs.size(); ++r) {
    for (const RunSpecProblem& problem : CheckRunSpec(runs[r].spec)) {
      if (experiment.variants_size() == 0) {
        findings->Add(absl::StrCat("base.", problem.path), problem.text, "");
        continue;
      }
      const Variant& variant = experiment.variants(static_cast<int>(r));
      // A rate of Variant.learning_rates (every task has it): named once,
      // as that field.
      constexpr absl::string_view kRates = ".learning_rates";
      const size_t rates = absl::string_view(problem.path).find(kRates);
      if (variant.learning_rates_size() > 0 && rates != std::string::npos) {
        const std::string path =
            absl::StrCat("variants[", r, "]", kRates,
                         problem.path.substr(rates + kRates.size()));
        if (variant_rate_paths.insert(path).second) {
          findings->Add(path, problem.text, "");
        }
        continue;
      }
      const Source source = Attribute(experiment.base(), variant.overrides(),
                                      SplitPath(problem.path));
      // A problem of the override's own names its variant in the path; one
      // of the base's is reported once, with the variants it breaks.
      if (source == Source::kOverride) {
        findings->Add(
            absl::StrCat("variants[", r, "].overrides.", problem.path),
            problem.text, "");
      } else {
        findings->Add(absl::StrCat("base.", problem.path), problem.text,
                      runs[r].name);
      }
    }
  }
}

absl::Status ValidateImpl(const Experiment& experiment,
                          const ExperimentSources* sources,
                          const std::vector<Finding>& extra) {
  Findings collected;
  CollectFindings(experiment, &collected);
  std::vector<Finding> findings = collected.findings();
  findings.insert(findings.end(), extra.begin(), extra.end());
  if (findings.empty()) return absl::OkStatus();

  // The experiment file's problems first, in the order of its text
  // (problems without a position first), then each referenced file's, so a
  // reader fixes each file top to bottom; without text, in check order.
  struct Line {
    bool in_root;
    std::string source;
    TextPosition position;
    std::string line;
  };
  std::vector<Line> messages;
  for (const Finding& finding : findings) {
    ValueOrigin origin;
    if (sources != nullptr) origin = sources->Find(finding.path);
    std::string line = absl::StrCat(
        sources == nullptr ? "" : Where(origin.source, origin.position),
        finding.path, " ", finding.text);
    if (!finding.variants.empty() &&
        static_cast<int>(finding.variants.size()) !=
            experiment.variants_size()) {
      absl::StrAppend(&line, " (in variant",
                      finding.variants.size() > 1 ? "s " : " ",
                      absl::StrJoin(finding.variants, ", "), ")");
    }
    absl::StrAppend(&line, origin.via);
    const bool in_root =
        sources == nullptr || origin.source == sources->root_source();
    messages.push_back(
        Line{in_root, origin.source, origin.position, std::move(line)});
  }
  std::stable_sort(
      messages.begin(), messages.end(), [](const Line& a, const Line& b) {
        return std::make_tuple(!a.in_root, a.source, a.position.line,
                               a.position.column) <
               std::make_tuple(!b.in_root, b.source, b.position.line,
                               b.position.column);
      });
  std::vector<std::string> texts;
  for (Line& message : messages) texts.push_back(std::move(message.line));
  return absl::InvalidArgumentError(absl::StrJoin(texts, "\n"));
}

}  // namespace

absl::StatusOr<Experiment> ParseExperiment(absl::string_view text,
                                           absl::string_view source,
                                           const LoadOptions& options) {
  Experiment experiment;
  ExperimentSources sources;
  RETURN_IF_ERROR(ResolveReferences(text, source, &experiment, &sources));
  if (!options.pretraining_seeds.empty()) {
    experiment.clear_pretraining_seeds();
    for (const uint64_t seed : options.pretraining_seeds) {
      experiment.add_pretraining_seeds(seed);
    }
  }

  std::vector<Finding> missing_files;
  if (options.check_input_files) {
    Experiment copy = experiment;
    VisitPaths(&copy, "",
               [&](const std::string& path, PathRole role, std::string* value) {
                 if (role != INPUT_PATH || value->empty()) return;
                 std::error_code error;
                 if (!std::filesystem::is_regular_file(*value, error)) {
                   missing_files.push_back(Finding{
                       path,
                       absl::StrCat("(\"", *value,
                                    "\") is not a readable file; paths are "
                                    "relative to the file that names them"),
                       {}});
                 }
               });
  }
  RETURN_IF_ERROR(ValidateImpl(experiment, &sources, missing_files));
  ExpandPretrainingSeeds(&experiment);
  return experiment;
}

absl::StatusOr<Experiment> LoadExperiment(const std::string& path,
                                          const LoadOptions& options) {
  ASSIGN_OR_RETURN(const std::string text, ReadFileToString(path));
  return ParseExperiment(text, path, options);
}

absl::Status Validate(const Experiment& experiment) {
  return ValidateImpl(experiment, nullptr, {});
}

std::vector<ResolvedRun> ResolveRuns(const Experiment& experiment) {
  std::vector<ResolvedRun> runs;
  if (experiment.variants_size() == 0) {
    runs.push_back(ResolvedRun{"base", experiment.base()});
  }
  for (const Variant& variant : experiment.variants()) {
    ResolvedRun run{variant.name(), experiment.base()};
    if (variant.has_pretrained_from()) {
      // The model and pre-training of the variant whose checkpoint it reuses.
      for (const Variant& source : experiment.variants()) {
        if (source.name() == variant.pretrained_from() &&
            !source.has_pretrained_from()) {
          MergeOverrides(source.overrides(), &run.spec);
          break;
        }
      }
    }
    MergeOverrides(variant.overrides(), &run.spec);
    if (variant.learning_rates_size() > 0) {
      for (FinetuneTaskSpec& task :
           *run.spec.mutable_finetuning()->mutable_tasks()) {
        *task.mutable_learning_rates() = variant.learning_rates();
      }
    }
    runs.push_back(std::move(run));
  }
  for (ResolvedRun& run : runs) FillDefaults(&run.spec);
  return runs;
}

std::vector<int64_t> SequencePhaseEndSteps(const PretrainingSpec& pretraining) {
  std::vector<double> fractions;
  for (const SequencePhase& phase : pretraining.sequence_schedule().phases()) {
    fractions.push_back(phase.fraction_of_steps());
  }
  return PhaseEndSteps(fractions, pretraining.schedule().total_steps());
}

}  // namespace experiments
}  // namespace bertlab
