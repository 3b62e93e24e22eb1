#include "tasks/squad/squad_features.h"

#include <algorithm>
#include <optional>
#include <string>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "common/check.h"

namespace bertlab {
namespace {

// The wordpieces of one paragraph's doc tokens.
struct DocWordpieces {
  std::vector<std::string> tokens;   // all_doc_tokens
  std::vector<int32_t> ids;          // their vocabulary ids
  std::vector<int32_t> tok_to_orig;  // per wordpiece
  std::vector<int32_t> orig_to_tok;  // per doc token
};

DocWordpieces TokenizeParagraph(const SquadParagraph& paragraph,
                                const FullTokenizer& tokenizer) {
  DocWordpieces doc;
  const Vocab& vocab = tokenizer.vocab();
  for (size_t i = 0; i < paragraph.doc_tokens.size(); ++i) {
    doc.orig_to_tok.push_back(static_cast<int32_t>(doc.tokens.size()));
    for (std::string& piece : tokenizer.Tokenize(paragraph.doc_tokens[i])) {
      const std::optional<int> id = vocab.TokenToId(piece);
      CHECK(id.has_value()) << "FullTokenizer returned " << piece
                            << ", which is not in the vocabulary";
      doc.ids.push_back(*id);
      doc.tok_to_orig.push_back(static_cast<int32_t>(i));
      doc.tokens.push_back(std::move(piece));
    }
  }
  return doc;
}

// _improve_answer_span. Wordpieces hold no spaces and are never empty, so
// " ".join(span) == " ".join(answer) exactly when the two sequences are
// equal: only the span of the answer's length can match for each start.
std::pair<int32_t, int32_t> ImproveAnswerSpan(
    const std::vector<std::string>& doc_tokens, int32_t input_start,
    int32_t input_end, const std::vector<std::string>& answer_tokens) {
  const int32_t length = static_cast<int32_t>(answer_tokens.size());
  for (int32_t new_start = input_start; new_start <= input_end; ++new_start) {
    const int32_t new_end = new_start + length - 1;
    if (length == 0 || new_end > input_end) continue;
    if (std::equal(answer_tokens.begin(), answer_tokens.end(),
                   doc_tokens.begin() + new_start)) {
      return {new_start, new_end};
    }
  }
  return {input_start, input_end};
}

struct DocSpan {
  int32_t start;
  int32_t length;
};

// _check_is_max_context.
bool IsMaxContext(const std::vector<DocSpan>& spans, size_t cur_span_index,
                  int32_t position) {
  std::optional<double> best_score;
  size_t best_span_index = 0;
  for (size_t span_index = 0; span_index < spans.size(); ++span_index) {
    const DocSpan& span = spans[span_index];
    const int32_t end = span.start + span.length - 1;
    if (position < span.start || position > end) continue;
    const int32_t num_left_context = position - span.start;
    const int32_t num_right_context = end - position;
    const double score =
        std::min(num_left_context, num_right_context) + 0.01 * span.length;
    if (!best_score.has_value() || score > *best_score) {
      best_score = score;
      best_span_index = span_index;
    }
  }
  return best_score.has_value() && cur_span_index == best_span_index;
}

}  // namespace

absl::StatusOr<SquadFeatures> ConvertSquadExamplesToFeatures(
    const SquadDataset& dataset, const FullTokenizer& tokenizer,
    const SquadFeatureOptions& options) {
  if (options.max_seq_length <= options.max_query_length + 3) {
    return absl::InvalidArgumentError(
        absl::StrCat("max_seq_length (", options.max_seq_length,
                     ") must be greater than max_query_length (",
                     options.max_query_length, ") + 3"));
  }
  if (options.doc_stride < 1 || options.max_query_length < 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("doc_stride (", options.doc_stride,
                     ") must be at least 1 and max_query_length (",
                     options.max_query_length, ") at least 0"));
  }
  const std::optional<int> cls_id = tokenizer.vocab().TokenToId("[CLS]");
  const std::optional<int> sep_id = tokenizer.vocab().TokenToId("[SEP]");
  if (!cls_id.has_value() || !sep_id.has_value()) {
    return absl::InvalidArgumentError(
        absl::StrCat("the vocabulary ", tokenizer.vocab().source(),
                     " has no [CLS] or no [SEP]"));
  }

