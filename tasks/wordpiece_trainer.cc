#include "tasks/wordpiece_trainer.h"

#include <algorithm>
#include <cstddef>
#include <memory>
#include <set>
#include <utility>

#include "absl/container/btree_set.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "common/check.h"
#include "common/status_macros.h"

namespace bertlab {
namespace {

constexpr int kReleasedUnusedBeforeUnknown = 99;  // [unused0..98]

bool IsUtf8Continuation(char byte) {
  return (static_cast<unsigned char>(byte) & 0xC0) == 0x80;
}

int64_t CountCodePoints(absl::string_view text) {
  int64_t count = 0;
  for (char byte : text) count += IsUtf8Continuation(byte) ? 0 : 1;
  return count;
}

// Calls `emit` with each character of `word` (valid UTF-8) as its bytes.
template <typename Emit>
void ForEachCharacter(absl::string_view word, Emit emit) {
  size_t begin = 0;
  while (begin < word.size()) {
    size_t end = begin + 1;
    while (end < word.size() && IsUtf8Continuation(word[end])) ++end;
    emit(word.substr(begin, end - begin));
    begin = end;
  }
}

using PairKey = uint64_t;

PairKey MakePairKey(int32_t left, int32_t right) {
  return (static_cast<uint64_t>(static_cast<uint32_t>(left)) << 32) |
         static_cast<uint32_t>(right);
}
int32_t PairLeft(PairKey key) { return static_cast<int32_t>(key >> 32); }
int32_t PairRight(PairKey key) {
  return static_cast<int32_t>(key & 0xFFFFFFFFu);
}

// A pair as ranked: its score's numerator and denominator factors when it
// entered the ranking.
struct Candidate {
  int64_t pair_count;
  int64_t left_count;
  int64_t right_count;
  int32_t left;
  int32_t right;
};

// Orders candidates best first: higher score, then the lexicographically
// smaller pair. Likelihood scores are compared exactly as rationals, by
// cross products (at most 3 * 63 bits: 10^18 occurrences would still fit in
// 128 bits).
class BestFirst {
 public:
  BestFirst(MergeCriterion criterion, const std::vector<std::string>* tokens)
      : criterion_(criterion), tokens_(tokens) {}

  bool operator()(const Candidate& x, const Candidate& y) const {
    if (criterion_ == MergeCriterion::kPairFrequency) {
      if (x.pair_count != y.pair_count) return x.pair_count > y.pair_count;
    } else {
      using Wide = unsigned __int128;
      const Wide x_score = static_cast<Wide>(x.pair_count) *
                           static_cast<Wide>(y.left_count) *
                           static_cast<Wide>(y.right_count);
      const Wide y_score = static_cast<Wide>(y.pair_count) *
                           static_cast<Wide>(x.left_count) *
                           static_cast<Wide>(x.right_count);
      if (x_score != y_score) return x_score > y_score;
    }
    // Token ids and strings correspond one to one.
    if (x.left != y.left) return (*tokens_)[x.left] < (*tokens_)[y.left];
    return (*tokens_)[x.right] < (*tokens_)[y.right];
  }

 private:
  MergeCriterion criterion_;
  const std::vector<std::string>* tokens_;
};

struct Word {
  std::vector<int32_t> symbols;  // token ids, the current segmentation
  int64_t count;
};

struct PairState {
  int64_t count = 0;
  // Words that contain or once contained the pair (possibly repeated):
  // checked again when the pair is merged.
  std::vector<int32_t> words;
  Candidate ranked{};  // its key in the ranking
};

// The merge loop over a fixed set of words; tokens_ holds the layout and
// alphabet on entry, the whole vocabulary on exit.
class Merger {
 public:
  Merger(MergeCriterion criterion, std::vector<std::string> tokens,
         std::vector<Word> words, size_t prefix_bytes)
      : criterion_(criterion),
        tokens_(std::move(tokens)),
        words_(std::move(words)),
        prefix_bytes_(prefix_bytes),
        ranking_(BestFirst(criterion, &tokens_)) {
    token_counts_.assign(tokens_.size(), 0);
    pairs_of_token_.resize(tokens_.size());
    for (size_t id = 0; id < tokens_.size(); ++id) {
      ids_.emplace(tokens_[id], static_cast<int32_t>(id));
    }
  }

  // ranking_ points into tokens_.
  Merger(const Merger&) = delete;
  Merger& operator=(const Merger&) = delete;

