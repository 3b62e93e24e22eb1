#include "tasks/finetune/task_files_for_test.h"

#include <filesystem>
#include <fstream>

#include "gtest/gtest.h"
#include "nlohmann/json.hpp"

namespace bertlab {

namespace fs = std::filesystem;

std::string FreshTestDir(const std::string& name) {
  const std::string dir = ::testing::TempDir() + "/" + name;
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

void WriteTestFile(const std::string& path, const std::string& text) {
  fs::create_directories(fs::path(path).parent_path());
  std::ofstream(path) << text;
}

TaskSources SourcesIn(const std::string& data_dir) {
  TaskSources sources;
  sources.data_dir = data_dir;
  sources.scratch_dir = data_dir + "/scratch";
  return sources;
}

FullTokenizer WebVocabTokenizer() {
  return FullTokenizer::FromVocabFile("tasks/testdata/web_vocab_uncased.txt",
                                      UncasedOptions())
      .value();
}

FinetuneDataOptions SmallDataOptions() {
  FinetuneDataOptions options;
  options.max_seq_length = 64;
  options.doc_stride = 32;
  options.max_query_length = 16;
  return options;
}

std::string SquadJson(const std::string& version,
                      const std::vector<std::vector<std::string>>& paragraphs) {
  nlohmann::json article;
  article["title"] = "t";
  int id = 0;
  for (const std::vector<std::string>& p : paragraphs) {
    nlohmann::json qa;
    qa["id"] = "q" + std::to_string(id++);
    qa["question"] = p[1];
    qa["answers"] = nlohmann::json::array();
    if (p[2].empty()) {
      qa["is_impossible"] = true;
    } else {
      if (version == "v2.0") qa["is_impossible"] = false;
      qa["answers"].push_back(
          {{"text", p[2]},
           {"answer_start", static_cast<int>(p[0].find(p[2]))}});
    }
    article["paragraphs"].push_back(
        {{"context", p[0]}, {"qas", nlohmann::json::array({qa})}});
  }
  return nlohmann::json{{"version", version},
                        {"data", nlohmann::json::array({article})}}
      .dump();
}

}  // namespace bertlab
