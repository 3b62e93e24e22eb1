// Every conversion from the schema maps every field it reads, each to its own
// option: the specs below give each field a value no other field has, so a
// field read into the wrong option, or not read, fails. Every value of a
// schema enum maps (an added value without a mapping fails here, not in a
// run). ToBertConfig and ToInstanceConfig are checked field by field in
// config_loader_test.
#include "experiments/spec_conversions.h"

#include <set>
#include <string>
#include <vector>

#include "absl/strings/ascii.h"
#include "common/check.h"
#include "gmock/gmock.h"
#include "google/protobuf/descriptor.h"
#include "google/protobuf/text_format.h"
#include "gtest/gtest.h"

namespace bertlab {
namespace experiments {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

template <typename Message>
Message Parse(const std::string& text) {
  Message message;
  CHECK(google::protobuf::TextFormat::ParseFromString(text, &message)) << text;
  return message;
}

// The values of a schema enum, but its *_UNSPECIFIED zero.
template <typename Enum>
std::vector<Enum> SetValues(const google::protobuf::EnumDescriptor* type) {
  std::vector<Enum> values;
  for (int i = 0; i < type->value_count(); ++i) {
    if (type->value(i)->number() != 0) {
      values.push_back(static_cast<Enum>(type->value(i)->number()));
    }
  }
  return values;
}

TEST(SpecConversionsTest, EveryLanguageModelMaps) {
  std::set<LanguageModel> models;
  for (const PretrainingObjectives::LanguageModel value :
       SetValues<PretrainingObjectives::LanguageModel>(
           PretrainingObjectives::LanguageModel_descriptor())) {
    models.insert(ToLanguageModel(value));
  }
  EXPECT_EQ(models.size(), 3u);
  EXPECT_EQ(ToLanguageModel(PretrainingObjectives::MASKED_LM),
            LanguageModel::kMaskedLm);
  EXPECT_EQ(ToLanguageModel(PretrainingObjectives::LEFT_TO_RIGHT),
            LanguageModel::kLeftToRight);
  EXPECT_EQ(ToLanguageModel(PretrainingObjectives::RIGHT_TO_LEFT),
            LanguageModel::kRightToLeft);
}

TEST(SpecConversionsTest, WarmupStepsOrProportion) {
  EXPECT_EQ(
      WarmupSteps(Parse<ScheduleSpec>("total_steps: 1000 warmup_steps: 17")),
      17);
  EXPECT_EQ(WarmupSteps(Parse<ScheduleSpec>(
                "total_steps: 1000 warmup_proportion: 0.0125")),
            12);  // int(12.5)
}

TEST(SpecConversionsTest, ToPretrainingOptionsMapsEveryField) {
  const RunSpec spec = Parse<RunSpec>(R"pb(
    pretraining {
      objectives { language_model: MASKED_LM next_sentence: true }
      data { held_out_fraction: 0.03 }
      sequence_schedule {
        phases {
          fraction_of_steps: 0.75
          max_seq_length: 64
          batch_size: 8
          max_predictions_per_seq: 9
        }
        phases {
          fraction_of_steps: 0.25
          max_seq_length: 128
          batch_size: 4
          max_predictions_per_seq: 19
        }
      }
      optimizer {
        learning_rate: 0.0007
        beta1: 0.81
        beta2: 0.991
        epsilon: 3e-7
        weight_decay: 0.02
        bias_correction: true
        clip_norm: 1.5
        gradient_accumulation_steps: 2
      }
      schedule { total_steps: 400 warmup_proportion: 0.05 }
      eval_every_steps: 23
      eval_batches: 29
      checkpoint_every_steps: 31
      keep_last_checkpoints: 37
      seed: 41
      log_every_steps: 43
      on_non_finite: SKIP_STEP
      max_consecutive_skipped_steps: 47
    }
  )pb");
  BertConfig model;
  model.hidden_size = 53;
  const PretrainingOptions options =
      ToPretrainingOptions(spec, model, {"train0", "train1"}, {});
  EXPECT_EQ(options.model.hidden_size, 53);
  EXPECT_EQ(options.objective, LanguageModel::kMaskedLm);
  EXPECT_TRUE(options.next_sentence);
  ASSERT_EQ(options.phases.size(), 2u);
  EXPECT_EQ(options.phases[0].fraction_of_steps, 0.75);
  EXPECT_EQ(options.phases[0].max_seq_length, 64);
  EXPECT_EQ(options.phases[0].batch_size, 8);
  EXPECT_EQ(options.phases[0].max_predictions_per_seq, 9);
  EXPECT_THAT(options.phases[0].shard_dirs, ElementsAre("train0"));
  EXPECT_TRUE(options.phases[0].held_out_dirs.empty());
  EXPECT_EQ(options.phases[1].fraction_of_steps, 0.25);
  EXPECT_EQ(options.phases[1].max_seq_length, 128);
  EXPECT_EQ(options.phases[1].batch_size, 4);
  EXPECT_EQ(options.phases[1].max_predictions_per_seq, 19);
  EXPECT_THAT(options.phases[1].shard_dirs, ElementsAre("train1"));
  EXPECT_EQ(options.held_out_fraction, 0.03);
  EXPECT_EQ(options.optimizer.beta1, 0.81);
  EXPECT_EQ(options.optimizer.beta2, 0.991);
  EXPECT_EQ(options.optimizer.epsilon, 3e-7);
  EXPECT_EQ(options.optimizer.weight_decay, 0.02);
  EXPECT_TRUE(options.optimizer.bias_correction);
  EXPECT_EQ(options.clip_norm, 1.5);
  EXPECT_EQ(options.gradient_accumulation_steps, 2);
  EXPECT_EQ(options.schedule.base_learning_rate, 0.0007);
  EXPECT_EQ(options.schedule.total_steps, 400);
  EXPECT_EQ(options.schedule.warmup_steps, 20);
  EXPECT_EQ(options.seed, 41u);
  EXPECT_EQ(options.on_non_finite, NonFinitePolicy::kSkipStep);
  EXPECT_EQ(options.max_consecutive_skipped_steps, 47);
  EXPECT_EQ(options.eval_every_steps, 23);
  EXPECT_EQ(options.eval_batches, 29);
  EXPECT_EQ(options.checkpoint_every_steps, 31);
  EXPECT_EQ(options.keep_last_checkpoints, 37);
  EXPECT_EQ(options.log_every_steps, 43);
}

TEST(SpecConversionsTest, ToPretrainingOptionsOfALeftToRightRun) {
  const RunSpec spec = Parse<RunSpec>(R"pb(
    pretraining {
      objectives { language_model: LEFT_TO_RIGHT next_sentence: true }
      data { held_out_files { files: "held_out.txt" } }
      sequence_schedule {
        phases {
          fraction_of_steps: 1
          max_seq_length: 64
          batch_size: 8
          max_predictions_per_seq: 9
        }
      }
      on_non_finite: STOP
    }
  )pb");
  const PretrainingOptions options =
      ToPretrainingOptions(spec, BertConfig(), {"train"}, {"held_out"});
  EXPECT_EQ(options.objective, LanguageModel::kLeftToRight);
  // Nothing is masked and no next sentence is predicted.
  EXPECT_FALSE(options.next_sentence);
  EXPECT_EQ(options.phases.at(0).max_predictions_per_seq, 0);
  EXPECT_THAT(options.phases.at(0).held_out_dirs, ElementsAre("held_out"));
  EXPECT_EQ(options.held_out_fraction, 0.0);
  EXPECT_EQ(options.on_non_finite, NonFinitePolicy::kStop);
}

TEST(SpecConversionsTest, EveryFinetuneTaskMapsToItsRowAndBack) {
  const std::vector<FinetuneTaskSpec::Task> tasks =
      SetValues<FinetuneTaskSpec::Task>(FinetuneTaskSpec::Task_descriptor());
  std::set<FinetuneTaskId> ids;
  for (const FinetuneTaskSpec::Task task : tasks) {
    const FinetuneTaskId id = ToFinetuneTaskId(task);
    EXPECT_EQ(ToSchemaTask(id), task) << FinetuneTaskSpec::Task_Name(task);
    EXPECT_TRUE(ids.insert(id).second) << FinetuneTaskSpec::Task_Name(task);
    // The row's record key is the schema's name in lower case ("mnli",
    // "web_pair"), so a task mapped to another task's row fails here.
    EXPECT_EQ(FinetuneTaskOf(id).key,
              absl::AsciiStrToLower(FinetuneTaskSpec::Task_Name(task)));
  }
  // One row per schema value, and no row the schema cannot name.
  EXPECT_EQ(FinetuneTaskTable().size(), tasks.size());
}

TEST(SpecConversionsTest, TaskChoicesAreTheSchemasNames) {
  EXPECT_EQ(FinetuneTaskChoices(false),
            "MNLI, QQP, QNLI, SST2, COLA, STSB, MRPC, RTE, WNLI, SQUAD1, "
            "SQUAD2, SWAG");
  EXPECT_EQ(FinetuneTaskChoices(true), "WEB_PAIR, WEB_SQUAD, WEB_SWAG");
}

TEST(SpecConversionsTest, ToFinetuneDataOptionsMapsEveryField) {
  const FinetuneDataOptions options =
      ToFinetuneDataOptions(Parse<FinetuneTaskSpec>(R"pb(
        task: SQUAD1
        max_seq_length: 96
        max_train_examples: 1001
        max_eval_examples: 203
        doc_stride: 48
        max_query_length: 24
        tune_fraction: 0.125
      )pb"));
  EXPECT_EQ(options.max_seq_length, 96);
  EXPECT_EQ(options.max_train_examples, 1001);
  EXPECT_EQ(options.max_eval_examples, 203);
  EXPECT_EQ(options.doc_stride, 48);
  EXPECT_EQ(options.max_query_length, 24);
  EXPECT_EQ(options.tune_fraction, 0.125);
  // Unset, the schema's defaults: the first max_train_examples and
  // max_eval_examples mean all, no tune split.
  const FinetuneDataOptions defaults =
      ToFinetuneDataOptions(FinetuneTaskSpec());
  EXPECT_EQ(defaults.max_seq_length, 128);
  EXPECT_EQ(defaults.max_train_examples, 0);
  EXPECT_EQ(defaults.max_eval_examples, 0);
  EXPECT_EQ(defaults.doc_stride, 128);
  EXPECT_EQ(defaults.max_query_length, 64);
  EXPECT_EQ(defaults.tune_fraction, 0.0);
}

TEST(SpecConversionsTest, ToFinetuneOptionsMapsEveryField) {
  const FinetuneTaskSpec spec = Parse<FinetuneTaskSpec>(R"pb(
    task: MRPC
    learning_rates: [ 5e-5, 3e-5 ]
    num_epochs: 2.5
    batch_size: 12
    max_seq_length: 96
    warmup_proportion: 0.07
    seed: 1000
  )pb");
  const FinetuneOptimizerSpec optimizer = Parse<FinetuneOptimizerSpec>(R"pb(
    beta1: 0.85
    beta2: 0.995
    epsilon: 2e-7
    weight_decay: 0.03
    bias_correction: true
    clip_norm: 0.5
    gradient_accumulation_steps: 3
  )pb");
  FinetuneModelOptions model;
  model.head = FinetuneHead::kClassifier;
  model.num_labels = 7;
  const FinetuneOptions options =
      ToFinetuneOptions(spec, optimizer, model, 3e-5, 2);
  EXPECT_EQ(options.model.head, FinetuneHead::kClassifier);
  EXPECT_EQ(options.model.num_labels, 7);
  EXPECT_EQ(options.max_seq_length, 96);
  EXPECT_EQ(options.batch_size, 12);
  EXPECT_EQ(options.num_epochs, 2.5);
  EXPECT_EQ(options.learning_rate, 3e-5);
  EXPECT_EQ(options.warmup_proportion, 0.07);
  EXPECT_EQ(options.seed, 1002u);  // restart 2: seed + 2
  EXPECT_EQ(options.adamw.beta1, 0.85);
  EXPECT_EQ(options.adamw.beta2, 0.995);
  EXPECT_EQ(options.adamw.epsilon, 2e-7);
  EXPECT_EQ(options.adamw.weight_decay, 0.03);
  EXPECT_TRUE(options.adamw.bias_correction);
  EXPECT_EQ(options.clip_norm, 0.5);
  EXPECT_EQ(options.gradient_accumulation_steps, 3);
}

// The data preparation's formats are the schema's, number for number (the
// corpus key hashes the number) and name for name (messages and run records
// print it).
TEST(SpecConversionsTest, EveryCorpusFormatMapsToItsNumberAndName) {
  const std::vector<PretrainingData::Format> formats =
      SetValues<PretrainingData::Format>(PretrainingData::Format_descriptor());
  EXPECT_EQ(formats.size(), 5u);
  for (const PretrainingData::Format format : formats) {
    const CorpusFormat converted = ToCorpusFormat(format);
    EXPECT_EQ(static_cast<int>(converted), static_cast<int>(format));
    EXPECT_EQ(CorpusFormatName(converted),
              PretrainingData::Format_Name(format));
  }
}

// One source written as `sources` is the one-source form: the same sources,
// so the same corpus key.
TEST(SpecConversionsTest, EitherCorpusFormGivesTheSameSources) {
  const std::vector<CorpusSource> one_source = ToCorpusSources(
      Parse<PretrainingData>(R"pb(format: WIKIEXTRACTOR
                                  corpus_files: [ "a", "b" ])pb"));
  const std::vector<CorpusSource> sources =
      ToCorpusSources(Parse<PretrainingData>(R"pb(sources {
                                                    format: WIKIEXTRACTOR
                                                    files: [ "a", "b" ]
                                                  })pb"));
  ASSERT_EQ(one_source.size(), 1u);
  ASSERT_EQ(sources.size(), 1u);
  EXPECT_EQ(one_source[0].format, CorpusFormat::kWikiExtractor);
  EXPECT_EQ(sources[0].format, CorpusFormat::kWikiExtractor);
  EXPECT_THAT(one_source[0].files, ElementsAre("a", "b"));
  EXPECT_THAT(sources[0].files, ElementsAre("a", "b"));
  const std::vector<CorpusSource> two = ToCorpusSources(Parse<PretrainingData>(
      R"pb(sources { format: GUTENBERG files: "c" }
           sources { format: DEFAULT_CORPUS })pb"));
  ASSERT_EQ(two.size(), 2u);
  EXPECT_EQ(two[0].format, CorpusFormat::kGutenberg);
  EXPECT_THAT(two[0].files, ElementsAre("c"));
  EXPECT_EQ(two[1].format, CorpusFormat::kDefaultCorpus);
  EXPECT_TRUE(two[1].files.empty());
}

TEST(SpecConversionsTest, ToPretrainingDataConfigMapsEveryField) {
  const RunSpec spec = Parse<RunSpec>(R"pb(
    model {
      train_vocab { size: 777 }
      cased: true
    }
    pretraining {
      objectives { language_model: MASKED_LM next_sentence: true }
      data {
        format: REFERENCE
        corpus_files: [ "/c/one.txt", "/c/two.txt" ]
        held_out_fraction: 0.03
        seed: 4242
        min_corpus_words: 5151
        shards_dir: "/shards"
        dupe_factor: 3
      }
      sequence_schedule {
        phases { max_seq_length: 64 max_predictions_per_seq: 9 }
        phases { max_seq_length: 128 max_predictions_per_seq: 19 }
      }
    }
  )pb");
  absl::StatusOr<PretrainingDataConfig> config = ToPretrainingDataConfig(spec);
  ASSERT_TRUE(config.ok()) << config.status();
  ASSERT_EQ(config->sources.size(), 1u);
  EXPECT_EQ(config->sources[0].format, CorpusFormat::kReference);
  EXPECT_THAT(config->sources[0].files,
              ElementsAre("/c/one.txt", "/c/two.txt"));
  EXPECT_TRUE(config->held_out_files.empty());
  EXPECT_EQ(config->held_out_fraction, 0.03);
  EXPECT_EQ(config->seed, 4242u);
  EXPECT_EQ(config->min_corpus_words, 5151);
  EXPECT_EQ(config->shards_dir, "/shards");
  EXPECT_EQ(config->vocab_file, "");
  EXPECT_EQ(config->train_vocab_size, 777);
  EXPECT_TRUE(config->cased);
  ASSERT_EQ(config->phases.size(), 2u);
  for (int i = 0; i < 2; ++i) {
    EXPECT_EQ(InstanceConfigToText(config->phases[i]),
              InstanceConfigToText(ToInstanceConfig(spec.pretraining(), i)));
  }
  EXPECT_EQ(config->phases[1].max_seq_length, 128);
  EXPECT_EQ(config->phases[1].dupe_factor, 3);
  EXPECT_EQ(config->phases[1].seed, 4242u);

  RunSpec held_out = spec;
  PretrainingData* data = held_out.mutable_pretraining()->mutable_data();
  data->mutable_held_out_files()->add_files("/c/held_out.txt");
  data->clear_shards_dir();
  held_out.mutable_model()->set_vocab_file("/v/vocab.txt");
  config = ToPretrainingDataConfig(held_out);
  ASSERT_TRUE(config.ok()) << config.status();
  EXPECT_THAT(config->held_out_files, ElementsAre("/c/held_out.txt"));
  EXPECT_EQ(config->held_out_fraction, 0.0);  // the oneof's other member
  EXPECT_EQ(config->shards_dir, "");
  EXPECT_EQ(config->vocab_file, "/v/vocab.txt");

  RunSpec unresolved = spec;
  unresolved.mutable_pretraining()
      ->mutable_data()
      ->mutable_with_data_dir()
      ->add_sources()
      ->set_format(PretrainingData::WIKIEXTRACTOR);
  EXPECT_THAT(ToPretrainingDataConfig(unresolved).status().message(),
              HasSubstr("pretraining.data.with_data_dir is unresolved"));
}

}  // namespace
}  // namespace experiments
}  // namespace bertlab
