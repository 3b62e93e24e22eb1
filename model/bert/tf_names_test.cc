#include "model/bert/tf_names.h"

#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace bertlab {
namespace {

using ::testing::HasSubstr;

struct Row {
  std::string tf_name;
  std::string hf_name;
  bool transpose;
};

void ExpectMaps(const Row& row) {
  SCOPED_TRACE(row.tf_name);
  absl::StatusOr<TfVariableMapping> mapping = MapTfVariable(row.tf_name);
  ASSERT_TRUE(mapping.ok()) << mapping.status();
  EXPECT_EQ(mapping->kind, TfVariableMapping::Kind::kParameter);
  EXPECT_EQ(mapping->hf_name, row.hf_name);
  EXPECT_EQ(mapping->transpose, row.transpose);
}

// docs/PAPER.md section 4a, row by row, written out in full.
TEST(MapTfVariableTest, EmbeddingRows) {
  for (const Row& row : std::vector<Row>{
           {"bert/embeddings/word_embeddings",
            "bert.embeddings.word_embeddings.weight", false},
           {"bert/embeddings/position_embeddings",
            "bert.embeddings.position_embeddings.weight", false},
           {"bert/embeddings/token_type_embeddings",
            "bert.embeddings.token_type_embeddings.weight", false},
           {"bert/embeddings/LayerNorm/gamma",
            "bert.embeddings.LayerNorm.weight", false},
           {"bert/embeddings/LayerNorm/beta", "bert.embeddings.LayerNorm.bias",
            false},
       }) {
    ExpectMaps(row);
  }
}

TEST(MapTfVariableTest, EncoderLayerRows) {
  for (int layer : {0, 7, 11, 23}) {
    const std::string tf = absl::StrCat("bert/encoder/layer_", layer, "/");
    const std::string hf = absl::StrCat("bert.encoder.layer.", layer, ".");
    for (const char* projection : {"query", "key", "value"}) {
      ExpectMaps({absl::StrCat(tf, "attention/self/", projection, "/kernel"),
                  absl::StrCat(hf, "attention.self.", projection, ".weight"),
                  true});
      ExpectMaps({absl::StrCat(tf, "attention/self/", projection, "/bias"),
                  absl::StrCat(hf, "attention.self.", projection, ".bias"),
                  false});
    }
    for (const Row& row : std::vector<Row>{
             {"attention/output/dense/kernel", "attention.output.dense.weight",
              true},
             {"attention/output/dense/bias", "attention.output.dense.bias",
              false},
             {"attention/output/LayerNorm/gamma",
              "attention.output.LayerNorm.weight", false},
             {"attention/output/LayerNorm/beta",
              "attention.output.LayerNorm.bias", false},
             {"intermediate/dense/kernel", "intermediate.dense.weight", true},
             {"intermediate/dense/bias", "intermediate.dense.bias", false},
             {"output/dense/kernel", "output.dense.weight", true},
             {"output/dense/bias", "output.dense.bias", false},
             {"output/LayerNorm/gamma", "output.LayerNorm.weight", false},
             {"output/LayerNorm/beta", "output.LayerNorm.bias", false},
         }) {
      ExpectMaps({tf + row.tf_name, hf + row.hf_name, row.transpose});
    }
  }
}

TEST(MapTfVariableTest, PoolerAndPretrainingHeadRows) {
  for (const Row& row : std::vector<Row>{
           {"bert/pooler/dense/kernel", "bert.pooler.dense.weight", true},
           {"bert/pooler/dense/bias", "bert.pooler.dense.bias", false},
           {"cls/predictions/transform/dense/kernel",
            "cls.predictions.transform.dense.weight", true},
           {"cls/predictions/transform/dense/bias",
            "cls.predictions.transform.dense.bias", false},
           {"cls/predictions/transform/LayerNorm/gamma",
            "cls.predictions.transform.LayerNorm.weight", false},
           {"cls/predictions/transform/LayerNorm/beta",
            "cls.predictions.transform.LayerNorm.bias", false},
           {"cls/predictions/output_bias", "cls.predictions.bias", false},
           // [2, H] in TF already: [out, in], so not transposed.
           {"cls/seq_relationship/output_weights",
            "cls.seq_relationship.weight", false},
           {"cls/seq_relationship/output_bias", "cls.seq_relationship.bias",
            false},
       }) {
    ExpectMaps(row);
  }
}

TEST(MapTfVariableTest, SkipsOptimizerSlotsAndGlobalStep) {
  for (const char* name : {
           "global_step",
           "bert/embeddings/word_embeddings/adam_m",
           "bert/embeddings/word_embeddings/adam_v",
           "bert/encoder/layer_3/attention/self/query/kernel/adam_m",
           "bert/encoder/layer_3/output/LayerNorm/beta/adam_v",
           "cls/seq_relationship/output_weights/adam_m",
       }) {
    SCOPED_TRACE(name);
    absl::StatusOr<TfVariableMapping> mapping = MapTfVariable(name);
    ASSERT_TRUE(mapping.ok()) << mapping.status();
    EXPECT_EQ(mapping->kind, TfVariableMapping::Kind::kSkip);
    EXPECT_EQ(mapping->hf_name, "");
  }
}

TEST(MapTfVariableTest, UnknownNamesAreErrorsNamingTheVariable) {
  for (const char* name : {
           "",
           "output_weights",  // run_classifier.py's head
           "output_bias",
           "bert/embeddings/word_embeddings/kernel",
           "bert/embeddings/LayerNorm/kernel",
           "bert/embeddings/LayerNorm",
           "bert/pooler/dense",
           "bert/pooler/dense/gamma",
           "bert/encoder/layer_0/attention/self/query/weight",
           "bert/encoder/layer_0/attention/self/query",
           "bert/encoder/layer_01/output/dense/kernel",
           "bert/encoder/layer_/output/dense/kernel",
           "bert/encoder/layer_x/output/dense/kernel",
           "bert/encoder/layer_0/output/dense/kernel/extra",
           "bert/encoder/layer_0/attention/output/LayerNorm/bias",
           "bert/encoder/layer_0/mlp/dense/kernel",
           "bert/encoder/dense/kernel",
           "cls/predictions/transform/dense/gamma",
           "cls/predictions/output_weights",
           "cls/seq_relationship/output_weights/kernel",
           "global_step/extra",
       }) {
    SCOPED_TRACE(name);
    absl::StatusOr<TfVariableMapping> mapping = MapTfVariable(name);
    ASSERT_FALSE(mapping.ok()) << "mapped to " << mapping->hf_name;
    EXPECT_EQ(mapping.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_THAT(mapping.status().message(),
                HasSubstr(absl::StrCat("'", name, "'")));
  }
}

}  // namespace
}  // namespace bertlab
