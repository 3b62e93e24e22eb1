#include "experiments/run/run_plan.h"

#include <algorithm>
#include <map>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "common/file.h"
#include "common/status_macros.h"
#include "experiments/config_loader.h"
#include "experiments/config_text.h"
#include "experiments/pretraining_corpus.h"
#include "experiments/pretraining_seeds.h"
#include "experiments/spec_conversions.h"
#include "model/bert/config.h"
#include "tasks/finetune/finetune_task_table.h"
#include "tasks/pretraining_data/pretraining_data_prep.h"

namespace bertlab {
namespace experiments {
namespace {

absl::StatusOr<int64_t> VocabSize(const ModelSpec& model) {
  if (model.has_train_vocab()) return model.train_vocab().size();
  ASSIGN_OR_RETURN(const std::string text,
                   ReadFileToString(model.vocab_file()));
  return static_cast<int64_t>(std::count(text.begin(), text.end(), '\n'));
}

// 1.2e+09 as "1.2G", for counts a reader compares by magnitude.
std::string Magnitude(double value) {
  const char* units[] = {"", "K", "M", "G", "T", "P"};
  int unit = 0;
  while (value >= 1000 && unit < 5) {
    value /= 1000;
    ++unit;
  }
  return absl::StrFormat(value < 10 ? "%.2f%s" : "%.0f%s", value, units[unit]);
}

}  // namespace

absl::StatusOr<std::set<std::string>> SelectedVariants(
    const Experiment& experiment, const std::vector<std::string>& requested) {
  // A name selects the variants of that name or row (pretraining_seeds'
  // "full" selects "full.seed1" and "full.seed2").
  std::map<std::string, std::set<std::string>> names;
  std::vector<std::string> known;  // in the experiment's order
  for (const Variant& variant : experiment.variants()) {
    for (const std::string& name : {variant.name(), VariantRow(variant)}) {
      if (names.count(name) == 0) known.push_back(name);
      names[name].insert(variant.name());
    }
  }
  if (names.empty()) {
    names["base"] = {"base"};
    known = {"base"};
  }
  std::set<std::string> selected;
  for (const std::string& name : requested) {
    auto it = names.find(name);
    if (it == names.end()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "--variants: experiment ", experiment.name(), " has no variant \"",
          name, "\"", Suggestion(name, known, "its variants are")));
    }
    selected.insert(it->second.begin(), it->second.end());
  }
  return selected;
}

std::vector<std::string> CheckpointSources(const Experiment& experiment,
                                           const std::string& variant) {
  for (const Variant& v : experiment.variants()) {
    if (v.name() != variant) continue;
    std::vector<std::string> sources = {
        v.has_pretrained_from() ? v.pretrained_from() : variant};
    if (v.has_concatenate_with()) sources.push_back(v.concatenate_with());
    return sources;
  }
  return {variant};  // "base", the run of an experiment without variants
}

bool RandomInit(const Experiment& experiment, const std::string& variant) {
  for (const Variant& v : experiment.variants()) {
    if (v.name() == variant) return v.random_init();
  }
  return false;
}

bool NeedsPretraining(const Experiment& experiment, const std::string& variant,
                      const std::set<std::string>& selected) {
  if (CheckpointSources(experiment, variant).front() != variant) return false;
  if (selected.empty() || selected.count(variant) > 0) return true;
  for (const std::string& name : selected) {
    for (const std::string& source : CheckpointSources(experiment, name)) {
      if (source == variant) return true;
    }
  }
  return false;
}

bool RunsClozeTest(const RunSpec& spec) {
  return spec.has_cloze() && !spec.finetuning().bilstm();
}

