// Fuzz target: any bytes as a SWAG CSV file (tasks/swag/swag.h) and as CSV
// (tasks/swag/csv.h), and every example read encoded for multiple choice on
// a small vocabulary, with the shortest max_seq_length (3) and a short one.
//
// Invariants, each a CHECK:
//   * An error names the source.
//   * CSV round-trips: the records FormatCsvRecord writes read back as the
//     same fields (behind a byte order mark, as a field may start with one).
//   * An OK SWAG read has one example per record after the header, each with
//     "source:line" of its record, a label in [0, 4) or none (kNoLabel), and
//     as guid its fold-ind or, when that is empty, its 0-based row number.
//     What FormatSwagCsv writes of the examples reads back as the same
//     examples (an empty row index written as the row number).
//   * An encoded example has four choices of at most max_seq_length tokens,
//     each [CLS] A [SEP] B [SEP]: segment 0 up to A's [SEP], then 1;
//     its guid and label are the example's.
#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "common/check.h"
#include "tasks/full_tokenizer.h"
#include "tasks/swag/csv.h"
#include "tasks/swag/swag.h"
#include "tasks/vocab.h"

namespace bertlab {
namespace {

constexpr char kSource[] = "fuzz.csv";

const FullTokenizer& Tokenizer() {
  static const FullTokenizer* const tokenizer = [] {
    std::vector<std::string> tokens = {"[PAD]",  "[UNK]", "[CLS]", "[SEP]",
                                       "[MASK]", "the",   "man",   "door",
                                       ".",      ",",     "\""};
    for (char c = 'a'; c <= 'z'; ++c) {
      tokens.push_back(std::string(1, c));
      tokens.push_back(std::string("##") + c);
    }
    absl::StatusOr<Vocab> vocab = Vocab::FromTokens(std::move(tokens), "fuzz");
    CHECK(vocab.ok()) << vocab.status();
    absl::StatusOr<FullTokenizer> created =
        FullTokenizer::Create(*std::move(vocab), UncasedOptions());
    CHECK(created.ok()) << created.status();
    return new FullTokenizer(*std::move(created));
  }();
  return *tokenizer;
}

void CheckCsv(absl::string_view contents) {
  const absl::StatusOr<std::vector<CsvRecord>> records =
      ParseCsv(contents, kSource);
  if (!records.ok()) {
    CHECK(absl::StrContains(records.status().message(), kSource))
        << "an error that does not name the source: " << records.status();
    return;
  }
  std::string written;
  int64_t previous_line = 0;
  for (const CsvRecord& record : *records) {
    CHECK(!record.fields.empty());
    CHECK_GT(record.line, previous_line);
    previous_line = record.line;
    written += FormatCsvRecord(record.fields);
  }
  // ParseCsv drops a byte order mark at the start, also one that began the
  // first field; give it one to drop.
  const absl::StatusOr<std::vector<CsvRecord>> again =
      ParseCsv(absl::StrCat("\xEF\xBB\xBF", written), kSource);
  CHECK(again.ok()) << "what FormatCsvRecord wrote does not read back: "
                    << again.status();
  CHECK_EQ(again->size(), records->size()) << "records lost or made up";
  for (size_t r = 0; r < records->size(); ++r) {
    CHECK((*again)[r].fields == (*records)[r].fields) << "record " << r;
  }
}

void CheckSameExample(const SwagExample& read, const SwagExample& original,
                      size_t row) {
  CHECK_EQ(read.row_index,
           original.row_index.empty() ? absl::StrCat(row) : original.row_index);
  CHECK(read.video_id == original.video_id);
  CHECK(read.fold_ind == original.fold_ind);
  CHECK(read.start_phrase == original.start_phrase);
  CHECK(read.sent1 == original.sent1);
  CHECK(read.sent2 == original.sent2);
  CHECK(read.gold_source == original.gold_source);
  CHECK(read.endings == original.endings);
  CHECK_EQ(read.has_label, original.has_label);
  CHECK_EQ(read.label, original.label);
  CHECK_EQ(read.guid, original.guid);
}

void CheckEncoding(const SwagExample& example, int max_seq_length) {
  const FullTokenizer& tokenizer = Tokenizer();
  const int cls = *tokenizer.vocab().TokenToId("[CLS]");
  const int sep = *tokenizer.vocab().TokenToId("[SEP]");
  SwagEncodeOptions options;
  options.max_seq_length = max_seq_length;
  const absl::StatusOr<MultipleChoiceExample> encoded =
      EncodeSwagExample(example, tokenizer, options);
  CHECK(encoded.ok()) << encoded.status();
  CHECK_EQ(encoded->guid, example.guid);
  CHECK_EQ(encoded->label, example.label);
  CHECK_EQ(encoded->choices.size(), static_cast<size_t>(kSwagNumChoices));
  for (const EncodedSequence& choice : encoded->choices) {
    const std::vector<int32_t>& ids = choice.input_ids;
    const std::vector<int32_t>& types = choice.token_type_ids;
    CHECK_EQ(ids.size(), types.size());
    CHECK_GE(ids.size(), 3u);
    CHECK_LE(ids.size(), static_cast<size_t>(max_seq_length));
    CHECK_EQ(ids.front(), cls);
    CHECK_EQ(ids.back(), sep);
    CHECK_EQ(types.front(), 0);
    CHECK_EQ(types.back(), 1);
    // Segment 0 ends with A's [SEP] (text may hold "[SEP]" too).
    size_t segment_a = 0;
    while (types[segment_a] == 0) ++segment_a;
    CHECK_GE(segment_a, 2u);
    CHECK_EQ(ids[segment_a - 1], sep);
    for (size_t i = 0; i < ids.size(); ++i) {
      CHECK_EQ(types[i], i < segment_a ? 0 : 1) << "position " << i;
      CHECK_GE(ids[i], 0);
      CHECK_LT(ids[i], tokenizer.vocab().size());
    }
  }
}

void CheckSwag(absl::string_view contents) {
  const absl::StatusOr<std::vector<SwagExample>> examples =
      ParseSwagCsv(contents, kSource);
  if (!examples.ok()) {
    CHECK(absl::StrContains(examples.status().message(), kSource))
        << "an error that does not name the source: " << examples.status();
    return;
  }
  const absl::StatusOr<std::vector<CsvRecord>> records =
      ParseCsv(contents, kSource);
  CHECK(records.ok()) << records.status();
  CHECK_EQ(examples->size() + 1, records->size());
  bool with_label = false;
  for (size_t e = 0; e < examples->size(); ++e) {
    const SwagExample& example = (*examples)[e];
    CHECK_EQ(example.source,
             absl::StrCat(kSource, ":", (*records)[e + 1].line));
    if (example.has_label) {
      CHECK(example.label >= 0 && example.label < kSwagNumChoices);
    } else {
      CHECK_EQ(example.label, kNoLabel);
    }
    CHECK(e == 0 || example.has_label == with_label) << "mixed labels";
    with_label = example.has_label;
    CHECK_EQ(example.guid,
             example.fold_ind.empty() ? absl::StrCat(e) : example.fold_ind);
    for (int max_seq_length : {3, 12}) CheckEncoding(example, max_seq_length);
  }
  const absl::StatusOr<std::vector<SwagExample>> again =
      ParseSwagCsv(FormatSwagCsv(*examples, with_label), kSource);
  CHECK(again.ok()) << "what FormatSwagCsv wrote does not read back: "
                    << again.status();
  CHECK_EQ(again->size(), examples->size());
  for (size_t e = 0; e < examples->size(); ++e) {
    CheckSameExample((*again)[e], (*examples)[e], e);
  }
}

}  // namespace
}  // namespace bertlab

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const absl::string_view contents(reinterpret_cast<const char*>(data), size);
  bertlab::CheckCsv(contents);
  bertlab::CheckSwag(contents);
  return 0;
}
