// SWAG (Zellers et al. 2018, "SWAG: A Large-Scale Adversarial Dataset for
// Grounded Commonsense Inference") in its official CSV files (rowanz/swagaf
// data/train.csv, val.csv, test.csv), and their encoding for BERT's
// multiple-choice fine-tuning (PAPER.md 2d, "SWAG input").
//
// File layout. The header is
//   ,video-id,fold-ind,startphrase,sent1,sent2,gold-source,ending0,ending1,
//   ending2,ending3,label
// (one line; the first, unnamed column is pandas' row index). The leading
// index column may be absent, and test.csv has no label column; any other
// header is refused, naming the file and what was expected. Every row has
// as many fields as the header (else "path:line: N fields, expected M").
// startphrase = sent1 + " " + sent2; the four candidate endings continue
// sent2; label (0..3) is the right one.
//
// Encoding (HF pytorch-pretrained-BERT examples/run_swag.py,
// convert_examples_to_features, which reproduced the paper's SWAG result):
//   A = tokenize(sent1)                         the context, segment 0
//   B_i = tokenize(sent2) + tokenize(ending_i)  the ending, segment 1
//   truncate (A, B_i) to max_seq_length - 3 tokens, each time popping the
//     last token of the longer one (B_i when equally long)
//   choice i = [CLS] A [SEP] B_i [SEP]
// The paper gives no max_seq_length for SWAG; 80 is what HF's README command
// for run_swag.py used (its eval accuracy 0.8062 with BERT-base), and is
// the default here. Almost no SWAG example needs more.
#ifndef BERTLAB_TASKS_SWAG_SWAG_H_
#define BERTLAB_TASKS_SWAG_SWAG_H_

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "tasks/finetune/encoded_example.h"
#include "tasks/full_tokenizer.h"

namespace bertlab {

inline constexpr int kSwagNumChoices = 4;

// One row of a SWAG file, as written.
struct SwagExample {
  // The leading unnamed index column ("" when the file has none).
  std::string row_index;
  std::string video_id;
  std::string fold_ind;
  std::string start_phrase;
  std::string sent1;  // the context
  std::string sent2;  // the start of the ending, shared by the four
  std::string gold_source;
  std::array<std::string, kSwagNumChoices> endings;
  // In [0, 4), or kNoLabel (test files).
  int32_t label = kNoLabel;
  bool has_label = false;
  // "path:line" of the row, for messages.
  std::string source;

  // The id predictions are written under: fold-ind (what HF's run_swag uses
  // as swag_id), or the 0-based data row number when fold-ind is empty.
  std::string guid;
};

// The header line of a SWAG file, without the line break: with the leading
// unnamed index column, and with or without label.
std::string SwagCsvHeader(bool with_label);

// Parses the contents of a SWAG CSV file; `source` names it in messages.
absl::StatusOr<std::vector<SwagExample>> ParseSwagCsv(
    absl::string_view contents, absl::string_view source);

// Reads and parses the SWAG CSV file at `path`.
absl::StatusOr<std::vector<SwagExample>> ReadSwagFile(const std::string& path);

// A SWAG file with the leading index column (row_index as given, or the
// 0-based position when empty) and, when `with_label`, the label column.
// ParseSwagCsv reads it back field for field. CHECKs that a labelled file
// gets only labelled examples.
std::string FormatSwagCsv(const std::vector<SwagExample>& examples,
                          bool with_label);

struct SwagEncodeOptions {
  // Tokens per choice including [CLS] and the two [SEP]; at least 3.
  int max_seq_length = 80;
};

absl::Status ValidateSwagEncodeOptions(const SwagEncodeOptions& options);

// The example's four [CLS] A [SEP] B_i [SEP] sequences (see the top of this
// file); label and guid are copied. Errors: invalid options, or a
// vocabulary without [CLS] or [SEP].
absl::StatusOr<MultipleChoiceExample> EncodeSwagExample(
    const SwagExample& example, const FullTokenizer& tokenizer,
    const SwagEncodeOptions& options);

absl::StatusOr<std::vector<MultipleChoiceExample>> EncodeSwagExamples(
    const std::vector<SwagExample>& examples, const FullTokenizer& tokenizer,
    const SwagEncodeOptions& options);

// ReadSwagFile + EncodeSwagExamples: what the fine-tuning driver calls.
absl::StatusOr<std::vector<MultipleChoiceExample>> LoadSwagExamples(
    const std::string& path, const FullTokenizer& tokenizer,
    const SwagEncodeOptions& options);

// google-research/bert's _truncate_seq_pair: pops the last token of the
// longer of *tokens_a and *tokens_b (of *tokens_b on a tie) until together
// they have at most max_total_tokens.
void TruncateSeqPairFromLonger(int max_total_tokens, std::vector<int>* tokens_a,
                               std::vector<int>* tokens_b);

}  // namespace bertlab

#endif  // BERTLAB_TASKS_SWAG_SWAG_H_
