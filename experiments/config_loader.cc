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
#include "experiments/finetune_task_table.h"
#include "experiments/pretraining_seeds.h"
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

// ---------------------------------------------------------------------------
// Semantic checks of one resolved RunSpec. Paths are relative to the
// RunSpec, e.g. "pretraining.schedule.warmup_steps"; a oneof's name stands
// for "whichever member is set".

struct Problem {
  std::string path;
  // Follows the path: "(0) must be at least 1; ...".
  std::string text;
};

class RunChecker {
 public:
  explicit RunChecker(const RunSpec& spec) : spec_(spec) {}

  std::vector<Problem> Check() {
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
    problems_.push_back(Problem{std::move(path), std::move(text)});
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
      case ModelSpec::CAUSAL:
        if (masked_lm()) {
          Add("model.attention_mode",
              "(CAUSAL) does not fit pretraining.objectives.language_model "
              "MASKED_LM, which predicts a token from both sides; set "
              "attention_mode: BIDIRECTIONAL, or language_model: "
              "LEFT_TO_RIGHT");
        }
        break;
      case ModelSpec::REVERSE_CAUSAL:
        if (masked_lm()) {
          Add("model.attention_mode",
              "(REVERSE_CAUSAL) does not fit pretraining.objectives."
              "language_model MASKED_LM, which predicts a token from both "
              "sides; set attention_mode: BIDIRECTIONAL, or language_model: "
              "RIGHT_TO_LEFT");
        }
        break;
      case ModelSpec::BIDIRECTIONAL:
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
      case PretrainingObjectives::LEFT_TO_RIGHT:
        if (objectives.next_sentence()) {
          Add("pretraining.objectives.language_model",
              "(LEFT_TO_RIGHT) has no next-sentence task (a sequence is one "
              "segment of one document); set pretraining.objectives."
              "next_sentence: false (the paper's \"LTR & No NSP\")");
        }
        if (spec_.model().attention_mode() == ModelSpec::BIDIRECTIONAL) {
          Add("pretraining.objectives.language_model",
              "(LEFT_TO_RIGHT) needs causal attention: a bidirectional model "
              "sees the token it predicts; set model.attention_mode: CAUSAL");
        } else if (spec_.model().attention_mode() ==
                   ModelSpec::REVERSE_CAUSAL) {
          Add("pretraining.objectives.language_model",
              "(LEFT_TO_RIGHT) needs causal attention: a reverse-causal model "
              "sees the next token, which it predicts; set "
              "model.attention_mode: CAUSAL");
        }
        break;
      case PretrainingObjectives::RIGHT_TO_LEFT:
        if (objectives.next_sentence()) {
          Add("pretraining.objectives.language_model",
              "(RIGHT_TO_LEFT) has no next-sentence task (a sequence is one "
              "segment of one document); set pretraining.objectives."
              "next_sentence: false");
        }
        if (spec_.model().attention_mode() == ModelSpec::BIDIRECTIONAL ||
            spec_.model().attention_mode() == ModelSpec::CAUSAL) {
          Add("pretraining.objectives.language_model",
              absl::StrCat(
                  "(RIGHT_TO_LEFT) needs reverse-causal attention: a ",
                  spec_.model().attention_mode() == ModelSpec::CAUSAL
                      ? "causal"
                      : "bidirectional",
                  " model sees the previous token, which it predicts; set "
                  "model.attention_mode: REVERSE_CAUSAL"));
        }
        break;
      case PretrainingObjectives::MASKED_LM:
        break;
    }
    InRange("pretraining.objectives.random_next_prob",
            objectives.random_next_prob(), kProbability,
            "the reference uses 0.5");
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
      } else if (FinetuneTaskOf(task.task()).derived) {
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
        if (!known_fallback || !FinetuneTaskOf(fallback).derived) {
          Add(path + ".fallback_task",
              absl::StrCat(known_fallback ? "(" : "is ", TaskName(fallback),
                           known_fallback ? ") is not a derived task" : "",
                           "; use one of ", FinetuneTaskChoices(true),
                           ", or remove it to report the cell as n/a"));
        } else if (known_task && !FinetuneTaskOf(task.task()).derived &&
                   !CanStandIn(fallback, task.task())) {
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
    std::vector<std::string> names;
    for (const FinetuneTaskInfo& info : FinetuneTaskTable()) {
      if (FinetuneTaskOf(task).derived) {
        if (CanStandIn(task, info.task)) names.push_back(TaskName(info.task));
      } else if (info.derived && CanStandIn(info.task, task)) {
        names.push_back(TaskName(info.task));
      }
    }
    return names.empty() ? "none" : absl::StrJoin(names, ", ");
  }

  const RunSpec& spec_;
  std::vector<Problem> problems_;
};

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
  for (size_t r = 0; r < runs.size(); ++r) {
    for (const Problem& problem : RunChecker(runs[r].spec).Check()) {
      if (experiment.variants_size() == 0) {
        findings->Add(absl::StrCat("base.", problem.path), problem.text, "");
        continue;
      }
      const Variant& variant = experiment.variants(static_cast<int>(r));
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

int64_t WarmupSteps(const ScheduleSpec& schedule) {
  if (schedule.has_warmup_proportion()) {
    return static_cast<int64_t>(static_cast<double>(schedule.total_steps()) *
                                schedule.warmup_proportion());
  }
  return schedule.warmup_steps();
}

absl::StatusOr<BertConfig> ToBertConfig(const ModelSpec& model,
                                        int64_t vocab_size) {
  BertConfig config;
  switch (model.architecture_case()) {
    case ModelSpec::kSize: {
      ASSIGN_OR_RETURN(config, ConfigForSize(model.size(), vocab_size),
                       _.Prepend("model.size: "));
      break;
    }
    case ModelSpec::kShape:
      config.vocab_size = vocab_size;
      config.num_hidden_layers = model.shape().num_hidden_layers();
      config.hidden_size = model.shape().hidden_size();
      config.num_attention_heads = model.shape().num_attention_heads();
      config.intermediate_size = model.shape().has_intermediate_size()
                                     ? model.shape().intermediate_size()
                                     : 4 * model.shape().hidden_size();
      break;
    case ModelSpec::ARCHITECTURE_NOT_SET:
      return absl::InvalidArgumentError(
          "model.architecture is required: set size or shape");
  }
  config.max_position_embeddings = model.max_position_embeddings();
  config.type_vocab_size = model.type_vocab_size();
  config.layer_norm_eps = model.layer_norm_eps();
  switch (model.hidden_act()) {
    case ModelSpec::GELU_ERF:
      config.hidden_act = GeluForm::kErf;
      break;
    case ModelSpec::GELU_TANH:
      config.hidden_act = GeluForm::kTanh;
      break;
    case ModelSpec::HIDDEN_ACT_UNSPECIFIED:
      return absl::InvalidArgumentError(
          "model.hidden_act is HIDDEN_ACT_UNSPECIFIED: set GELU_ERF or "
          "GELU_TANH");
  }
  config.hidden_dropout_prob = model.hidden_dropout_prob();
  config.attention_probs_dropout_prob = model.attention_probs_dropout_prob();
  config.initializer_range = model.initializer_range();
  switch (model.attention_mode()) {
    case ModelSpec::BIDIRECTIONAL:
      config.attention_mode = AttentionMode::kBidirectional;
      break;
    case ModelSpec::CAUSAL:
      config.attention_mode = AttentionMode::kCausal;
      break;
    case ModelSpec::REVERSE_CAUSAL:
      config.attention_mode = AttentionMode::kReverseCausal;
      break;
    case ModelSpec::ATTENTION_MODE_UNSPECIFIED:
      return absl::InvalidArgumentError(
          "model.attention_mode is ATTENTION_MODE_UNSPECIFIED: set "
          "BIDIRECTIONAL, CAUSAL or REVERSE_CAUSAL");
  }
  RETURN_IF_ERROR(Annotate(ValidateConfig(config), "model: "));
  return config;
}

LanguageModel ToLanguageModel(PretrainingObjectives::LanguageModel model) {
  switch (model) {
    case PretrainingObjectives::MASKED_LM:
      return LanguageModel::kMaskedLm;
    case PretrainingObjectives::LEFT_TO_RIGHT:
      return LanguageModel::kLeftToRight;
    case PretrainingObjectives::RIGHT_TO_LEFT:
      return LanguageModel::kRightToLeft;
    case PretrainingObjectives::LANGUAGE_MODEL_UNSPECIFIED:
      break;
  }
  CHECK(false) << "ToLanguageModel needs a validated spec, got "
               << static_cast<int>(model);
  return LanguageModel::kMaskedLm;
}

InstanceConfig ToInstanceConfig(const PretrainingSpec& pretraining,
                                int phase_index) {
  const auto& phases = pretraining.sequence_schedule().phases();
  CHECK(phase_index >= 0 && phase_index < phases.size())
      << "phase " << phase_index << " of " << phases.size();
  const SequencePhase& phase = phases[phase_index];
  const PretrainingObjectives& objectives = pretraining.objectives();
  const MaskingSpec& masking = pretraining.masking();
  const PretrainingData& data = pretraining.data();

  InstanceConfig config;
  // Both LM directions read the same [CLS] text [SEP] windows (so their
  // shards are shared); only the trainer's labels differ.
  config.objective =
      InstanceLanguageModel(ToLanguageModel(objectives.language_model()));
  if (config.objective == LanguageModel::kMaskedLm) {
    config.max_predictions_per_seq = phase.max_predictions_per_seq();
    config.next_sentence = objectives.next_sentence();
  } else {
    config.max_predictions_per_seq = 0;  // nothing is masked
    config.next_sentence = false;
  }
  config.max_seq_length = phase.max_seq_length();
  config.dupe_factor = data.dupe_factor();
  config.short_seq_prob = data.short_seq_prob();
  config.masked_lm_prob = masking.masked_lm_prob();
  config.mask_fraction = masking.mask_fraction();
  config.random_fraction = masking.random_fraction();
  config.keep_fraction = masking.keep_fraction();
  config.do_whole_word_mask = masking.whole_word();
  config.random_next_prob = objectives.random_next_prob();
  config.seed = data.seed();
  return config;
}

}  // namespace experiments
}  // namespace bertlab
