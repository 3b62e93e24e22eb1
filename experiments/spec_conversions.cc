#include "experiments/spec_conversions.h"

#include "absl/strings/str_join.h"
#include "common/check.h"
#include "common/status_macros.h"

namespace bertlab {
namespace experiments {

CorpusFormat ToCorpusFormat(PretrainingData::Format format) {
  switch (format) {
    case PretrainingData::REFERENCE:
      return CorpusFormat::kReference;
    case PretrainingData::WIKIEXTRACTOR:
      return CorpusFormat::kWikiExtractor;
    case PretrainingData::GUTENBERG:
      return CorpusFormat::kGutenberg;
    case PretrainingData::DIATHEKE:
      return CorpusFormat::kDiatheke;
    case PretrainingData::DEFAULT_CORPUS:
      return CorpusFormat::kDefaultCorpus;
    case PretrainingData::FORMAT_UNSPECIFIED:
    default:
      break;
  }
  CHECK(false) << "ToCorpusFormat needs a validated spec's format, got "
               << static_cast<int>(format);
  return CorpusFormat::kReference;
}

std::vector<CorpusSource> ToCorpusSources(const PretrainingData& data) {
  std::vector<CorpusSource> sources;
  if (data.sources_size() == 0) {
    sources.push_back(
        CorpusSource{ToCorpusFormat(data.format()),
                     {data.corpus_files().begin(), data.corpus_files().end()}});
  }
  for (const PretrainingData::Source& source : data.sources()) {
    sources.push_back(
        CorpusSource{ToCorpusFormat(source.format()),
                     {source.files().begin(), source.files().end()}});
  }
  return sources;
}

absl::StatusOr<PretrainingDataConfig> ToPretrainingDataConfig(
    const RunSpec& spec) {
  const PretrainingSpec& pretraining = spec.pretraining();
  const PretrainingData& data = pretraining.data();
  if (data.with_data_dir().sources_size() > 0) {
    return absl::InvalidArgumentError(
        "pretraining.data.with_data_dir is unresolved: the runner replaces it "
        "by EffectiveCorpus (pretraining_corpus.h) before preparing data");
  }
  PretrainingDataConfig config;
  config.sources = ToCorpusSources(data);
  if (data.has_held_out_files()) {
    config.held_out_files.assign(data.held_out_files().files().begin(),
                                 data.held_out_files().files().end());
  }
  // 0 with held_out_files (the oneof's other member).
  config.held_out_fraction = data.held_out_fraction();
  config.seed = data.seed();
  config.min_corpus_words = data.min_corpus_words();
  if (data.has_shards_dir()) config.shards_dir = data.shards_dir();
  const ModelSpec& model = spec.model();
  if (model.has_vocab_file()) config.vocab_file = model.vocab_file();
  config.train_vocab_size = model.train_vocab().size();
  config.cased = model.cased();
  for (int phase = 0; phase < pretraining.sequence_schedule().phases_size();
       ++phase) {
    config.phases.push_back(ToInstanceConfig(pretraining, phase));
  }
  return config;
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
  if (model.attention_mode() == ModelSpec::ATTENTION_MODE_UNSPECIFIED) {
    return absl::InvalidArgumentError(
        "model.attention_mode is ATTENTION_MODE_UNSPECIFIED: set "
        "BIDIRECTIONAL, CAUSAL or REVERSE_CAUSAL");
  }
  config.attention_mode = ToAttentionMode(model.attention_mode());
  RETURN_IF_ERROR(Annotate(ValidateConfig(config), "model: "));
  return config;
}

AttentionMode ToAttentionMode(ModelSpec::AttentionMode mode) {
  switch (mode) {
    case ModelSpec::BIDIRECTIONAL:
      return AttentionMode::kBidirectional;
    case ModelSpec::CAUSAL:
      return AttentionMode::kCausal;
    case ModelSpec::REVERSE_CAUSAL:
      return AttentionMode::kReverseCausal;
    case ModelSpec::ATTENTION_MODE_UNSPECIFIED:
      break;
  }
  CHECK(false) << "ToAttentionMode needs a validated spec, got "
               << static_cast<int>(mode);
  return AttentionMode::kBidirectional;
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

PretrainingOptions ToPretrainingOptions(
    const RunSpec& spec, const BertConfig& model,
    const std::vector<std::string>& shards,
    const std::vector<std::string>& held_out) {
  const PretrainingSpec& pretraining = spec.pretraining();
  const auto& phases = pretraining.sequence_schedule().phases();
  CHECK_EQ(static_cast<int>(shards.size()), phases.size());
  CHECK(held_out.empty() || static_cast<int>(held_out.size()) == phases.size());
  PretrainingOptions options;
  options.model = model;
  options.objective =
      ToLanguageModel(pretraining.objectives().language_model());
  const bool masked_lm = options.objective == LanguageModel::kMaskedLm;
  options.next_sentence = masked_lm && pretraining.objectives().next_sentence();
  for (int i = 0; i < phases.size(); ++i) {
    ::bertlab::SequencePhase phase;
    phase.fraction_of_steps = phases[i].fraction_of_steps();
    phase.max_seq_length = phases[i].max_seq_length();
    phase.batch_size = phases[i].batch_size();
    if (masked_lm) {
      phase.max_predictions_per_seq = phases[i].max_predictions_per_seq();
    }
    phase.shard_dirs = {shards[i]};
    if (!held_out.empty()) phase.held_out_dirs = {held_out[i]};
    options.phases.push_back(phase);
  }
  const PretrainingData& data = pretraining.data();
  options.held_out_fraction =
      data.has_held_out_fraction() ? data.held_out_fraction() : 0.0;
  const OptimizerSpec& optimizer = pretraining.optimizer();
  options.optimizer.beta1 = optimizer.beta1();
  options.optimizer.beta2 = optimizer.beta2();
  options.optimizer.epsilon = optimizer.epsilon();
  options.optimizer.weight_decay = optimizer.weight_decay();
  options.optimizer.bias_correction = optimizer.bias_correction();
  options.clip_norm = optimizer.clip_norm();
  options.gradient_accumulation_steps = optimizer.gradient_accumulation_steps();
  options.schedule.base_learning_rate = optimizer.learning_rate();
  options.schedule.total_steps = pretraining.schedule().total_steps();
  options.schedule.warmup_steps = WarmupSteps(pretraining.schedule());
  options.seed = pretraining.seed();
  options.on_non_finite =
      pretraining.on_non_finite() == PretrainingSpec::SKIP_STEP
          ? NonFinitePolicy::kSkipStep
          : NonFinitePolicy::kStop;
  options.max_consecutive_skipped_steps =
      pretraining.max_consecutive_skipped_steps();
  options.eval_every_steps = pretraining.eval_every_steps();
  options.eval_batches = pretraining.eval_batches();
  options.checkpoint_every_steps = pretraining.checkpoint_every_steps();
  options.keep_last_checkpoints = pretraining.keep_last_checkpoints();
  options.log_every_steps = pretraining.log_every_steps();
  return options;
}

FinetuneTaskId ToFinetuneTaskId(FinetuneTaskSpec::Task task) {
  switch (task) {
    case FinetuneTaskSpec::MNLI:
      return FinetuneTaskId::kMnli;
    case FinetuneTaskSpec::QQP:
      return FinetuneTaskId::kQqp;
    case FinetuneTaskSpec::QNLI:
      return FinetuneTaskId::kQnli;
    case FinetuneTaskSpec::SST2:
      return FinetuneTaskId::kSst2;
    case FinetuneTaskSpec::COLA:
      return FinetuneTaskId::kCola;
    case FinetuneTaskSpec::STSB:
      return FinetuneTaskId::kStsb;
    case FinetuneTaskSpec::MRPC:
      return FinetuneTaskId::kMrpc;
    case FinetuneTaskSpec::RTE:
      return FinetuneTaskId::kRte;
    case FinetuneTaskSpec::WNLI:
      return FinetuneTaskId::kWnli;
    case FinetuneTaskSpec::SQUAD1:
      return FinetuneTaskId::kSquad1;
    case FinetuneTaskSpec::SQUAD2:
      return FinetuneTaskId::kSquad2;
    case FinetuneTaskSpec::SWAG:
      return FinetuneTaskId::kSwag;
    case FinetuneTaskSpec::WEB_PAIR:
      return FinetuneTaskId::kWebPair;
    case FinetuneTaskSpec::WEB_SQUAD:
      return FinetuneTaskId::kWebSquad;
    case FinetuneTaskSpec::WEB_SWAG:
      return FinetuneTaskId::kWebSwag;
    case FinetuneTaskSpec::TASK_UNSPECIFIED:
    default:
      break;
  }
  CHECK(false) << "ToFinetuneTaskId needs a validated spec's task, got "
               << static_cast<int>(task);
  return FinetuneTaskId::kMnli;
}

FinetuneTaskSpec::Task ToSchemaTask(FinetuneTaskId id) {
  switch (id) {
    case FinetuneTaskId::kMnli:
      return FinetuneTaskSpec::MNLI;
    case FinetuneTaskId::kQqp:
      return FinetuneTaskSpec::QQP;
    case FinetuneTaskId::kQnli:
      return FinetuneTaskSpec::QNLI;
    case FinetuneTaskId::kSst2:
      return FinetuneTaskSpec::SST2;
    case FinetuneTaskId::kCola:
      return FinetuneTaskSpec::COLA;
    case FinetuneTaskId::kStsb:
      return FinetuneTaskSpec::STSB;
    case FinetuneTaskId::kMrpc:
      return FinetuneTaskSpec::MRPC;
    case FinetuneTaskId::kRte:
      return FinetuneTaskSpec::RTE;
    case FinetuneTaskId::kWnli:
      return FinetuneTaskSpec::WNLI;
    case FinetuneTaskId::kSquad1:
      return FinetuneTaskSpec::SQUAD1;
    case FinetuneTaskId::kSquad2:
      return FinetuneTaskSpec::SQUAD2;
    case FinetuneTaskId::kSwag:
      return FinetuneTaskSpec::SWAG;
    case FinetuneTaskId::kWebPair:
      return FinetuneTaskSpec::WEB_PAIR;
    case FinetuneTaskId::kWebSquad:
      return FinetuneTaskSpec::WEB_SQUAD;
    case FinetuneTaskId::kWebSwag:
      return FinetuneTaskSpec::WEB_SWAG;
  }
  CHECK(false) << "no schema task for id " << static_cast<int>(id);
  return FinetuneTaskSpec::TASK_UNSPECIFIED;
}

std::string FinetuneTaskChoices(bool derived) {
  std::vector<std::string> names;
  for (const FinetuneTaskInfo& info : FinetuneTaskTable()) {
    if (info.derived == derived) {
      names.push_back(FinetuneTaskSpec::Task_Name(ToSchemaTask(info.id)));
    }
  }
  return absl::StrJoin(names, ", ");
}

FinetuneDataOptions ToFinetuneDataOptions(const FinetuneTaskSpec& spec) {
  FinetuneDataOptions options;
  options.max_seq_length = spec.max_seq_length();
  options.max_train_examples = spec.max_train_examples();
  options.max_eval_examples = spec.max_eval_examples();
  options.doc_stride = spec.doc_stride();
  options.max_query_length = spec.max_query_length();
  options.tune_fraction = spec.tune_fraction();
  options.skip_test_sets = !spec.test_predictions();
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
