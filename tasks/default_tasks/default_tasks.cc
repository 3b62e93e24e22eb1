#include "tasks/default_tasks/default_tasks.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <memory>
#include <system_error>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/string_view.h"
#include "common/check.h"
#include "common/file.h"
#include "common/fnv1a.h"
#include "common/philox.h"
#include "common/status_macros.h"
#include "nlohmann/json.hpp"
#include "tasks/corpus/reference_format_reader.h"
#include "tasks/swag/swag.h"
#include "tasks/utf8.h"

namespace bertlab {
namespace {

// Names the random streams: tensor_id = task << 8 | split.
enum class StreamTask : uint32_t {
  kSplit = 0,
  kPair = 1,
  kSpan = 2,
  kSwag = 3
};

// Sequential draws from one Philox stream.
class Draws {
 public:
  Draws(uint64_t seed, StreamTask task, DefaultTaskSplit split) {
    stream_.seed = seed;
    stream_.step = 0;
    stream_.tensor_id =
        static_cast<uint32_t>(task) << 8 | static_cast<uint32_t>(split);
  }
  uint32_t Bits() { return PhiloxBits(stream_, next_++); }
  // Uniform in [0, n) (Lemire's multiply-shift; the bias, below n / 2^32,
  // does not matter here).
  int64_t Below(int64_t n) {
    CHECK_GT(n, 0);
    CHECK_LE(n, int64_t{1} << 32);
    return static_cast<int64_t>(
        (static_cast<uint64_t>(Bits()) * static_cast<uint64_t>(n)) >> 32);
  }
  // Moves a uniform sample of `count` of *items to its front, in random order
  // (a partial Fisher-Yates shuffle).
  template <typename T>
  void SampleToFront(int64_t count, std::vector<T>* items) {
    const int64_t size = static_cast<int64_t>(items->size());
    CHECK_LE(count, size);
    for (int64_t i = 0; i < count; ++i) {
      std::swap((*items)[i], (*items)[i + Below(size - i)]);
    }
  }

 private:
  PhiloxStream stream_;
  uint64_t next_ = 0;
};

const char* SplitName(DefaultTaskSplit split) {
  switch (split) {
    case DefaultTaskSplit::kTrain:
      return "train";
    case DefaultTaskSplit::kDev:
      return "dev";
    case DefaultTaskSplit::kTest:
      return "test";
    case DefaultTaskSplit::kPretraining:
      return "pre-training";
  }
  return "?";
}

// Tabs and line breaks become spaces; ill-formed UTF-8 becomes U+FFFD.
std::string CleanSentence(absl::string_view sentence) {
  std::string text = IsValidUtf8(sentence)
                         ? std::string(sentence)
                         : EncodeUtf8(DecodeUtf8Lenient(sentence));
  for (char& c : text) {
    if (c == '\t' || c == '\r' || c == '\n') c = ' ';
  }
  return text;
}

// The cleaned corpus with global sentence numbers and each document's split.
struct Corpus {
  std::vector<std::vector<std::string>> documents;
  std::vector<int64_t> first_sentence;  // global number of sentence 0
  std::vector<DefaultTaskSplit> splits;

