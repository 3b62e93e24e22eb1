#include "experiments/run_spec_checks.h"

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
#include "absl/strings/str_replace.h"
#include "absl/strings/str_split.h"
#include "common/check.h"
#include "common/file.h"
#include "common/status_macros.h"
#include "experiments/config_loader.h"
#include "experiments/config_merge.h"
#include "experiments/config_paths.h"
#include "experiments/config_references.h"
#include "experiments/config_text.h"
#include "experiments/pretraining_seeds.h"
#include "experiments/run_spec_checks.h"
#include "experiments/spec_conversions.h"
#include "google/protobuf/descriptor.h"
#include "google/protobuf/util/message_differencer.h"
#include "model/bert/config.h"
#include "model/optim/schedule.h"
#include "model/train/objective_pairing.h"
#include "tasks/finetune/finetune_task_table.h"
#include "tasks/pretraining_data/instance_config.h"
#include "tasks/utf8.h"

namespace bertlab {
namespace experiments {
namespace {

// ---------------------------------------------------------------------------
// Numbers in messages.

// Doubles in the shortest form that parses back to the same value, so a sum
// that misses 1 by 1e-12 does not print as "1".
template <typename T>
std::string Num(T value) {
  if constexpr (std::is_floating_point_v<T>) {
    char buffer[64];
    const std::to_chars_result result = std::to_chars(
        buffer, buffer + sizeof(buffer), static_cast<double>(value));
    CHECK(result.ec == std::errc());
    return std::string(buffer, result.ptr);
  } else {
    return absl::StrCat(value);
  }
}

// An interval of doubles; an infinite bound is open.
struct Interval {
  double lo;
  bool lo_open;
  double hi;
  bool hi_open;

  bool Contains(double value) const {
    const bool above = lo_open ? value > lo : value >= lo;
    const bool below = hi_open ? value < hi : value <= hi;
    return above && below;  // false for NaN
  }
  std::string Text() const {
    if (std::isinf(hi)) return absl::StrCat(lo_open ? "> " : ">= ", Num(lo));
    return absl::StrCat(lo_open ? "(" : "[", Num(lo), ", ", Num(hi),
                        hi_open ? ")" : "]");
  }
};

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr Interval kProbability{0, false, 1, false};       // [0, 1]
constexpr Interval kDropout{0, false, 1, true};            // [0, 1)
constexpr Interval kPositive{0, true, kInf, true};         // > 0
constexpr Interval kNonNegative{0, false, kInf, true};     // >= 0
constexpr Interval kFraction{0, true, 1, false};           // (0, 1]
constexpr Interval kHeldOutFraction{0, true, 0.5, false};  // (0, 0.5]
constexpr Interval kTuneFraction{0, false, 0.5, false};    // [0, 0.5]
constexpr Interval kLearningRate{0, true, 1, false};       // (0, 1]
constexpr Interval kWeightDecay{0, false, 1, true};        // [0, 1)
// Fine-tuning's sizes are bounded as pre-training's total_steps is: a grid of
// 1e9 restarts or 1e15 epochs is a typo that would otherwise run (or
// overflow a run count) for ever.
constexpr Interval kEpochs{0, true, 1000, false};  // (0, 1000]
constexpr int64_t kMaxRestarts = 1000;
constexpr int kMaxLearningRates = 100;

// total_steps * gradient_accumulation_steps at most (a uint32 counter).
constexpr int64_t kMaxMicroSteps = int64_t{0xffffffff};

std::string KnownSizes() {
  std::vector<std::string> names;
  for (const ModelSize& size : ModelSizes()) names.push_back(size.name);
  return absl::StrJoin(names, ", ");
}

// The schema's name of the attention mode `mode` (ToAttentionMode's inverse).
std::string SchemaAttentionMode(AttentionMode mode) {
  for (ModelSpec::AttentionMode value :
       {ModelSpec::BIDIRECTIONAL, ModelSpec::CAUSAL,
        ModelSpec::REVERSE_CAUSAL}) {
    if (ToAttentionMode(value) == mode) {
      return ModelSpec::AttentionMode_Name(value);
    }
  }
  return "ATTENTION_MODE_UNSPECIFIED";
}

// The schema's name of the objective that trains with `mode`.
std::string SchemaObjectiveOf(AttentionMode mode) {
  for (PretrainingObjectives::LanguageModel value :
       {PretrainingObjectives::MASKED_LM, PretrainingObjectives::LEFT_TO_RIGHT,
        PretrainingObjectives::RIGHT_TO_LEFT}) {
    if (ObjectiveAttentionMode(ToLanguageModel(value)) == mode) {
      return PretrainingObjectives::LanguageModel_Name(value);
    }
  }
  return "LANGUAGE_MODEL_UNSPECIFIED";
}

// ---------------------------------------------------------------------------
// Semantic checks of one resolved RunSpec. Paths are relative to the
// RunSpec, e.g. "pretraining.schedule.warmup_steps"; a oneof's name stands
// for "whichever member is set".

class RunChecker {
 public:
  explicit RunChecker(const RunSpec& spec) : spec_(spec) {}

