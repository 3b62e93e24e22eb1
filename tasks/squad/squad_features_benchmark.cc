// Reading and feature creation for the SQuAD v1.1 train subset (11,877
// questions, ../shared/data/squad/v1.1) with bert-base-uncased, training
// mode, the reference's settings (384 / 128 / 64), one thread:
//
//   bazel run -c opt //tasks/squad:squad_features_benchmark
//
// The target is under 30 s on 2 cores (issue: SQuAD feature creation).
#include <string>

#include "absl/strings/str_cat.h"
#include "benchmark/benchmark.h"
#include "common/check.h"
#include "tasks/full_tokenizer.h"
#include "tasks/shared_data_for_test.h"
#include "tasks/squad/squad_features.h"
#include "tasks/squad/squad_reader.h"

namespace bertlab {
namespace {

std::string SharedData() {
  auto dir = FindSharedDataDir("tasks/squad/testdata/shared_data_anchor.txt");
  CHECK_OK(dir.status());
  return *dir;
}

void BM_ReadAndConvertV11TrainSubset(benchmark::State& state) {
  const std::string shared = SharedData();
  auto tokenizer = FullTokenizer::FromVocabFile(
      absl::StrCat(shared, "/vocab/bert-base-uncased/vocab.txt"),
      UncasedOptions());
  CHECK_OK(tokenizer.status());
  const std::string path = absl::StrCat(
      shared, "/squad/v1.1/train-v1.1.first-44-articles.sortedkeys.json");
  SquadReadOptions read_options;
  read_options.is_training = true;
  SquadFeatureOptions feature_options;
  feature_options.is_training = true;
  int64_t questions = 0, features = 0;
  for (auto _ : state) {
    auto dataset = ReadSquadFile(path, read_options);
    CHECK_OK(dataset.status());
    auto converted =
        ConvertSquadExamplesToFeatures(*dataset, *tokenizer, feature_options);
    CHECK_OK(converted.status());
    questions = static_cast<int64_t>(dataset->examples.size());
    features = static_cast<int64_t>(converted->features.size());
    benchmark::DoNotOptimize(converted->features.data());
  }
  state.counters["questions"] = static_cast<double>(questions);
  state.counters["features"] = static_cast<double>(features);
}
BENCHMARK(BM_ReadAndConvertV11TrainSubset)
    ->Unit(benchmark::kSecond)
    ->Iterations(3);

}  // namespace
}  // namespace bertlab
