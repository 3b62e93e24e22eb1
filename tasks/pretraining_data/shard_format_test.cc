#include "tasks/pretraining_data/shard_format.h"

#include <sys/stat.h>

#include <cstdlib>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "common/check.h"
#include "common/file.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace bertlab {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

constexpr uint64_t kVocabHash = 0x1a89f00dcafe0001ULL;

// A new empty directory under the test's temporary directory.
std::string FreshDirectory(absl::string_view name) {
  const char* root = std::getenv("TEST_TMPDIR");
  const std::string path =
      absl::StrCat(root != nullptr ? root : "/tmp", "/", name);
  ::mkdir(path.c_str(), 0777);
  return path;
}

ShardHeader TestHeader() {
  ShardHeader header;
  header.config.max_seq_length = 16;
  header.config.max_predictions_per_seq = 3;
  header.vocab_hash = kVocabHash;
  header.vocab_size = 30522;
  return header;
}

// [CLS] 7 8 [SEP] 9 [SEP] with position 2 masked.
TrainingInstance SmallInstance(int variant) {
  TrainingInstance instance;
  instance.input_ids = {101, 7 + variant, 103, 102, 9, 102};
  instance.segment_ids = {0, 0, 0, 0, 1, 1};
  instance.masked_lm_positions = {2};
  instance.masked_lm_ids = {8};
  instance.next_sentence_label = variant % 2;
  return instance;
}

TEST(ShardFormatTest, RecordLayoutIsAsDocumented) {
  InstanceConfig config;  // 128, 20
  EXPECT_EQ(RecordLayout::For(config, 30522).record_bytes(), 352);
  EXPECT_EQ(RecordLayout::For(config, 65536).id_bytes, 2);
  EXPECT_EQ(RecordLayout::For(config, 65537).id_bytes, 4);
  EXPECT_EQ(RecordLayout::For(config, 119547).record_bytes(),
            16 + 128 * 4 + 20 * (2 + 4));
}

TEST(ShardFormatTest, RecordBytesArePaddedWithZeros) {
  const RecordLayout layout = TestHeader().layout();
  ASSERT_EQ(layout.record_bytes(), 16 + 16 * 2 + 3 * 4);
  std::string record(layout.record_bytes(), '\xff');
  EncodeRecord(layout, SmallInstance(1), record.data());
  const std::string fields =
      std::string("\x65\x00\x08\x00\x67\x00\x66\x00\x09\x00\x66\x00", 12) +
      std::string(20, '\0') +                       // ids padding
      std::string("\x02\x00\x00\x00\x00\x00", 6) +  // positions
      std::string("\x08\x00\x00\x00\x00\x00", 6);   // labels
  const std::string counts("\x06\x00\x04\x00\x01\x00\x01\x00", 8);
  // The checksum: FNV-1a 64 of the other bytes, computed here bytewise.
  uint64_t fnv = 0xcbf29ce484222325ULL;
  for (unsigned char c : counts + fields) fnv = (fnv ^ c) * 0x100000001b3ULL;
  std::string checksum(8, '\0');
  for (int i = 0; i < 8; ++i) checksum[i] = static_cast<char>(fnv >> (8 * i));
  EXPECT_EQ(record, counts + checksum + fields);
  TrainingInstance decoded;
  ASSERT_TRUE(DecodeRecord(layout, 30522, record.data(), &decoded).ok());
  EXPECT_TRUE(decoded == SmallInstance(1));
}

TEST(ShardFormatTest, DecodeRefusesCorruptRecords) {
  const RecordLayout layout = TestHeader().layout();
  std::string record(layout.record_bytes(), '\0');
  EncodeRecord(layout, SmallInstance(0), record.data());
  TrainingInstance decoded;
  // A token id changed to another valid one: only the checksum sees it.
  std::string bad = record;
  bad[16] ^= 0x01;
  EXPECT_THAT(
      std::string(DecodeRecord(layout, 30522, bad.data(), &decoded).message()),
      HasSubstr("does not match its contents"));
  // Fields that break the format, resealed so the field checks speak.
  bad = record;
  bad[0] = 17;  // num_tokens > 16
  SealRecord(layout, bad.data());
  EXPECT_THAT(
      std::string(DecodeRecord(layout, 30522, bad.data(), &decoded).message()),
      HasSubstr("num_tokens 17 > max_seq_length 16"));
  bad = record;
  bad[16 + 2 * 10] = 1;  // non-zero padding
  SealRecord(layout, bad.data());
  EXPECT_THAT(
      std::string(DecodeRecord(layout, 30522, bad.data(), &decoded).message()),
      HasSubstr("input_ids padding at position 10"));
  EXPECT_THAT(
      std::string(DecodeRecord(layout, 100, record.data(), &decoded).message()),
      HasSubstr("input id 101 at position 0 >= vocab_size 100"));
}

