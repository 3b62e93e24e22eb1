#include "tasks/swag/swag.h"

#include <optional>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "common/check.h"
#include "common/file.h"
#include "common/status_macros.h"
#include "tasks/swag/csv.h"

namespace bertlab {
namespace {

// The named columns, in file order, without the leading index and label.
constexpr const char* kColumns[] = {
    "video-id",    "fold-ind", "startphrase", "sent1",   "sent2",
    "gold-source", "ending0",  "ending1",     "ending2", "ending3"};

std::vector<std::string> HeaderFields(bool with_index, bool with_label) {
  std::vector<std::string> fields;
  if (with_index) fields.push_back("");
  for (const char* column : kColumns) fields.push_back(column);
  if (with_label) fields.push_back("label");
  return fields;
}

std::string Quoted(const std::vector<std::string>& fields) {
  std::string line = FormatCsvRecord(fields);
  line.pop_back();  // "\n"
  return absl::StrCat("[", line, "]");
}

}  // namespace

std::string SwagCsvHeader(bool with_label) {
  std::string header = FormatCsvRecord(HeaderFields(true, with_label));
  header.pop_back();
  return header;
}

absl::StatusOr<std::vector<SwagExample>> ParseSwagCsv(
    absl::string_view contents, absl::string_view source) {
  ASSIGN_OR_RETURN(std::vector<CsvRecord> records, ParseCsv(contents, source));
  if (records.empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat(source,
                     ": empty file; a SWAG file starts with the "
                     "header ",
                     Quoted(HeaderFields(true, true))));
  }
  const std::vector<std::string>& header = records[0].fields;
  bool with_index = false;
  bool with_label = false;
  bool known = false;
  for (bool index : {true, false}) {
    for (bool label : {true, false}) {
      if (header == HeaderFields(index, label)) {
        with_index = index;
        with_label = label;
        known = true;
      }
    }
  }
  if (!known) {
    return absl::InvalidArgumentError(absl::StrCat(
        source, ":", records[0].line, ": not a SWAG header: ", Quoted(header),
        "; expected ", Quoted(HeaderFields(true, true)),
        " (the leading empty column and label may be absent)"));
  }
  const size_t num_fields = header.size();
  std::vector<SwagExample> examples;
  examples.reserve(records.size() - 1);
  for (size_t r = 1; r < records.size(); ++r) {
    const CsvRecord& record = records[r];
    const std::string where = absl::StrCat(source, ":", record.line);
    if (record.fields.size() != num_fields) {
      return absl::InvalidArgumentError(
          absl::StrCat(where, ": ", record.fields.size(), " fields, expected ",
                       num_fields, " as in the header"));
    }
    const std::vector<std::string>& fields = record.fields;
    size_t f = 0;
    SwagExample example;
    if (with_index) example.row_index = fields[f++];
    example.video_id = fields[f++];
    example.fold_ind = fields[f++];
    example.start_phrase = fields[f++];
    example.sent1 = fields[f++];
    example.sent2 = fields[f++];
    example.gold_source = fields[f++];
    for (int i = 0; i < kSwagNumChoices; ++i) example.endings[i] = fields[f++];
    if (with_label) {
      const std::string& label = fields[f++];
      int32_t value = 0;
      if (!absl::SimpleAtoi(label, &value) || value < 0 ||
          value >= kSwagNumChoices) {
        return absl::InvalidArgumentError(
            absl::StrCat(where, ": label \"", label, "\" is not in [0, ",
                         kSwagNumChoices, ")"));
      }
      example.label = value;
      example.has_label = true;
    }
    CHECK_EQ(f, num_fields);
    example.source = where;
    example.guid =
        example.fold_ind.empty() ? absl::StrCat(r - 1) : example.fold_ind;
    examples.push_back(std::move(example));
  }
  return examples;
}

absl::StatusOr<std::vector<SwagExample>> ReadSwagFile(const std::string& path) {
  ASSIGN_OR_RETURN(std::string contents, ReadFileToString(path));
  return ParseSwagCsv(contents, path);
}

std::string FormatSwagCsv(const std::vector<SwagExample>& examples,
                          bool with_label) {
  std::string out = FormatCsvRecord(HeaderFields(true, with_label));
  for (size_t e = 0; e < examples.size(); ++e) {
    const SwagExample& example = examples[e];
    std::vector<std::string> fields = {
        example.row_index.empty() ? absl::StrCat(e) : example.row_index,
        example.video_id,
        example.fold_ind,
        example.start_phrase,
        example.sent1,
        example.sent2,
        example.gold_source};
    for (const std::string& ending : example.endings) fields.push_back(ending);
    if (with_label) {
      CHECK(example.has_label) << "unlabelled example " << e;
      fields.push_back(absl::StrCat(example.label));
    }
    out += FormatCsvRecord(fields);
  }
  return out;
}

