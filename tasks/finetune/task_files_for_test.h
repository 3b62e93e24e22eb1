// What the fine-tuning task tests share: fresh directories, small task files
// in the official layouts, and the tokenizer of the embedded corpus's
// vocabulary.
#ifndef BERTLAB_TASKS_FINETUNE_TASK_FILES_FOR_TEST_H_
#define BERTLAB_TASKS_FINETUNE_TASK_FILES_FOR_TEST_H_

#include <string>
#include <vector>

#include "tasks/finetune/finetune_tasks.h"
#include "tasks/full_tokenizer.h"

namespace bertlab {

// An empty directory `name` under the test's temporary directory.
std::string FreshTestDir(const std::string& name);

// Writes `text` to `path`, creating its directory.
void WriteTestFile(const std::string& path, const std::string& text);

// The real-data sources of a test's data directory (its scratch directory
// inside it).
TaskSources SourcesIn(const std::string& data_dir);

// A vocabulary trained from the embedded default corpus
// (tasks/testdata/web_vocab_uncased.txt, a data dependency of the test).
FullTokenizer WebVocabTokenizer();

// Short sequences for the tests' tiny files: max_seq_length 64, doc_stride
// 32, max_query_length 16, no limits, no tune split.
FinetuneDataOptions SmallDataOptions();

// A SQuAD file of one article whose paragraphs are (context, question,
// answer) triples; answer "" makes the question impossible (v2.0).
std::string SquadJson(const std::string& version,
                      const std::vector<std::vector<std::string>>& paragraphs);

}  // namespace bertlab

#endif  // BERTLAB_TASKS_FINETUNE_TASK_FILES_FOR_TEST_H_
