// //model:step_dump end to end on the reference fixtures: a checkpoint
// directory and a batch JSON made from a fixture must reproduce the fixture's
// outputs and gradients; bad batches and mismatched checkpoints are refused
// with messages that say what is wrong.
#include "model/step_dump.h"

#include <cmath>
#include <cstdlib>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "common/check.h"
#include "common/file.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "model/bert/checkpoint.h"
#include "model/bert_for_pretraining.h"
#include "model/safetensors.h"
#include "model/testing/reference_fixture.h"

namespace bertlab {
namespace {

using ::testing::HasSubstr;
using testing::kReferenceGradientTolerance;
using testing::kReferenceOutputTolerance;
using testing::Matches;
using testing::ReferenceFixture;
using testing::Rms;

std::string TempPath(const std::string& name) {
  const char* dir = std::getenv("TEST_TMPDIR");
  return absl::StrCat(dir != nullptr ? dir : "/tmp", "/", name);
}

std::string MatrixJson(const std::vector<int32_t>& values, int64_t cols) {
  std::vector<std::string> rows;
  for (size_t r = 0; r * cols < values.size(); ++r) {
    std::vector<int32_t> row(values.begin() + r * cols,
                             values.begin() + (r + 1) * cols);
    rows.push_back(absl::StrCat("[", absl::StrJoin(row, ","), "]"));
  }
  return absl::StrCat("[", absl::StrJoin(rows, ","), "]");
}

// Writes the fixture's weights as a checkpoint directory (with its config, or
// with `config_override`) and its inputs as a batch JSON.
struct DumpInputs {
  DumpInputs(const ReferenceFixture& fixture, const std::string& tag,
             const BertConfig& config, bool next_sentence = true) {
    checkpoint_dir = TempPath(tag + "_checkpoint");
    batch_path = TempPath(tag + "_batch.json");
    BertForPretraining model(fixture.config(), next_sentence);
    std::vector<float> params(model.layout().total_size());
    CheckpointLoadOptions options;
    options.ignore_unexpected_prefixes = {"input.", "output.", "grad"};
    if (!next_sentence) {
      options.ignore_unexpected_prefixes.push_back("cls.seq_relationship.");
    }
    CHECK_OK(
        LoadParameters(fixture.file(), model.layout(), options, params.data())
            .status());
    CHECK_OK(SaveCheckpointDirectory(checkpoint_dir, config, model.layout(),
                                     params.data()));
    const std::vector<int32_t> next = fixture.Ints("input.next_sentence_label");
    const int64_t cols = fixture.Ints("input.input_ids").size() / next.size();
    json = absl::StrCat(
        "{\"input_ids\": ", MatrixJson(fixture.Ints("input.input_ids"), cols),
        ", \"token_type_ids\": ",
        MatrixJson(fixture.Ints("input.token_type_ids"), cols),
        ", \"attention_mask\": ",
        MatrixJson(fixture.Ints("input.attention_mask"), cols),
        ", \"masked_lm_labels\": ",
        MatrixJson(fixture.Ints("input.masked_lm_labels"), cols),
        ", \"next_sentence_label\": [", absl::StrJoin(next, ","), "]}");
    CHECK_OK(WriteFileAtomically(batch_path, json));
  }
  std::string checkpoint_dir;
  std::string batch_path;
  std::string json;
};

void ExpectDumpMatchesFixture(const ReferenceFixture& fixture,
                              const std::string& output_path) {
  absl::StatusOr<SafetensorsFile> dump = SafetensorsFile::Open(output_path);
  ASSERT_TRUE(dump.ok()) << dump.status();
  for (const char* name : {"prediction_logits", "seq_relationship_logits",
                           "loss", "masked_lm_loss", "next_sentence_loss",
                           "last_hidden_state", "pooled_output"}) {
    EXPECT_EQ(dump->Find(name)->shape,
              fixture.file().Find(std::string("output.") + name)->shape)
        << name;
    EXPECT_TRUE(Matches(name, dump->ReadFloat32(name)->data(),
                        fixture.Floats(std::string("output.") + name),
                        kReferenceOutputTolerance));
  }
  std::vector<float> all_gradients;
  for (const std::string& name : fixture.file().TensorNames()) {
    if (name.rfind("grad.", 0) != 0) continue;
    const std::vector<float> g = fixture.Floats(name);
    all_gradients.insert(all_gradients.end(), g.begin(), g.end());
  }
  int gradients = 0;
  for (const std::string& name : fixture.file().TensorNames()) {
    if (name.rfind("grad.", 0) != 0) continue;
    ASSERT_NE(dump->Find(name), nullptr) << name;
    EXPECT_TRUE(Matches(name, dump->ReadFloat32(name)->data(),
                        fixture.Floats(name), kReferenceGradientTolerance,
                        Rms(all_gradients)));
    ++gradients;
  }
  EXPECT_EQ(gradients, 46);  // every parameter of the tiny model
}

TEST(StepDumpTest, ReproducesTheBidirectionalReference) {
  const ReferenceFixture fixture("bert_reference_bidirectional.safetensors");
  const DumpInputs inputs(fixture, "bidirectional", fixture.config());
  StepDumpOptions options{inputs.checkpoint_dir, inputs.batch_path,
                          TempPath("bidirectional_out.safetensors"), false};
  ASSERT_TRUE(RunStepDump(options).ok());
  ExpectDumpMatchesFixture(fixture, options.output_path);
}

TEST(StepDumpTest, CausalFlagOverridesABidirectionalConfig) {
  const ReferenceFixture fixture("bert_reference_causal.safetensors");
  BertConfig bidirectional = fixture.config();
  bidirectional.attention_mode = AttentionMode::kBidirectional;
  const DumpInputs inputs(fixture, "causal", bidirectional);
  StepDumpOptions options{inputs.checkpoint_dir, inputs.batch_path,
                          TempPath("causal_out.safetensors"), true};
  ASSERT_TRUE(RunStepDump(options).ok());
  ExpectDumpMatchesFixture(fixture, options.output_path);
  // Without the flag the same checkpoint is bidirectional: different logits.
  options.causal = false;
  options.output_path = TempPath("not_causal_out.safetensors");
  ASSERT_TRUE(RunStepDump(options).ok());
  absl::StatusOr<SafetensorsFile> dump =
      SafetensorsFile::Open(options.output_path);
  EXPECT_FALSE(Matches(
      "prediction_logits", dump->ReadFloat32("prediction_logits")->data(),
      fixture.Floats("output.prediction_logits"), kReferenceOutputTolerance));
}

// The right-to-left LM's fixture through a bidirectional checkpoint: the
// flag makes the step the fixture's (loss and every gradient; the padded
// rows' outputs carry float32 mask rounding, see bert_reference_test.cc).
TEST(StepDumpTest, ReverseCausalFlagOverridesABidirectionalConfig) {
  const ReferenceFixture fixture("bert_reference_reverse_causal.safetensors");
  BertConfig bidirectional = fixture.config();
  bidirectional.attention_mode = AttentionMode::kBidirectional;
  const DumpInputs inputs(fixture, "reverse_causal", bidirectional);
  StepDumpOptions options{inputs.checkpoint_dir, inputs.batch_path,
                          TempPath("reverse_causal_out.safetensors")};
  options.reverse_causal = true;
  ASSERT_TRUE(RunStepDump(options).ok());
  absl::StatusOr<SafetensorsFile> dump =
      SafetensorsFile::Open(options.output_path);
  ASSERT_TRUE(dump.ok()) << dump.status();
  EXPECT_EQ(dump->metadata().at("attention_mode"), "reverse_causal");
  for (const char* name : {"loss", "masked_lm_loss", "next_sentence_loss",
                           "pooled_output", "seq_relationship_logits"}) {
    EXPECT_TRUE(Matches(name, dump->ReadFloat32(name)->data(),
                        fixture.Floats(std::string("output.") + name),
                        kReferenceOutputTolerance));
  }
  std::vector<float> all_gradients;
  for (const std::string& name : fixture.file().TensorNames()) {
    if (name.rfind("grad.", 0) != 0) continue;
    const std::vector<float> g = fixture.Floats(name);
    all_gradients.insert(all_gradients.end(), g.begin(), g.end());
  }
  for (const std::string& name : fixture.file().TensorNames()) {
    if (name.rfind("grad.", 0) != 0) continue;
    ASSERT_NE(dump->Find(name), nullptr) << name;
    EXPECT_TRUE(Matches(name, dump->ReadFloat32(name)->data(),
                        fixture.Floats(name), kReferenceGradientTolerance,
                        Rms(all_gradients)));
  }
  options.causal = true;
  EXPECT_THAT(RunStepDump(options).message(),
              HasSubstr("--causal and --reverse_causal exclude each other"));
}

BertConfig TinyConfig() {
  BertConfig config;
  config.vocab_size = 10;
  config.max_position_embeddings = 3;
  config.type_vocab_size = 2;
  return config;
}

std::string BatchError(const std::string& json) {
  return std::string(
      ParseStepDumpBatch(json, "b.json", TinyConfig()).status().message());
}

TEST(StepDumpBatchTest, ParsesAValidBatch) {
  absl::StatusOr<StepDumpBatch> batch = ParseStepDumpBatch(
      R"({"input_ids": [[1, 2, 3], [4, 5, 0]],
          "token_type_ids": [[0, 0, 1], [0, 1, 1]],
          "attention_mask": [[1, 1, 1], [1, 1, 0]],
          "masked_lm_labels": [[-100, 7, -100], [9, -100, -100]],
          "next_sentence_label": [0, 1]})",
      "b.json", TinyConfig());
  ASSERT_TRUE(batch.ok()) << batch.status();
  EXPECT_EQ(batch->batch, 2);
  EXPECT_EQ(batch->seq_len, 3);
  EXPECT_EQ(batch->input_ids, (std::vector<int32_t>{1, 2, 3, 4, 5, 0}));
  EXPECT_EQ(batch->masked_lm_labels[0], -100);
}