absl::Status ValidateSwagEncodeOptions(const SwagEncodeOptions& options) {
  if (options.max_seq_length < 3) {
    return absl::InvalidArgumentError(absl::StrCat(
        "max_seq_length = ", options.max_seq_length,
        " is too small for [CLS] A [SEP] B [SEP]; it must be at least 3"));
  }
  return absl::OkStatus();
}

void TruncateSeqPairFromLonger(int max_total_tokens, std::vector<int>* tokens_a,
                               std::vector<int>* tokens_b) {
  CHECK_GE(max_total_tokens, 0);
  while (static_cast<int>(tokens_a->size() + tokens_b->size()) >
         max_total_tokens) {
    if (tokens_a->size() > tokens_b->size()) {
      tokens_a->pop_back();
    } else {
      tokens_b->pop_back();
    }
  }
}

absl::StatusOr<MultipleChoiceExample> EncodeSwagExample(
    const SwagExample& example, const FullTokenizer& tokenizer,
    const SwagEncodeOptions& options) {
  RETURN_IF_ERROR(ValidateSwagEncodeOptions(options));
  const std::optional<int> cls = tokenizer.vocab().TokenToId("[CLS]");
  const std::optional<int> sep = tokenizer.vocab().TokenToId("[SEP]");
  if (!cls.has_value() || !sep.has_value()) {
    return absl::InvalidArgumentError(
        absl::StrCat("vocabulary ", tokenizer.vocab().source(), " has no ",
                     cls.has_value() ? "[SEP]" : "[CLS]", " token"));
  }
  const std::vector<int> context = tokenizer.TokenizeToIds(example.sent1);
  const std::vector<int> start_ending = tokenizer.TokenizeToIds(example.sent2);
  MultipleChoiceExample encoded;
  encoded.guid = example.guid;
  encoded.label = example.has_label ? example.label : kNoLabel;
  for (const std::string& ending_text : example.endings) {
    std::vector<int> tokens_a = context;
    std::vector<int> tokens_b = start_ending;
    const std::vector<int> ending = tokenizer.TokenizeToIds(ending_text);
    tokens_b.insert(tokens_b.end(), ending.begin(), ending.end());
    TruncateSeqPairFromLonger(options.max_seq_length - 3, &tokens_a, &tokens_b);
    EncodedSequence sequence;
    sequence.input_ids.reserve(tokens_a.size() + tokens_b.size() + 3);
    sequence.input_ids.push_back(*cls);
    sequence.input_ids.insert(sequence.input_ids.end(), tokens_a.begin(),
                              tokens_a.end());
    sequence.input_ids.push_back(*sep);
    sequence.token_type_ids.assign(sequence.input_ids.size(), 0);
    sequence.input_ids.insert(sequence.input_ids.end(), tokens_b.begin(),
                              tokens_b.end());
    sequence.input_ids.push_back(*sep);
    sequence.token_type_ids.resize(sequence.input_ids.size(), 1);
    encoded.choices.push_back(std::move(sequence));
  }
  return encoded;
}

absl::StatusOr<std::vector<MultipleChoiceExample>> EncodeSwagExamples(
    const std::vector<SwagExample>& examples, const FullTokenizer& tokenizer,
    const SwagEncodeOptions& options) {
  RETURN_IF_ERROR(ValidateSwagEncodeOptions(options));
  std::vector<MultipleChoiceExample> encoded;
  encoded.reserve(examples.size());
  for (const SwagExample& example : examples) {
    ASSIGN_OR_RETURN(MultipleChoiceExample one,
                     EncodeSwagExample(example, tokenizer, options));
    encoded.push_back(std::move(one));
  }
  return encoded;
}

absl::StatusOr<std::vector<MultipleChoiceExample>> LoadSwagExamples(
    const std::string& path, const FullTokenizer& tokenizer,
    const SwagEncodeOptions& options) {
  RETURN_IF_ERROR(ValidateSwagEncodeOptions(options));
  ASSIGN_OR_RETURN(std::vector<SwagExample> examples, ReadSwagFile(path));
  return EncodeSwagExamples(examples, tokenizer, options);
}

}  // namespace bertlab