  std::vector<RunSpecProblem> Check() {
    if (spec_.precision() == RunSpec::PRECISION_UNSPECIFIED) {
      Add("precision", "is PRECISION_UNSPECIFIED: set FP32 or BF16");
    }
    CheckModel();
    CheckObjectives();
    CheckMasking();
    CheckData();
    CheckOptimizer();
    CheckSchedule();
    CheckSequenceSchedule();
    CheckRunControl();
    CheckFinetuning();
    CheckCloze();
    return std::move(problems_);
  }

 private:
  void Add(std::string path, std::string text) {
    problems_.push_back(RunSpecProblem{std::move(path), std::move(text)});
  }

  // An integer field without a default: present and at least `minimum`.
  void RequireAtLeast(const std::string& path, bool has, int64_t value,
                      int64_t minimum, absl::string_view what) {
    if (!has) {
      Add(path, absl::StrCat("is required: set it to ", what, ", at least ",
                             minimum));
    } else {
      AtLeast(path, value, minimum, absl::StrCat("set it to ", what));
    }
  }

  void AtLeast(const std::string& path, int64_t value, int64_t minimum,
               absl::string_view fix) {
    if (value < minimum) {
      Add(path,
          absl::StrCat("(", value, ") must be at least ", minimum, "; ", fix));
    }
  }

  void InRange(const std::string& path, double value, const Interval& interval,
               absl::string_view fix) {
    if (!interval.Contains(value)) {
      Add(path, absl::StrCat("(", Num(value), ") must be ",
                             std::isinf(interval.hi) ? "" : "in ",
                             interval.Text(), "; ", fix));
    }
  }

  // A double field without a default.
  void RequireInRange(const std::string& path, bool has, double value,
                      const Interval& interval, absl::string_view what) {
    if (!has) {
      Add(path, absl::StrCat("is required: set it to ", what,
                             std::isinf(interval.hi) ? ", " : ", in ",
                             interval.Text()));
    } else {
      InRange(path, value, interval, absl::StrCat("set it to ", what));
    }
  }

  bool masked_lm() const {
    return spec_.pretraining().objectives().language_model() ==
           PretrainingObjectives::MASKED_LM;
  }

  void CheckModel() {
    const ModelSpec& model = spec_.model();
    switch (model.architecture_case()) {
      case ModelSpec::kSize: {
        const auto& sizes = ModelSizes();
        if (std::none_of(sizes.begin(), sizes.end(), [&](const ModelSize& s) {
              return model.size() == s.name;
            })) {
          Add("model.size",
              absl::StrCat("(\"", model.size(),
                           "\") is not a known size; use one of: ",
                           KnownSizes(), "; or give shape { ... } instead"));
        }
        break;
      }
      case ModelSpec::kShape: {
        const ModelSpec::Shape& shape = model.shape();
        RequireAtLeast("model.shape.num_hidden_layers",
                       shape.has_num_hidden_layers(), shape.num_hidden_layers(),
                       1, "the number of layers L");
        RequireAtLeast("model.shape.hidden_size", shape.has_hidden_size(),
                       shape.hidden_size(), 1, "the hidden size H");
        RequireAtLeast(
            "model.shape.num_attention_heads", shape.has_num_attention_heads(),
            shape.num_attention_heads(), 1, "the number of attention heads A");
        if (shape.has_intermediate_size()) {
          AtLeast("model.shape.intermediate_size", shape.intermediate_size(), 1,
                  "or leave it unset for 4 * hidden_size");
        }
        if (shape.hidden_size() > 0 && shape.num_attention_heads() > 0 &&
            shape.hidden_size() % shape.num_attention_heads() != 0) {
          Add("model.shape.hidden_size",
              absl::StrCat("(", shape.hidden_size(),
                           ") must be divisible by num_attention_heads (",
                           shape.num_attention_heads(),
                           "); change one of them (BERT: 768 and 12)"));
        }
        break;
      }
      case ModelSpec::ARCHITECTURE_NOT_SET:
        Add("model.architecture",
            absl::StrCat("is required: set size (one of: ", KnownSizes(),
                         ") or shape { num_hidden_layers: L hidden_size: H "
                         "num_attention_heads: A }"));
        break;
    }

    switch (model.vocab_case()) {
      case ModelSpec::kVocabFile:
        if (model.vocab_file().empty()) {
          Add("model.vocab_file",
              "is empty: set it to the path of a vocab.txt (relative to this "
              "file)");
        }
        break;
      case ModelSpec::kTrainVocab:
        RequireAtLeast("model.train_vocab.size", model.train_vocab().has_size(),
                       model.train_vocab().size(), 6,
                       "the number of entries, special tokens included (the "
                       "default corpus uses 8000)");
        break;
      case ModelSpec::VOCAB_NOT_SET:
        Add("model.vocab",
            "is required: set vocab_file: \"path/to/vocab.txt\" or "
            "train_vocab { size: N } to train one on the corpus");
        break;
    }

    AtLeast("model.max_position_embeddings", model.max_position_embeddings(), 1,
            "BERT uses 512");
    if (masked_lm()) {
      AtLeast("model.type_vocab_size", model.type_vocab_size(), 2,
              "MASKED_LM pairs [CLS] A [SEP] B [SEP] use segment types 0 and "
              "1 (BERT: 2)");
    } else {
      AtLeast("model.type_vocab_size", model.type_vocab_size(), 1,
              "BERT uses 2");
    }
    if (model.hidden_act() == ModelSpec::HIDDEN_ACT_UNSPECIFIED) {
      Add("model.hidden_act",
          "is HIDDEN_ACT_UNSPECIFIED: set GELU_ERF (the released checkpoints) "
          "or GELU_TANH");
    }
    InRange("model.hidden_dropout_prob", model.hidden_dropout_prob(), kDropout,
            "BERT uses 0.1");
    InRange("model.attention_probs_dropout_prob",
            model.attention_probs_dropout_prob(), kDropout, "BERT uses 0.1");
    InRange("model.initializer_range", model.initializer_range(), kPositive,
            "BERT uses 0.02");
    InRange("model.layer_norm_eps", model.layer_norm_eps(), kPositive,
            "BERT uses 1e-12");

    switch (model.attention_mode()) {
      case ModelSpec::ATTENTION_MODE_UNSPECIFIED:
        Add("model.attention_mode",
            "is ATTENTION_MODE_UNSPECIFIED: set BIDIRECTIONAL (masked LM), "
            "CAUSAL (left-to-right LM) or REVERSE_CAUSAL (right-to-left LM)");
        break;
      default:  // paired with the objective in CheckObjectivePairing
        break;
    }
  }