  std::vector<int64_t> DocumentsOf(DefaultTaskSplit split) const {
    std::vector<int64_t> found;
    for (size_t d = 0; d < documents.size(); ++d) {
      if (splits[d] == split && !documents[d].empty()) {
        found.push_back(static_cast<int64_t>(d));
      }
    }
    return found;
  }
  int64_t SentenceNumber(int64_t document, int64_t sentence) const {
    return first_sentence[document] + sentence;
  }
};

Corpus MakeCorpus(const std::vector<Document>& documents,
                  const DefaultTasksOptions& options) {
  Corpus corpus;
  int64_t next_sentence = 0;
  for (const Document& document : documents) {
    std::vector<std::string> sentences;
    sentences.reserve(document.sentences.size());
    for (const std::string& sentence : document.sentences) {
      sentences.push_back(CleanSentence(sentence));
    }
    corpus.first_sentence.push_back(next_sentence);
    next_sentence += static_cast<int64_t>(sentences.size());
    corpus.documents.push_back(std::move(sentences));
  }
  corpus.splits =
      AssignDocumentSplits(static_cast<int64_t>(documents.size()), options);
  return corpus;
}

// A sentence and the one after it in the same document.
struct Position {
  int64_t document = 0;
  int64_t sentence = 0;
};

std::vector<Position> NextSentenceCandidates(
    const Corpus& corpus, const std::vector<int64_t>& documents) {
  std::vector<Position> candidates;
  for (int64_t d : documents) {
    const int64_t size = static_cast<int64_t>(corpus.documents[d].size());
    for (int64_t s = 0; s + 1 < size; ++s) candidates.push_back({d, s});
  }
  return candidates;
}

absl::Status TooFew(absl::string_view task, DefaultTaskSplit split,
                    int64_t available, absl::string_view what, int wanted) {
  return absl::FailedPreconditionError(absl::StrCat(
      task, " ", SplitName(split), ": the split's documents hold ", available,
      " ", what, ", fewer than the ", wanted,
      " examples asked for; ask for fewer or give a larger corpus"));
}

// A random sentence of a document of `documents` other than `document`,
// whose text differs from every text in `avoid`.
absl::StatusOr<Position> RandomOtherSentence(
    const Corpus& corpus, const std::vector<int64_t>& documents,
    int64_t document, const std::vector<absl::string_view>& avoid,
    Draws* draws) {
  constexpr int kMaxTries = 1000;
  for (int attempt = 0; attempt < kMaxTries; ++attempt) {
    const int64_t d =
        documents[draws->Below(static_cast<int64_t>(documents.size()))];
    if (d == document) continue;
    const std::vector<std::string>& sentences = corpus.documents[d];
    const int64_t s = draws->Below(static_cast<int64_t>(sentences.size()));
    if (std::find(avoid.begin(), avoid.end(), sentences[s]) != avoid.end()) {
      continue;
    }
    return Position{d, s};
  }
  return absl::FailedPreconditionError(
      absl::StrCat("found no random sentence from another document in ",
                   kMaxTries, " tries; the split has too few documents"));
}

// ----------------------------------------------------------------- pair

struct PairRow {
  int label = 0;
  int64_t id1 = 0;
  int64_t id2 = 0;
  std::string text1;
  std::string text2;
};

// An opaque sentence id for the pair files: a hash of the seed and the
// global sentence number, so that ids say nothing of order (consecutive ids
// would give the label away).
int64_t OpaqueSentenceId(uint64_t seed, int64_t sentence_number) {
  constexpr int64_t kIdRange = 1000000000;
  const uint64_t hash = Fnv1a64(absl::StrCat(sentence_number),
                                Fnv1a64(absl::StrCat("pair id ", seed, ":")));
  return static_cast<int64_t>(hash % kIdRange);
}

absl::StatusOr<std::vector<PairRow>> MakePairRows(const Corpus& corpus,
                                                  DefaultTaskSplit split,
                                                  int count, uint64_t seed) {
  const std::vector<int64_t> documents = corpus.DocumentsOf(split);
  std::vector<Position> candidates;
  // Two sentences whose order can be told: their texts differ.
  for (const Position& position : NextSentenceCandidates(corpus, documents)) {
    const std::vector<std::string>& sentences =
        corpus.documents[position.document];
    if (sentences[position.sentence] != sentences[position.sentence + 1]) {
      candidates.push_back(position);
    }
  }
  if (static_cast<int64_t>(candidates.size()) < count) {
    return TooFew("pair", split, static_cast<int64_t>(candidates.size()),
                  "pairs of distinct consecutive sentences", count);
  }
  Draws draws(seed, StreamTask::kPair, split);
  draws.SampleToFront(count, &candidates);
  std::vector<PairRow> rows;
  rows.reserve(count);
  for (int i = 0; i < count; ++i) {
    const Position first = candidates[i];
    const std::vector<std::string>& sentences =
        corpus.documents[first.document];
    int64_t a = first.sentence, b = first.sentence + 1;
    PairRow row;
    row.label = draws.Below(2) == 0 ? 1 : 0;
    if (row.label == 0) std::swap(a, b);
    row.id1 = OpaqueSentenceId(seed, corpus.SentenceNumber(first.document, a));
    row.id2 = OpaqueSentenceId(seed, corpus.SentenceNumber(first.document, b));
    row.text1 = sentences[a];
    row.text2 = sentences[b];
    rows.push_back(std::move(row));
  }
  return rows;
}

std::string FormatPairTsv(const std::vector<PairRow>& rows, bool labelled) {
  std::string out = absl::StrCat(labelled ? "Quality" : "index",
                                 "\t#1 ID\t#2 ID\t#1 String\t#2 String\n");
  for (size_t i = 0; i < rows.size(); ++i) {
    const PairRow& row = rows[i];
    absl::StrAppend(&out, labelled ? row.label : static_cast<int64_t>(i), "\t",
                    row.id1, "\t", row.id2, "\t", row.text1, "\t", row.text2,
                    "\n");
  }
  return out;
}

std::string FormatPairTestLabels(const std::vector<PairRow>& rows) {
  std::string out = "index\tQuality\n";
  for (size_t i = 0; i < rows.size(); ++i) {
    absl::StrAppend(&out, i, "\t", rows[i].label, "\n");
  }
  return out;
}

// ----------------------------------------------------------------- span

// A byte range [begin, end) of a sentence.
struct Span {
  size_t begin = 0;
  size_t end = 0;
};

struct Word {
  size_t begin = 0;
  size_t end = 0;       // end of the word (before the space)
  size_t core_end = 0;  // end without trailing punctuation and "'s"
};

std::vector<Word> SplitWords(absl::string_view sentence) {
  std::vector<Word> words;
  size_t i = 0;
  while (i < sentence.size()) {
    while (i < sentence.size() && sentence[i] == ' ') ++i;
    if (i >= sentence.size()) break;
    Word word;
    word.begin = i;
    while (i < sentence.size() && sentence[i] != ' ') ++i;
    word.end = i;
    // Trailing punctuation, ASCII or the curly quotes ’ ” (E2 80 99/9D).
    size_t core_end = word.end;
    while (core_end > word.begin) {
      const char c = sentence[core_end - 1];
      if (absl::string_view(".,;:!?\"')").find(c) != absl::string_view::npos) {
        --core_end;
      } else if (core_end - word.begin >= 3 &&
                 sentence.substr(core_end - 3, 2) == "\xE2\x80" &&
                 (sentence[core_end - 1] == '\x99' ||
                  sentence[core_end - 1] == '\x9D')) {
        core_end -= 3;
      } else {
        break;
      }
    }
    // Possessive 's / ’s.
    const absl::string_view core =
        sentence.substr(word.begin, core_end - word.begin);
    if (core.size() > 2 && core.substr(core.size() - 2) == "'s") {
      core_end -= 2;
    } else if (core.size() > 4 &&
               core.substr(core.size() - 4) == "\xE2\x80\x99s") {
      core_end -= 4;
    }
    word.core_end = core_end;
    words.push_back(word);
  }
  return words;
}

bool AllAsciiLetters(absl::string_view text) {
  for (char c : text) {
    if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'))) return false;
  }
  return !text.empty();
}

bool EndsClause(absl::string_view word) {
  // The last character that is not a closing quote.
  size_t end = word.size();
  while (end > 0) {
    if (word[end - 1] == '"' || word[end - 1] == '\'') {
      --end;
    } else if (end >= 3 && word.substr(end - 3, 2) == "\xE2\x80" &&
               (word[end - 1] == '\x99' || word[end - 1] == '\x9D')) {
      end -= 3;
    } else {
      break;
    }
  }
  return end > 0 && absl::string_view(".!?:;").find(word[end - 1]) !=
                        absl::string_view::npos;
}

// Runs of 1-3 capitalised words, none the first word of the sentence or of
// a clause (so the capital marks a name, not a sentence start).
std::vector<Span> NameSpans(absl::string_view sentence) {
  const std::vector<Word> words = SplitWords(sentence);
  auto is_name = [&](size_t j) {
    if (j == 0) return false;
    const Word& word = words[j];
    const absl::string_view core =
        sentence.substr(word.begin, word.core_end - word.begin);
    if (core.size() < 2 || !AllAsciiLetters(core)) return false;
    if (core[0] < 'A' || core[0] > 'Z') return false;
    const Word& previous = words[j - 1];
    return !EndsClause(
        sentence.substr(previous.begin, previous.end - previous.begin));
  };
  std::vector<Span> spans;
  size_t j = 0;
  while (j < words.size()) {
    if (!is_name(j)) {
      ++j;
      continue;
    }
    size_t last = j;
    // Extend while the word ends cleanly (no punctuation or possessive).
    while (last + 1 < words.size() && words[last].core_end == words[last].end &&
           is_name(last + 1)) {
      ++last;
    }
    if (last - j < 3) spans.push_back({words[j].begin, words[last].core_end});
    j = last + 1;
  }
  return spans;
}

// English function words of 5+ letters: asking for one is asking about
// grammar, which a next-sentence cloze should not (a fixed list, so the
// files stay a function of the corpus and the seed).
bool IsFunctionWord(absl::string_view word) {
  static const char* const kWords[] = {
      "about",      "above",  "after",     "again",   "against",  "among",
      "before",     "behind", "being",     "below",   "beside",   "between",
      "beyond",     "cannot", "could",     "every",   "herself",  "himself",
      "itself",     "might",  "myself",    "never",   "other",    "others",
      "ourselves",  "shall",  "should",    "since",   "their",    "theirs",
      "themselves", "there",  "therefore", "these",   "thing",    "things",
      "those",      "though", "through",   "toward",  "towards",  "under",
      "unless",     "until",  "where",     "whether", "which",    "while",
      "whose",      "within", "without",   "would",   "yourself", "yourselves"};
  for (const char* function_word : kWords) {
    if (word == function_word) return true;
  }
  return false;
}

// Lowercase words of 5+ letters that are not function words, not the first
// word.
std::vector<Span> ContentWordSpans(absl::string_view sentence) {
  const std::vector<Word> words = SplitWords(sentence);
  std::vector<Span> spans;
  for (size_t j = 1; j < words.size(); ++j) {
    const absl::string_view core =
        sentence.substr(words[j].begin, words[j].core_end - words[j].begin);
    if (core.size() >= 5 && AllAsciiLetters(core) && core[0] >= 'a' &&
        core[0] <= 'z' && !IsFunctionWord(core)) {
      spans.push_back({words[j].begin, words[j].core_end});
    }
  }
  return spans;
}

// The sentence with `span` replaced by "what" and its end punctuation (and
// closing quotes) by "?".
std::string ClozeQuestion(absl::string_view sentence, Span span) {
  std::string question = absl::StrCat(sentence.substr(0, span.begin), "what",
                                      sentence.substr(span.end));
  while (!question.empty()) {
    const char c = question.back();
    if (absl::string_view(" .,;:!?\"')").find(c) != absl::string_view::npos) {
      question.pop_back();
    } else if (question.size() >= 3 &&
               question.compare(question.size() - 3, 2, "\xE2\x80") == 0 &&
               (c == '\x99' || c == '\x9D')) {
      question.resize(question.size() - 3);
    } else {
      break;
    }
  }
  question += "?";
  return question;
}

int64_t CodePoints(absl::string_view text) {
  int64_t count = 0;
  for (char c : text) {
    if ((static_cast<unsigned char>(c) & 0xC0) != 0x80) ++count;
  }
  return count;
}

struct SpanQuestion {
  int64_t document = 0;
  int64_t first_sentence = 0;  // of the passage
  int64_t question_sentence = 0;
  std::string context;
  std::string question;
  std::string answer;
  int64_t answer_start = 0;  // code points
};

// Whether the character that starts at byte `at` of `text` is part of a
// word: an ASCII letter or digit, or a non-ASCII character other than the
// General Punctuation block (U+2000-U+206F: curly quotes, dashes), which is
// E2 80 xx or E2 81 xx in UTF-8.
bool WordCharAt(absl::string_view text, size_t at) {
  const unsigned char c = static_cast<unsigned char>(text[at]);
  if (c < 0x80) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
           (c >= '0' && c <= '9');
  }
  return !(c == 0xE2 && at + 1 < text.size() &&
           (static_cast<unsigned char>(text[at + 1]) == 0x80 ||
            static_cast<unsigned char>(text[at + 1]) == 0x81));
}

// Whether the character that ends just before byte `end` is part of a word.
bool WordCharBefore(absl::string_view text, size_t end) {
  size_t at = end - 1;
  while (at > 0 && (static_cast<unsigned char>(text[at]) & 0xC0) == 0x80) {
    --at;
  }
  return WordCharAt(text, at);
}

// The byte offset of the first occurrence of `word` in `text` as a whole
// word (no word character on either side), or npos.
size_t FindWholeWord(absl::string_view text, absl::string_view word) {
  for (size_t at = text.find(word); at != absl::string_view::npos;
       at = text.find(word, at + 1)) {
    const size_t end = at + word.size();
    if ((at == 0 || !WordCharBefore(text, at)) &&
        (end == text.size() || !WordCharAt(text, end))) {
      return at;
    }
  }
  return absl::string_view::npos;
}

// The spans of `sentence` that can be asked about given `context`: names
// (else content words) that occur in the context as whole words and only
// once in the sentence, so that the answer has to come from the context.
std::vector<Span> AskableSpans(absl::string_view sentence,
                               absl::string_view context) {
  for (const auto& spans_of : {NameSpans, ContentWordSpans}) {
    std::vector<Span> askable;
    for (const Span& span : spans_of(sentence)) {
      const absl::string_view text =
          sentence.substr(span.begin, span.end - span.begin);
      const size_t first = FindWholeWord(sentence, text);
      const bool once = first == span.begin &&
                        FindWholeWord(sentence.substr(span.end), text) ==
                            absl::string_view::npos;
      if (once && FindWholeWord(context, text) != absl::string_view::npos) {
        askable.push_back(span);
      }
    }
    if (!askable.empty()) return askable;
  }
  return {};
}

// Each question is a sentence that follows its context: the
// `passage_sentences` sentences before it in its chapter. One name (else
// content word) of it that the context also holds is replaced by "what";
// the answer is that word's first occurrence in the context.
absl::StatusOr<std::vector<SpanQuestion>> MakeSpanQuestions(
    const Corpus& corpus, DefaultTaskSplit split, int count,
    int passage_sentences, uint64_t seed) {
  std::vector<Position> candidates;  // question sentences
  for (int64_t d : corpus.DocumentsOf(split)) {
    const int64_t size = static_cast<int64_t>(corpus.documents[d].size());
    for (int64_t s = passage_sentences; s < size; ++s) {
      candidates.push_back({d, s});
    }
  }
  Draws draws(seed, StreamTask::kSpan, split);
  draws.SampleToFront(static_cast<int64_t>(candidates.size()), &candidates);
  std::vector<SpanQuestion> questions;
  for (const Position& candidate : candidates) {
    if (static_cast<int>(questions.size()) == count) break;
    const std::vector<std::string>& sentences =
        corpus.documents[candidate.document];
    const absl::string_view sentence = sentences[candidate.sentence];
    SpanQuestion question;
    question.document = candidate.document;
    question.first_sentence = candidate.sentence - passage_sentences;
    question.question_sentence = candidate.sentence;
    bool copied = false;  // the question's sentence is also in its context
    for (int64_t t = question.first_sentence; t < candidate.sentence; ++t) {
      if (t > question.first_sentence) question.context += " ";
      question.context += sentences[t];
      copied = copied || sentences[t] == sentence;
    }
    if (copied) continue;
    const std::vector<Span> spans = AskableSpans(sentence, question.context);
    if (spans.empty()) continue;
    const Span span = spans[draws.Below(static_cast<int64_t>(spans.size()))];
    question.answer =
        std::string(sentence.substr(span.begin, span.end - span.begin));
    const size_t at = FindWholeWord(question.context, question.answer);
    question.answer_start =
        CodePoints(absl::string_view(question.context).substr(0, at));
    question.question = ClozeQuestion(sentence, span);
    questions.push_back(std::move(question));
  }
  if (static_cast<int>(questions.size()) < count) {
    return TooFew("squad", split, static_cast<int64_t>(questions.size()),
                  "sentences with a word of their context to ask about", count);
  }
  // Grouped by document in corpus order, as the official files group
  // questions by article.
  std::sort(questions.begin(), questions.end(),
            [](const SpanQuestion& a, const SpanQuestion& b) {
              return std::make_pair(a.document, a.question_sentence) <
                     std::make_pair(b.document, b.question_sentence);
            });
  return questions;
}

std::string FormatSquadJson(const std::vector<SpanQuestion>& questions) {
  using Json = nlohmann::ordered_json;
  Json data = Json::array();
  for (size_t i = 0; i < questions.size();) {
    const int64_t document = questions[i].document;
    Json paragraphs = Json::array();
    for (; i < questions.size() && questions[i].document == document; ++i) {
      const SpanQuestion& question = questions[i];
      Json answer = {{"answer_start", question.answer_start},
                     {"text", question.answer}};
      Json qa = {{"answers", Json::array({answer})},
                 {"question", question.question},
                 {"id", absl::StrCat("web-", question.document, "-",
                                     question.question_sentence)}};
      paragraphs.push_back(
          {{"context", question.context}, {"qas", Json::array({qa})}});
    }
    data.push_back({{"title", absl::StrCat("WEB document ", document)},
                    {"paragraphs", std::move(paragraphs)}});
  }
  Json root = {{"data", std::move(data)}, {"version", "1.1"}};
  return root.dump() + "\n";
}

// ----------------------------------------------------------------- swag

absl::StatusOr<std::vector<SwagExample>> MakeSwagExamples(
    const Corpus& corpus, DefaultTaskSplit split, int count, uint64_t seed) {
  const std::vector<int64_t> documents = corpus.DocumentsOf(split);
  std::vector<Position> candidates = NextSentenceCandidates(corpus, documents);
  if (static_cast<int64_t>(candidates.size()) < count) {
    return TooFew("swag", split, static_cast<int64_t>(candidates.size()),
                  "sentences with a next sentence", count);
  }
  Draws draws(seed, StreamTask::kSwag, split);
  draws.SampleToFront(count, &candidates);
  std::vector<SwagExample> examples;
  examples.reserve(count);
  for (int i = 0; i < count; ++i) {
    const Position start = candidates[i];
    const std::vector<std::string>& sentences =
        corpus.documents[start.document];
    SwagExample example;
    example.row_index = absl::StrCat(i);
    example.video_id = absl::StrCat("web-", start.document);
    example.fold_ind =
        absl::StrCat(corpus.SentenceNumber(start.document, start.sentence));
    example.guid = example.fold_ind;
    example.sent1 = sentences[start.sentence];
    example.start_phrase = example.sent1;
    example.gold_source = "gold";
    example.label = static_cast<int32_t>(draws.Below(kSwagNumChoices));
    example.has_label = true;
    std::vector<absl::string_view> used = {sentences[start.sentence],
                                           sentences[start.sentence + 1]};
    example.endings[example.label] = sentences[start.sentence + 1];
    for (int choice = 0; choice < kSwagNumChoices; ++choice) {
      if (choice == example.label) continue;
      ASSIGN_OR_RETURN(
          const Position other,
          RandomOtherSentence(corpus, documents, start.document, used, &draws),
          _.Prepend("swag ", SplitName(split), ": "));
      example.endings[choice] =
          corpus.documents[other.document][other.sentence];
      used.push_back(corpus.documents[other.document][other.sentence]);
    }
    examples.push_back(std::move(example));
  }
  return examples;
}

// ----------------------------------------------------------------- READMEs

// `paragraph` (no line breaks) wrapped at 72 columns, ending with a blank
// line.
std::string Wrap(absl::string_view paragraph) {
  constexpr size_t kWidth = 72;
  std::string out;
  size_t line_length = 0;
  for (absl::string_view word :
       absl::StrSplit(paragraph, ' ', absl::SkipEmpty())) {
    if (line_length > 0 && line_length + 1 + word.size() > kWidth) {
      out += "\n";
      line_length = 0;
    } else if (line_length > 0) {
      out += " ";
      ++line_length;
    }
    absl::StrAppend(&out, word);
    line_length += word.size();
  }
  return out + "\n\n";
}

std::string CommonReadme(const DefaultTasksOptions& options) {
  return absl::StrCat(
      Wrap("These are DERIVED tasks made from the World English Bible "
           "(public domain; the embedded default corpus "
           "//tasks/corpus:default_corpus, one document per chapter) by "
           "bertlab's make_default_tasks (tasks/default_tasks/"
           "default_tasks.h). They are NOT the real GLUE, SQuAD or SWAG "
           "data: they only share those benchmarks' file formats, so the "
           "fine-tuning pipeline can run without the real data. Scores on "
           "them are not comparable to any published number."),
      Wrap(absl::StrCat(
          "Split: chapters in blocks of ", options.documents_per_block,
          " consecutive chapters, the blocks dealt by a seeded shuffle to "
          "dev (fraction ",
          options.dev_fraction, "), test (", options.test_fraction,
          "), train (", options.train_fraction,
          ") and pre-training (the rest). Every split's examples, random "
          "sentences included, come only from its own chapters, and "
          "bertlab's pre-training on the embedded corpus leaves out every "
          "chapter that shares a sentence of four or more words with a task "
          "chapter. Seed ",
          options.seed,
          "; the same corpus and options give byte-identical files.")));
}

std::string PairReadme(const DefaultTasksOptions& options) {
  return absl::StrCat(
      Wrap("WEB-ORDER: sentence-pair classification in the GLUE MRPC "
           "layout."),
      CommonReadme(options),
      Wrap("Two consecutive sentences of a chapter with different texts. "
           "Quality 1: in their order. Quality 0: swapped (#1 String is the "
           "later sentence). About half are 1 (a fair coin per example). "
           "Both classes hold the same words, so word overlap cannot tell "
           "them apart. #1 ID and #2 ID are opaque numbers (a hash of the "
           "seed and the sentence's position) that carry no order. Metrics "
           "as for MRPC: F1 of class 1, and accuracy."),
      Wrap(absl::StrCat(
          "Files: train.tsv (", options.pair_train_examples,
          " rows), dev.tsv (", options.pair_dev_examples, " rows), test.tsv (",
          options.pair_test_examples,
          " rows, unlabelled, with an index column as GLUE's test files) and "
          "test_labels.tsv (index, Quality: the test labels, which GLUE "
          "would keep private).")));
}

std::string SquadReadme(const DefaultTasksOptions& options) {
  return absl::StrCat(
      Wrap("WEB-NEXT-CLOZE: extractive question answering in the SQuAD "
           "v1.1 JSON layout, after the Children's Book Test."),
      CommonReadme(options),
      Wrap(absl::StrCat(
          "Context: ", options.span_passage_sentences,
          " consecutive sentences of a chapter joined by a space. Question: "
          "the sentence that follows them, with one word that the context "
          "also holds replaced by \"what\" and its end punctuation by "
          "\"?\". The word is a run of 1-3 capitalised words that does not "
          "start the sentence or a clause (a name) when the sentence has one "
          "that the context holds, else a lowercase word of 5 or more "
          "letters; it occurs once in the sentence. A sentence that repeats "
          "one of its context is never asked. Answer: the word's first "
          "occurrence in the context; answer_start counts Unicode code "
          "points, as in the official files. One question per sentence; "
          "ids are web-<chapter>-<sentence in chapter>; one article per "
          "chapter.")),
      Wrap(absl::StrCat("Files: train-v1.1.json (", options.span_train_examples,
                        " questions), dev-v1.1.json (",
                        options.span_dev_examples,
                        " questions). Score with SQuAD v1.1 EM and F1.")));
}

std::string SwagReadme(const DefaultTasksOptions& options) {
  return absl::StrCat(
      Wrap("WEB-SWAG: four-way next-sentence choice in the SWAG CSV "
           "layout."),
      CommonReadme(options),
      Wrap("startphrase = sent1 = a sentence; sent2 is empty. One of "
           "ending0..3 is the sentence that follows it in its chapter, the "
           "other three are random sentences of other chapters of the same "
           "split (four distinct texts); label is the true one's position, "
           "drawn uniformly. video-id is web-<chapter>, fold-ind the global "
           "sentence number of sent1, gold-source always \"gold\"."),
      Wrap(absl::StrCat("Files: train.csv (", options.swag_train_examples,
                        " rows), val.csv (", options.swag_val_examples,
                        " rows). Metric: accuracy.")));
}

std::string TopReadme(const DefaultTasksOptions& options) {
  return absl::StrCat(
      "bertlab's embedded default tasks\n\n", CommonReadme(options),
      "pair/   WEB-ORDER, GLUE MRPC layout (train.tsv, dev.tsv, test.tsv,\n"
      "        test_labels.tsv)\n"
      "squad/  WEB-NEXT-CLOZE, SQuAD v1.1 JSON (train-v1.1.json,\n"
      "        dev-v1.1.json)\n"
      "swag/   WEB-SWAG, SWAG CSV (train.csv, val.csv)\n\n"
      "Each directory's README.txt says how its task was made.\n");
}

}  // namespace

