#include "common/sha256.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace bertlab {
namespace {

using ::testing::HasSubstr;

// A fresh directory under TEST_TMPDIR for one test.
std::string MakeTestDirectory(const std::string& name) {
  const char* root = std::getenv("TEST_TMPDIR");
  const std::string directory =
      absl::StrCat(root != nullptr ? root : "/tmp", "/sha256_test_", name);
  ::mkdir(directory.c_str(), 0755);
  return directory;
}

void WriteFile(const std::string& path, const std::string& contents) {
  std::ofstream out(path, std::ios::binary);
  out.write(contents.data(), static_cast<std::streamsize>(contents.size()));
  ASSERT_TRUE(out.good()) << path;
}

// Bytes from a 32-bit LCG (Numerical Recipes constants), top byte of each
// state. Reproduced in Python by:
//   x = 12345
//   for i in range(n): x = (x * 1664525 + 1013904223) % 2**32; b[i] = x >> 24
std::string PseudoRandomBytes(size_t size) {
  std::string bytes(size, '\0');
  uint32_t state = 12345;
  for (char& byte : bytes) {
    state = state * 1664525u + 1013904223u;
    byte = static_cast<char>(state >> 24);
  }
  return bytes;
}

// FIPS 180-4 examples (NIST CSRC "SHA256.pdf", "SHA2_Additional.pdf").
TEST(Sha256Test, NistVectors) {
  EXPECT_EQ(Sha256Hex(""),
            "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  EXPECT_EQ(Sha256Hex("abc"),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  EXPECT_EQ(
      Sha256Hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"),
      "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
  EXPECT_EQ(Sha256Hex(std::string(1000000, 'a')),
            "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
}

// Lengths around the padding boundary: 55 bytes fit the length in the same
// block, 56 need a second block; 64 is one whole block. Values from
// sha256sum.
TEST(Sha256Test, PaddingBoundaries) {
  EXPECT_EQ(Sha256Hex(std::string(55, 'a')),
            "9f4390f8d30c2dd92ec9f095b65e2b9ae9b0a925a5258e241c9f1e910f734318");
  EXPECT_EQ(Sha256Hex(std::string(56, 'a')),
            "b35439a4ac6f0948b6d6f9e3c6af0f5f590ce20f1bde7090ef7970686ec6738a");
  EXPECT_EQ(Sha256Hex(std::string(64, 'a')),
            "ffe054fe7ae0cb6dc65c3af9b61d5209f439851db43d0ba5997337df154668eb");
}

TEST(Sha256Test, IncrementalSplitAtEveryOffsetMatchesOneShot) {
  const std::string message = PseudoRandomBytes(200);
  const std::string expected = Sha256Hex(message);
  for (size_t split = 0; split <= message.size(); ++split) {
    Sha256 hasher;
    hasher.Update(absl::string_view(message).substr(0, split));
    hasher.Update(absl::string_view(message).substr(split));
    EXPECT_EQ(DigestToHex(hasher.Finish()), expected) << "split at " << split;
  }
}

TEST(Sha256Test, ByteAtATimeAndResetMatchOneShot) {
  const std::string message = PseudoRandomBytes(200);
  Sha256 hasher;
  hasher.Update("something to discard");
  hasher.Finish();
  hasher.Reset();
  for (char byte : message) hasher.Update(absl::string_view(&byte, 1));
  EXPECT_EQ(DigestToHex(hasher.Finish()), Sha256Hex(message));
}

TEST(Sha256Test, FinishTwiceIsABug) {
  Sha256 hasher;
  hasher.Finish();
  EXPECT_DEATH(hasher.Finish(), "Finish called twice");
  EXPECT_DEATH(hasher.Update("x"), "Update after Finish");
}

TEST(Sha256Test, FileMatchesInMemoryHash) {
  const std::string directory = MakeTestDirectory("file");
  // Not a multiple of the 1 MiB read chunk, so the last read is partial.
  const std::string contents = PseudoRandomBytes((size_t{3} << 20) + 17);
  const std::string path = directory + "/data.bin";
  WriteFile(path, contents);
  absl::StatusOr<std::string> hex = Sha256FileHex(path);
  ASSERT_TRUE(hex.ok()) << hex.status();
  EXPECT_EQ(*hex, Sha256Hex(contents));

  const std::string empty_path = directory + "/empty.bin";
  WriteFile(empty_path, "");
  hex = Sha256FileHex(empty_path);
  ASSERT_TRUE(hex.ok()) << hex.status();
  EXPECT_EQ(*hex, Sha256Hex(""));
}

TEST(Sha256Test, MissingFileIsNotFoundAndNamesThePath) {
  const std::string path = MakeTestDirectory("missing") + "/no_such_file.bin";
  absl::StatusOr<std::string> hex = Sha256FileHex(path);
  ASSERT_FALSE(hex.ok());
  EXPECT_EQ(hex.status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(hex.status().message(), HasSubstr(path));
  EXPECT_THAT(hex.status().message(), HasSubstr("No such file or directory"));
}

// An independent implementation: coreutils' sha256sum when the machine has
// it, else the value it printed for this same file when this test was
// written.
TEST(Sha256Test, MatchesCoreutilsSha256sum) {
  constexpr char kRecordedSha256sum[] =
      "738477cd847ff7087132de6593ee0257366a03eb54eb98b08a3fb35897f887ae";
  const std::string path = MakeTestDirectory("coreutils") + "/data.bin";
  WriteFile(path, PseudoRandomBytes((size_t{3} << 20) + 17));
  absl::StatusOr<std::string> hex = Sha256FileHex(path);
  ASSERT_TRUE(hex.ok()) << hex.status();
  EXPECT_EQ(*hex, kRecordedSha256sum);

  constexpr char kSha256sum[] = "/usr/bin/sha256sum";
  if (::access(kSha256sum, X_OK) != 0) {
    GTEST_LOG_(INFO) << kSha256sum << " absent; compared to recorded value";
    return;
  }
  FILE* pipe = ::popen(absl::StrCat(kSha256sum, " '", path, "'").c_str(), "r");
  ASSERT_NE(pipe, nullptr);
  std::string output;
  char buffer[256];
  while (std::fgets(buffer, sizeof(buffer), pipe) != nullptr) output += buffer;
  ASSERT_EQ(::pclose(pipe), 0) << output;
  ASSERT_GE(output.size(), 64u) << output;
  EXPECT_EQ(*hex, output.substr(0, 64));
}

}  // namespace
}  // namespace bertlab