  void CheckObjectives() {
    const PretrainingObjectives& objectives = spec_.pretraining().objectives();
    switch (objectives.language_model()) {
      case PretrainingObjectives::LANGUAGE_MODEL_UNSPECIFIED:
        Add("pretraining.objectives.language_model",
            "is LANGUAGE_MODEL_UNSPECIFIED: set MASKED_LM (BERT), "
            "LEFT_TO_RIGHT or RIGHT_TO_LEFT");
        break;
      default:
        CheckObjectivePairing();
        break;
    }
    InRange("pretraining.objectives.random_next_prob",
            objectives.random_next_prob(), kProbability,
            "the reference uses 0.5");
  }

  // The objective's attention and next-sentence task, by the one rule
  // (model/train/objective_pairing.h), reported where the schema sets them:
  // a masked LM's wrong attention at model.attention_mode, everything else
  // at the language model.
  void CheckObjectivePairing() {
    const PretrainingObjectives& objectives = spec_.pretraining().objectives();
    const ModelSpec::AttentionMode schema_mode = spec_.model().attention_mode();
    if (schema_mode == ModelSpec::ATTENTION_MODE_UNSPECIFIED) return;
    const LanguageModel objective =
        ToLanguageModel(objectives.language_model());
    const AttentionMode mode = ToAttentionMode(schema_mode);
    const ObjectiveConflicts conflicts =
        FindObjectiveConflicts(objective, objectives.next_sentence(), mode);
    const std::string named = absl::StrCat(
        "(",
        PretrainingObjectives::LanguageModel_Name(objectives.language_model()),
        ")");
    if (!conflicts.next_sentence.empty()) {
      Add("pretraining.objectives.language_model",
          absl::StrCat(named, " has no next-sentence task (",
                       conflicts.next_sentence,
                       "); set pretraining.objectives.next_sentence: false",
                       objective == LanguageModel::kLeftToRight
                           ? " (the paper's \"LTR & No NSP\")"
                           : ""));
    }
    if (conflicts.attention.empty()) return;
    const AttentionMode wanted = ObjectiveAttentionMode(objective);
    if (objective == LanguageModel::kMaskedLm) {
      Add("model.attention_mode",
          absl::StrCat("(", ModelSpec::AttentionMode_Name(schema_mode),
                       ") does not fit pretraining.objectives.language_model "
                       "MASKED_LM: ",
                       conflicts.attention,
                       "; set attention_mode: ", SchemaAttentionMode(wanted),
                       ", or language_model: ", SchemaObjectiveOf(mode)));
    } else {
      Add("pretraining.objectives.language_model",
          absl::StrCat(
              named, " needs ",
              absl::StrReplaceAll(AttentionModeName(wanted), {{"_", "-"}}),
              " attention: ", conflicts.attention,
              "; set model.attention_mode: ", SchemaAttentionMode(wanted)));
    }
  }

  void CheckMasking() {
    if (!masked_lm()) return;  // LEFT_TO_RIGHT and RIGHT_TO_LEFT mask nothing
    const MaskingSpec& masking = spec_.pretraining().masking();
    InRange("pretraining.masking.masked_lm_prob", masking.masked_lm_prob(),
            kFraction, "BERT uses 0.15");
    InRange("pretraining.masking.mask_fraction", masking.mask_fraction(),
            kProbability, "BERT uses 0.8");
    InRange("pretraining.masking.random_fraction", masking.random_fraction(),
            kProbability, "BERT uses 0.1");
    InRange("pretraining.masking.keep_fraction", masking.keep_fraction(),
            kProbability, "BERT uses 0.1");
    const double sum = masking.mask_fraction() + masking.random_fraction() +
                       masking.keep_fraction();
    if (!(std::abs(sum - 1.0) <= 1e-9)) {
      Add("pretraining.masking.mask_fraction",
          absl::StrCat("+ random_fraction + keep_fraction = ",
                       Num(masking.mask_fraction()), " + ",
                       Num(masking.random_fraction()), " + ",
                       Num(masking.keep_fraction()), " = ", Num(sum),
                       "; they must sum to 1 (BERT: 0.8, 0.1, 0.1)"));
    }
  }