absl::Status ValidateDefaultTasksOptions(const DefaultTasksOptions& options) {
  if (options.documents_per_block < 1) {
    return absl::InvalidArgumentError(
        absl::StrCat("documents_per_block = ", options.documents_per_block,
                     "; it must be at least 1"));
  }
  const double fractions[] = {options.train_fraction, options.dev_fraction,
                              options.test_fraction};
  const char* fraction_names[] = {"train_fraction", "dev_fraction",
                                  "test_fraction"};
  for (int i = 0; i < 3; ++i) {
    if (!(fractions[i] > 0.0 && fractions[i] < 1.0)) {
      return absl::InvalidArgumentError(absl::StrCat(
          fraction_names[i], " = ", fractions[i], "; it must be in (0, 1)"));
    }
  }
  const double tasks =
      options.train_fraction + options.dev_fraction + options.test_fraction;
  if (!(tasks < 1.0)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "train_fraction + dev_fraction + test_fraction = ", tasks,
        "; it must be below 1, to leave documents for pre-training"));
  }
  const std::pair<const char*, int> counts[] = {
      {"pair_train_examples", options.pair_train_examples},
      {"pair_dev_examples", options.pair_dev_examples},
      {"pair_test_examples", options.pair_test_examples},
      {"span_train_examples", options.span_train_examples},
      {"span_dev_examples", options.span_dev_examples},
      {"swag_train_examples", options.swag_train_examples},
      {"swag_val_examples", options.swag_val_examples}};
  for (const auto& [name, count] : counts) {
    if (count < 1) {
      return absl::InvalidArgumentError(
          absl::StrCat(name, " = ", count, "; it must be at least 1"));
    }
  }
  if (options.span_passage_sentences < 2) {
    return absl::InvalidArgumentError(absl::StrCat(
        "span_passage_sentences = ", options.span_passage_sentences,
        "; it must be at least 2"));
  }
  return absl::OkStatus();
}