TEST(StepDumpBatchTest, RefusesBadBatchesSayingWhere) {
  const std::string rest =
      R"("token_type_ids": [[0, 0]], "attention_mask": [[1, 1]],
         "masked_lm_labels": [[-100, 1]], "next_sentence_label": [0]})";
  EXPECT_THAT(BatchError("{"), HasSubstr("b.json: malformed JSON"));
  EXPECT_THAT(BatchError(R"({"token_type_ids": [[0]]})"),
              HasSubstr("b.json: missing key \"input_ids\""));
  EXPECT_THAT(BatchError(R"({"input_ids": [[1, 2], [3]], )" + rest),
              HasSubstr("\"input_ids\"[1] has 1 entries, expected 2"));
  EXPECT_THAT(BatchError(R"({"input_ids": [[1, 12]], )" + rest),
              HasSubstr("\"input_ids\"[0][1] = 12 is outside [0, 10)"));
  EXPECT_THAT(BatchError(R"({"input_ids": [[1, "a"]], )" + rest),
              HasSubstr("\"input_ids\"[0][1] must be an integer"));
  EXPECT_THAT(BatchError(R"({"input_ids": [[1, 2, 3, 4]], )" + rest),
              HasSubstr("\"token_type_ids\"[0] has 2 entries, expected 4"));
  EXPECT_THAT(BatchError(R"({"input_ids": [[1, 2], [1, 2]], )" + rest),
              HasSubstr("\"token_type_ids\" has 1 rows, \"input_ids\" has 2"));
  EXPECT_THAT(BatchError(R"({"input_ids": [[1, 2]], "token_type_ids": [[0, 2]],
                     "attention_mask": [[1, 1]], "masked_lm_labels": [[1, 1]],
                     "next_sentence_label": [0]})"),
              HasSubstr("\"token_type_ids\"[0][1] = 2 is outside [0, 2)"));
  EXPECT_THAT(
      BatchError(R"({"input_ids": [[1, 2]], "token_type_ids": [[0, 0]],
                     "attention_mask": [[1, 1]], "masked_lm_labels": [[1, 1]],
                     "next_sentence_label": [0, 1]})"),
      HasSubstr("\"next_sentence_label\" must be an array of 1 integers"));
  EXPECT_THAT(
      BatchError(
          R"({"input_ids": [[1, 2, 3, 4]], "token_type_ids": [[0, 0, 0, 0]],
                     "attention_mask": [[1, 1, 1, 1]],
                     "masked_lm_labels": [[1, 1, 1, 1]],
                     "next_sentence_label": [0]})"),
      HasSubstr("longer than max_position_embeddings (3)"));
}