  void CheckData() {
    const PretrainingData& data = spec_.pretraining().data();
    const std::string base = "pretraining.data";
    if (data.sources_size() > 0) {
      if (data.has_format() || data.corpus_files_size() > 0) {
        Add(base + ".sources",
            "cannot be combined with format and corpus_files (the one-source "
            "form): give every corpus as a source, or remove the sources");
      }
      for (int i = 0; i < data.sources_size(); ++i) {
        CheckSource(absl::StrCat(base, ".sources[", i, "]"),
                    data.sources(i).format(), data.sources(i).files());
      }
      if (data.sources_size() > 1 && data.has_held_out_files()) {
        Add(base + ".held_out_files",
            "goes with one source (the files are read in its format); with "
            "several sources use held_out_fraction");
      }
    } else {
      CheckSource(base, data.format(), data.corpus_files(), ".corpus_files");
    }
    // FillDefaults makes an empty with_data_dir: no sources means none.
    if (data.with_data_dir().sources_size() > 0) {
      const std::string with = base + ".with_data_dir";
      const auto& sources = data.with_data_dir().sources();
      for (int i = 0; i < sources.size(); ++i) {
        const std::string path = absl::StrCat(with, ".sources[", i, "]");
        if (sources[i].format() == PretrainingData::DEFAULT_CORPUS) {
          Add(path + ".format",
              "cannot be DEFAULT_CORPUS: the embedded corpus is not under "
              "--data_dir (it is the corpus without --data_dir)");
          continue;
        }
        CheckSource(path, sources[i].format(), sources[i].files());
        for (int j = 0; j < sources[i].files_size(); ++j) {
          const std::string& file = sources[i].files(j);
          if (absl::StartsWith(file, "/") ||
              absl::StrContains(absl::StrCat("/", file, "/"), "/../")) {
            Add(absl::StrCat(path, ".files[", j, "]"),
                absl::StrCat("(\"", file,
                             "\") must be relative to --data_dir, without "
                             "\"..\""));
          }
        }
      }
      if (data.has_held_out_files()) {
        Add(base + ".held_out_files",
            "cannot be combined with with_data_dir, which replaces the corpus "
            "those files belong to; use held_out_fraction");
      }
    }
    if (data.min_corpus_words() < 0) {
      Add(base + ".min_corpus_words",
          absl::StrCat("(", data.min_corpus_words(),
                       ") must be at least 0 (0: no minimum)"));
    }
    switch (data.held_out_case()) {
      case PretrainingData::kHeldOutFraction:
        InRange(base + ".held_out_fraction", data.held_out_fraction(),
                kHeldOutFraction,
                "the share of documents kept for evaluation, e.g. 0.01");
        break;
      case PretrainingData::kHeldOutFiles:
        if (data.held_out_files().files_size() == 0) {
          Add(base + ".held_out_files.files",
              "is empty: list the held-out files, or use held_out_fraction");
        }
        for (int i = 0; i < data.held_out_files().files_size(); ++i) {
          if (data.held_out_files().files(i).empty()) {
            Add(absl::StrCat(base, ".held_out_files.files[", i, "]"),
                "is empty: give a file path or remove the entry");
          }
        }
        break;
      case PretrainingData::HELD_OUT_NOT_SET:
        Add(base + ".held_out",
            "is required: set held_out_fraction (e.g. 0.01) or "
            "held_out_files { files: \"...\" } for the evaluation loss");
        break;
    }
    if (data.dupe_factor() < 1 || data.dupe_factor() > kMaxDupeFactor) {
      Add(base + ".dupe_factor",
          absl::StrCat("(", data.dupe_factor(), ") must be in [1, ",
                       kMaxDupeFactor, "]; the reference uses 10"));
    }
    InRange(base + ".short_seq_prob", data.short_seq_prob(), kProbability,
            "the reference uses 0.1");
    if (data.has_shards_dir() && data.shards_dir().empty()) {
      Add(base + ".shards_dir",
          "is empty: give a directory, or remove it to keep shards in the "
          "run's output directory");
    }
  }

  // One corpus source at `path`: its format and files (`files_field` names
  // the files within it).
  void CheckSource(const std::string& path, PretrainingData::Format format,
                   const google::protobuf::RepeatedPtrField<std::string>& files,
                   absl::string_view files_field = ".files") {
    const std::string files_path = absl::StrCat(path, files_field);
    if (format == PretrainingData::FORMAT_UNSPECIFIED) {
      Add(path + ".format",
          "is required: set REFERENCE, WIKIEXTRACTOR, GUTENBERG, DIATHEKE or "
          "DEFAULT_CORPUS (the embedded World English Bible)");
    } else if (format == PretrainingData::DEFAULT_CORPUS) {
      if (!files.empty()) {
        Add(files_path,
            "must be empty with format DEFAULT_CORPUS (that corpus is built "
            "in); remove them, or set the format of your files");
      }
    } else if (files.empty()) {
      Add(files_path, absl::StrCat("is empty: list the corpus files (format ",
                                   PretrainingData::Format_Name(format),
                                   "), or use format DEFAULT_CORPUS"));
    }
    for (int i = 0; i < files.size(); ++i) {
      if (files[i].empty()) {
        Add(absl::StrCat(files_path, "[", i, "]"),
            "is empty: give a file path or remove the entry");
      }
    }
  }