std::vector<DefaultTaskSplit> AssignDocumentSplits(
    int64_t num_documents, const DefaultTasksOptions& options) {
  CHECK_OK(ValidateDefaultTasksOptions(options));
  CHECK_GE(num_documents, 0);
  const int64_t per_block = options.documents_per_block;
  const int64_t num_blocks = (num_documents + per_block - 1) / per_block;
  auto blocks_for = [&](double fraction) {
    return std::max<int64_t>(
        1, static_cast<int64_t>(std::llround(fraction * num_blocks)));
  };
  const int64_t dev_blocks = blocks_for(options.dev_fraction);
  const int64_t test_blocks = blocks_for(options.test_fraction);
  const int64_t train_blocks = blocks_for(options.train_fraction);
  std::vector<int64_t> order(num_blocks);
  for (int64_t b = 0; b < num_blocks; ++b) order[b] = b;
  Draws draws(options.seed, StreamTask::kSplit, DefaultTaskSplit::kTrain);
  draws.SampleToFront(num_blocks, &order);
  std::vector<DefaultTaskSplit> block_split(num_blocks,
                                            DefaultTaskSplit::kPretraining);
  for (int64_t i = 0; i < num_blocks; ++i) {
    if (i < dev_blocks) {
      block_split[order[i]] = DefaultTaskSplit::kDev;
    } else if (i < dev_blocks + test_blocks) {
      block_split[order[i]] = DefaultTaskSplit::kTest;
    } else if (i < dev_blocks + test_blocks + train_blocks) {
      block_split[order[i]] = DefaultTaskSplit::kTrain;
    }
  }
  std::vector<DefaultTaskSplit> splits(num_documents);
  for (int64_t d = 0; d < num_documents; ++d) {
    splits[d] = block_split[d / per_block];
  }
  return splits;
}

