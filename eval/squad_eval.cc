#include "eval/squad_eval.h"

#include <utf8proc.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <nlohmann/json.hpp>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "common/file.h"
#include "common/status_macros.h"
#include "tasks/python_json.h"
#include "tasks/unicode_text.h"
#include "tasks/utf8.h"

namespace bertlab {
namespace {

using Json = nlohmann::json;

// Python's string.punctuation.
bool IsAsciiPunctuation(char32_t c) {
  return c < 128 && c != 0 &&
         absl::string_view("!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~")
                 .find(static_cast<char>(c)) != absl::string_view::npos;
}

// A character of \w in Python 3's re (str patterns): alphanumeric or "_".
bool IsRegexWordChar(char32_t c) {
  if (c == U'_') return true;
  switch (utf8proc_category(static_cast<utf8proc_int32_t>(c))) {
    case UTF8PROC_CATEGORY_LU:
    case UTF8PROC_CATEGORY_LL:
    case UTF8PROC_CATEGORY_LT:
    case UTF8PROC_CATEGORY_LM:
    case UTF8PROC_CATEGORY_LO:
    case UTF8PROC_CATEGORY_ND:
    case UTF8PROC_CATEGORY_NL:
    case UTF8PROC_CATEGORY_NO:
      return true;
    default:
      return false;
  }
}

bool IsArticle(const std::u32string& text, size_t begin, size_t end) {
  const std::u32string_view word(text.data() + begin, end - begin);
  return word == U"a" || word == U"an" || word == U"the";
}

// normalize_answer(s).split().
std::vector<std::string> NormalizedTokens(absl::string_view text) {
  const std::u32string lowered = PythonLower(DecodeUtf8Lenient(text));
  std::u32string no_punct;
  no_punct.reserve(lowered.size());
  for (char32_t c : lowered) {
    if (!IsAsciiPunctuation(c)) no_punct.push_back(c);
  }
  // \b(a|an|the)\b matches exactly the maximal runs of word characters that
  // spell an article; each becomes " ". Not RE2: Python's \w and \b are
  // Unicode's, RE2's are ASCII's ("éa" would lose its "a"), and RE2 has no
  // lookaround to spell \b otherwise.
  std::u32string no_articles;
  no_articles.reserve(no_punct.size());
  for (size_t i = 0; i < no_punct.size();) {
    if (!IsRegexWordChar(no_punct[i])) {
      no_articles.push_back(no_punct[i++]);
      continue;
    }
    size_t end = i;
    while (end < no_punct.size() && IsRegexWordChar(no_punct[end])) ++end;
    if (IsArticle(no_punct, i, end)) {
      no_articles.push_back(U' ');
    } else {
      no_articles.append(no_punct, i, end - i);
    }
    i = end;
  }
  std::vector<std::string> tokens;
  std::u32string current;
  for (char32_t c : no_articles) {
    if (IsPythonWhitespace(c)) {
      if (!current.empty()) tokens.push_back(EncodeUtf8(current));
      current.clear();
    } else {
      current.push_back(c);
    }
  }
  if (!current.empty()) tokens.push_back(EncodeUtf8(current));
  return tokens;
}

// sum((Counter(a) & Counter(b)).values()).
int64_t CommonTokenCount(const std::vector<std::string>& a,
                         const std::vector<std::string>& b) {
  absl::flat_hash_map<absl::string_view, int64_t> counts;
  for (const std::string& token : a) ++counts[token];
  int64_t common = 0;
  for (const std::string& token : b) {
    auto it = counts.find(token);
    if (it != counts.end() && it->second > 0) {
      --it->second;
      ++common;
    }
  }
  return common;
}

double F1FromCounts(int64_t num_same, size_t num_pred, size_t num_gold) {
  const double precision = 1.0 * num_same / static_cast<double>(num_pred);
  const double recall = 1.0 * num_same / static_cast<double>(num_gold);
  return (2 * precision * recall) / (precision + recall);
}

// ---- JSON access with paths in messages -----------------------------------

// The keys of a JSON text's top-level object, in file order, repeats
// included (a SAX handler; the text is already known to parse).
struct TopLevelKeys : nlohmann::json_sax<Json> {
  std::vector<std::string> keys;
  int depth = 0;
  bool null() override { return true; }
  bool boolean(bool) override { return true; }
  bool number_integer(number_integer_t) override { return true; }
  bool number_unsigned(number_unsigned_t) override { return true; }
  bool number_float(number_float_t, const string_t&) override { return true; }
  bool string(string_t&) override { return true; }
  bool binary(binary_t&) override { return true; }
  bool start_object(std::size_t) override {
    ++depth;
    return true;
  }
  bool end_object() override {
    --depth;
    return true;
  }
  bool start_array(std::size_t) override {
    ++depth;
    return true;
  }
  bool end_array() override {
    --depth;
    return true;
  }
  bool key(string_t& key) override {
    if (depth == 1) keys.push_back(key);
    return true;
  }
  bool parse_error(std::size_t, const std::string&,
                   const nlohmann::detail::exception&) override {
    return false;
  }
};

template <typename JsonType>
absl::StatusOr<JsonType> ParseJsonText(absl::string_view text,
                                       absl::string_view source) {
  try {
    return JsonType::parse(text.begin(), text.end());
  } catch (const nlohmann::json::parse_error& error) {
    return absl::InvalidArgumentError(
        absl::StrCat(source, ": invalid JSON: ", error.what()));
  }
}

absl::StatusOr<const Json*> Field(const Json& object, const char* key,
                                  const std::string& path,
                                  absl::string_view source) {
  if (!object.is_object()) {
    return absl::InvalidArgumentError(
        absl::StrCat(source, ": ", path, " is not a JSON object"));
  }
  auto it = object.find(key);
  if (it == object.end()) {
    return absl::InvalidArgumentError(
        absl::StrCat(source, ": ", path, " has no field \"", key, "\""));
  }
  return &*it;
}

absl::StatusOr<const Json*> ArrayField(const Json& object, const char* key,
                                       const std::string& path,
                                       absl::string_view source) {
  ASSIGN_OR_RETURN(const Json* value, Field(object, key, path, source));
  if (!value->is_array()) {
    return absl::InvalidArgumentError(absl::StrCat(source, ": ", path, ".", key,
                                                   " is not an array (it is ",
                                                   value->type_name(), ")"));
  }
  return value;
}

absl::StatusOr<std::string> StringField(const Json& object, const char* key,
                                        const std::string& path,
                                        absl::string_view source) {
  ASSIGN_OR_RETURN(const Json* value, Field(object, key, path, source));
  if (!value->is_string()) {
    return absl::InvalidArgumentError(absl::StrCat(source, ": ", path, ".", key,
                                                   " is not a string (it is ",
                                                   value->type_name(), ")"));
  }
  return value->get<std::string>();
}

// 100.0 * sum / total, summed in order as Python's sum() over floats.
double Percent(double sum, int64_t total) {
  return 100.0 * sum / static_cast<double>(total);
}

// evaluate-v2.0.py find_best_thresh.
SquadBestThreshold FindBestThreshold(
    const SquadPredictionMap& predictions,
    const absl::flat_hash_map<std::string, double>& scores,
    const SquadNaProbs& na_probs,
    const absl::flat_hash_map<std::string, bool>& qid_to_has_ans,
    int64_t num_no_ans) {
  double cur_score = static_cast<double>(num_no_ans);
  SquadBestThreshold best;
  best.best_score = cur_score;
  best.threshold = 0.0;
  std::vector<const SquadNaProb*> order;
  order.reserve(na_probs.size());
  for (const SquadNaProb& na_prob : na_probs) order.push_back(&na_prob);
  std::stable_sort(order.begin(), order.end(),
                   [](const SquadNaProb* a, const SquadNaProb* b) {
                     return a->value < b->value;
                   });
  for (const SquadNaProb* na_prob : order) {
    auto score = scores.find(na_prob->qid);
    if (score == scores.end()) continue;
    double diff;
    if (qid_to_has_ans.at(na_prob->qid)) {
      diff = score->second;
    } else {
      diff = predictions.at(na_prob->qid).empty() ? 0.0 : -1.0;
    }
    cur_score += diff;
    if (cur_score > best.best_score) {
      best.best_score = cur_score;
      best.threshold = na_prob->value;
      best.threshold_is_integer = na_prob->is_integer;
    }
  }
  best.best_score = Percent(best.best_score, scores.size());
  return best;
}

}  // namespace

// ---- normalization and per-answer scores -----------------------------------

std::string NormalizeSquadAnswer(absl::string_view text) {
  return absl::StrJoin(NormalizedTokens(text), " ");
}

int SquadExactScore(absl::string_view prediction, absl::string_view gold) {
  return NormalizeSquadAnswer(prediction) == NormalizeSquadAnswer(gold) ? 1 : 0;
}

double SquadF1ScoreV1(absl::string_view prediction, absl::string_view gold) {
  const std::vector<std::string> prediction_tokens =
      NormalizedTokens(prediction);
  const std::vector<std::string> gold_tokens = NormalizedTokens(gold);
  const int64_t num_same = CommonTokenCount(prediction_tokens, gold_tokens);
  if (num_same == 0) return 0.0;
  return F1FromCounts(num_same, prediction_tokens.size(), gold_tokens.size());
}

double SquadF1ScoreV2(absl::string_view prediction, absl::string_view gold) {
  const std::vector<std::string> gold_tokens = NormalizedTokens(gold);
  const std::vector<std::string> prediction_tokens =
      NormalizedTokens(prediction);
  if (gold_tokens.empty() || prediction_tokens.empty()) {
    return gold_tokens == prediction_tokens ? 1.0 : 0.0;
  }
  const int64_t num_same = CommonTokenCount(gold_tokens, prediction_tokens);
  if (num_same == 0) return 0.0;
  return F1FromCounts(num_same, prediction_tokens.size(), gold_tokens.size());
}

// ---- data ------------------------------------------------------------------

absl::StatusOr<SquadGold> ParseSquadGold(absl::string_view json_text,
                                         absl::string_view source) {
  ASSIGN_OR_RETURN(const Json root, ParseJsonText<Json>(json_text, source));
  SquadGold gold;
  if (root.is_object()) {
    auto version = root.find("version");
    if (version != root.end() && version->is_string()) {
      gold.version = version->get<std::string>();
    }
  }
  gold.is_v2 = absl::StartsWith(gold.version, "v2");
  ASSIGN_OR_RETURN(const Json* data, ArrayField(root, "data", "(top)", source));
  for (size_t a = 0; a < data->size(); ++a) {
    const std::string article_path = absl::StrCat("data[", a, "]");
    ASSIGN_OR_RETURN(
        const Json* paragraphs,
        ArrayField((*data)[a], "paragraphs", article_path, source));
    for (size_t p = 0; p < paragraphs->size(); ++p) {
      const std::string paragraph_path =
          absl::StrCat(article_path, ".paragraphs[", p, "]");
      ASSIGN_OR_RETURN(const Json* qas, ArrayField((*paragraphs)[p], "qas",
                                                   paragraph_path, source));
      for (size_t q = 0; q < qas->size(); ++q) {
        const std::string qa_path =
            absl::StrCat(paragraph_path, ".qas[", q, "]");
        const Json& qa = (*qas)[q];
        SquadGoldQuestion question;
        ASSIGN_OR_RETURN(question.qid, StringField(qa, "id", qa_path, source));
        ASSIGN_OR_RETURN(const Json* answers,
                         ArrayField(qa, "answers", qa_path, source));
        for (size_t i = 0; i < answers->size(); ++i) {
          ASSIGN_OR_RETURN(
              std::string text,
              StringField((*answers)[i], "text",
                          absl::StrCat(qa_path, ".answers[", i, "]"), source));
          question.answer_texts.push_back(std::move(text));
        }
        if (qa.contains("is_impossible")) gold.is_v2 = true;
        gold.questions.push_back(std::move(question));
      }
    }
  }
  return gold;
}

absl::StatusOr<SquadGold> ReadSquadGoldFile(const std::string& path) {
  ASSIGN_OR_RETURN(const std::string text, ReadFileToString(path));
  return ParseSquadGold(text, path);
}

absl::StatusOr<SquadPredictionMap> ParseSquadPredictions(
    absl::string_view json_text, absl::string_view source) {
  ASSIGN_OR_RETURN(const Json root, ParseJsonText<Json>(json_text, source));
  if (!root.is_object()) {
    return absl::InvalidArgumentError(absl::StrCat(
        source,
        ": predictions must be a JSON object qid -> answer text (it is ",
        root.type_name(), ")"));
  }
  SquadPredictionMap predictions;
  for (auto it = root.begin(); it != root.end(); ++it) {
    if (!it.value().is_string()) {
      return absl::InvalidArgumentError(absl::StrCat(
          source, ": the prediction for \"", it.key(),
          "\" is not a string (it is ", it.value().type_name(), ")"));
    }
    predictions[it.key()] = it.value().get<std::string>();
  }
  return predictions;
}

absl::StatusOr<SquadPredictionMap> ReadSquadPredictionsFile(
    const std::string& path) {
  ASSIGN_OR_RETURN(const std::string text, ReadFileToString(path));
  return ParseSquadPredictions(text, path);
}

absl::StatusOr<SquadNaProbs> ParseSquadNaProbs(absl::string_view json_text,
                                               absl::string_view source) {
  // The values by key (a std::map: a repeated key keeps its last value) and
  // the keys in file order from a second, SAX pass: ordered_json would keep
  // both but finds each key by a linear search, quadratic in the questions.
  ASSIGN_OR_RETURN(const Json root, ParseJsonText<Json>(json_text, source));
  if (!root.is_object()) {
    return absl::InvalidArgumentError(absl::StrCat(
        source, ": na_probs must be a JSON object qid -> number (it is ",
        root.type_name(), ")"));
  }
  TopLevelKeys keys;
  Json::sax_parse(json_text.begin(), json_text.end(), &keys);
  SquadNaProbs na_probs;
  na_probs.reserve(root.size());
  absl::flat_hash_set<std::string> placed;
  for (const std::string& key : keys.keys) {
    // A repeated key keeps its first place and its last value, as a Python
    // dict built by json.load does.
    if (!placed.insert(key).second) continue;
    const Json& value = root.at(key);
    if (!value.is_number()) {
      return absl::InvalidArgumentError(
          absl::StrCat(source, ": the value for \"", key,
                       "\" is not a number (it is ", value.type_name(), ")"));
    }
    na_probs.push_back(
        SquadNaProb{key, value.get<double>(), value.is_number_integer()});
  }
  return na_probs;
}

absl::StatusOr<SquadNaProbs> ReadSquadNaProbsFile(const std::string& path) {
  ASSIGN_OR_RETURN(const std::string text, ReadFileToString(path));
  return ParseSquadNaProbs(text, path);
}

// ---- evaluation ------------------------------------------------------------

absl::StatusOr<SquadMetrics> EvaluateSquadV1(
    const SquadGold& gold, const SquadPredictionMap& predictions) {
  SquadMetrics metrics;
  metrics.is_v2 = false;
  double exact_match = 0.0;
  double f1 = 0.0;
  int64_t total = 0;
  for (const SquadGoldQuestion& question : gold.questions) {
    ++total;
    auto prediction = predictions.find(question.qid);
    if (prediction == predictions.end()) {
      metrics.missing_predictions.push_back(question.qid);
      metrics.per_question.push_back({question.qid, 0.0, 0.0});
      continue;
    }
    if (question.answer_texts.empty()) {
      return absl::InvalidArgumentError(
          absl::StrCat("question ", question.qid,
                       " has no answers; evaluate-v1.1.py needs at least one "
                       "(is this a v2.0 file without \"version\": \"v2.0\"?)"));
    }
    int best_exact = 0;
    double best_f1 = 0.0;
    for (const std::string& answer : question.answer_texts) {
      best_exact =
          std::max(best_exact, SquadExactScore(prediction->second, answer));
      best_f1 = std::max(best_f1, SquadF1ScoreV1(prediction->second, answer));
    }
    exact_match += best_exact;
    f1 += best_f1;
    metrics.per_question.push_back(
        {question.qid, static_cast<double>(best_exact), best_f1});
  }
  if (total == 0) {
    return absl::InvalidArgumentError("the data set has no questions");
  }
  metrics.exact = Percent(exact_match, total);
  metrics.f1 = Percent(f1, total);
  metrics.total = total;
  return metrics;
}

absl::StatusOr<SquadMetrics> EvaluateSquadV2(
    const SquadGold& gold, const SquadPredictionMap& predictions,
    const SquadNaProbs* na_probs, const SquadEvalOptions& options) {
  SquadMetrics metrics;
  metrics.is_v2 = true;
  // make_qid_to_has_ans, in data set order (a repeated qid keeps its first
  // place and its last value, like the script's dicts).
  std::vector<std::string> qids;
  absl::flat_hash_map<std::string, bool> qid_to_has_ans;
  for (const SquadGoldQuestion& question : gold.questions) {
    auto [it, inserted] = qid_to_has_ans.try_emplace(question.qid, false);
    if (inserted) qids.push_back(question.qid);
    it->second = !question.answer_texts.empty();
  }
  // get_raw_scores.
  absl::flat_hash_map<std::string, double> exact_raw, f1_raw;
  std::vector<std::string> scored_qids;
  for (const SquadGoldQuestion& question : gold.questions) {
    std::vector<std::string> golds;
    for (const std::string& text : question.answer_texts) {
      if (!NormalizeSquadAnswer(text).empty()) golds.push_back(text);
    }
    if (golds.empty()) golds.push_back("");
    auto prediction = predictions.find(question.qid);
    if (prediction == predictions.end()) {
      metrics.missing_predictions.push_back(question.qid);
      continue;
    }
    int best_exact = 0;
    double best_f1 = 0.0;
    for (const std::string& answer : golds) {
      best_exact =
          std::max(best_exact, SquadExactScore(answer, prediction->second));
      best_f1 = std::max(best_f1, SquadF1ScoreV2(prediction->second, answer));
    }
    if (!exact_raw.contains(question.qid)) scored_qids.push_back(question.qid);
    exact_raw[question.qid] = best_exact;
    f1_raw[question.qid] = best_f1;
  }
  if (scored_qids.empty()) {
    return absl::InvalidArgumentError(
        "no question of the data set has a prediction");
  }
  // apply_no_ans_threshold.
  absl::flat_hash_map<std::string, double> na_prob_of;
  if (na_probs != nullptr) {
    for (const SquadNaProb& na_prob : *na_probs) {
      na_prob_of[na_prob.qid] = na_prob.value;
    }
  }
  absl::flat_hash_map<std::string, double> exact_thresh, f1_thresh;
  for (const std::string& qid : scored_qids) {
    double na_prob = 0.0;
    if (na_probs != nullptr) {
      auto it = na_prob_of.find(qid);
      if (it == na_prob_of.end()) {
        return absl::InvalidArgumentError(
            absl::StrCat("question ", qid, " has a prediction but no na_prob"));
      }
      na_prob = it->second;
    }
    if (na_prob > options.na_prob_thresh) {
      const double no_answer_score = qid_to_has_ans.at(qid) ? 0.0 : 1.0;
      exact_thresh[qid] = no_answer_score;
      f1_thresh[qid] = no_answer_score;
    } else {
      exact_thresh[qid] = exact_raw.at(qid);
      f1_thresh[qid] = f1_raw.at(qid);
    }
  }
  auto sums = [&](const std::vector<std::string>& list, double* exact,
                  double* f1) -> absl::Status {
    *exact = 0.0;
    *f1 = 0.0;
    for (const std::string& qid : list) {
      auto it = exact_thresh.find(qid);
      if (it == exact_thresh.end()) {
        return absl::InvalidArgumentError(
            absl::StrCat("missing prediction for question ", qid,
                         " (evaluate-v2.0.py fails on it with a KeyError)"));
      }
      *exact += it->second;
      *f1 += f1_thresh.at(qid);
    }
    return absl::OkStatus();
  };
  double exact_sum, f1_sum;
  RETURN_IF_ERROR(sums(scored_qids, &exact_sum, &f1_sum));
  for (const std::string& qid : scored_qids) {
    metrics.per_question.push_back(
        {qid, exact_thresh.at(qid), f1_thresh.at(qid)});
  }
  metrics.total = static_cast<int64_t>(scored_qids.size());
  metrics.exact = Percent(exact_sum, metrics.total);
  metrics.f1 = Percent(f1_sum, metrics.total);
  std::vector<std::string> has_ans_qids, no_ans_qids;
  for (const std::string& qid : qids) {
    (qid_to_has_ans.at(qid) ? has_ans_qids : no_ans_qids).push_back(qid);
  }
  if (!has_ans_qids.empty()) {
    RETURN_IF_ERROR(sums(has_ans_qids, &exact_sum, &f1_sum));
    metrics.has_ans_total = static_cast<int64_t>(has_ans_qids.size());
    metrics.has_ans_exact = Percent(exact_sum, metrics.has_ans_total);
    metrics.has_ans_f1 = Percent(f1_sum, metrics.has_ans_total);
  }
  if (!no_ans_qids.empty()) {
    RETURN_IF_ERROR(sums(no_ans_qids, &exact_sum, &f1_sum));
    metrics.no_ans_total = static_cast<int64_t>(no_ans_qids.size());
    metrics.no_ans_exact = Percent(exact_sum, metrics.no_ans_total);
    metrics.no_ans_f1 = Percent(f1_sum, metrics.no_ans_total);
  }
  if (na_probs != nullptr) {
    const int64_t num_no_ans = static_cast<int64_t>(no_ans_qids.size());
    metrics.best_exact = FindBestThreshold(predictions, exact_raw, *na_probs,
                                           qid_to_has_ans, num_no_ans);
    metrics.best_f1 = FindBestThreshold(predictions, f1_raw, *na_probs,
                                        qid_to_has_ans, num_no_ans);
  }
  return metrics;
}

absl::StatusOr<SquadMetrics> EvaluateSquad(
    const SquadGold& gold, const SquadPredictionMap& predictions,
    const SquadNaProbs* na_probs, const SquadEvalOptions& options) {
  if (gold.is_v2) {
    return EvaluateSquadV2(gold, predictions, na_probs, options);
  }
  return EvaluateSquadV1(gold, predictions);
}

std::string FormatSquadMetricsJson(const SquadMetrics& metrics) {
  if (!metrics.is_v2) {
    return absl::StrCat("{\"exact_match\": ", PythonFloatRepr(metrics.exact),
                        ", \"f1\": ", PythonFloatRepr(metrics.f1), "}");
  }
  std::vector<std::pair<std::string, std::string>> items;
  items.emplace_back("exact", PythonFloatRepr(metrics.exact));
  items.emplace_back("f1", PythonFloatRepr(metrics.f1));
  items.emplace_back("total", absl::StrCat(metrics.total));
  if (metrics.has_ans_exact.has_value()) {
    items.emplace_back("HasAns_exact", PythonFloatRepr(*metrics.has_ans_exact));
    items.emplace_back("HasAns_f1", PythonFloatRepr(*metrics.has_ans_f1));
    items.emplace_back("HasAns_total", absl::StrCat(metrics.has_ans_total));
  }
  if (metrics.no_ans_exact.has_value()) {
    items.emplace_back("NoAns_exact", PythonFloatRepr(*metrics.no_ans_exact));
    items.emplace_back("NoAns_f1", PythonFloatRepr(*metrics.no_ans_f1));
    items.emplace_back("NoAns_total", absl::StrCat(metrics.no_ans_total));
  }
  auto threshold = [](const SquadBestThreshold& best) {
    if (best.threshold_is_integer) {
      return absl::StrCat(static_cast<int64_t>(best.threshold));
    }
    return PythonFloatRepr(best.threshold);
  };
  if (metrics.best_exact.has_value()) {
    items.emplace_back("best_exact",
                       PythonFloatRepr(metrics.best_exact->best_score));
    items.emplace_back("best_exact_thresh", threshold(*metrics.best_exact));
  }
  if (metrics.best_f1.has_value()) {
    items.emplace_back("best_f1", PythonFloatRepr(metrics.best_f1->best_score));
    items.emplace_back("best_f1_thresh", threshold(*metrics.best_f1));
  }
  std::string out = "{\n";
  for (size_t i = 0; i < items.size(); ++i) {
    absl::StrAppend(&out, "  \"", items[i].first, "\": ", items[i].second,
                    i + 1 < items.size() ? ",\n" : "\n");
  }
  out += "}";
  return out;
}

absl::StatusOr<SquadMetrics> ChooseSquadNullThreshold(
    const SquadGold& gold, const SquadPredictionMap& best_non_null,
    const SquadNaProbs& score_diffs) {
  SquadEvalOptions options;
  options.na_prob_thresh = std::numeric_limits<double>::infinity();
  return EvaluateSquadV2(gold, best_non_null, &score_diffs, options);
}

}  // namespace bertlab