  // Counts the initial segmentation; words_ must hold their symbols.
  void Start() {
    for (size_t w = 0; w < words_.size(); ++w) {
      const Word& word = words_[w];
      for (size_t i = 0; i < word.symbols.size(); ++i) {
        token_counts_[word.symbols[i]] += word.count;
        if (i + 1 < word.symbols.size()) {
          PairState& pair = AddToPair(
              MakePairKey(word.symbols[i], word.symbols[i + 1]), word.count);
          if (pair.words.empty() ||
              pair.words.back() != static_cast<int32_t>(w)) {
            pair.words.push_back(static_cast<int32_t>(w));
          }
        }
      }
    }
    for (auto& [key, pair] : pairs_) Rank(key, &pair);
  }

  // Merges best pairs until the vocabulary has `size` entries; false when
  // no pair is left first.
  bool GrowTo(size_t size, int64_t* merges) {
    while (tokens_.size() < size) {
      if (ranking_.empty()) return false;
      MergeBest();
      ++*merges;
    }
    return true;
  }

  std::vector<std::string> TakeTokens() { return std::move(tokens_); }

 private:
  PairState& AddToPair(PairKey key, int64_t delta) {
    PairState& pair = pairs_[key];
    if (pair.count == 0 && delta > 0) {
      pairs_of_token_[PairLeft(key)].insert(key);
      pairs_of_token_[PairRight(key)].insert(key);
    }
    pair.count += delta;
    CHECK_GE(pair.count, 0);
    return pair;
  }

  void Rank(PairKey key, PairState* pair) {
    const int32_t left = PairLeft(key);
    const int32_t right = PairRight(key);
    pair->ranked = Candidate{pair->count, token_counts_[left],
                             token_counts_[right], left, right};
    ranking_.insert(pair->ranked);
  }

  void MergeBest() {
    const Candidate best = *ranking_.begin();
    const int32_t left = best.left;
    const int32_t right = best.right;
    const PairKey best_key = MakePairKey(left, right);
    std::string merged_token = tokens_[left];
    merged_token.append(tokens_[right], prefix_bytes_);
    int32_t merged;
    if (const auto it = ids_.find(merged_token); it != ids_.end()) {
      merged = it->second;  // made before from another pair
    } else {
      merged = static_cast<int32_t>(tokens_.size());
      ids_.emplace(merged_token, merged);
      tokens_.push_back(std::move(merged_token));
      token_counts_.push_back(0);
      pairs_of_token_.emplace_back();
    }

    std::vector<int32_t> word_ids = std::move(pairs_[best_key].words);
    std::sort(word_ids.begin(), word_ids.end());
    word_ids.erase(std::unique(word_ids.begin(), word_ids.end()),
                   word_ids.end());

    // The new segmentation of each word that holds the pair, as changes of
    // pair counts; the words a pair with the merged token appears in.
    absl::flat_hash_map<PairKey, int64_t> deltas;
    absl::flat_hash_map<PairKey, std::vector<int32_t>> new_pair_words;
    int64_t merged_occurrences = 0;
    std::vector<int32_t> symbols;
    for (int32_t w : word_ids) {
      Word& word = words_[w];
      const std::vector<int32_t>& old_symbols = word.symbols;
      symbols.clear();
      int64_t merges_here = 0;
      for (size_t i = 0; i < old_symbols.size(); ++i) {
        if (i + 1 < old_symbols.size() && old_symbols[i] == left &&
            old_symbols[i + 1] == right) {
          symbols.push_back(merged);
          ++merges_here;
          ++i;
        } else {
          symbols.push_back(old_symbols[i]);
        }
      }
      if (merges_here == 0) continue;  // a stale entry of pair.words
      for (size_t i = 0; i + 1 < old_symbols.size(); ++i) {
        deltas[MakePairKey(old_symbols[i], old_symbols[i + 1])] -= word.count;
      }
      for (size_t i = 0; i + 1 < symbols.size(); ++i) {
        const PairKey key = MakePairKey(symbols[i], symbols[i + 1]);
        deltas[key] += word.count;
        // Only pairs with the merged token are new to this word.
        if (symbols[i] == merged || symbols[i + 1] == merged) {
          std::vector<int32_t>& list = new_pair_words[key];
          if (list.empty() || list.back() != w) list.push_back(w);
        }
      }
      merged_occurrences += merges_here * word.count;
      word.symbols.swap(symbols);
    }

    // Every pair whose rank changes: those whose count changes, and for the
    // likelihood score those with a token whose count changes (left, right;
    // the merged token's pairs are in deltas).
    absl::flat_hash_set<PairKey> changed;
    for (const auto& [key, delta] : deltas) changed.insert(key);
    if (criterion_ == MergeCriterion::kLikelihoodScore) {
      for (int32_t token : {left, right}) {
        for (PairKey key : pairs_of_token_[token]) changed.insert(key);
      }
    }
    for (PairKey key : changed) {
      const auto it = pairs_.find(key);
      if (it != pairs_.end() && it->second.count > 0) {
        ranking_.erase(it->second.ranked);
      }
    }
    token_counts_[left] -= merged_occurrences;
    token_counts_[right] -= merged_occurrences;
    token_counts_[merged] += merged_occurrences;
    CHECK(token_counts_[left] >= 0 && token_counts_[right] >= 0);
    for (const auto& [key, delta] : deltas) {
      PairState& pair = AddToPair(key, delta);
      if (auto it = new_pair_words.find(key); it != new_pair_words.end()) {
        pair.words.insert(pair.words.end(), it->second.begin(),
                          it->second.end());
      }
    }
    for (PairKey key : changed) {
      const auto it = pairs_.find(key);
      if (it == pairs_.end()) continue;
      if (it->second.count > 0) {
        Rank(key, &it->second);
      } else {
        pairs_of_token_[PairLeft(key)].erase(key);
        pairs_of_token_[PairRight(key)].erase(key);
        pairs_.erase(it);
      }
    }
    CHECK(pairs_.find(best_key) == pairs_.end())
        << "the merged pair is left in some word";
  }