  void CheckOptimizer() {
    const OptimizerSpec& optimizer = spec_.pretraining().optimizer();
    const std::string base = "pretraining.optimizer";
    RequireInRange(base + ".learning_rate", optimizer.has_learning_rate(),
                   optimizer.learning_rate(), kLearningRate,
                   "the peak learning rate (the paper: 1e-4)");
    CheckAdamW(base, optimizer, "the trainer");
    AtLeast(base + ".gradient_accumulation_steps",
            optimizer.gradient_accumulation_steps(), 1,
            "1 means no accumulation");
  }

  // The AdamW fields pre-training's OptimizerSpec and fine-tuning's
  // FinetuneOptimizerSpec share (the same names), under `base`; `user` is
  // the loop that applies them ("the trainer", "the fine-tuner").
  template <typename Spec>
  void CheckAdamW(const std::string& base, const Spec& optimizer,
                  absl::string_view user) {
    InRange(base + ".beta1", optimizer.beta1(), kDropout, "BERT uses 0.9");
    InRange(base + ".beta2", optimizer.beta2(), kDropout, "BERT uses 0.999");
    InRange(base + ".epsilon", optimizer.epsilon(), kPositive,
            "BERT uses 1e-6");
    InRange(base + ".weight_decay", optimizer.weight_decay(), kWeightDecay,
            "BERT uses 0.01");
    if (optimizer.weight_decay() > 0 &&
        optimizer.weight_decay_exclude_size() == 0) {
      Add(base + ".weight_decay_exclude",
          absl::StrCat("is empty but weight_decay is ",
                       Num(optimizer.weight_decay()),
                       ": list the parameter-name parts not to decay (BERT: "
                       "weight_decay_exclude: [\"LayerNorm\", \"layer_norm\", "
                       "\"bias\"]), or set weight_decay: 0"));
    }
    for (int i = 0; i < optimizer.weight_decay_exclude_size(); ++i) {
      if (optimizer.weight_decay_exclude(i).empty()) {
        Add(absl::StrCat(base, ".weight_decay_exclude[", i, "]"),
            "is empty, which would match every parameter; remove it");
      }
    }
    // AdamW excludes BERT's names (ExcludedFromWeightDecay); any other list
    // would silently train something else.
    const std::vector<std::string> bert = {"LayerNorm", "layer_norm", "bias"};
    const std::vector<std::string> given(
        optimizer.weight_decay_exclude().begin(),
        optimizer.weight_decay_exclude().end());
    if (optimizer.weight_decay() > 0 && !given.empty() && given != bert) {
      Add(base + ".weight_decay_exclude",
          absl::StrCat("is [", absl::StrJoin(given, ", "), "]; ", user,
                       " implements BERT's [LayerNorm, layer_norm, bias] "
                       "only"));
    }
    InRange(base + ".clip_norm", optimizer.clip_norm(), kNonNegative,
            "BERT uses 1.0; 0 turns clipping off");
  }

  void CheckSchedule() {
    const ScheduleSpec& schedule = spec_.pretraining().schedule();
    const std::string base = "pretraining.schedule";
    RequireAtLeast(base + ".total_steps", schedule.has_total_steps(),
                   schedule.total_steps(), 1,
                   "the number of optimizer steps (the paper: 1000000)");
    // Dropout draws are addressed by a 32-bit Philox counter per
    // micro-step (model/train/pretrainer.cc refuses more, but only after the
    // data is prepared): say it here, with the field's place in the file.
    const int64_t accumulation =
        spec_.pretraining().optimizer().gradient_accumulation_steps();
    if (schedule.total_steps() >= 1 && accumulation >= 1 &&
        schedule.total_steps() > kMaxMicroSteps / accumulation) {
      Add(base + ".total_steps",
          absl::StrCat("(", schedule.total_steps(), ") times pretraining.",
                       "optimizer.gradient_accumulation_steps (", accumulation,
                       ") must be at most 2^32 - 1 = ", kMaxMicroSteps,
                       " micro-steps (dropout draws are addressed by a "
                       "32-bit counter); the paper trains 1000000 steps"));
    }
    switch (schedule.warmup_case()) {
      case ScheduleSpec::kWarmupSteps:
        if (schedule.warmup_steps() < 0) {
          Add(base + ".warmup_steps",
              absl::StrCat("(", schedule.warmup_steps(),
                           ") must be at least 0; 0 means no warmup"));
        } else if (schedule.total_steps() >= 1 &&
                   schedule.warmup_steps() >= schedule.total_steps()) {
          Add(base + ".warmup_steps",
              absl::StrCat("(", schedule.warmup_steps(),
                           ") must be less than total_steps (",
                           schedule.total_steps(),
                           "); lower warmup_steps or raise total_steps"));
        }
        break;
      case ScheduleSpec::kWarmupProportion:
        InRange(base + ".warmup_proportion", schedule.warmup_proportion(),
                kDropout,
                "it is the share of total_steps spent warming up (the paper: "
                "0.01)");
        break;
      case ScheduleSpec::WARMUP_NOT_SET:
        Add(base + ".warmup",
            "is required: set warmup_steps (the paper: 10000 of 1000000) or "
            "warmup_proportion (e.g. 0.01)");
        break;
    }
  }

