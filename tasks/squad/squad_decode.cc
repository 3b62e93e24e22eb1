#include "tasks/squad/squad_decode.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <utility>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_replace.h"
#include "common/check.h"
#include "common/file.h"
#include "tasks/python_json.h"
#include "tasks/unicode_text.h"
#include "tasks/utf8.h"

namespace bertlab {
namespace {

// _get_best_indexes: the n highest logits' indices; sorted() is stable, so
// equal logits keep index order.
std::vector<int32_t> BestIndexes(const std::vector<float>& logits, int n) {
  std::vector<int32_t> order(logits.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(),
                   [&](int32_t a, int32_t b) { return logits[a] > logits[b]; });
  if (static_cast<int>(order.size()) > n) order.resize(n);
  return order;
}

// " ".join(text.split()) with Python's whitespace.
std::string CollapseWhitespace(absl::string_view text) {
  std::vector<std::string> words;
  std::u32string current;
  for (char32_t c : DecodeUtf8Lenient(text)) {
    if (IsPythonWhitespace(c)) {
      if (!current.empty()) words.push_back(EncodeUtf8(current));
      current.clear();
    } else {
      current.push_back(c);
    }
  }
  if (!current.empty()) words.push_back(EncodeUtf8(current));
  return absl::StrJoin(words, " ");
}

// _strip_spaces: the text without " " and, per remaining character, its
// index in `text`.
std::u32string StripSpaces(const std::u32string& text,
                           std::vector<size_t>* ns_to_s_map) {
  std::u32string ns_text;
  ns_to_s_map->clear();
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] == U' ') continue;
    ns_to_s_map->push_back(i);
    ns_text.push_back(text[i]);
  }
  return ns_text;
}

struct PrelimPrediction {
  size_t feature_index;  // into the example's features
  int32_t start_index;
  int32_t end_index;
  double start_logit;
  double end_logit;
};

std::vector<double> Softmax(const std::vector<double>& scores) {
  std::vector<double> probs;
  if (scores.empty()) return probs;
  const double max_score = *std::max_element(scores.begin(), scores.end());
  double total = 0.0;
  for (double score : scores) {
    probs.push_back(std::exp(score - max_score));
    total += probs.back();
  }
  for (double& p : probs) p /= total;
  return probs;
}

}  // namespace

std::string GetFinalText(absl::string_view pred_text,
                         absl::string_view orig_text,
                         const BasicTokenizer& basic_tokenizer) {
  const std::u32string pred = DecodeUtf8Lenient(pred_text);
  const std::u32string orig = DecodeUtf8Lenient(orig_text);
  const std::u32string tok = DecodeUtf8Lenient(
      absl::StrJoin(basic_tokenizer.Tokenize(orig_text), " "));
  const size_t start_position = tok.find(pred);
  if (start_position == std::u32string::npos) return std::string(orig_text);
  // pred is never empty here in practice; an empty one maps nothing.
  if (pred.empty()) return std::string(orig_text);
  const size_t end_position = start_position + pred.size() - 1;

  std::vector<size_t> orig_ns_to_s_map, tok_ns_to_s_map;
  const std::u32string orig_ns_text = StripSpaces(orig, &orig_ns_to_s_map);
  const std::u32string tok_ns_text = StripSpaces(tok, &tok_ns_to_s_map);
  if (orig_ns_text.size() != tok_ns_text.size()) {
    return std::string(orig_text);
  }
  // tok_s_to_ns_map: tok index -> no-space index (absent for spaces).
  std::vector<int64_t> tok_s_to_ns_map(tok.size(), -1);
  for (size_t i = 0; i < tok_ns_to_s_map.size(); ++i) {
    tok_s_to_ns_map[tok_ns_to_s_map[i]] = static_cast<int64_t>(i);
  }
  auto to_orig = [&](size_t tok_position) -> int64_t {
    if (tok_position >= tok_s_to_ns_map.size()) return -1;
    const int64_t ns_position = tok_s_to_ns_map[tok_position];
    if (ns_position < 0 ||
        ns_position >= static_cast<int64_t>(orig_ns_to_s_map.size())) {
      return -1;
    }
    return static_cast<int64_t>(orig_ns_to_s_map[ns_position]);
  };
  const int64_t orig_start_position = to_orig(start_position);
  if (orig_start_position < 0) return std::string(orig_text);
  const int64_t orig_end_position = to_orig(end_position);
  if (orig_end_position < 0) return std::string(orig_text);
  if (orig_end_position < orig_start_position) return std::string();
  return EncodeUtf8(orig.substr(orig_start_position,
                                orig_end_position - orig_start_position + 1));
}