TEST(ShardFormatTest, WriterRotatesShardsAndReaderReadsThemBack) {
  const std::string dir = FreshDirectory("round_trip");
  ShardWriterOptions options;
  options.output_dir = dir;
  options.instances_per_shard = 4;
  absl::StatusOr<std::unique_ptr<ShardWriter>> writer =
      ShardWriter::Create(TestHeader(), options);
  ASSERT_TRUE(writer.ok()) << writer.status();
  for (int i = 0; i < 10; ++i) {
    ASSERT_TRUE((*writer)->AddInstance(SmallInstance(i)).ok());
  }
  // Nothing looks complete before Finish.
  EXPECT_THAT(std::string(ListShards(dir).status().message()),
              HasSubstr("holds no shards"));
  absl::StatusOr<std::vector<std::string>> paths = (*writer)->Finish();
  ASSERT_TRUE(paths.ok()) << paths.status();
  EXPECT_THAT(*paths, ElementsAre(dir + "/shard-00000-of-00003.blshard",
                                  dir + "/shard-00001-of-00003.blshard",
                                  dir + "/shard-00002-of-00003.blshard"));
  absl::StatusOr<std::vector<std::string>> listed = ListShards(dir);
  ASSERT_TRUE(listed.ok()) << listed.status();
  EXPECT_EQ(*listed, *paths);

  int next = 0;
  for (int shard = 0; shard < 3; ++shard) {
    ShardExpectations expectations;
    expectations.vocab_hash = kVocabHash;
    expectations.config = TestHeader().config;
    expectations.max_seq_length = 16;
    absl::StatusOr<std::unique_ptr<ShardReader>> reader =
        ShardReader::Open((*paths)[shard], expectations);
    ASSERT_TRUE(reader.ok()) << reader.status();
    const ShardHeader& header = (*reader)->header();
    EXPECT_EQ(header.shard_index, shard);
    EXPECT_EQ(header.instance_count, shard < 2 ? 4u : 2u);
    EXPECT_EQ(header.vocab_size, 30522);
    EXPECT_EQ(header.format_version, kShardFormatVersion);
    EXPECT_TRUE(header.tokenizer == TokenizerSettings());
    TrainingInstance instance;
    while (true) {
      absl::StatusOr<bool> more = (*reader)->NextInstance(&instance);
      ASSERT_TRUE(more.ok()) << more.status();
      if (!*more) break;
      EXPECT_TRUE(instance == SmallInstance(next)) << next;
      ++next;
    }
  }
  EXPECT_EQ(next, 10);
}

TEST(ShardFormatTest, HeaderCarriesTheConfigAsText) {
  ShardHeader header = TestHeader();
  header.tokenizer.lower_case = false;
  const std::string bytes = EncodeShardHeader(header);
  EXPECT_EQ(bytes.substr(0, 8), "BLSHARD1");
  EXPECT_EQ(bytes.size() % 8, 0u);
  EXPECT_THAT(bytes, HasSubstr("\nmax_seq_length: 16\n"));
  EXPECT_THAT(bytes, HasSubstr("\ntokenizer_lower_case: false\n"));
}