  void CheckSequenceSchedule() {
    const PretrainingSpec& pretraining = spec_.pretraining();
    const SequenceLengthSchedule& schedule = pretraining.sequence_schedule();
    const std::string base = "pretraining.sequence_schedule.phases";
    if (schedule.phases_size() == 0) {
      Add(base,
          "is empty: add at least one phase { fraction_of_steps: 1 "
          "max_seq_length: 128 batch_size: 256 max_predictions_per_seq: 20 "
          "} (the paper: 0.9 at 128, then 0.1 at 512)");
      return;
    }
    const int64_t max_positions = spec_.model().max_position_embeddings();
    const int min_length =
        masked_lm() ? kMinMaxSeqLengthMaskedLm : kMinMaxSeqLengthLeftToRight;
    const int accumulation =
        pretraining.optimizer().gradient_accumulation_steps();
    bool fractions_ok = true;
    double sum = 0;
    std::vector<std::string> terms;
    for (int i = 0; i < schedule.phases_size(); ++i) {
      const SequencePhase& phase = schedule.phases(i);
      const std::string path = absl::StrCat(base, "[", i, "]");
      const size_t before = problems_.size();
      RequireInRange(path + ".fraction_of_steps", phase.has_fraction_of_steps(),
                     phase.fraction_of_steps(), kFraction,
                     "this phase's share of total_steps");
      if (problems_.size() != before) fractions_ok = false;
      sum += phase.fraction_of_steps();
      terms.push_back(Num(phase.fraction_of_steps()));

      if (!phase.has_max_seq_length()) {
        Add(path + ".max_seq_length",
            "is required: set it to the tokens per sequence (BERT: 128, then "
            "512)");
      } else if (phase.max_seq_length() < min_length) {
        Add(path + ".max_seq_length",
            absl::StrCat("(", phase.max_seq_length(), ") must be at least ",
                         min_length, " for ",
                         masked_lm() ? "MASKED_LM ([CLS] A [SEP] B [SEP] "
                                       "needs 2 tokens of text)"
                                     : "LEFT_TO_RIGHT and RIGHT_TO_LEFT "
                                       "([CLS] text [SEP] needs 2 tokens of "
                                       "text)",
                         "; BERT uses 128 and 512"));
      } else if (phase.max_seq_length() > max_positions) {
        Add(path + ".max_seq_length",
            absl::StrCat("(", phase.max_seq_length(),
                         ") must be at most model.max_position_embeddings (",
                         max_positions,
                         "); lower max_seq_length or raise "
                         "max_position_embeddings"));
      } else if (phase.max_seq_length() > kMaxMaxSeqLength) {
        Add(path + ".max_seq_length",
            absl::StrCat("(", phase.max_seq_length(), ") must be at most ",
                         kMaxMaxSeqLength,
                         " (shards store positions as "
                         "uint16)"));
      }

      RequireAtLeast(path + ".batch_size", phase.has_batch_size(),
                     phase.batch_size(), 1,
                     "the sequences per optimizer step (the paper: 256)");
      if (phase.batch_size() >= 1 && accumulation >= 1 &&
          phase.batch_size() % accumulation != 0) {
        Add(path + ".batch_size",
            absl::StrCat("(", phase.batch_size(),
                         ") must be divisible by pretraining.optimizer."
                         "gradient_accumulation_steps (",
                         accumulation,
                         "); change one so that every micro-batch has the "
                         "same size"));
      }

      if (masked_lm()) {
        if (!phase.has_max_predictions_per_seq()) {
          Add(path + ".max_predictions_per_seq",
              absl::StrCat(
                  "is required for MASKED_LM: set it to about max_seq_length "
                  "* masked_lm_prob (the reference: 20 for 128, 80 for 512)"));
        } else if (phase.max_predictions_per_seq() < 1 ||
                   (phase.has_max_seq_length() &&
                    phase.max_predictions_per_seq() > phase.max_seq_length())) {
          Add(path + ".max_predictions_per_seq",
              absl::StrCat("(", phase.max_predictions_per_seq(),
                           ") must be in [1, max_seq_length (",
                           phase.max_seq_length(),
                           ")]; about max_seq_length * masked_lm_prob, e.g. "
                           "20 for 128"));
        }
      }
    }
    if (!fractions_ok) return;
    if (!(std::abs(sum - 1.0) <= 1e-6)) {
      Add(base, absl::StrCat("fraction_of_steps add up to ",
                             absl::StrJoin(terms, " + "), " = ", Num(sum),
                             "; they must sum to 1"));
      return;
    }
    const int64_t total_steps = pretraining.schedule().total_steps();
    if (total_steps < 1) return;
    const std::vector<int64_t> ends = SequencePhaseEndSteps(pretraining);
    for (int i = 0; i < schedule.phases_size(); ++i) {
      const int64_t start = i == 0 ? 0 : ends[i - 1];
      if (ends[i] <= start) {
        Add(absl::StrCat(base, "[", i, "].fraction_of_steps"),
            absl::StrCat("(", Num(schedule.phases(i).fraction_of_steps()),
                         ") gives this phase no steps of total_steps (",
                         total_steps,
                         "); raise fraction_of_steps or total_steps"));
      }
    }
  }

