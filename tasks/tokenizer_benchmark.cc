// Tokenizer throughput in bytes of input text per second, one thread, for
// bert-base-uncased and bert-base-cased.
//
//   bazel run -c opt //tasks:tokenizer_benchmark
//
// The text is the Wikipedia sample
// ../shared/data/corpus/wikipedia-en-2015-wikiextractor/AA/wiki_00 (found as
// the tests find the shared data: $BERTLAB_SHARED_DATA, else ../shared/data
// beside the repository), or the file named by the environment variable
// BERTLAB_TOKENIZER_BENCHMARK_TEXT (relative to where `bazel run` started).
// It is tokenized line by line, as //tasks:tokenize does. MB_per_second
// (10^6 bytes; bytes_per_second is printed in MiB) is the figure the
// project's target of 10 MB/s per core refers to:
//   BM_Tokenize/uncased, BM_Tokenize/cased - FullTokenizer::Tokenize
//   BM_TokenizeToIds/...                   - the same, then vocabulary ids
//   BM_BasicTokenize/...                   - BasicTokenizer alone
#include <cstdlib>
#include <iostream>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "benchmark/benchmark.h"
#include "common/check.h"
#include "common/file.h"
#include "common/user_path.h"
#include "tasks/full_tokenizer.h"
#include "tasks/shared_data_for_test.h"

namespace bertlab {
namespace {

constexpr char kAnchor[] = "tasks/testdata/tokenizer_golden_input.txt";
constexpr char kDefaultText[] =
    "corpus/wikipedia-en-2015-wikiextractor/AA/wiki_00";

struct BenchmarkText {
  std::vector<std::string> lines;
  int64_t bytes = 0;  // Of the lines, without their "\n".
};

const std::string& SharedDataDir() {
  static const std::string* const dir = [] {
    absl::StatusOr<std::string> found = FindSharedDataDir(kAnchor);
    CHECK(found.ok()) << found.status();
    return new std::string(*found);
  }();
  return *dir;
}

const BenchmarkText& Text() {
  static const BenchmarkText* const text = [] {
    const char* from_env = std::getenv("BERTLAB_TOKENIZER_BENCHMARK_TEXT");
    const std::string path =
        from_env != nullptr && from_env[0] != '\0'
            ? ResolveUserPath(from_env)
            : absl::StrCat(SharedDataDir(), "/", kDefaultText);
    absl::StatusOr<std::string> contents = ReadFileToString(path);
    CHECK(contents.ok()) << contents.status();
    auto* result = new BenchmarkText;
    for (absl::string_view line : absl::StrSplit(*contents, '\n')) {
      result->lines.emplace_back(line);
      result->bytes += static_cast<int64_t>(line.size());
    }
    std::cerr << "tokenizer_benchmark: " << path << ": " << result->bytes
              << " bytes in " << result->lines.size() << " lines\n";
    return result;
  }();
  return *text;
}

const FullTokenizer& Tokenizer(bool cased) {
  static const FullTokenizer* const tokenizers[2] = {
      [] {
        auto tokenizer = FullTokenizer::FromVocabFile(
            SharedDataDir() + "/vocab/bert-base-uncased/vocab.txt",
            UncasedOptions());
        CHECK(tokenizer.ok()) << tokenizer.status();
        return new FullTokenizer(*std::move(tokenizer));
      }(),
      [] {
        auto tokenizer = FullTokenizer::FromVocabFile(
            SharedDataDir() + "/vocab/bert-base-cased/vocab.txt",
            CasedOptions());
        CHECK(tokenizer.ok()) << tokenizer.status();
        return new FullTokenizer(*std::move(tokenizer));
      }(),
  };
  return *tokenizers[cased ? 1 : 0];
}

// Runs `tokenize_line` over every line of the text per iteration.
template <typename TokenizeLine>
void RunOverText(benchmark::State& state, TokenizeLine tokenize_line) {
  const BenchmarkText& text = Text();
  int64_t tokens = 0;
  for (auto _ : state) {
    for (const std::string& line : text.lines) {
      tokens += static_cast<int64_t>(tokenize_line(line));
    }
  }
  state.SetBytesProcessed(state.iterations() * text.bytes);
  // bytes_per_second prints in MiB; the target is stated in MB (10^6 bytes).
  state.counters["MB_per_second"] = benchmark::Counter(
      static_cast<double>(state.iterations() * text.bytes) / 1e6,
      benchmark::Counter::kIsRate);
  state.counters["tokens_per_second"] = benchmark::Counter(
      static_cast<double>(tokens), benchmark::Counter::kIsRate);
}

void BM_Tokenize(benchmark::State& state, bool cased) {
  const FullTokenizer& tokenizer = Tokenizer(cased);
  RunOverText(state, [&](const std::string& line) {
    const std::vector<std::string> pieces = tokenizer.Tokenize(line);
    benchmark::DoNotOptimize(pieces.data());
    return pieces.size();
  });
}
BENCHMARK_CAPTURE(BM_Tokenize, uncased, false)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_Tokenize, cased, true)->Unit(benchmark::kMillisecond);

void BM_TokenizeToIds(benchmark::State& state, bool cased) {
  const FullTokenizer& tokenizer = Tokenizer(cased);
  RunOverText(state, [&](const std::string& line) {
    const std::vector<int> ids = tokenizer.TokenizeToIds(line);
    benchmark::DoNotOptimize(ids.data());
    return ids.size();
  });
}
BENCHMARK_CAPTURE(BM_TokenizeToIds, uncased, false)
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_TokenizeToIds, cased, true)->Unit(benchmark::kMillisecond);

void BM_BasicTokenize(benchmark::State& state, bool cased) {
  const BasicTokenizer& basic = Tokenizer(cased).basic_tokenizer();
  RunOverText(state, [&](const std::string& line) {
    const std::vector<std::string> tokens = basic.Tokenize(line);
    benchmark::DoNotOptimize(tokens.data());
    return tokens.size();
  });
}
BENCHMARK_CAPTURE(BM_BasicTokenize, uncased, false)
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_BasicTokenize, cased, true)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace bertlab
