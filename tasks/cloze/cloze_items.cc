#include "tasks/cloze/cloze_items.h"

#include <algorithm>
#include <set>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "common/split_mix.h"
#include "common/status_macros.h"

namespace bertlab {
namespace {

bool AsciiLetters(const std::string& word, size_t min_length) {
  if (word.size() < min_length) return false;
  return std::all_of(word.begin(), word.end(),
                     [](char c) { return c >= 'a' && c <= 'z'; });
}

// Uniform in [0, n): the `draw`-th draw for sentence `sentence`.
int64_t Draw(uint64_t seed, int64_t sentence, uint64_t draw, int64_t n) {
  const uint64_t bits =
      SplitMix64(seed ^ SplitMix64(static_cast<uint64_t>(sentence) ^
                                   SplitMix64(draw + 0x636c6f7a65ULL)));
  return static_cast<int64_t>(
      (static_cast<unsigned __int128>(bits) * static_cast<uint64_t>(n)) >> 64);
}

absl::Status AtLeast(const char* field, int64_t value, int64_t minimum) {
  if (value >= minimum) return absl::OkStatus();
  return absl::InvalidArgumentError(absl::StrCat(
      "ClozeOptions.", field, " = ", value, "; it must be at least ", minimum));
}

absl::Status CheckOptions(const ClozeOptions& options) {
  RETURN_IF_ERROR(AtLeast("candidates", options.candidates, 2));
  RETURN_IF_ERROR(AtLeast("band", options.band, 1));
  RETURN_IF_ERROR(AtLeast("min_count", options.min_count, 1));
  RETURN_IF_ERROR(AtLeast("skip_most_frequent", options.skip_most_frequent, 0));
  RETURN_IF_ERROR(AtLeast("max_pieces", options.max_pieces, 1));
  return AtLeast("max_items", options.max_items, 0);
}

}  // namespace

void CountClozeWords(absl::string_view sentence, const FullTokenizer& tokenizer,
                     std::map<std::string, int64_t>* counts) {
  tokenizer.basic_tokenizer().ForEachToken(
      sentence,
      [&](absl::string_view word) { ++(*counts)[std::string(word)]; });
}

absl::StatusOr<std::vector<ClozeItem>> BuildClozeItems(
    const std::vector<std::string>& sentences, const FullTokenizer& tokenizer,
    const std::map<std::string, int64_t>& counts, const ClozeOptions& options) {
  RETURN_IF_ERROR(CheckOptions(options));
  // The eligible words by frequency, most frequent first (ties: by word),
  // minus the most frequent ones.
  std::vector<std::pair<int64_t, std::string>> ranked;
  for (const auto& [word, count] : counts) {
    if (count >= options.min_count && AsciiLetters(word, 3) &&
        tokenizer.vocab().Contains(word)) {
      ranked.push_back({-count, word});
    }
  }
  std::sort(ranked.begin(), ranked.end());
  const size_t skip =
      std::min(ranked.size(), static_cast<size_t>(options.skip_most_frequent));
  ranked.erase(ranked.begin(), ranked.begin() + skip);
  std::map<std::string, int64_t> rank;
  for (size_t r = 0; r < ranked.size(); ++r) rank[ranked[r].second] = r;

  std::vector<ClozeItem> items;
  for (size_t s = 0; s < sentences.size(); ++s) {
    if (options.max_items > 0 &&
        static_cast<int64_t>(items.size()) >= options.max_items) {
      break;
    }
    const std::vector<std::string> words =
        tokenizer.basic_tokenizer().Tokenize(sentences[s]);
    std::vector<std::vector<int>> pieces(words.size());
    size_t total = 0;
    std::vector<size_t> eligible;
    for (size_t w = 0; w < words.size(); ++w) {
      tokenizer.wordpiece_tokenizer().TokenizeWordToIds(words[w], &pieces[w]);
      total += pieces[w].size();
      if (w > 0 && rank.count(words[w]) > 0) eligible.push_back(w);
    }
    if (eligible.empty() || total > static_cast<size_t>(options.max_pieces)) {
      continue;
    }
    const int64_t index = static_cast<int64_t>(s);
    const size_t target =
        eligible[Draw(options.seed, index, 0, eligible.size())];
    const int64_t answer_rank = rank.at(words[target]);
    const std::set<std::string> in_sentence(words.begin(), words.end());
    std::vector<std::string> pool;
    const int64_t low = std::max<int64_t>(0, answer_rank - options.band);
    const int64_t high = std::min<int64_t>(
        static_cast<int64_t>(ranked.size()) - 1, answer_rank + options.band);
    for (int64_t r = low; r <= high; ++r) {
      if (in_sentence.count(ranked[r].second) == 0) {
        pool.push_back(ranked[r].second);
      }
    }
    if (static_cast<int>(pool.size()) < options.candidates - 1) continue;
    ClozeItem item;
    item.id = absl::StrCat("cloze-", s);
    for (size_t w = 0; w < words.size(); ++w) {
      if (w == target) continue;
      std::vector<int>& side = w < target ? item.left : item.right;
      side.insert(side.end(), pieces[w].begin(), pieces[w].end());
    }
    std::vector<std::string> chosen = {words[target]};
    for (int k = 1; k < options.candidates; ++k) {
      const int64_t pick =
          k - 1 + Draw(options.seed, index, k, pool.size() - (k - 1));
      std::swap(pool[k - 1], pool[pick]);
      chosen.push_back(pool[k - 1]);
    }
    // The answer's place among the candidates.
    item.answer = static_cast<int>(
        Draw(options.seed, index, options.candidates, options.candidates));
    std::swap(chosen[0], chosen[item.answer]);
    for (const std::string& word : chosen) {
      item.candidates.push_back(*tokenizer.vocab().TokenToId(word));
    }
    items.push_back(std::move(item));
  }
  if (items.empty()) {
    return absl::FailedPreconditionError(absl::StrCat(
        "no cloze item in ", sentences.size(),
        " sentences: none has a word that is one word piece, seen at least ",
        options.min_count, " times and not among the ",
        options.skip_most_frequent, " most frequent, with ",
        options.candidates - 1, " distractors in its frequency band"));
  }
  return items;
}

}  // namespace bertlab