  void CheckRunControl() {
    const PretrainingSpec& pretraining = spec_.pretraining();
    RequireAtLeast("pretraining.eval_every_steps",
                   pretraining.has_eval_every_steps(),
                   pretraining.eval_every_steps(), 1,
                   "the steps between held-out evaluations");
    RequireAtLeast("pretraining.eval_batches", pretraining.has_eval_batches(),
                   pretraining.eval_batches(), 1,
                   "the held-out batches per evaluation");
    RequireAtLeast("pretraining.checkpoint_every_steps",
                   pretraining.has_checkpoint_every_steps(),
                   pretraining.checkpoint_every_steps(), 1,
                   "the steps between checkpoints");
    AtLeast("pretraining.keep_last_checkpoints",
            pretraining.keep_last_checkpoints(), 1,
            "resuming needs the last one");
    AtLeast("pretraining.log_every_steps", pretraining.log_every_steps(), 1,
            "e.g. 10");
    if (pretraining.on_non_finite() ==
        PretrainingSpec::ON_NON_FINITE_UNSPECIFIED) {
      Add("pretraining.on_non_finite",
          "is ON_NON_FINITE_UNSPECIFIED: set STOP or SKIP_STEP");
    }
  }

  void CheckCloze() {
    if (!spec_.has_cloze()) return;
    const ClozeSpec& cloze = spec_.cloze();
    AtLeast("cloze.candidates", cloze.candidates(), 2,
            "e.g. 5 (chance is 1 in candidates)");
    AtLeast("cloze.band", cloze.band(), 1, "e.g. 100 frequency ranks");
    AtLeast("cloze.min_count", cloze.min_count(), 1, "e.g. 5");
    AtLeast("cloze.skip_most_frequent", cloze.skip_most_frequent(), 0,
            "e.g. 50");
    AtLeast("cloze.max_items", cloze.max_items(), 0, "0 keeps every item");
    AtLeast("cloze.max_seq_length", cloze.max_seq_length(), 3,
            "[CLS], the blank and [SEP] need 3; e.g. 64");
    if (cloze.max_seq_length() > spec_.model().max_position_embeddings()) {
      Add("cloze.max_seq_length",
          absl::StrCat("(", cloze.max_seq_length(),
                       ") exceeds model.max_position_embeddings (",
                       spec_.model().max_position_embeddings(), ")"));
    }
  }

