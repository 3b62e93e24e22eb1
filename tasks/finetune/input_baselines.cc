#include "tasks/finetune/input_baselines.h"

#include <algorithm>
#include <map>
#include <set>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"

namespace bertlab {
namespace {

// Whether the byte at `at` starts a General Punctuation character
// (U+2000-U+207F: curly quotes, dashes), E2 80 xx or E2 81 xx in UTF-8.
bool GeneralPunctuationAt(absl::string_view text, size_t at) {
  return static_cast<unsigned char>(text[at]) == 0xE2 && at + 2 < text.size() &&
         (static_cast<unsigned char>(text[at + 1]) == 0x80 ||
          static_cast<unsigned char>(text[at + 1]) == 0x81);
}

std::vector<std::string> Words(absl::string_view text, bool lowercase) {
  std::vector<std::string> words;
  std::string word;
  for (size_t i = 0; i < text.size(); ++i) {
    const unsigned char c = static_cast<unsigned char>(text[i]);
    const bool ascii_word = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
                            (c >= '0' && c <= '9');
    if (ascii_word || (c >= 0x80 && !GeneralPunctuationAt(text, i))) {
      word += lowercase && c >= 'A' && c <= 'Z'
                  ? static_cast<char>(c - 'A' + 'a')
                  : static_cast<char>(c);
      continue;
    }
    if (c >= 0x80) i += 2;  // the rest of a punctuation character
    if (!word.empty()) words.push_back(std::move(word));
    word.clear();
  }
  if (!word.empty()) words.push_back(std::move(word));
  return words;
}

std::string LabelName(int32_t label, const std::vector<std::string>& names) {
  return label >= 0 && label < static_cast<int32_t>(names.size())
             ? names[label]
             : absl::StrCat(label);
}

bool IsWhWord(absl::string_view word) {
  for (const char* wh : {"what", "who", "whom", "whose", "which", "when",
                         "where", "why", "how"}) {
    if (word == wh) return true;
  }
  return false;
}

// Whether a doc token ends a sentence or clause: its last character that
// is not a closing quote is one of . ! ? : ;
bool EndsSentence(absl::string_view token) {
  size_t end = token.size();
  while (end > 0) {
    const char c = token[end - 1];
    if (c == '"' || c == '\'' || c == ')') {
      --end;
    } else if (end >= 3 && GeneralPunctuationAt(token, end - 3)) {
      end -= 3;
    } else {
      break;
    }
  }
  return end > 0 && absl::string_view(".!?:;").find(token[end - 1]) !=
                        absl::string_view::npos;
}

}  // namespace

std::vector<std::string> BaselineWords(absl::string_view text) {
  return Words(text, /*lowercase=*/true);
}

double WordOverlap(absl::string_view text_a, absl::string_view text_b) {
  const std::vector<std::string> a_words = BaselineWords(text_a);
  const std::vector<std::string> b_words = BaselineWords(text_b);
  const std::set<std::string> a(a_words.begin(), a_words.end());
  const std::set<std::string> b(b_words.begin(), b_words.end());
  size_t both = 0;
  for (const std::string& word : a) both += b.count(word);
  const size_t either = a.size() + b.size() - both;
  return either == 0 ? 0.0
                     : static_cast<double>(both) / static_cast<double>(either);
}

int32_t WordOverlapClassifier::Predict(absl::string_view text_a,
                                       absl::string_view text_b) const {
  return WordOverlap(text_a, text_b) >= threshold ? at_or_above : below;
}

absl::StatusOr<WordOverlapClassifier> FitWordOverlap(
    const std::vector<LabelledPair>& train,
    const std::vector<std::string>& label_names) {
  if (train.empty()) {
    return absl::InvalidArgumentError(
        "no training example to fit the word-overlap baseline on");
  }
  std::vector<std::pair<double, int32_t>> points;  // (overlap, label)
  std::map<int32_t, int64_t> total;
  for (const LabelledPair& pair : train) {
    if (pair.label < 0 ||
        (!label_names.empty() &&
         pair.label >= static_cast<int32_t>(label_names.size()))) {
      return absl::InvalidArgumentError(
          absl::StrCat("label ", pair.label, " is outside the task's ",
                       label_names.size(), " classes"));
    }
    points.push_back({WordOverlap(pair.text_a, pair.text_b), pair.label});
    ++total[pair.label];
  }
  std::sort(points.begin(), points.end());
  std::vector<int32_t> labels;
  for (const auto& [label, count] : total) labels.push_back(label);

  WordOverlapClassifier best;
  int64_t best_right = -1;
  std::map<int32_t, int64_t> below;  // labels of the points below threshold
  size_t next = 0;
  while (true) {
    // Below every point, midway between two distinct neighbours, or above
    // every point (overlaps lie in [0, 1]).
    const double threshold =
        next == 0 ? -1.0
        : next == points.size()
            ? 2.0
            : (points[next - 1].first + points[next].first) / 2;
    for (int32_t high : labels) {
      for (int32_t low : labels) {
        const int64_t right = total[high] - below[high] + below[low];
        if (right > best_right) {
          best_right = right;
          best.threshold = threshold;
          best.at_or_above = high;
          best.below = low;
        }
      }
    }
    if (next == points.size()) break;
    const double value = points[next].first;
    while (next < points.size() && points[next].first == value) {
      ++below[points[next].second];
      ++next;
    }
  }
  best.predictor = absl::StrFormat(
      "word overlap (Jaccard of word sets) >= %.4g: %s, else %s (fitted on "
      "train: %d of %d right)",
      best.threshold, LabelName(best.at_or_above, label_names),
      LabelName(best.below, label_names), best_right, points.size());
  return best;
}

std::string AlignSpan(absl::string_view question,
                      const std::vector<std::string>& doc_tokens) {
  const std::vector<std::string> words = BaselineWords(question);
  size_t wh = words.size();
  for (size_t i = 0; i < words.size(); ++i) {
    if (IsWhWord(words[i])) {
      wh = i;
      break;
    }
  }
  const std::vector<std::string> before(words.begin(), words.begin() + wh);
  const std::vector<std::string> after(
      words.begin() + std::min(wh + 1, words.size()), words.end());
  // The context as words, each with the doc token it came from.
  std::vector<std::string> context;
  std::vector<size_t> token_of;
  for (size_t t = 0; t < doc_tokens.size(); ++t) {
    for (std::string& word : BaselineWords(doc_tokens[t])) {
      context.push_back(std::move(word));
      token_of.push_back(t);
    }
  }
  const size_t n = context.size();
  // back[i]: words of `before` matched reading left from context[i - 1];
  // forth[j]: words of `after` matched reading right from context[j].
  std::vector<int> back(n + 1, 0), forth(n + 1, 0);
  for (size_t i = 0; i <= n; ++i) {
    int m = 0;
    while (m < static_cast<int>(before.size()) && m < static_cast<int>(i) &&
           context[i - 1 - m] == before[before.size() - 1 - m]) {
      ++m;
    }
    back[i] = m;
    m = 0;
    while (m < static_cast<int>(after.size()) && i + m < n &&
           context[i + m] == after[m]) {
      ++m;
    }
    forth[i] = m;
  }
  int best_score = 0;
  size_t best_begin = 0, best_end = 0;
  for (size_t length = 1; length <= kMaxAlignedSpanWords; ++length) {
    for (size_t begin = 0; begin + length <= n; ++begin) {
      const int score = back[begin] + forth[begin + length];
      if (score > best_score) {
        best_score = score;
        best_begin = begin;
        best_end = begin + length;
      }
    }
  }
  if (best_score == 0) return "";
  std::vector<absl::string_view> tokens;
  for (size_t t = token_of[best_begin]; t <= token_of[best_end - 1]; ++t) {
    tokens.push_back(doc_tokens[t]);
  }
  return absl::StrJoin(tokens, " ");
}

std::string FrequentName(absl::string_view question,
                         const std::vector<std::string>& doc_tokens) {
  const std::vector<std::string> question_words = BaselineWords(question);
  const std::set<std::string> asked(question_words.begin(),
                                    question_words.end());
  std::map<std::string, int> counts;
  std::vector<std::string> order;  // first occurrences
  for (size_t t = 1; t < doc_tokens.size(); ++t) {
    if (EndsSentence(doc_tokens[t - 1])) continue;
    for (const std::string& word : Words(doc_tokens[t], false)) {
      if (word[0] < 'A' || word[0] > 'Z') continue;
      if (asked.count(BaselineWords(word).front()) > 0) continue;
      if (counts[word]++ == 0) order.push_back(word);
    }
  }
  std::string best;
  int best_count = 0;
  for (const std::string& word : order) {
    if (counts[word] > best_count) {
      best_count = counts[word];
      best = word;
    }
  }
  return best;
}

}  // namespace bertlab