  SquadFeatures result;
  int64_t cached_paragraph = -1;
  DocWordpieces doc;
  std::vector<DocSpan> doc_spans;
  for (size_t example_index = 0; example_index < dataset.examples.size();
       ++example_index) {
    const SquadExample& example = dataset.examples[example_index];
    CHECK_GE(example.paragraph_index, 0);
    CHECK_LT(example.paragraph_index,
             static_cast<int64_t>(dataset.paragraphs.size()));
    if (example.paragraph_index != cached_paragraph) {
      doc = TokenizeParagraph(dataset.paragraphs[example.paragraph_index],
                              tokenizer);
      cached_paragraph = example.paragraph_index;
    }
    std::vector<int> query_ids = tokenizer.TokenizeToIds(example.question_text);
    if (static_cast<int>(query_ids.size()) > options.max_query_length) {
      query_ids.resize(options.max_query_length);
    }

    int32_t tok_start_position = -1;
    int32_t tok_end_position = -1;
    const bool labelled = options.is_training && !example.is_impossible;
    if (labelled) {
      const int32_t num_doc_tokens =
          static_cast<int32_t>(doc.orig_to_tok.size());
      if (example.start_position < 0 || example.end_position < 0 ||
          example.start_position >= num_doc_tokens ||
          example.end_position >= num_doc_tokens) {
        return absl::InvalidArgumentError(
            absl::StrCat(dataset.source, ":", example.line, ": question ",
                         example.qid, ": answer span [", example.start_position,
                         ", ", example.end_position, "] is not inside the ",
                         num_doc_tokens, " doc tokens"));
      }
      tok_start_position = doc.orig_to_tok[example.start_position];
      if (example.end_position < num_doc_tokens - 1) {
        tok_end_position = doc.orig_to_tok[example.end_position + 1] - 1;
      } else {
        tok_end_position = static_cast<int32_t>(doc.tokens.size()) - 1;
      }
      std::tie(tok_start_position, tok_end_position) =
          ImproveAnswerSpan(doc.tokens, tok_start_position, tok_end_position,
                            tokenizer.Tokenize(example.orig_answer_text));
    }

    const int32_t max_tokens_for_doc =
        options.max_seq_length - static_cast<int32_t>(query_ids.size()) - 3;
    const int32_t num_wordpieces = static_cast<int32_t>(doc.tokens.size());
    doc_spans.clear();
    for (int32_t start_offset = 0; start_offset < num_wordpieces;) {
      const int32_t length =
          std::min(num_wordpieces - start_offset, max_tokens_for_doc);
      doc_spans.push_back(DocSpan{start_offset, length});
      if (start_offset + length == num_wordpieces) break;
      start_offset += std::min(length, options.doc_stride);
    }

    const int32_t doc_offset = static_cast<int32_t>(query_ids.size()) + 2;
    for (size_t span_index = 0; span_index < doc_spans.size(); ++span_index) {
      const DocSpan& span = doc_spans[span_index];
      SpanFeature feature;
      feature.example_index = static_cast<int64_t>(example_index);
      feature.window_index = static_cast<int64_t>(span_index);
      const size_t sequence_length = doc_offset + span.length + 1;
      std::vector<int32_t>& ids = feature.sequence.input_ids;
      std::vector<int32_t>& segments = feature.sequence.token_type_ids;
      ids.reserve(sequence_length);
      ids.push_back(*cls_id);
      ids.insert(ids.end(), query_ids.begin(), query_ids.end());
      ids.push_back(*sep_id);
      ids.insert(ids.end(), doc.ids.begin() + span.start,
                 doc.ids.begin() + span.start + span.length);
      ids.push_back(*sep_id);
      segments.assign(sequence_length, 1);
      std::fill(segments.begin(), segments.begin() + doc_offset, 0);

      if (options.keep_decoding_info) {
        SquadFeatureInfo info;
        info.token_to_orig.assign(sequence_length, -1);
        info.token_is_max_context.assign(sequence_length, 0);
        for (int32_t i = 0; i < span.length; ++i) {
          const int32_t split_token_index = span.start + i;
          info.token_to_orig[doc_offset + i] =
              doc.tok_to_orig[split_token_index];
          info.token_is_max_context[doc_offset + i] =
              IsMaxContext(doc_spans, span_index, split_token_index) ? 1 : 0;
        }
        result.decoding_info.push_back(std::move(info));
      }

      if (labelled) {
        const int32_t doc_start = span.start;
        const int32_t doc_end = span.start + span.length - 1;
        if (tok_start_position >= doc_start && tok_end_position <= doc_end) {
          feature.start_position = tok_start_position - doc_start + doc_offset;
          feature.end_position = tok_end_position - doc_start + doc_offset;
          ++result.num_features_with_answer;
        }
      }
      result.features.push_back(std::move(feature));
    }
  }
  return result;
}

}  // namespace bertlab
