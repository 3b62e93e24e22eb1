// The one place where the experiment schema (experiment.proto) becomes the
// plain options of the model, the trainers and the tasks. Below experiments/
// nothing reads the schema: model/ and tasks/ take these structs and enums,
// and every field they take from a resolved RunSpec is read here.
//
//   BertConfig model = ToBertConfig(run.spec.model(), vocab.size()).value();
//   InstanceConfig data = ToInstanceConfig(run.spec.pretraining(), 0);
//   PretrainingOptions options = ToPretrainingOptions(run.spec, model, ...);
//
// Each conversion takes a spec the loader validated (config_loader.h), so the
// options it makes satisfy the trainers' invariants (the loader's fuzzer
// checks that); an enum value the schema leaves unset is CHECKed, never
// guessed. spec_conversions_test checks that every field and every enum
// value maps.
#ifndef BERTLAB_EXPERIMENTS_SPEC_CONVERSIONS_H_
#define BERTLAB_EXPERIMENTS_SPEC_CONVERSIONS_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "experiments/experiment.pb.h"
#include "model/bert/config.h"
#include "model/train/finetuner.h"
#include "model/train/pretrainer.h"
#include "tasks/finetune/finetune_task_table.h"
#include "tasks/finetune/finetune_tasks.h"
#include "tasks/pretraining_data/instance_config.h"
#include "tasks/pretraining_data/language_model.h"
#include "tasks/pretraining_data/pretraining_data_prep.h"

namespace bertlab {
namespace experiments {

// ---- the model -------------------------------------------------------------

// The encoder config of `model` with the vocabulary's size (the vocab file's
// lines, or train_vocab.size). Errors name the model.* field.
absl::StatusOr<BertConfig> ToBertConfig(const ModelSpec& model,
                                        int64_t vocab_size);

// The schema's attention mode as the model's; CHECKs it is set.
AttentionMode ToAttentionMode(ModelSpec::AttentionMode mode);

// ---- pre-training ----------------------------------------------------------

// The schema's language model as the trainer's and the shards' enum
// (tasks/pretraining_data/language_model.h); CHECKs it is set.
LanguageModel ToLanguageModel(PretrainingObjectives::LanguageModel model);

// How the instances of sequence phase `phase_index` are made: objective,
// lengths, masking, next sentence, data seed. The streaming block limits keep
// InstanceConfig's defaults. For a validated spec (CHECKs the index and the
// objective).
InstanceConfig ToInstanceConfig(const PretrainingSpec& pretraining,
                                int phase_index);

// The schema's corpus format as the data preparation's; CHECKs it is set.
CorpusFormat ToCorpusFormat(PretrainingData::Format format);

// The sources of `data`: its `sources`, or the one-source form (format and
// corpus_files) as one, so either form gives the same sources. For a
// validated spec (every format set).
std::vector<CorpusSource> ToCorpusSources(const PretrainingData& data);

// What the data preparation takes from a run (tasks/pretraining_data/
// pretraining_data_prep.h): the corpus (ToCorpusSources), held-out files or
// fraction, data seed, minimum words and shards_dir of pretraining.data; the
// model's vocab_file, train_vocab.size and casing; each sequence phase's
// ToInstanceConfig. An error (naming the field) while with_data_dir is still
// unresolved: the runner replaces it by EffectiveCorpus
// (pretraining_corpus.h) first.
absl::StatusOr<PretrainingDataConfig> ToPretrainingDataConfig(
    const RunSpec& spec);

// warmup_steps, or int(total_steps * warmup_proportion) as the reference's
// run_pretraining / run_classifier compute it. For a validated spec.
int64_t WarmupSteps(const ScheduleSpec& schedule);

// The one conversion from a run's spec to the trainer's options, after
// LoadExperiment validated it (so the trainer's invariants hold; the loader's
// fuzzer checks that): `model` is ToBertConfig's, phase i reads shards[i]
// (and held_out[i], or held_out_fraction of shards[i] when held_out is
// empty). No I/O; CHECKs one shard directory per phase. output_dir, progress
// and stop_after_step are left for the caller (pretraining_options.h
// OptionsFromSpec checks the shards first).
PretrainingOptions ToPretrainingOptions(
    const RunSpec& spec, const BertConfig& model,
    const std::vector<std::string>& shards,
    const std::vector<std::string>& held_out);

// ---- fine-tuning -----------------------------------------------------------

// The schema's task as the task table's id (tasks/finetune); CHECKs that it
// is one (not TASK_UNSPECIFIED, nor a number the enum lacks).
FinetuneTaskId ToFinetuneTaskId(FinetuneTaskSpec::Task task);

// The id's name in the schema, for messages: FinetuneTaskSpec::WEB_PAIR for
// FinetuneTaskId::kWebPair.
FinetuneTaskSpec::Task ToSchemaTask(FinetuneTaskId id);

// The schema's names of the real tasks, or of the derived ones, in the
// table's order, for messages: "MNLI, QQP, ...".
std::string FinetuneTaskChoices(bool derived);

// What reading and encoding the task's files take from its spec: lengths,
// example limits, SQuAD's windows and the tune split.
FinetuneDataOptions ToFinetuneDataOptions(const FinetuneTaskSpec& spec);

// The one conversion from a validated run's fine-tuning spec to the
// Finetuner's training knobs, for one (learning rate, restart) of the grid:
// the task's lengths, batch, epochs and warmup, restart r's seed (seed + r),
// the optimizer block, `model` (task_evaluation.h HeadOptions, plus the
// variant's BiLSTM).
// Checkpoints, progress and label are left for the caller. The loader's
// fuzzer checks that what the loader accepts converts to options that
// ValidateFinetuneOptions accepts, the invariants the Finetuner CHECKs.
FinetuneOptions ToFinetuneOptions(const FinetuneTaskSpec& spec,
                                  const FinetuneOptimizerSpec& optimizer,
                                  const FinetuneModelOptions& model,
                                  double learning_rate, int restart);

}  // namespace experiments
}  // namespace bertlab

#endif  // BERTLAB_EXPERIMENTS_SPEC_CONVERSIONS_H_