ContaminationFilter DefaultTasksText(const std::vector<Document>& documents,
                                     const DefaultTasksOptions& options) {
  const std::vector<DefaultTaskSplit> splits =
      AssignDocumentSplits(static_cast<int64_t>(documents.size()), options);
  ContaminationFilter filter;
  for (size_t d = 0; d < documents.size(); ++d) {
    if (splits[d] == DefaultTaskSplit::kPretraining) continue;
    for (const std::string& sentence : documents[d].sentences) {
      filter.Add(sentence);  // as pre-training reads it
    }
  }
  return filter;
}

absl::StatusOr<std::vector<DefaultTaskFile>> BuildDefaultTaskFiles(
    const std::vector<Document>& documents,
    const DefaultTasksOptions& options) {
  RETURN_IF_ERROR(ValidateDefaultTasksOptions(options));
  const Corpus corpus = MakeCorpus(documents, options);
  const uint64_t seed = options.seed;
  std::vector<DefaultTaskFile> files;
  files.push_back({"README.txt", TopReadme(options)});

  using Split = DefaultTaskSplit;
  ASSIGN_OR_RETURN(
      std::vector<PairRow> pair_train,
      MakePairRows(corpus, Split::kTrain, options.pair_train_examples, seed));
  ASSIGN_OR_RETURN(
      std::vector<PairRow> pair_dev,
      MakePairRows(corpus, Split::kDev, options.pair_dev_examples, seed));
  ASSIGN_OR_RETURN(
      std::vector<PairRow> pair_test,
      MakePairRows(corpus, Split::kTest, options.pair_test_examples, seed));
  files.push_back({"pair/README.txt", PairReadme(options)});
  files.push_back({"pair/train.tsv", FormatPairTsv(pair_train, true)});
  files.push_back({"pair/dev.tsv", FormatPairTsv(pair_dev, true)});
  files.push_back({"pair/test.tsv", FormatPairTsv(pair_test, false)});
  files.push_back({"pair/test_labels.tsv", FormatPairTestLabels(pair_test)});

  ASSIGN_OR_RETURN(
      std::vector<SpanQuestion> span_train,
      MakeSpanQuestions(corpus, Split::kTrain, options.span_train_examples,
                        options.span_passage_sentences, seed));
  ASSIGN_OR_RETURN(
      std::vector<SpanQuestion> span_dev,
      MakeSpanQuestions(corpus, Split::kDev, options.span_dev_examples,
                        options.span_passage_sentences, seed));
  files.push_back({"squad/README.txt", SquadReadme(options)});
  files.push_back({"squad/train-v1.1.json", FormatSquadJson(span_train)});
  files.push_back({"squad/dev-v1.1.json", FormatSquadJson(span_dev)});

  ASSIGN_OR_RETURN(std::vector<SwagExample> swag_train,
                   MakeSwagExamples(corpus, Split::kTrain,
                                    options.swag_train_examples, seed));
  ASSIGN_OR_RETURN(
      std::vector<SwagExample> swag_val,
      MakeSwagExamples(corpus, Split::kDev, options.swag_val_examples, seed));
  files.push_back({"swag/README.txt", SwagReadme(options)});
  files.push_back({"swag/train.csv", FormatSwagCsv(swag_train, true)});
  files.push_back({"swag/val.csv", FormatSwagCsv(swag_val, true)});
  return files;
}