absl::StatusOr<std::vector<SquadPrediction>> DecodeSquadPredictions(
    const SquadDataset& dataset, const SquadFeatures& features,
    absl::Span<const SpanLogits> logits, const FullTokenizer& tokenizer,
    const SquadDecodeOptions& options) {
  if (options.n_best_size < 1 || options.max_answer_length < 1) {
    return absl::InvalidArgumentError(absl::StrCat(
        "n_best_size (", options.n_best_size, ") and max_answer_length (",
        options.max_answer_length, ") must be at least 1"));
  }
  if (logits.size() != features.features.size()) {
    return absl::InvalidArgumentError(
        absl::StrCat(logits.size(), " logits for ", features.features.size(),
                     " SQuAD features"));
  }
  if (features.decoding_info.size() != features.features.size()) {
    return absl::InvalidArgumentError(
        "the SQuAD features were made without keep_decoding_info");
  }
  std::vector<std::vector<size_t>> example_to_features(dataset.examples.size());
  for (size_t i = 0; i < features.features.size(); ++i) {
    const SpanFeature& feature = features.features[i];
    const size_t length = feature.sequence.input_ids.size();
    if (logits[i].start_logits.size() < length ||
        logits[i].end_logits.size() < length) {
      return absl::InvalidArgumentError(
          absl::StrCat("feature ", i, " has ", length, " tokens but ",
                       logits[i].start_logits.size(), " start and ",
                       logits[i].end_logits.size(), " end logits"));
    }
    if (feature.example_index < 0 ||
        feature.example_index >=
            static_cast<int64_t>(dataset.examples.size())) {
      return absl::InvalidArgumentError(
          absl::StrCat("feature ", i, " is of example ", feature.example_index,
                       ", not in the data set of ", dataset.examples.size()));
    }
    example_to_features[feature.example_index].push_back(i);
  }
  const Vocab& vocab = tokenizer.vocab();
  const bool v2 = options.version_2_with_negative;

  std::vector<SquadPrediction> predictions;
  predictions.reserve(dataset.examples.size());
  for (size_t example_index = 0; example_index < dataset.examples.size();
       ++example_index) {
    const SquadExample& example = dataset.examples[example_index];
    const std::vector<std::string>& doc_tokens =
        dataset.paragraphs[example.paragraph_index].doc_tokens;
    const std::vector<size_t>& feature_indices =
        example_to_features[example_index];

    std::vector<PrelimPrediction> prelim;
    double score_null = 1000000;  // large and positive, as the reference
    size_t min_null_feature_index = 0;
    double null_start_logit = 0;
    double null_end_logit = 0;
    for (size_t f = 0; f < feature_indices.size(); ++f) {
      const size_t global = feature_indices[f];
      const SpanLogits& result = logits[global];
      const SquadFeatureInfo& info = features.decoding_info[global];
      const int32_t num_tokens = static_cast<int32_t>(
          features.features[global].sequence.input_ids.size());
      if (v2) {
        const double feature_null_score =
            static_cast<double>(result.start_logits[0]) +
            static_cast<double>(result.end_logits[0]);
        if (feature_null_score < score_null) {
          score_null = feature_null_score;
          min_null_feature_index = f;
          null_start_logit = result.start_logits[0];
          null_end_logit = result.end_logits[0];
        }
      }
      const std::vector<int32_t> start_indexes =
          BestIndexes(result.start_logits, options.n_best_size);
      const std::vector<int32_t> end_indexes =
          BestIndexes(result.end_logits, options.n_best_size);
      for (int32_t start_index : start_indexes) {
        for (int32_t end_index : end_indexes) {
          if (start_index >= num_tokens || end_index >= num_tokens) continue;
          if (info.token_to_orig[start_index] < 0) continue;
          if (info.token_to_orig[end_index] < 0) continue;
          if (!info.token_is_max_context[start_index]) continue;
          if (end_index < start_index) continue;
          if (end_index - start_index + 1 > options.max_answer_length) continue;
          prelim.push_back(PrelimPrediction{f, start_index, end_index,
                                            result.start_logits[start_index],
                                            result.end_logits[end_index]});
        }
      }
    }
    if (v2) {
      prelim.push_back(PrelimPrediction{min_null_feature_index, 0, 0,
                                        null_start_logit, null_end_logit});
    }
    std::stable_sort(prelim.begin(), prelim.end(),
                     [](const PrelimPrediction& a, const PrelimPrediction& b) {
                       return a.start_logit + a.end_logit >
                              b.start_logit + b.end_logit;
                     });

    SquadPrediction prediction;
    prediction.qid = example.qid;
    absl::flat_hash_set<std::string> seen;
    std::vector<SquadNbestEntry>& nbest = prediction.nbest;
    for (const PrelimPrediction& pred : prelim) {
      if (static_cast<int>(nbest.size()) >= options.n_best_size) break;
      std::string final_text;
      if (pred.start_index > 0) {
        const size_t global = feature_indices[pred.feature_index];
        const SpanFeature& feature = features.features[global];
        const SquadFeatureInfo& info = features.decoding_info[global];
        std::vector<absl::string_view> tok_tokens;
        for (int32_t i = pred.start_index; i <= pred.end_index; ++i) {
          tok_tokens.push_back(vocab.IdToToken(feature.sequence.input_ids[i]));
        }
        std::string tok_text = absl::StrJoin(tok_tokens, " ");
        tok_text = absl::StrReplaceAll(tok_text, {{" ##", ""}});
        tok_text = absl::StrReplaceAll(tok_text, {{"##", ""}});
        tok_text = CollapseWhitespace(tok_text);
        const int32_t orig_doc_start = info.token_to_orig[pred.start_index];
        const int32_t orig_doc_end = info.token_to_orig[pred.end_index];
        const std::string orig_text =
            absl::StrJoin(doc_tokens.begin() + orig_doc_start,
                          doc_tokens.begin() + orig_doc_end + 1, " ");
        final_text =
            GetFinalText(tok_text, orig_text, tokenizer.basic_tokenizer());
        if (seen.contains(final_text)) continue;
        seen.insert(final_text);
      } else {
        seen.insert(final_text);
      }
      nbest.push_back(SquadNbestEntry{std::move(final_text), pred.start_logit,
                                      pred.end_logit, 0.0});
    }
    if (v2 && !seen.contains("")) {
      nbest.push_back(
          SquadNbestEntry{"", null_start_logit, null_end_logit, 0.0});
    }
    if (nbest.empty()) {
      nbest.push_back(SquadNbestEntry{"empty", 0.0, 0.0, 0.0});
    }
    if (v2 && std::none_of(nbest.begin(), nbest.end(),
                           [](const SquadNbestEntry& entry) {
                             return !entry.text.empty();
                           })) {
      nbest.insert(nbest.begin(), SquadNbestEntry{"empty", 0.0, 0.0, 0.0});
    }
    std::vector<double> total_scores;
    const SquadNbestEntry* best_non_null = nullptr;
    for (const SquadNbestEntry& entry : nbest) {
      total_scores.push_back(entry.start_logit + entry.end_logit);
      if (best_non_null == nullptr && !entry.text.empty()) {
        best_non_null = &entry;
      }
    }
    const std::vector<double> probs = Softmax(total_scores);
    for (size_t i = 0; i < nbest.size(); ++i) nbest[i].probability = probs[i];

    if (!v2) {
      prediction.text = nbest[0].text;
      prediction.best_non_null_text =
          best_non_null != nullptr ? best_non_null->text : nbest[0].text;
    } else {
      CHECK(best_non_null != nullptr);
      prediction.score_diff =
          score_null - best_non_null->start_logit - best_non_null->end_logit;
      prediction.best_non_null_text = best_non_null->text;
      prediction.text =
          prediction.score_diff > options.null_score_diff_threshold
              ? std::string()
              : prediction.best_non_null_text;
    }
    predictions.push_back(std::move(prediction));
  }
  return predictions;
}