TEST(ShardFormatTest, WriterRefusesADirectoryWithShards) {
  const std::string dir = FreshDirectory("occupied");
  ShardWriterOptions options;
  options.output_dir = dir;
  auto writer = ShardWriter::Create(TestHeader(), options);
  ASSERT_TRUE(writer.ok());
  ASSERT_TRUE((*writer)->Finish().ok());  // one empty shard
  auto again = ShardWriter::Create(TestHeader(), options);
  EXPECT_EQ(again.status().code(), absl::StatusCode::kAlreadyExists);
  EXPECT_THAT(std::string(again.status().message()),
              HasSubstr("already holds shards (shard-00000-of-00001.blshard)"));
  auto reader = ShardReader::Open(dir + "/shard-00000-of-00001.blshard");
  ASSERT_TRUE(reader.ok()) << reader.status();
  EXPECT_EQ((*reader)->header().instance_count, 0u);
}

class ShardReaderErrorsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = FreshDirectory(
        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    ShardWriterOptions options;
    options.output_dir = dir_;
    auto writer = ShardWriter::Create(TestHeader(), options);
    ASSERT_TRUE(writer.ok()) << writer.status();
    for (int i = 0; i < 3; ++i) {
      ASSERT_TRUE((*writer)->AddInstance(SmallInstance(i)).ok());
    }
    auto paths = (*writer)->Finish();
    ASSERT_TRUE(paths.ok());
    path_ = (*paths)[0];
    auto contents = ReadFileToString(path_);
    ASSERT_TRUE(contents.ok());
    contents_ = *contents;
  }

  // Rewrites the shard and opens it.
  absl::Status OpenWith(const std::string& contents,
                        const ShardExpectations& expectations = {}) {
    CHECK_OK(WriteFileAtomically(path_, contents));
    return ShardReader::Open(path_, expectations).status();
  }

  std::string dir_;
  std::string path_;
  std::string contents_;
};

TEST_F(ShardReaderErrorsTest, VocabularyHashMismatchGivesBothHashes) {
  ShardExpectations expectations;
  expectations.vocab_hash = 0x829a000000000042ULL;
  const absl::Status status = OpenWith(contents_, expectations);
  EXPECT_EQ(status.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(std::string(status.message()),
              HasSubstr(absl::StrCat(
                  "vocabulary hash 1a89f00dcafe0001 in shard ", path_,
                  " does not match the expected "
                  "829a000000000042")));
}

TEST_F(ShardReaderErrorsTest, ConfigMismatchNamesTheField) {
  ShardExpectations expectations;
  expectations.config = TestHeader().config;
  expectations.config->dupe_factor = 5;
  EXPECT_THAT(std::string(OpenWith(contents_, expectations).message()),
              HasSubstr("first difference (shard vs expected) dupe_factor: 10 "
                        "vs 5"));
  ShardExpectations length;
  length.max_seq_length = 512;
  EXPECT_THAT(std::string(OpenWith(contents_, length).message()),
              HasSubstr("max_seq_length 16 in shard " + path_ +
                        " does not match the expected 512"));
  ShardExpectations objective;
  objective.objective = LanguageModel::kLeftToRight;
  EXPECT_THAT(std::string(OpenWith(contents_, objective).message()),
              HasSubstr("objective mlm in shard"));
  ShardExpectations tokenizer;
  tokenizer.tokenizer = TokenizerSettings();
  tokenizer.tokenizer->lower_case = false;
  EXPECT_THAT(std::string(OpenWith(contents_, tokenizer).message()),
              HasSubstr("tokenizer settings tokenizer_lower_case: true"));
}

TEST_F(ShardReaderErrorsTest, BadMagic) {
  std::string bad = contents_;
  bad.replace(0, 8, "PK\x03\x04zzzz");
  const absl::Status status = OpenWith(bad);
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(status.message()),
              HasSubstr("is not a bertlab shard: it starts with "
                        "\"PK\\x03\\x04zzzz\", not the magic \"BLSHARD1\""));
}

