#include "tasks/corpus/reference_format_writer.h"

#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "common/file.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tasks/corpus/corpus_test_util.h"
#include "tasks/corpus/reference_format_reader.h"

namespace bertlab {
namespace {

using ::testing::HasSubstr;

// Hands out fixed documents, then optionally an error.
class FixedReader : public DocumentReader {
 public:
  explicit FixedReader(std::vector<Document> documents,
                       absl::Status final_status = absl::OkStatus())
      : documents_(std::move(documents)), final_status_(final_status) {}
  absl::StatusOr<bool> NextDocument(Document* document) override {
    if (next_ < documents_.size()) {
      *document = documents_[next_++];
      return true;
    }
    if (!final_status_.ok()) return final_status_;
    return false;
  }

 private:
  std::vector<Document> documents_;
  size_t next_ = 0;
  absl::Status final_status_;
};

TEST(ReferenceFormatWriterTest, OneSentencePerLineBlankLineAfterEachDocument) {
  FixedReader reader({{{"One.", "Two."}, "a:1"},
                      {{"Three.\nStill three.", " \r\n ", "Four\r."}, "b:1"},
                      {{"  "}, "c:1"},
                      {{"Five."}, "d:1"}});
  std::ostringstream out;
  int reports = 0;
  absl::StatusOr<ReferenceFormatStats> stats = WriteReferenceFormat(
      reader, out, [&](const ReferenceFormatStats&) { ++reports; });
  ASSERT_TRUE(stats.ok()) << stats.status();
  EXPECT_EQ(out.str(),
            "One.\nTwo.\n\nThree. Still three.\nFour .\n\nFive.\n\n");
  EXPECT_EQ(stats->documents, 3);
  EXPECT_EQ(stats->sentences, 5);
  EXPECT_EQ(stats->bytes, static_cast<int64_t>(out.str().size()));
  EXPECT_EQ(reports, 3);
}

TEST(ReferenceFormatWriterTest, RoundTripsThroughTheReferenceReader) {
  FixedReader reader({{{"A b.", "C d."}, "x:1"}, {{"E."}, "x:4"}});
  const std::string path = WriteTestFile("round_trip.txt", "");
  ASSERT_TRUE(WriteReferenceFormatFile(reader, path).ok());
  auto back = ReferenceFormatReader::Open({path});
  ASSERT_TRUE(back.ok());
  absl::StatusOr<std::vector<Document>> documents = ReadAllDocuments(**back);
  ASSERT_TRUE(documents.ok());
  ASSERT_EQ(documents->size(), 2u);
  EXPECT_EQ((*documents)[0].sentences,
            (std::vector<std::string>{"A b.", "C d."}));
  EXPECT_EQ((*documents)[1].source, path + ":4");
}

// Found by tasks/fuzz/corpus_reader_fuzzer (regression input
// crash-dbbc083c...: two byte order marks): a first sentence starting with
// U+FEFF lost it when read back, and one that was only U+FEFF became a
// blank line, which dropped the document.
TEST(ReferenceFormatWriterTest, LeadingByteOrderMarkOfTheFirstSentenceStays) {
  const std::string bom = "\xEF\xBB\xBF";
  FixedReader reader({{{bom, bom + "a."}, "x:1"}, {{bom + "b."}, "x:4"}});
  const std::string path = WriteTestFile("bom_round_trip.txt", "");
  absl::StatusOr<ReferenceFormatStats> stats =
      WriteReferenceFormatFile(reader, path);
  ASSERT_TRUE(stats.ok()) << stats.status();
  absl::StatusOr<std::string> written = ReadFileToString(path);
  ASSERT_TRUE(written.ok());
  EXPECT_EQ(*written, bom + bom + "\n" + bom + "a.\n\n" + bom + "b.\n\n");
  EXPECT_EQ(stats->bytes, static_cast<int64_t>(written->size()));
  auto back = ReferenceFormatReader::Open({path});
  ASSERT_TRUE(back.ok());
  absl::StatusOr<std::vector<Document>> documents = ReadAllDocuments(**back);
  ASSERT_TRUE(documents.ok()) << documents.status();
  ASSERT_EQ(documents->size(), 2u);
  EXPECT_EQ((*documents)[0].sentences,
            (std::vector<std::string>{bom, bom + "a."}));
  EXPECT_EQ((*documents)[1].sentences, (std::vector<std::string>{bom + "b."}));
}

TEST(ReferenceFormatWriterTest, FileAppearsOnlyOnSuccess) {
  const std::string path = WriteTestFile("kept.txt", "old contents\n");
  FixedReader failing({{{"New."}, "x:1"}},
                      absl::DataLossError("input.txt:7: broken"));
  absl::StatusOr<ReferenceFormatStats> stats =
      WriteReferenceFormatFile(failing, path);
  ASSERT_FALSE(stats.ok());
  EXPECT_THAT(stats.status().message(), HasSubstr("input.txt:7: broken"));
  EXPECT_THAT(stats.status().message(), HasSubstr("kept.txt"));
  absl::StatusOr<std::string> contents = ReadFileToString(path);
  ASSERT_TRUE(contents.ok());
  EXPECT_EQ(*contents, "old contents\n");
  EXPECT_FALSE(ReadFileToString(path + ".partial").ok());

  FixedReader working(std::vector<Document>{{{"New."}, "x:1"}});
  ASSERT_TRUE(WriteReferenceFormatFile(working, path).ok());
  contents = ReadFileToString(path);
  ASSERT_TRUE(contents.ok());
  EXPECT_EQ(*contents, "New.\n\n");
}

TEST(ReferenceFormatWriterTest, UnwritableDirectoryIsAnError) {
  FixedReader reader(std::vector<Document>{{{"A."}, "x:1"}});
  absl::StatusOr<ReferenceFormatStats> stats =
      WriteReferenceFormatFile(reader, "/nonexistent-dir/out.txt");
  ASSERT_FALSE(stats.ok());
  EXPECT_THAT(stats.status().message(), HasSubstr("/nonexistent-dir/out.txt"));
}

}  // namespace
}  // namespace bertlab