  MergeCriterion criterion_;
  std::vector<std::string> tokens_;
  absl::flat_hash_map<std::string, int32_t> ids_;
  std::vector<int64_t> token_counts_;
  std::vector<Word> words_;
  size_t prefix_bytes_;
  absl::flat_hash_map<PairKey, PairState> pairs_;
  // The pairs (with a count) each token is part of, to re-rank them when the
  // token's count changes.
  std::vector<absl::flat_hash_set<PairKey>> pairs_of_token_;
  absl::btree_set<Candidate, BestFirst> ranking_;
};

}  // namespace

absl::StatusOr<WordPieceTrainer> WordPieceTrainer::Create(
    WordPieceTrainerOptions options) {
  if (options.vocab_size < 1) {
    return absl::InvalidArgumentError(
        absl::StrCat("vocab_size must be positive, got ", options.vocab_size));
  }
  if (options.num_unused < 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        "num_unused must not be negative, got ", options.num_unused));
  }
  if (options.layout == SpecialTokenLayout::kReleased &&
      options.num_unused < kReleasedUnusedBeforeUnknown) {
    return absl::InvalidArgumentError(absl::StrCat(
        "the released layout puts [unused0..98] before [UNK]: num_unused must "
        "be at least ",
        kReleasedUnusedBeforeUnknown, " (994 in bert-base-uncased), got ",
        options.num_unused));
  }
  const WordPieceOptions& wordpiece = options.tokenizer.wordpiece;
  if (wordpiece.unknown_token != "[UNK]") {
    return absl::InvalidArgumentError(
        absl::StrCat("the unknown token must be [UNK] (the vocabulary's), got ",
                     wordpiece.unknown_token));
  }
  if (wordpiece.continuation_prefix.empty()) {
    return absl::InvalidArgumentError(
        "continuation_prefix must not be empty: it tells \"##a\" from \"a\"");
  }
  if (options.max_line_bytes < 1) {
    return absl::InvalidArgumentError(absl::StrCat(
        "max_line_bytes must be positive, got ", options.max_line_bytes));
  }
  if (wordpiece.max_input_chars_per_word < 1) {
    return absl::InvalidArgumentError(
        absl::StrCat("max_input_chars_per_word must be at least 1, got ",
                     wordpiece.max_input_chars_per_word));
  }
  return WordPieceTrainer(std::move(options));
}

WordPieceTrainer::WordPieceTrainer(WordPieceTrainerOptions options)
    : options_(std::move(options)), basic_(options_.tokenizer.basic) {}

void WordPieceTrainer::AddLine(absl::string_view line) {
  ++stats_.lines;
  const auto& never_split = options_.tokenizer.basic.never_split;
  const int64_t max_chars =
      options_.tokenizer.wordpiece.max_input_chars_per_word;
  basic_.ForEachToken(line, [&](absl::string_view word) {
    if (CountCodePoints(word) > max_chars) {
      ++stats_.long_words;
      return;
    }
    if (std::find(never_split.begin(), never_split.end(), word) !=
        never_split.end()) {
      return;
    }
    ++stats_.words;
    if (auto it = word_counts_.find(word); it != word_counts_.end()) {
      ++it->second;
    } else {
      word_counts_.emplace(word, 1);
    }
  });
  stats_.distinct_words = static_cast<int64_t>(word_counts_.size());
}

