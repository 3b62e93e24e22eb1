// SQuAD examples -> model inputs, with the semantics of google-research/bert
// run_squad.py convert_examples_to_features (PAPER.md 2d):
//
//   * Every doc token is WordPiece-tokenized on its own (FullTokenizer), with
//     tok_to_orig / orig_to_tok maps; the question is tokenized and cut to
//     max_query_length wordpieces.
//   * Windows of max_tokens_for_doc = max_seq_length - len(query) - 3
//     wordpieces start every min(window length, doc_stride); the last one
//     ends at the end of the document.
//   * Layout [CLS] query [SEP] window [SEP], segment 0 through the first
//     [SEP], 1 after. No padding (the driver pads).
//   * token_is_max_context: a wordpiece is scored only in the window where
//     min(left context, right context) + 0.01 * window length is largest
//     (the first such window on ties), as _check_is_max_context.
//   * Training labels: the answer's doc-token span -> wordpiece span, refined
//     by _improve_answer_span (the first sub-span, by start then longest,
//     whose wordpieces equal the tokenized answer text); start = end = 0
//     ([CLS]) when the window does not hold the whole span or the question is
//     impossible. Evaluation features carry start = end = 0.
// The wordpieces of a paragraph are computed once for all its questions (the
// reference recomputes them per question; the result is the same).
#ifndef BERTLAB_TASKS_SQUAD_SQUAD_FEATURES_H_
#define BERTLAB_TASKS_SQUAD_SQUAD_FEATURES_H_

#include <stdint.h>

#include <vector>

#include "absl/status/statusor.h"
#include "tasks/finetune/encoded_example.h"
#include "tasks/full_tokenizer.h"
#include "tasks/squad/squad_reader.h"

namespace bertlab {

struct SquadFeatureOptions {
  int max_seq_length = 384;
  int doc_stride = 128;
  int max_query_length = 64;
  // Training labels (start/end positions) instead of start = end = 0.
  bool is_training = false;
  // Fill SquadFeatures::decoding_info (needed by DecodeSquadPredictions;
  // training can leave it out to save memory).
  bool keep_decoding_info = true;
};

// What decoding needs about one feature beyond its SpanFeature, indexed by
// position in the feature's sequence (size = sequence length). The
// wordpiece at a position is vocab.IdToToken(input_ids[position]).
struct SquadFeatureInfo {
  // token_to_orig_map: the doc token (SquadParagraph::doc_tokens index) of a
  // window position, -1 for [CLS], the query and the [SEP]s.
  std::vector<int32_t> token_to_orig;
  // token_is_max_context: 1 at window positions whose window is the max
  // context one for that wordpiece, else 0.
  std::vector<uint8_t> token_is_max_context;
};

struct SquadFeatures {
  // In example order, windows in order within an example. example_index
  // indexes SquadDataset::examples.
  std::vector<SpanFeature> features;
  // Parallel to `features` when keep_decoding_info, else empty.
  std::vector<SquadFeatureInfo> decoding_info;
  // Training: features whose window holds the answer (the others and
  // impossible questions point at [CLS]).
  int64_t num_features_with_answer = 0;
};

// Errors: max_seq_length <= max_query_length + 3, doc_stride < 1, a
// vocabulary without [CLS] or [SEP], or (training) an example whose answer
// span is not inside its doc tokens.
absl::StatusOr<SquadFeatures> ConvertSquadExamplesToFeatures(
    const SquadDataset& dataset, const FullTokenizer& tokenizer,
    const SquadFeatureOptions& options);

}  // namespace bertlab

#endif  // BERTLAB_TASKS_SQUAD_SQUAD_FEATURES_H_