void ApplySquadNullThreshold(double threshold,
                             std::vector<SquadPrediction>* predictions) {
  for (SquadPrediction& prediction : *predictions) {
    prediction.text = prediction.score_diff > threshold
                          ? std::string()
                          : prediction.best_non_null_text;
  }
}

namespace {

template <typename ValueFn>
std::string IndentedObject(absl::Span<const SquadPrediction> predictions,
                           ValueFn value) {
  if (predictions.empty()) return "{}\n";
  std::string out = "{\n";
  for (size_t i = 0; i < predictions.size(); ++i) {
    absl::StrAppend(&out, "    ", PythonJsonString(predictions[i].qid), ": ",
                    value(predictions[i]),
                    i + 1 < predictions.size() ? ",\n" : "\n");
  }
  out += "}\n";
  return out;
}

}  // namespace

std::string SquadPredictionsJson(
    absl::Span<const SquadPrediction> predictions) {
  return IndentedObject(predictions, [](const SquadPrediction& prediction) {
    return PythonJsonString(prediction.text);
  });
}

std::string SquadNullOddsJson(absl::Span<const SquadPrediction> predictions) {
  return IndentedObject(predictions, [](const SquadPrediction& prediction) {
    return PythonFloatRepr(prediction.score_diff);
  });
}

absl::Status WriteSquadPredictionsFile(
    const std::string& path, absl::Span<const SquadPrediction> predictions) {
  return WriteFileAtomically(path, SquadPredictionsJson(predictions));
}

absl::Status WriteSquadNullOddsFile(
    const std::string& path, absl::Span<const SquadPrediction> predictions) {
  return WriteFileAtomically(path, SquadNullOddsJson(predictions));
}

}  // namespace bertlab