  void CheckFinetuning() {
    const FinetuningSpec& finetuning = spec_.finetuning();
    if (finetuning.tasks_size() > 0) CheckFinetuneOptimizer();
    std::set<FinetuneTaskSpec::Task> seen;
    for (int i = 0; i < finetuning.tasks_size(); ++i) {
      const FinetuneTaskSpec& task = finetuning.tasks(i);
      const std::string path = absl::StrCat("finetuning.tasks[", i, "]");
      // The parser refuses names that are not values; a number that is not
      // one cannot come from the text.
      const bool known_task = task.has_task() &&
                              FinetuneTaskSpec::Task_IsValid(task.task()) &&
                              task.task() != FinetuneTaskSpec::TASK_UNSPECIFIED;
      if (!task.has_task()) {
        Add(path + ".task",
            absl::StrCat("is required: one of ", FinetuneTaskChoices(false)));
      } else if (!known_task) {
        Add(path + ".task",
            absl::StrCat("is ", TaskName(task.task()), ": set one of ",
                         FinetuneTaskChoices(false)));
      } else if (FinetuneTaskOf(ToFinetuneTaskId(task.task())).derived) {
        Add(path + ".task",
            absl::StrCat("(", TaskName(task.task()),
                         ") is a derived stand-in, which runs only as a "
                         "fallback_task: set task to the real task it stands "
                         "in for (",
                         StandsInFor(task.task()),
                         ") and fallback_task: ", TaskName(task.task())));
      } else if (!seen.insert(task.task()).second) {
        Add(path + ".task", absl::StrCat("(", TaskName(task.task()),
                                         ") is listed twice; list it once "
                                         "with the whole learning-rate grid"));
      }
      if (task.has_fallback_task()) {
        const FinetuneTaskSpec::Task fallback = task.fallback_task();
        const bool known_fallback =
            FinetuneTaskSpec::Task_IsValid(fallback) &&
            fallback != FinetuneTaskSpec::TASK_UNSPECIFIED;
        if (!known_fallback ||
            !FinetuneTaskOf(ToFinetuneTaskId(fallback)).derived) {
          Add(path + ".fallback_task",
              absl::StrCat(known_fallback ? "(" : "is ", TaskName(fallback),
                           known_fallback ? ") is not a derived task" : "",
                           "; use one of ", FinetuneTaskChoices(true),
                           ", or remove it to report the cell as n/a"));
        } else if (known_task &&
                   !FinetuneTaskOf(ToFinetuneTaskId(task.task())).derived &&
                   !CanStandIn(ToFinetuneTaskId(fallback),
                               ToFinetuneTaskId(task.task()))) {
          Add(path + ".fallback_task",
              absl::StrCat("(", TaskName(fallback), ") cannot stand in for ",
                           TaskName(task.task()), "; it stands in for ",
                           StandsInFor(fallback)));
        }
      }
      if (task.learning_rates_size() == 0) {
        Add(path + ".learning_rates",
            "is required: the grid to choose from on dev (the paper: 5e-5, "
            "4e-5, 3e-5, 2e-5)");
      }
      for (int k = 0; k < task.learning_rates_size(); ++k) {
        InRange(absl::StrCat(path, ".learning_rates[", k, "]"),
                task.learning_rates(k), kLearningRate, "e.g. 2e-5");
      }
      InRange(path + ".num_epochs", task.num_epochs(), kEpochs,
              "the paper uses 3 (2 for SQuAD)");
      AtLeast(path + ".batch_size", task.batch_size(), 1, "the paper uses 32");
      AtLeast(path + ".max_seq_length", task.max_seq_length(), 8,
              "e.g. 128 (SQuAD 384)");
      if (task.max_seq_length() > spec_.model().max_position_embeddings()) {
        Add(path + ".max_seq_length",
            absl::StrCat("(", task.max_seq_length(),
                         ") exceeds model.max_position_embeddings (",
                         spec_.model().max_position_embeddings(), ")"));
      }
      AtLeast(path + ".restarts", task.restarts(), 1,
              "1 run per learning rate, or more for mean and spread");
      if (task.restarts() > kMaxRestarts) {
        Add(path + ".restarts",
            absl::StrCat("(", task.restarts(), ") must be at most ",
                         kMaxRestarts, "; the paper uses 5"));
      }
      if (task.learning_rates_size() > kMaxLearningRates) {
        Add(path + ".learning_rates",
            absl::StrCat("has ", task.learning_rates_size(), " rates; at most ",
                         kMaxLearningRates, " (the paper's grid has 4)"));
      }
      InRange(path + ".warmup_proportion", task.warmup_proportion(), kDropout,
              "the paper uses 0.1");
      AtLeast(path + ".max_train_examples", task.max_train_examples(), 0,
              "0 means all");
      AtLeast(path + ".max_eval_examples", task.max_eval_examples(), 0,
              "0 means all");
      InRange(path + ".tune_fraction", task.tune_fraction(), kTuneFraction,
              "e.g. 0.1; 0 chooses learning rates on dev");
      if (task.choose_epoch_on_tune()) {
        if (!(task.tune_fraction() > 0)) {
          Add(path + ".choose_epoch_on_tune",
              "needs a tune split to choose on: set tune_fraction (e.g. 0.1)");
        }
        if (task.num_epochs() != std::floor(task.num_epochs())) {
          Add(path + ".choose_epoch_on_tune",
              absl::StrCat("needs whole epochs; num_epochs is ",
                           task.num_epochs()));
        }
      }
      AtLeast(path + ".doc_stride", task.doc_stride(), 1, "the paper's 128");
      AtLeast(path + ".max_query_length", task.max_query_length(), 1,
              "the paper's 64");
    }
  }

  // Fine-tuning's AdamW, checked only where a run fine-tunes (its defaults
  // are filled into every run).
  void CheckFinetuneOptimizer() {
    const FinetuneOptimizerSpec& optimizer = spec_.finetuning().optimizer();
    const std::string base = "finetuning.optimizer";
    CheckAdamW(base, optimizer, "the fine-tuner");
    AtLeast(base + ".gradient_accumulation_steps",
            optimizer.gradient_accumulation_steps(), 1,
            "1 means the whole batch at once");
  }

  static std::string TaskName(FinetuneTaskSpec::Task task) {
    const std::string& name = FinetuneTaskSpec::Task_Name(task);
    return name.empty() ? absl::StrCat(static_cast<int>(task)) : name;
  }

  // "MNLI, QQP, ..." for a derived task; the derived task that can stand
  // in for a real one ("WEB_PAIR"), or "none".
  static std::string StandsInFor(FinetuneTaskSpec::Task task) {
    const FinetuneTaskId id = ToFinetuneTaskId(task);
    std::vector<std::string> names;
    for (const FinetuneTaskInfo& info : FinetuneTaskTable()) {
      if (FinetuneTaskOf(id).derived) {
        if (CanStandIn(id, info.id)) {
          names.push_back(TaskName(ToSchemaTask(info.id)));
        }
      } else if (info.derived && CanStandIn(info.id, id)) {
        names.push_back(TaskName(ToSchemaTask(info.id)));
      }
    }
    return names.empty() ? "none" : absl::StrJoin(names, ", ");
  }

  const RunSpec& spec_;
  std::vector<RunSpecProblem> problems_;
};

}  // namespace

std::vector<RunSpecProblem> CheckRunSpec(const RunSpec& spec) {
  return RunChecker(spec).Check();
}

}  // namespace experiments
}  // namespace bertlab