TEST(StepDumpTest, RefusesACheckpointThatDoesNotMatchItsConfig) {
  const ReferenceFixture fixture("bert_reference_bidirectional.safetensors");
  const DumpInputs inputs(fixture, "mismatch", fixture.config());
  // Claim a larger hidden size than the weights have.
  BertConfig wrong = fixture.config();
  wrong.hidden_size = 40;
  wrong.num_attention_heads = 4;
  CHECK_OK(WriteFileAtomically(inputs.checkpoint_dir + "/config.json",
                               ConfigToJson(wrong)));
  const absl::Status status =
      RunStepDump({inputs.checkpoint_dir, inputs.batch_path,
                   TempPath("mismatch_out.safetensors"), false});
  EXPECT_THAT(status.message(), HasSubstr("model.safetensors"));
  EXPECT_THAT(status.message(), HasSubstr("bert.embeddings.word_embeddings"));
  EXPECT_THAT(
      RunStepDump({TempPath("no_such_dir"), inputs.batch_path, "x", false})
          .message(),
      HasSubstr("no_such_dir/config.json"));
}

// A No-NSP checkpoint (no cls.seq_relationship.*) dumps the masked-LM step
// alone: the same encoder outputs and masked-LM loss as the reference, no
// next-sentence outputs, and the loss is the masked-LM loss.
TEST(StepDumpTest, NoNspCheckpointGivesTheMaskedLmStep) {
  const ReferenceFixture fixture("bert_reference_bidirectional.safetensors");
  const DumpInputs inputs(fixture, "no_nsp", fixture.config(),
                          /*next_sentence=*/false);
  const std::string output = TempPath("no_nsp_out.safetensors");
  const absl::Status status =
      RunStepDump({inputs.checkpoint_dir, inputs.batch_path, output, false});
  ASSERT_TRUE(status.ok()) << status;
  absl::StatusOr<SafetensorsFile> dump = SafetensorsFile::Open(output);
  ASSERT_TRUE(dump.ok()) << dump.status();
  EXPECT_EQ(dump->Find("seq_relationship_logits"), nullptr);
  EXPECT_EQ(dump->Find("next_sentence_loss"), nullptr);
  EXPECT_EQ(dump->Find("grad.cls.seq_relationship.weight"), nullptr);
  for (const char* name :
       {"prediction_logits", "masked_lm_loss", "last_hidden_state"}) {
    EXPECT_TRUE(Matches(name, dump->ReadFloat32(name)->data(),
                        fixture.Floats(std::string("output.") + name),
                        kReferenceOutputTolerance));
  }
  EXPECT_EQ(dump->ReadFloat32("loss").value(),
            dump->ReadFloat32("masked_lm_loss").value());
}