absl::Status MakeDefaultTasks(const std::vector<Document>& documents,
                              const DefaultTasksOptions& options,
                              const std::string& output_dir) {
  ASSIGN_OR_RETURN(std::vector<DefaultTaskFile> files,
                   BuildDefaultTaskFiles(documents, options));
  for (const DefaultTaskFile& file : files) {
    const std::filesystem::path path =
        std::filesystem::path(output_dir) / file.path;
    std::error_code error;
    std::filesystem::create_directories(path.parent_path(), error);
    if (error) {
      return absl::FailedPreconditionError(
          absl::StrCat("cannot create directory ", path.parent_path().string(),
                       ": ", error.message()));
    }
    RETURN_IF_ERROR(WriteFileAtomically(path.string(), file.contents));
  }
  return absl::OkStatus();
}

absl::StatusOr<std::vector<Document>> ReadReferenceFormatDocuments(
    const std::string& path) {
  ASSIGN_OR_RETURN(std::unique_ptr<ReferenceFormatReader> reader,
                   ReferenceFormatReader::Open({path}));
  std::vector<Document> documents;
  Document document;
  while (true) {
    ASSIGN_OR_RETURN(const bool more, reader->NextDocument(&document));
    if (!more) break;
    documents.push_back(std::move(document));
    document = Document();
  }
  return documents;
}

}  // namespace bertlab
