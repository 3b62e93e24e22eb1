#include "model/bert/checkpoint.h"

#include <sys/stat.h>

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "absl/types/span.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "model/bert/config.h"
#include "model/bert/encoder_parameters.h"
#include "model/bert/parameter_layout.h"
#include "model/safetensors.h"

namespace bertlab {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::Not;
using ::testing::Pair;

std::string TempPath(const std::string& name) {
  const char* root = std::getenv("TEST_TMPDIR");
  return absl::StrCat(root != nullptr ? root : "/tmp", "/", name);
}

BertConfig TinyConfig() {
  BertConfig config;
  config.vocab_size = 50;
  config.hidden_size = 8;
  config.num_hidden_layers = 2;
  config.num_attention_heads = 2;
  config.intermediate_size = 16;
  config.max_position_embeddings = 16;
  config.type_vocab_size = 2;
  return config;
}

ParameterLayout EncoderLayout(const BertConfig& config) {
  ParameterLayout layout;
  AddEncoderParameters(config, &layout);
  return layout;
}

// The encoder plus BertForPreTraining's heads (MLM decoder tied).
ParameterLayout PretrainingLayout(const BertConfig& config) {
  ParameterLayout layout = EncoderLayout(config);
  const int64_t hidden = config.hidden_size;
  const Initializer weight = WeightInitializer(config);
  layout.Add("cls.predictions.transform.dense.weight", {hidden, hidden},
             weight);
  layout.Add("cls.predictions.transform.dense.bias", {hidden},
             ZerosInitializer());
  layout.Add("cls.predictions.transform.LayerNorm.weight", {hidden},
             OnesInitializer());
  layout.Add("cls.predictions.transform.LayerNorm.bias", {hidden},
             ZerosInitializer());
  layout.Add("cls.predictions.bias", {config.vocab_size}, ZerosInitializer());
  layout.Add("cls.seq_relationship.weight", {2, hidden}, weight);
  layout.Add("cls.seq_relationship.bias", {2}, ZerosInitializer());
  return layout;
}

// Values whose bit patterns differ everywhere (not representable in fewer
// bits), so a round trip that rounds or shifts anything is caught.
std::vector<float> IrregularValues(const ParameterLayout& layout) {
  std::vector<float> values(layout.total_size());
  for (size_t i = 0; i < values.size(); ++i) {
    values[i] = static_cast<float>(std::sin(0.7 * i + 0.1) * (1.0 + i % 13));
  }
  return values;
}

// Values exact in F16 and BF16: multiples of 1/8 in [-3.75, 3.75].
std::vector<float> HalfExactValues(const ParameterLayout& layout) {
  std::vector<float> values(layout.total_size());
  for (size_t i = 0; i < values.size(); ++i) {
    values[i] = 0.125f * static_cast<float>(static_cast<int>(i % 61) - 30);
  }
  return values;
}

absl::Span<const float> ValuesOf(const ParameterLayout& layout,
                                 const std::vector<float>& values,
                                 absl::string_view name) {
  const ParameterInfo* info = layout.Find(name);
  EXPECT_NE(info, nullptr) << name;
  if (info == nullptr) return {};
  return absl::MakeConstSpan(values.data() + info->offset,
                             static_cast<size_t>(info->size));
}

std::vector<std::string> LayoutNames(const ParameterLayout& layout) {
  std::vector<std::string> names;
  for (const ParameterInfo& info : layout.parameters()) {
    names.push_back(info.name);
  }
  return names;
}

bool BitwiseEqual(const std::vector<float>& a, const std::vector<float>& b) {
  return a.size() == b.size() &&
         std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0;
}

SafetensorsFile Parse(const SafetensorsWriter& writer,
                      const std::string& display_name = "test.safetensors") {
  absl::StatusOr<std::string> bytes = writer.Serialize();
  EXPECT_TRUE(bytes.ok()) << bytes.status();
  absl::StatusOr<SafetensorsFile> file =
      SafetensorsFile::FromBytes(*std::move(bytes), display_name);
  EXPECT_TRUE(file.ok()) << file.status();
  return *std::move(file);
}

// Every layout tensor under rename(name) (skipped when that returns "").
template <typename Rename>
SafetensorsWriter WriterFor(const ParameterLayout& layout,
                            const std::vector<float>& values, Rename rename) {
  SafetensorsWriter writer;
  for (const ParameterInfo& info : layout.parameters()) {
    const std::string name = rename(info.name);
    if (name.empty()) continue;
    EXPECT_TRUE(
        writer.AddFloat32(name, info.shape, ValuesOf(layout, values, info.name))
            .ok());
  }
  return writer;
}

SafetensorsWriter WriterFor(const ParameterLayout& layout,
                            const std::vector<float>& values) {
  return WriterFor(layout, values,
                   [](const std::string& name) { return name; });
}

// ---- Saving and the round trip.

TEST(CheckpointTest, SaveLoadRoundTripIsBitExact) {
  const ParameterLayout layout = PretrainingLayout(TinyConfig());
  const std::vector<float> values = IrregularValues(layout);
  const std::string path = TempPath("round_trip.safetensors");
  ASSERT_TRUE(
      SaveParameters(path, layout, values.data(), {{"step", "42"}}).ok());

  absl::StatusOr<SafetensorsFile> file = SafetensorsFile::Open(path);
  ASSERT_TRUE(file.ok()) << file.status();
  EXPECT_THAT(file->metadata(),
              ElementsAre(Pair("format", "pt"), Pair("step", "42")));
  for (const ParameterInfo& info : layout.parameters()) {
    const TensorInfo* tensor = file->Find(info.name);
    ASSERT_NE(tensor, nullptr) << info.name;
    EXPECT_EQ(tensor->dtype, DType::kF32);
    EXPECT_EQ(tensor->shape, info.shape);
  }

  std::vector<float> loaded(layout.total_size(), 0.0f);
  absl::StatusOr<CheckpointLoadReport> report =
      LoadParameters(*file, layout, {}, loaded.data());
  ASSERT_TRUE(report.ok()) << report.status();
  EXPECT_TRUE(BitwiseEqual(loaded, values));
  EXPECT_EQ(report->loaded, LayoutNames(layout));
  EXPECT_THAT(report->left_initialised, IsEmpty());
  EXPECT_THAT(report->ignored, IsEmpty());
}

TEST(CheckpointTest, SaveRefusesAFormatOtherThanPt) {
  const ParameterLayout layout = EncoderLayout(TinyConfig());
  const std::vector<float> values = IrregularValues(layout);
  const absl::Status status =
      SaveParameters(TempPath("bad_format.safetensors"), layout, values.data(),
                     {{"format", "tf"}});
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(status.message(), HasSubstr("\"format\" must be \"pt\""));
}

TEST(CheckpointTest, DirectoryRoundTripIncludingConfig) {
  BertConfig config = TinyConfig();
  config.hidden_act = GeluForm::kTanh;
  config.layer_norm_eps = 1e-5;
  config.attention_mode = AttentionMode::kCausal;
  const ParameterLayout layout = PretrainingLayout(config);
  const std::vector<float> values = IrregularValues(layout);
  const std::string dir = TempPath("checkpoints/step_100");
  ASSERT_TRUE(SaveCheckpointDirectory(dir, config, layout, values.data()).ok());

  struct stat info;
  EXPECT_EQ(::stat((dir + "/config.json").c_str(), &info), 0);
  EXPECT_EQ(::stat((dir + "/model.safetensors").c_str(), &info), 0);

  absl::StatusOr<BertConfig> read = ReadCheckpointConfig(dir + "/");
  ASSERT_TRUE(read.ok()) << read.status();
  EXPECT_EQ(read->vocab_size, config.vocab_size);
  EXPECT_EQ(read->hidden_size, config.hidden_size);
  EXPECT_EQ(read->num_hidden_layers, config.num_hidden_layers);
  EXPECT_EQ(read->num_attention_heads, config.num_attention_heads);
  EXPECT_EQ(read->intermediate_size, config.intermediate_size);
  EXPECT_EQ(read->max_position_embeddings, config.max_position_embeddings);
  EXPECT_EQ(read->type_vocab_size, config.type_vocab_size);
  EXPECT_EQ(read->layer_norm_eps, config.layer_norm_eps);
  EXPECT_EQ(read->hidden_act, config.hidden_act);
  EXPECT_EQ(read->attention_mode, config.attention_mode);

  std::vector<float> loaded(layout.total_size(), 0.0f);
  absl::StatusOr<CheckpointLoadReport> report =
      LoadCheckpointDirectory(dir, layout, {}, loaded.data());
  ASSERT_TRUE(report.ok()) << report.status();
  EXPECT_TRUE(BitwiseEqual(loaded, values));

  // Saving again over the same directory replaces the files.
  const std::vector<float> zeros(layout.total_size(), 0.0f);
  ASSERT_TRUE(SaveCheckpointDirectory(dir, config, layout, zeros.data()).ok());
  ASSERT_TRUE(LoadCheckpointDirectory(dir, layout, {}, loaded.data()).ok());
  EXPECT_TRUE(BitwiseEqual(loaded, zeros));
}

TEST(CheckpointTest, MissingDirectoryIsNotFound) {
  const ParameterLayout layout = EncoderLayout(TinyConfig());
  std::vector<float> values(layout.total_size());
  const std::string dir = TempPath("no_such_checkpoint");
  absl::StatusOr<BertConfig> config = ReadCheckpointConfig(dir);
  EXPECT_EQ(config.status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(config.status().message(), HasSubstr(dir + "/config.json"));
  absl::StatusOr<CheckpointLoadReport> report =
      LoadCheckpointDirectory(dir, layout, {}, values.data());
  EXPECT_FALSE(report.ok());
  EXPECT_THAT(report.status().message(), HasSubstr(dir + "/model.safetensors"));
}

// ---- Name rules.

TEST(CheckpointTest, AcceptsOldGammaBetaSpellings) {
  const ParameterLayout layout = PretrainingLayout(TinyConfig());
  const std::vector<float> values = IrregularValues(layout);
  int renamed = 0;
  const SafetensorsFile file = Parse(WriterFor(
      layout, values, [&renamed](const std::string& name) -> std::string {
        if (absl::EndsWith(name, "LayerNorm.weight")) {
          ++renamed;
          return absl::StrReplaceAll(name,
                                     {{"LayerNorm.weight", "LayerNorm.gamma"}});
        }
        if (absl::EndsWith(name, "LayerNorm.bias")) {
          ++renamed;
          return absl::StrReplaceAll(name,
                                     {{"LayerNorm.bias", "LayerNorm.beta"}});
        }
        return name;
      }));
  EXPECT_EQ(renamed, 2 * (1 + 2 * 2 + 1));  // embeddings, 2 per layer, head
  ASSERT_NE(file.Find("bert.embeddings.LayerNorm.gamma"), nullptr);

  std::vector<float> loaded(layout.total_size(), 0.0f);
  absl::StatusOr<CheckpointLoadReport> report =
      LoadParameters(file, layout, {}, loaded.data());
  ASSERT_TRUE(report.ok()) << report.status();
  EXPECT_TRUE(BitwiseEqual(loaded, values));
  EXPECT_EQ(report->loaded, LayoutNames(layout));
}

TEST(CheckpointTest, AcceptsNamesWithoutTheBertPrefix) {
  // HF BertModel files: "embeddings.*", "encoder.layer.N.*", "pooler.*", here
  // also with the old LayerNorm spellings.
  const ParameterLayout layout = EncoderLayout(TinyConfig());
  const std::vector<float> values = IrregularValues(layout);
  const SafetensorsFile file = Parse(
      WriterFor(layout, values, [](const std::string& name) -> std::string {
        std::string bare = name.substr(std::strlen("bert."));
        if (absl::EndsWith(bare, "LayerNorm.weight")) {
          bare = absl::StrReplaceAll(bare,
                                     {{"LayerNorm.weight", "LayerNorm.gamma"}});
        }
        return bare;
      }));
  ASSERT_NE(file.Find("encoder.layer.1.output.LayerNorm.gamma"), nullptr);
  ASSERT_NE(file.Find("pooler.dense.weight"), nullptr);

  std::vector<float> loaded(layout.total_size(), 0.0f);
  absl::StatusOr<CheckpointLoadReport> report =
      LoadParameters(file, layout, {}, loaded.data());
  ASSERT_TRUE(report.ok()) << report.status();
  EXPECT_TRUE(BitwiseEqual(loaded, values));
}

TEST(CheckpointTest, IgnoresPositionIds) {
  const ParameterLayout layout = EncoderLayout(TinyConfig());
  const std::vector<float> values = IrregularValues(layout);
  for (const char* position_ids :
       {"bert.embeddings.position_ids", "embeddings.position_ids"}) {
    SCOPED_TRACE(position_ids);
    SafetensorsWriter writer = WriterFor(layout, values);
    std::vector<int64_t> ids(16);
    for (int64_t i = 0; i < 16; ++i) ids[i] = i;
    ASSERT_TRUE(writer.AddInt64(position_ids, {1, 16}, ids).ok());
    const SafetensorsFile file = Parse(writer);

    std::vector<float> loaded(layout.total_size(), 0.0f);
    absl::StatusOr<CheckpointLoadReport> report =
        LoadParameters(file, layout, {}, loaded.data());
    ASSERT_TRUE(report.ok()) << report.status();
    EXPECT_TRUE(BitwiseEqual(loaded, values));
    EXPECT_THAT(report->ignored, ElementsAre(position_ids));
  }
}

TEST(CheckpointTest, TiedDecoderTensorsPresentAreCheckedAndNotLoaded) {
  const BertConfig config = TinyConfig();
  const ParameterLayout layout = PretrainingLayout(config);
  const std::vector<float> values = IrregularValues(layout);
  SafetensorsWriter writer = WriterFor(layout, values);
  ASSERT_TRUE(
      writer
          .AddFloat32("cls.predictions.decoder.weight",
                      {config.vocab_size, config.hidden_size},
                      ValuesOf(layout, values,
                               "bert.embeddings.word_embeddings.weight"))
          .ok());
  // A decoder bias that differs from cls.predictions.bias: with both present
  // the latter wins.
  const std::vector<float> other_bias(config.vocab_size, 7.0f);
  ASSERT_TRUE(writer
                  .AddFloat32("cls.predictions.decoder.bias",
                              {config.vocab_size}, other_bias)
                  .ok());
  const SafetensorsFile file = Parse(writer);

  std::vector<float> loaded(layout.total_size(), 0.0f);
  absl::StatusOr<CheckpointLoadReport> report =
      LoadParameters(file, layout, {}, loaded.data());
  ASSERT_TRUE(report.ok()) << report.status();
  EXPECT_TRUE(BitwiseEqual(loaded, values));
  EXPECT_THAT(report->ignored, ElementsAre("cls.predictions.decoder.bias",
                                           "cls.predictions.decoder.weight"));
  EXPECT_EQ(report->loaded, LayoutNames(layout));
}

TEST(CheckpointTest, DecoderBiasStandsInForAnAbsentMlmBias) {
  const BertConfig config = TinyConfig();
  const ParameterLayout layout = PretrainingLayout(config);
  const std::vector<float> values = IrregularValues(layout);
  SafetensorsWriter writer =
      WriterFor(layout, values, [](const std::string& name) -> std::string {
        return name == "cls.predictions.bias" ? "cls.predictions.decoder.bias"
                                              : name;
      });
  const SafetensorsFile file = Parse(writer);
  ASSERT_EQ(file.Find("cls.predictions.bias"), nullptr);

  std::vector<float> loaded(layout.total_size(), 0.0f);
  absl::StatusOr<CheckpointLoadReport> report =
      LoadParameters(file, layout, {}, loaded.data());
  ASSERT_TRUE(report.ok()) << report.status();
  EXPECT_TRUE(BitwiseEqual(loaded, values));
  EXPECT_EQ(report->loaded, LayoutNames(layout));
  EXPECT_THAT(report->ignored, IsEmpty());
}

TEST(CheckpointTest, DecoderWeightOfTheWrongShapeIsRefused) {
  const BertConfig config = TinyConfig();
  const ParameterLayout layout = PretrainingLayout(config);
  const std::vector<float> values = IrregularValues(layout);
  SafetensorsWriter writer = WriterFor(layout, values);
  const std::vector<float> decoder(config.hidden_size * config.vocab_size);
  ASSERT_TRUE(writer
                  .AddFloat32("cls.predictions.decoder.weight",
                              {config.hidden_size, config.vocab_size}, decoder)
                  .ok());
  const SafetensorsFile file = Parse(writer);
  std::vector<float> loaded(layout.total_size(), 0.0f);
  absl::StatusOr<CheckpointLoadReport> report =
      LoadParameters(file, layout, {}, loaded.data());
  ASSERT_FALSE(report.ok());
  EXPECT_THAT(report.status().message(),
              HasSubstr("cls.predictions.decoder.weight: expected [50, 8]"));
  EXPECT_THAT(report.status().message(), HasSubstr("file has [8, 50]"));
}

// ---- Dtypes.

TEST(CheckpointTest, LoadsF16AndBf16Files) {
  const ParameterLayout layout = PretrainingLayout(TinyConfig());
  const std::vector<float> values = HalfExactValues(layout);
  for (const DType dtype : {DType::kF16, DType::kBF16}) {
    SCOPED_TRACE(DTypeName(dtype));
    SafetensorsWriter writer;
    for (const ParameterInfo& info : layout.parameters()) {
      const absl::Span<const float> tensor =
          ValuesOf(layout, values, info.name);
      const absl::Status added =
          dtype == DType::kF16
              ? writer.AddFloat32AsF16(info.name, info.shape, tensor)
              : writer.AddFloat32AsBf16(info.name, info.shape, tensor);
      ASSERT_TRUE(added.ok()) << added;
    }
    const SafetensorsFile file = Parse(writer);
    ASSERT_EQ(file.Find("bert.pooler.dense.weight")->dtype, dtype);

    std::vector<float> loaded(layout.total_size(), 0.0f);
    absl::StatusOr<CheckpointLoadReport> report =
        LoadParameters(file, layout, {}, loaded.data());
    ASSERT_TRUE(report.ok()) << report.status();
    EXPECT_EQ(loaded, values);
  }
}

TEST(CheckpointTest, IntegerTensorForAParameterIsAnErrorNamingIt) {
  const ParameterLayout layout = EncoderLayout(TinyConfig());
  const std::vector<float> values = IrregularValues(layout);
  SafetensorsWriter writer =
      WriterFor(layout, values, [](const std::string& name) -> std::string {
        return name == "bert.embeddings.token_type_embeddings.weight" ? ""
                                                                      : name;
      });
  ASSERT_TRUE(writer
                  .AddInt32("bert.embeddings.token_type_embeddings.weight",
                            {2, 8}, std::vector<int32_t>(16, 1))
                  .ok());
  const SafetensorsFile file = Parse(writer);
  std::vector<float> loaded(layout.total_size(), 0.0f);
  absl::StatusOr<CheckpointLoadReport> report =
      LoadParameters(file, layout, {}, loaded.data());
  ASSERT_FALSE(report.ok());
  EXPECT_EQ(report.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(report.status().message(),
              HasSubstr("bert.embeddings.token_type_embeddings.weight: I32"));
}

// A NaN or an infinity in a file is named (tensor, element, index) and
// nothing is loaded.
TEST(CheckpointTest, NonFiniteValuesAreAnErrorNamingTensorAndElement) {
  const ParameterLayout layout = EncoderLayout(TinyConfig());
  std::vector<float> values = IrregularValues(layout);
  const ParameterInfo* word =
      layout.Find("bert.embeddings.word_embeddings.weight");
  const ParameterInfo* bias = layout.Find("bert.pooler.dense.bias");
  ASSERT_NE(word, nullptr);
  ASSERT_NE(bias, nullptr);
  values[word->offset + word->shape[1] * 3 + 5] = INFINITY;
  values[bias->offset + 2] = NAN;
  const SafetensorsFile file = Parse(WriterFor(layout, values));
  std::vector<float> loaded(layout.total_size(), 7.0f);
  absl::StatusOr<CheckpointLoadReport> report =
      LoadParameters(file, layout, {}, loaded.data());
  ASSERT_FALSE(report.ok());
  EXPECT_EQ(report.status().code(), absl::StatusCode::kInvalidArgument);
  const std::string message(report.status().message());
  EXPECT_THAT(message, HasSubstr("tensors with a NaN or an infinity (2):"));
  EXPECT_THAT(message, HasSubstr(absl::StrCat(
                           "bert.embeddings.word_embeddings.weight: element ",
                           word->shape[1] * 3 + 5, " (index [3, 5]) is +inf")));
  EXPECT_THAT(message, HasSubstr("bert.pooler.dense.bias: element 2 (index "
                                 "[2]) is nan"));
  EXPECT_TRUE(std::all_of(loaded.begin(), loaded.end(),
                          [](float x) { return x == 7.0f; }));
}

// ---- Errors.

TEST(CheckpointTest, OneErrorListsMissingUnexpectedAndMismatchedTensors) {
  const ParameterLayout layout = PretrainingLayout(TinyConfig());
  const std::vector<float> values = IrregularValues(layout);
  SafetensorsWriter writer =
      WriterFor(layout, values, [](const std::string& name) -> std::string {
        if (name == "bert.encoder.layer.1.intermediate.dense.bias" ||
            name == "bert.pooler.dense.weight") {
          return "";
        }
        return name;
      });
  ASSERT_TRUE(writer
                  .AddFloat32("bert.pooler.dense.weight", {8, 9},
                              std::vector<float>(72))
                  .ok());
  ASSERT_TRUE(writer
                  .AddFloat32("bert.encoder.layer.2.output.dense.bias", {8},
                              std::vector<float>(8))
                  .ok());
  ASSERT_TRUE(
      writer.AddFloat32("classifier.weight", {3, 8}, std::vector<float>(24))
          .ok());
  const SafetensorsFile file = Parse(writer, "/ckpt/mixed.safetensors");

  std::vector<float> loaded(layout.total_size(), -1.0f);
  absl::StatusOr<CheckpointLoadReport> report =
      LoadParameters(file, layout, {}, loaded.data());
  ASSERT_FALSE(report.ok());
  EXPECT_EQ(report.status().code(), absl::StatusCode::kInvalidArgument);
  const std::string message(report.status().message());
  EXPECT_THAT(message, HasSubstr("/ckpt/mixed.safetensors: "));
  EXPECT_THAT(message, HasSubstr("missing tensors"));
  EXPECT_THAT(message,
              HasSubstr("bert.encoder.layer.1.intermediate.dense.bias"));
  EXPECT_THAT(message, HasSubstr("unexpected tensors"));
  EXPECT_THAT(message, HasSubstr("bert.encoder.layer.2.output.dense.bias"));
  EXPECT_THAT(message, HasSubstr("classifier.weight"));
  EXPECT_THAT(message, HasSubstr("shape mismatches"));
  EXPECT_THAT(message, HasSubstr("bert.pooler.dense.weight: expected [8, 8], "
                                 "file has [8, 9]"));
  // Nothing was written.
  EXPECT_EQ(loaded, std::vector<float>(layout.total_size(), -1.0f));
}

TEST(CheckpointTest, LongListsAreCapped) {
  const ParameterLayout layout = EncoderLayout(TinyConfig());
  const int64_t count = static_cast<int64_t>(layout.parameters().size());
  ASSERT_GT(count, 20);
  SafetensorsWriter writer;
  ASSERT_TRUE(writer.AddFloat32("unrelated", {1}, std::vector<float>{1}).ok());
  const SafetensorsFile file = Parse(writer);
  std::vector<float> loaded(layout.total_size());
  absl::StatusOr<CheckpointLoadReport> report =
      LoadParameters(file, layout, {}, loaded.data());
  ASSERT_FALSE(report.ok());
  const std::string message(report.status().message());
  EXPECT_THAT(message,
              HasSubstr(absl::StrCat("missing tensors (", count, ")")));
  EXPECT_THAT(message, HasSubstr(absl::StrCat("and ", count - 20, " more")));
  // The 20th is listed, the 21st is not.
  EXPECT_THAT(message, HasSubstr(layout.parameters()[19].name + "\n"));
  EXPECT_THAT(message, Not(HasSubstr(layout.parameters()[20].name)));
  EXPECT_THAT(message, HasSubstr("unrelated"));
}

TEST(CheckpointTest, TwoTensorsForOneParameterAreRefused) {
  const ParameterLayout layout = EncoderLayout(TinyConfig());
  const std::vector<float> values = IrregularValues(layout);
  SafetensorsWriter writer = WriterFor(layout, values);
  ASSERT_TRUE(writer
                  .AddFloat32("bert.embeddings.LayerNorm.gamma", {8},
                              std::vector<float>(8))
                  .ok());
  const SafetensorsFile file = Parse(writer);
  std::vector<float> loaded(layout.total_size());
  absl::StatusOr<CheckpointLoadReport> report =
      LoadParameters(file, layout, {}, loaded.data());
  ASSERT_FALSE(report.ok());
  EXPECT_THAT(report.status().message(),
              HasSubstr("bert.embeddings.LayerNorm.weight <- "
                        "bert.embeddings.LayerNorm.gamma, "
                        "bert.embeddings.LayerNorm.weight"));
}

// ---- Options.

TEST(CheckpointTest, PrefixOptionsKeepNewHeadsAndSkipOldOnes) {
  // Fine-tuning: a pre-training checkpoint into the encoder plus a new
  // classifier.
  const BertConfig config = TinyConfig();
  const ParameterLayout pretraining = PretrainingLayout(config);
  const std::vector<float> pretrained = IrregularValues(pretraining);
  const SafetensorsFile file = Parse(WriterFor(pretraining, pretrained));

  ParameterLayout layout = EncoderLayout(config);
  layout.Add("classifier.weight", {3, config.hidden_size},
             WeightInitializer(config));
  layout.Add("classifier.bias", {3}, ZerosInitializer());

  std::vector<float> loaded(layout.total_size(), 0.5f);
  absl::StatusOr<CheckpointLoadReport> refused =
      LoadParameters(file, layout, {}, loaded.data());
  ASSERT_FALSE(refused.ok());
  EXPECT_THAT(refused.status().message(), HasSubstr("classifier.weight"));
  EXPECT_THAT(refused.status().message(),
              HasSubstr("cls.seq_relationship.weight"));

  CheckpointLoadOptions options;
  options.allow_missing_prefixes = {"classifier."};
  options.ignore_unexpected_prefixes = {"cls."};
  absl::StatusOr<CheckpointLoadReport> report =
      LoadParameters(file, layout, options, loaded.data());
  ASSERT_TRUE(report.ok()) << report.status();
  EXPECT_THAT(report->left_initialised,
              ElementsAre("classifier.weight", "classifier.bias"));
  EXPECT_THAT(
      report->ignored,
      ElementsAre("cls.predictions.bias",
                  "cls.predictions.transform.LayerNorm.bias",
                  "cls.predictions.transform.LayerNorm.weight",
                  "cls.predictions.transform.dense.bias",
                  "cls.predictions.transform.dense.weight",
                  "cls.seq_relationship.bias", "cls.seq_relationship.weight"));
  EXPECT_EQ(report->loaded.size(), layout.parameters().size() - 2);
  for (const ParameterInfo& info : layout.parameters()) {
    const absl::Span<const float> got = ValuesOf(layout, loaded, info.name);
    if (absl::StartsWith(info.name, "classifier.")) {
      for (float value : got) EXPECT_EQ(value, 0.5f) << info.name;
    } else {
      EXPECT_EQ(std::vector<float>(got.begin(), got.end()),
                std::vector<float>(
                    ValuesOf(pretraining, pretrained, info.name).begin(),
                    ValuesOf(pretraining, pretrained, info.name).end()))
          << info.name;
    }
  }
}

TEST(CheckpointTest, EncoderLayoutIgnoresTiedDecoderOnlyWhenAsked) {
  // Without the MLM head in the layout the decoder tensors are just
  // unexpected ones.
  const BertConfig config = TinyConfig();
  const ParameterLayout layout = EncoderLayout(config);
  const std::vector<float> values = IrregularValues(layout);
  SafetensorsWriter writer = WriterFor(layout, values);
  ASSERT_TRUE(writer
                  .AddFloat32("cls.predictions.decoder.weight",
                              {config.vocab_size, config.hidden_size},
                              std::vector<float>(50 * 8))
                  .ok());
  const SafetensorsFile file = Parse(writer);
  std::vector<float> loaded(layout.total_size());
  absl::StatusOr<CheckpointLoadReport> refused =
      LoadParameters(file, layout, {}, loaded.data());
  ASSERT_FALSE(refused.ok());
  EXPECT_THAT(refused.status().message(),
              HasSubstr("cls.predictions.decoder.weight"));
  CheckpointLoadOptions options;
  options.ignore_unexpected_prefixes = {"cls."};
  absl::StatusOr<CheckpointLoadReport> report =
      LoadParameters(file, layout, options, loaded.data());
  ASSERT_TRUE(report.ok()) << report.status();
  EXPECT_THAT(report->ignored, ElementsAre("cls.predictions.decoder.weight"));
}

// ---- Google TF variable names.

// The TF name of a layout parameter (the inverse of docs/PAPER.md 4a), and
// whether TF stores it transposed.
std::pair<std::string, bool> TfNameOf(const std::string& hf_name) {
  static const std::map<std::string, std::string> kDirect = {
      {"bert.embeddings.word_embeddings.weight",
       "bert/embeddings/word_embeddings"},
      {"bert.embeddings.position_embeddings.weight",
       "bert/embeddings/position_embeddings"},
      {"bert.embeddings.token_type_embeddings.weight",
       "bert/embeddings/token_type_embeddings"},
      {"cls.predictions.bias", "cls/predictions/output_bias"},
      {"cls.seq_relationship.weight", "cls/seq_relationship/output_weights"},
      {"cls.seq_relationship.bias", "cls/seq_relationship/output_bias"},
  };
  if (auto it = kDirect.find(hf_name); it != kDirect.end()) {
    return {it->second, false};
  }
  std::string name = absl::StrReplaceAll(
      hf_name, {{"bert.encoder.layer.", "bert/encoder/layer_"}, {".", "/"}});
  if (absl::EndsWith(name, "LayerNorm/weight")) {
    return {
        absl::StrReplaceAll(name, {{"LayerNorm/weight", "LayerNorm/gamma"}}),
        false};
  }
  if (absl::EndsWith(name, "LayerNorm/bias")) {
    return {absl::StrReplaceAll(name, {{"LayerNorm/bias", "LayerNorm/beta"}}),
            false};
  }
  if (absl::EndsWith(name, "/weight")) {
    return {name.substr(0, name.size() - std::strlen("weight")) + "kernel",
            true};
  }
  return {name, false};
}

TEST(CheckpointTest, TfNamedFileLoadsWithKernelsTransposed) {
  const BertConfig config = TinyConfig();
  const ParameterLayout layout = PretrainingLayout(config);
  const std::vector<float> values = IrregularValues(layout);

  SafetensorsWriter writer;
  int kernels = 0;
  std::vector<float> tf_query_kernel;  // layer 0's, as TF stores it
  for (const ParameterInfo& info : layout.parameters()) {
    const auto [tf_name, transposed] = TfNameOf(info.name);
    const absl::Span<const float> hf = ValuesOf(layout, values, info.name);
    if (!transposed) {
      ASSERT_TRUE(writer.AddFloat32(tf_name, info.shape, hf).ok()) << tf_name;
      continue;
    }
    ++kernels;
    const int64_t out = info.shape[0];
    const int64_t in = info.shape[1];
    std::vector<float> kernel(in * out);  // [in, out]
    for (int64_t o = 0; o < out; ++o) {
      for (int64_t i = 0; i < in; ++i) kernel[i * out + o] = hf[o * in + i];
    }
    if (tf_name == "bert/encoder/layer_0/attention/self/query/kernel") {
      tf_query_kernel = kernel;
    }
    ASSERT_TRUE(writer.AddFloat32(tf_name, {in, out}, kernel).ok()) << tf_name;
    ASSERT_TRUE(writer.AddFloat32(tf_name + "/adam_m", {in, out}, kernel).ok());
    ASSERT_TRUE(writer.AddFloat32(tf_name + "/adam_v", {in, out}, kernel).ok());
  }
  // 6 per layer, pooler, transform.
  EXPECT_EQ(kernels, 6 * 2 + 1 + 1);
  ASSERT_TRUE(
      writer.AddInt64("global_step", {}, std::vector<int64_t>{1000}).ok());
  const SafetensorsFile file = Parse(writer, "bert_model.safetensors");
  ASSERT_NE(file.Find("bert/encoder/layer_1/intermediate/dense/kernel"),
            nullptr);
  EXPECT_EQ(file.Find("bert/encoder/layer_1/intermediate/dense/kernel")->shape,
            (std::vector<int64_t>{8, 16}));

  std::vector<float> loaded(layout.total_size(), 0.0f);
  absl::StatusOr<CheckpointLoadReport> report =
      LoadParameters(file, layout, {}, loaded.data());
  ASSERT_TRUE(report.ok()) << report.status();
  EXPECT_TRUE(BitwiseEqual(loaded, values));
  EXPECT_EQ(report->loaded, LayoutNames(layout));
  EXPECT_EQ(report->ignored.size(), 2u * kernels + 1);
  EXPECT_THAT(report->ignored, testing::Contains("global_step"));

  // Spelled out for one kernel: loaded W[o][i] == TF K[i][o].
  const absl::Span<const float> query = ValuesOf(
      layout, loaded, "bert.encoder.layer.0.attention.self.query.weight");
  ASSERT_EQ(tf_query_kernel.size(), 64u);
  for (int o = 0; o < 8; ++o) {
    for (int i = 0; i < 8; ++i) {
      EXPECT_EQ(query[o * 8 + i], tf_query_kernel[i * 8 + o]);
    }
  }
}

TEST(CheckpointTest, TfKernelNotTransposedIsAShapeMismatch) {
  const BertConfig config = TinyConfig();
  const ParameterLayout layout = EncoderLayout(config);
  const std::vector<float> values = IrregularValues(layout);
  SafetensorsWriter writer;
  for (const ParameterInfo& info : layout.parameters()) {
    // Every kernel written [out, in], as if the converter had transposed it.
    ASSERT_TRUE(writer
                    .AddFloat32(TfNameOf(info.name).first, info.shape,
                                ValuesOf(layout, values, info.name))
                    .ok());
  }
  ASSERT_TRUE(
      writer.AddFloat32("output_weights", {3, 8}, std::vector<float>(24)).ok());
  const SafetensorsFile file = Parse(writer);
  std::vector<float> loaded(layout.total_size());
  absl::StatusOr<CheckpointLoadReport> report =
      LoadParameters(file, layout, {}, loaded.data());
  ASSERT_FALSE(report.ok());
  const std::string message(report.status().message());
  EXPECT_THAT(message,
              HasSubstr("bert/encoder/layer_0/intermediate/dense/kernel (for "
                        "bert.encoder.layer.0.intermediate.dense.weight, "
                        "transposed): expected [8, 16], file has [16, 8]"));
  // A name without '/' that is in no map is plainly unexpected.
  EXPECT_THAT(message, HasSubstr("output_weights"));
}

TEST(CheckpointTest, UnknownTfVariableIsUnexpected) {
  const ParameterLayout layout = EncoderLayout(TinyConfig());
  const std::vector<float> values = IrregularValues(layout);
  SafetensorsWriter writer = WriterFor(layout, values);
  ASSERT_TRUE(writer
                  .AddFloat32("bert/encoder/layer_0/mlp/kernel", {8, 8},
                              std::vector<float>(64))
                  .ok());
  const SafetensorsFile file = Parse(writer);
  std::vector<float> loaded(layout.total_size());
  absl::StatusOr<CheckpointLoadReport> report =
      LoadParameters(file, layout, {}, loaded.data());
  ASSERT_FALSE(report.ok());
  EXPECT_THAT(report.status().message(),
              HasSubstr("bert/encoder/layer_0/mlp/kernel (not in the TF name "
                        "map)"));
}

}  // namespace
}  // namespace bertlab