absl::Status WordPieceTrainer::AddFile(const std::string& path) {
  ASSIGN_OR_RETURN(std::unique_ptr<LineReader> lines,
                   LineReader::Open(path, options_.max_line_bytes));
  std::string line;
  while (true) {
    ASSIGN_OR_RETURN(const bool more, lines->Next(&line));
    if (!more) return absl::OkStatus();
    AddLine(line);
  }
}

std::vector<std::string> WordPieceTrainer::LayoutTokens() const {
  const std::vector<std::string> specials = BertSpecialTokens();
  CHECK_EQ(specials.size(), 5u);  // [PAD] [UNK] [CLS] [SEP] [MASK]
  std::vector<std::string> tokens;
  int next_unused = 0;
  const auto add_unused = [&](int up_to) {
    for (; next_unused < up_to; ++next_unused) {
      tokens.push_back(absl::StrCat("[unused", next_unused, "]"));
    }
  };
  tokens.push_back(specials[0]);
  if (options_.layout == SpecialTokenLayout::kReleased) {
    add_unused(kReleasedUnusedBeforeUnknown);
  }
  tokens.insert(tokens.end(), specials.begin() + 1, specials.end());
  add_unused(options_.num_unused);
  return tokens;
}

absl::StatusOr<Vocab> WordPieceTrainer::Train() {
  if (word_counts_.empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat("the corpus has no words to train on (", stats_.lines,
                     " lines read, ", stats_.long_words, " words over ",
                     options_.tokenizer.wordpiece.max_input_chars_per_word,
                     " characters left out)"));
  }
  const std::string& prefix = options_.tokenizer.wordpiece.continuation_prefix;
  std::vector<std::pair<absl::string_view, int64_t>> sorted_words(
      word_counts_.begin(), word_counts_.end());
  std::sort(sorted_words.begin(), sorted_words.end());

  // UTF-8 byte order is code point order.
  std::set<std::string> characters;
  for (const auto& [word, count] : sorted_words) {
    ForEachCharacter(word, [&](absl::string_view c) { characters.emplace(c); });
  }
  stats_.characters = static_cast<int64_t>(characters.size());

  std::vector<std::string> tokens = LayoutTokens();
  const size_t layout_size = tokens.size();
  const size_t needed = layout_size + 2 * characters.size();
  if (static_cast<size_t>(options_.vocab_size) < needed) {
    return absl::InvalidArgumentError(absl::StrCat(
        "vocab_size ", options_.vocab_size, " is too small: ", layout_size,
        " special and unused tokens plus the alphabet of ",
        2 * characters.size(), " entries (", characters.size(),
        " characters, each alone and with \"", prefix, "\") need ", needed));
  }
  for (const std::string& c : characters) tokens.push_back(c);
  for (const std::string& c : characters) tokens.push_back(prefix + c);

  absl::flat_hash_map<std::string, int32_t> alphabet_ids;
  for (size_t id = layout_size; id < tokens.size(); ++id) {
    alphabet_ids.emplace(tokens[id], static_cast<int32_t>(id));
  }
  std::vector<Word> words;
  words.reserve(sorted_words.size());
  for (const auto& [word, count] : sorted_words) {
    Word& split = words.emplace_back();
    split.count = count;
    bool first = true;
    ForEachCharacter(word, [&](absl::string_view c) {
      split.symbols.push_back(
          alphabet_ids.at(first ? std::string(c) : absl::StrCat(prefix, c)));
      first = false;
    });
  }
  Merger merger(options_.criterion, std::move(tokens), std::move(words),
                prefix.size());
  merger.Start();
  stats_.merges = 0;
  if (!merger.GrowTo(static_cast<size_t>(options_.vocab_size),
                     &stats_.merges)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "vocab_size ", options_.vocab_size,
        " is more than the corpus can fill: after ", stats_.merges,
        " merges every one of its ", word_counts_.size(),
        " distinct words is a single token; use a smaller vocab_size or a "
        "larger corpus"));
  }
  std::vector<std::string> vocabulary = merger.TakeTokens();
  CHECK_EQ(vocabulary.size(), static_cast<size_t>(options_.vocab_size));
  return Vocab::FromTokens(std::move(vocabulary), "trained vocabulary");
}

}  // namespace bertlab