// Absurd sizes and non-finite weights are refused with a message, before
// the model is allocated (a config.json asking for 10^12 hidden units used
// to end in std::bad_alloc).
TEST(StepDumpTest, RefusesAbsurdSizesAndNonFiniteWeights) {
  const ReferenceFixture fixture("bert_reference_bidirectional.safetensors");
  const DumpInputs inputs(fixture, "absurd", fixture.config());
  const std::string config_path = inputs.checkpoint_dir + "/config.json";
  const std::string config_json = ReadFileToString(config_path).value();
  const std::string hidden =
      absl::StrCat("\"hidden_size\": ", fixture.config().hidden_size);
  std::string absurd = config_json;
  absurd.replace(absurd.find(hidden), hidden.size(),
                 "\"hidden_size\": 1000000000000");
  CHECK_OK(WriteFileAtomically(config_path, absurd));
  const std::string output = TempPath("absurd_out.safetensors");
  EXPECT_THAT(
      std::string(
          RunStepDump({inputs.checkpoint_dir, inputs.batch_path, output, false})
              .message()),
      HasSubstr("config.json: hidden_size must be at most 2147483647, got "
                "1000000000000"));

  CHECK_OK(WriteFileAtomically(config_path, config_json));
  BertForPretraining model(fixture.config(), true);
  std::vector<float> params(model.layout().total_size());
  CHECK_OK(LoadCheckpointDirectory(inputs.checkpoint_dir, model.layout(), {},
                                   params.data())
               .status());
  params[model.layout().Find("bert.pooler.dense.weight")->offset + 1] =
      -INFINITY;
  CHECK_OK(SaveCheckpointDirectory(inputs.checkpoint_dir, fixture.config(),
                                   model.layout(), params.data()));
  EXPECT_THAT(
      std::string(
          RunStepDump({inputs.checkpoint_dir, inputs.batch_path, output, false})
              .message()),
      HasSubstr("bert.pooler.dense.weight: element 1 (index [0, 1]) is -inf"));
}

}  // namespace
}  // namespace bertlab