absl::StatusOr<std::string> DescribeRunPlan(
    const Experiment& experiment, const std::set<std::string>& selected,
    const std::string& data_dir) {
  std::string out = absl::StrCat("experiment ", experiment.name(), ": ",
                                 experiment.description(), "\n");
  int64_t finetune_runs = 0;
  int pretrain_runs = 0;
  int cloze_runs = 0;
  double pretrain_tokens = 0;
  std::vector<ResolvedRun> runs = ResolveRuns(experiment);
  RETURN_IF_ERROR(UseEffectiveCorpus(data_dir, &runs));
  for (const ResolvedRun& run : runs) {
    const std::vector<std::string> sources =
        CheckpointSources(experiment, run.name);
    const bool reuses = sources.front() != run.name;
    const bool finetuned = selected.empty() || selected.count(run.name) > 0;
    const bool pretrain_only =
        !finetuned && NeedsPretraining(experiment, run.name, selected);
    if (!finetuned && !pretrain_only) continue;
    ASSIGN_OR_RETURN(const int64_t vocab_size, VocabSize(run.spec.model()));
    ASSIGN_OR_RETURN(const BertConfig config,
                     ToBertConfig(run.spec.model(), vocab_size));
    absl::StrAppendFormat(
        &out, "  %s: L%d H%d A%d, %s encoder parameters, vocabulary %d%s\n",
        run.name, config.num_hidden_layers, config.hidden_size,
        config.num_attention_heads, Magnitude(EncoderParameterCount(config)),
        vocab_size,
        config.attention_mode == AttentionMode::kBidirectional
            ? ""
            : absl::StrCat(", ",
                           config.attention_mode == AttentionMode::kCausal
                               ? "causal"
                               : "reverse-causal",
                           " attention"));
    const PretrainingSpec& pretraining = run.spec.pretraining();
    if (!reuses) {
      const std::vector<int64_t> ends = SequencePhaseEndSteps(pretraining);
      double tokens = 0;
      std::vector<std::string> phases;
      for (int i = 0; i < pretraining.sequence_schedule().phases_size(); ++i) {
        const SequencePhase& phase = pretraining.sequence_schedule().phases(i);
        const int64_t steps = ends[i] - (i == 0 ? 0 : ends[i - 1]);
        tokens += static_cast<double>(steps) * phase.batch_size() *
                  phase.max_seq_length();
        phases.push_back(absl::StrCat(steps, " x ", phase.batch_size(), " x ",
                                      phase.max_seq_length()));
      }
      pretrain_tokens += tokens;
      ++pretrain_runs;
      absl::StrAppendFormat(
          &out, "    pre-training: %s%s, %d steps (%s), %s tokens\n",
          pretraining.objectives().language_model() ==
                  PretrainingObjectives::LEFT_TO_RIGHT
              ? "left-to-right LM"
          : pretraining.objectives().language_model() ==
                  PretrainingObjectives::RIGHT_TO_LEFT
              ? "right-to-left LM"
              : "masked LM",
          pretraining.objectives().next_sentence() ? " + next sentence" : "",
          pretraining.schedule().total_steps(), absl::StrJoin(phases, ", "),
          Magnitude(tokens));
      const PretrainingData& data = pretraining.data();
      absl::StrAppend(
          &out, "    corpus: ", DescribeCorpus(ToCorpusSources(data)),
          data.min_corpus_words() > 0
              ? absl::StrCat(
                    " (needs at least ",
                    Magnitude(static_cast<double>(data.min_corpus_words())),
                    " words)")
              : "",
          "\n");
    } else if (RandomInit(experiment, run.name)) {
      absl::StrAppend(
          &out, "    pre-training: none (random init): ", sources[0],
          "'s config and vocabulary, from ", sources[0], "'s pre-training\n");
    } else if (sources.size() == 1) {
      absl::StrAppend(&out, "    pre-training: reuses ", sources[0],
                      "'s checkpoint\n");
    } else {
      absl::StrAppend(&out, "    pre-training: reuses ", sources[0], "'s and ",
                      sources[1], "'s checkpoints, their encoders ",
                      "concatenated (2H) at fine-tuning\n");
    }
    if (pretrain_only) {
      absl::StrAppend(&out, "    fine-tuning: none (pre-trained for ",
                      "a selected variant)\n");
      continue;
    }
    if (RunsClozeTest(run.spec)) {
      ++cloze_runs;
      const ClozeSpec& cloze = run.spec.cloze();
      absl::StrAppend(
          &out, "    cloze test: ",
          cloze.max_items() > 0 ? absl::StrCat("up to ", cloze.max_items())
                                : std::string("every"),
          " held-out sentence(s), ", cloze.candidates(), " candidates\n");
    }
    std::vector<std::string> tasks;
    for (const FinetuneTaskSpec& task : run.spec.finetuning().tasks()) {
      // The loader bounds both; int64 all the same.
      const int64_t runs =
          int64_t{task.learning_rates_size()} * task.restarts();
      finetune_runs += runs;
      tasks.push_back(absl::StrCat(
          FinetuneTaskOf(ToFinetuneTaskId(task.task())).key, " ", runs));
    }
    absl::StrAppend(&out, "    fine-tuning runs: ",
                    tasks.empty() ? "none" : absl::StrJoin(tasks, ", "),
                    run.spec.finetuning().bilstm() ? " (with a BiLSTM)" : "",
                    "\n");
  }
  absl::StrAppendFormat(&out,
                        "total: %d pre-training runs (%s tokens), %d "
                        "fine-tuning runs, %d cloze runs\n",
                        pretrain_runs, Magnitude(pretrain_tokens),
                        finetune_runs, cloze_runs);
  return out;
}

}  // namespace experiments
}  // namespace bertlab
