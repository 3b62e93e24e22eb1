#include "model/train/checkpoint_manifest.h"

#include <filesystem>
#include <string>

#include "common/file.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace bertlab {
namespace {

using ::testing::HasSubstr;

// A directory with files a (5 bytes) and b (3 bytes) and their manifest.
std::string Fresh(const std::string& name) {
  const std::string dir = ::testing::TempDir() + "/" + name;
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  EXPECT_TRUE(WriteFileAtomically(dir + "/a", "hello").ok());
  EXPECT_TRUE(WriteFileAtomically(dir + "/b", "abc").ok());
  EXPECT_TRUE(WriteCheckpointManifest(dir, {"a", "b"}).ok());
  return dir;
}

std::string Message(const absl::Status& status) {
  return std::string(status.message());
}

TEST(CheckpointManifestTest, ListsSizesAndHashes) {
  const std::string dir = Fresh("lists");
  const std::string text = ReadFileToString(dir + "/manifest.json").value();
  EXPECT_THAT(text, HasSubstr("\"format\": \"bertlab.checkpoint_manifest\""));
  // SHA-256("abc"), FIPS 180-2's example.
  EXPECT_THAT(text, HasSubstr("\"ba7816bf8f01cfea414140de5dae2223b00361a3"
                              "96177a9cb410ff61f20015ad\""));
  EXPECT_THAT(text, HasSubstr("\"bytes\": 5"));
  EXPECT_TRUE(VerifyCheckpointManifest(dir, {"a", "b"}).ok());
}

TEST(CheckpointManifestTest, ChangedByteSameSizeIsDataLossNamingTheFile) {
  const std::string dir = Fresh("changed");
  ASSERT_TRUE(WriteFileAtomically(dir + "/b", "abd").ok());
  const absl::Status status = VerifyCheckpointManifest(dir, {"a", "b"});
  EXPECT_EQ(status.code(), absl::StatusCode::kDataLoss);
  EXPECT_THAT(Message(status), HasSubstr(dir + "/b: SHA-256 "));
  EXPECT_THAT(Message(status),
              HasSubstr("differs from the manifest's ba7816bf"));
}

TEST(CheckpointManifestTest, TruncatedOrMissingFiles) {
  const std::string dir = Fresh("truncated");
  ASSERT_TRUE(WriteFileAtomically(dir + "/a", "hell").ok());
  EXPECT_THAT(Message(VerifyCheckpointManifest(dir, {"a", "b"})),
              HasSubstr(dir + "/a: 4 bytes, the manifest says 5"));
  std::filesystem::remove(dir + "/a");
  const absl::Status gone = VerifyCheckpointManifest(dir, {"a", "b"});
  EXPECT_EQ(gone.code(), absl::StatusCode::kDataLoss);
  EXPECT_THAT(Message(gone),
              HasSubstr(dir + "/a: listed in the manifest but unreadable"));
}

TEST(CheckpointManifestTest, TheListMustBeExactlyTheCheckpointsFiles) {
  const std::string dir = Fresh("list");
  EXPECT_THAT(Message(VerifyCheckpointManifest(dir, {"a", "b", "c"})),
              HasSubstr("manifest.json: does not list c"));
  EXPECT_THAT(Message(VerifyCheckpointManifest(dir, {"a"})),
              HasSubstr("manifest.json: lists b, which is not a file of a "
                        "checkpoint"));
  std::filesystem::remove(dir + "/manifest.json");
  EXPECT_EQ(VerifyCheckpointManifest(dir, {"a", "b"}).code(),
            absl::StatusCode::kNotFound);
  ASSERT_TRUE(WriteFileAtomically(dir + "/manifest.json", "{\"files\":").ok());
  EXPECT_THAT(Message(VerifyCheckpointManifest(dir, {"a", "b"})),
              HasSubstr("manifest.json: malformed JSON"));
  ASSERT_TRUE(WriteFileAtomically(dir + "/manifest.json", "{}").ok());
  EXPECT_THAT(Message(VerifyCheckpointManifest(dir, {"a", "b"})),
              HasSubstr("not a version 1 bertlab.checkpoint_manifest"));
}

}  // namespace
}  // namespace bertlab