TEST_F(ShardReaderErrorsTest, WrongVersion) {
  std::string bad = contents_;
  bad[8] = 1;  // the format before per-record checksums
  const absl::Status status = OpenWith(bad);
  EXPECT_EQ(status.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(std::string(status.message()),
              HasSubstr("has format version 1; this build reads version 2 "
                        "(version 2 added per-record checksums"));
}

TEST_F(ShardReaderErrorsTest, Truncated) {
  absl::Status status = OpenWith(contents_.substr(0, contents_.size() - 5));
  EXPECT_EQ(status.code(), absl::StatusCode::kDataLoss);
  EXPECT_THAT(
      std::string(status.message()),
      HasSubstr(absl::StrCat("is truncated: its header promises 3 "
                             "instances of 60 bytes, which needs ",
                             contents_.size(), " bytes but the file has ",
                             contents_.size() - 5)));
  EXPECT_THAT(std::string(OpenWith(contents_.substr(0, 40)).message()),
              HasSubstr("is truncated: the fixed header needs 64 bytes"));
  EXPECT_THAT(std::string(OpenWith(contents_.substr(0, 100)).message()),
              HasSubstr("is truncated: the header needs"));
  EXPECT_THAT(std::string(OpenWith(contents_.substr(0, 3)).message()),
              HasSubstr("is truncated: the magic number needs 8 bytes"));
  EXPECT_THAT(std::string(OpenWith(contents_ + "x").message()),
              HasSubstr("has 1 bytes after its 3 instances"));
}

TEST_F(ShardReaderErrorsTest, CorruptHeaderFailsTheChecksum) {
  std::string bad = contents_;
  const size_t at = bad.find("dupe_factor: 10");
  ASSERT_NE(at, std::string::npos);
  bad[at + 13] = '2';
  EXPECT_THAT(std::string(OpenWith(bad).message()),
              HasSubstr("has a corrupt header: checksum"));
}

TEST_F(ShardReaderErrorsTest, CorruptRecordNamesItsIndex) {
  std::string bad = contents_;
  const size_t record_bytes = TestHeader().layout().record_bytes();
  bad[bad.size() - record_bytes + 6] = 7;  // label of record 2
  SealRecord(TestHeader().layout(), &bad[bad.size() - record_bytes]);
  ASSERT_TRUE(OpenWith(bad).ok());
  auto reader = ShardReader::Open(path_);
  ASSERT_TRUE(reader.ok());
  TrainingInstance instance;
  EXPECT_TRUE(*(*reader)->NextInstance(&instance));
  EXPECT_TRUE(*(*reader)->NextInstance(&instance));
  absl::StatusOr<bool> third = (*reader)->NextInstance(&instance);
  EXPECT_EQ(third.status().code(), absl::StatusCode::kDataLoss);
  EXPECT_THAT(std::string(third.status().message()),
              HasSubstr("record 2 is corrupt: next_sentence_label 7"));
  // One flipped bit of a token id (still a valid id) is corrupt as well.
  bad = contents_;
  bad[bad.size() - record_bytes + 16] ^= 0x01;
  ASSERT_TRUE(OpenWith(bad).ok());
  reader = ShardReader::Open(path_);
  ASSERT_TRUE(reader.ok());
  EXPECT_TRUE(*(*reader)->NextInstance(&instance));
  EXPECT_TRUE(*(*reader)->NextInstance(&instance));
  third = (*reader)->NextInstance(&instance);
  EXPECT_EQ(third.status().code(), absl::StatusCode::kDataLoss);
  EXPECT_THAT(std::string(third.status().message()),
              HasSubstr("record 2 is corrupt: record checksum "));
}

TEST(ShardFormatTest, ListShardsNoticesAMissingShard) {
  const std::string dir = FreshDirectory("missing_shard");
  for (const char* name :
       {"shard-00000-of-00003.blshard", "shard-00002-of-00003.blshard"}) {
    ASSERT_TRUE(WriteFileAtomically(dir + "/" + name, "x").ok());
  }
  EXPECT_THAT(std::string(ListShards(dir).status().message()),
              HasSubstr("lacks shard-00001-of-00003.blshard: the data set is "
                        "incomplete"));
  ASSERT_TRUE(
      WriteFileAtomically(dir + "/shard-00001-of-00003.blshard", "x").ok());
  ASSERT_TRUE(ListShards(dir).ok());
  ASSERT_TRUE(
      WriteFileAtomically(dir + "/shard-00000-of-00001.blshard", "x").ok());
  EXPECT_THAT(std::string(ListShards(dir).status().message()),
              HasSubstr("holds 4 shard files but their names say 1"));
}

}  // namespace
}  // namespace bertlab
