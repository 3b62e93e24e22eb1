// The embedded default tasks: three fine-tuning tasks derived from the
// embedded default corpus (//tasks/corpus:default_corpus, the World English
// Bible, one document per chapter), written in the official file formats of
// the tasks they stand in for, so the fine-tuning pipeline runs end to end
// without the real GLUE / SQuAD / SWAG data. They are NOT those benchmarks:
// every output directory carries a README.txt that says so and how it was
// made.
//
//   pair/   "WEB-ORDER", GLUE MRPC layout: two consecutive sentences of a
//           chapter, in their order (Quality 1) or swapped (0), as ALBERT's
//           sentence-order prediction. Both classes hold the same words, so
//           lexical overlap cannot tell them apart, and the ids are opaque.
//             train.tsv, dev.tsv:  Quality \t #1 ID \t #2 ID \t #1 String \t
//                                  #2 String
//             test.tsv:            index \t #1 ID \t #2 ID \t #1 String \t
//                                  #2 String   (unlabelled, as GLUE's)
//             test_labels.tsv:     index \t Quality   (ours, for scoring)
//           IDs are a hash of the seed and the sentence's global number
//           (below 10^9), so they carry no order.
//   squad/  "WEB-NEXT-CLOZE", SQuAD v1.1 JSON (train-v1.1.json,
//           dev-v1.1.json), after the Children's Book Test (Hill et al.
//           2016): context = the `span_passage_sentences` sentences of a
//           chapter joined by " ", question = the sentence that FOLLOWS
//           them, with one of its words that the context also holds
//           replaced by "what" and its end punctuation by "?"; the answer is
//           that word's first occurrence in the context, at its character
//           offset (answer_start counts Unicode code points, as Python's str
//           indices in the official tools). The word is a run of 1-3
//           capitalised words not at the start of the sentence or a clause
//           (a name: "Moses", "Lord Jesus Christ") when the sentence has one
//           the context holds, else a lowercase word of 5+ letters; it occurs
//           once in the question's sentence. The question is never a copy
//           of a context sentence (a sentence repeated in its context is
//           skipped), so aligning it against the context does not find the
//           answer: the model has to tell which of the context's words the
//           next sentence is about. One question per sentence; contexts of
//           questions may overlap; ids "web-<document>-<sentence>".
//   swag/   "WEB-SWAG", the official SWAG CSV layout (train.csv, val.csv):
//           sent1 = startphrase = a sentence, sent2 = "", the four endings
//           are the sentence that follows it and three sentences of other
//           chapters of the same split; label = where the true one is.
//           video-id "web-<document>", fold-ind the global sentence number.
//
// No leakage: documents are cut into blocks of `documents_per_block`
// consecutive chapters, and the blocks are dealt by a seeded shuffle:
// dev_fraction of them to dev, test_fraction to test, train_fraction to
// train (at least one each), and the rest to pre-training, which no task
// reads. Every task draws a split's examples, including its random
// sentences, only from that split's documents. The squad and swag tasks
// use the train and dev (val) parts; pair uses all three. Pre-training on
// the embedded corpus leaves out every document that shares a sentence
// with a task document (DefaultTasksText, tasks/corpus/
// contamination_filter.h), so no task text, dev or train, is pre-trained on.
//
// Determinism: every random choice is a Philox draw (common/philox.h) from
// a stream named by (seed, task, split); the same documents and options give
// byte-identical files.
//
// Text: tabs, carriage returns and line breaks inside a sentence become
// spaces, and ill-formed UTF-8 becomes U+FFFD, so the files stay valid TSV,
// CSV and JSON.
#ifndef BERTLAB_TASKS_DEFAULT_TASKS_DEFAULT_TASKS_H_
#define BERTLAB_TASKS_DEFAULT_TASKS_DEFAULT_TASKS_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "tasks/corpus/contamination_filter.h"
#include "tasks/corpus/document.h"

namespace bertlab {

struct DefaultTasksOptions {
  uint64_t seed = 12345;
  // The split: blocks of consecutive documents (chapters) dealt to splits.
  int documents_per_block = 10;
  double train_fraction = 0.25;
  double dev_fraction = 0.1;
  double test_fraction = 0.05;
  // Examples per file. The defaults suit a mini run on a 2-core CPU.
  int pair_train_examples = 3000;
  int pair_dev_examples = 400;
  int pair_test_examples = 400;
  int span_train_examples = 2000;
  int span_dev_examples = 300;
  int span_passage_sentences = 4;  // sentences per SQuAD context, >= 2
  int swag_train_examples = 2000;
  int swag_val_examples = 300;
};

// Names the field and the fix.
absl::Status ValidateDefaultTasksOptions(const DefaultTasksOptions& options);

// kPretraining: documents no task reads (the pre-training text).
enum class DefaultTaskSplit {
  kTrain = 0,
  kDev = 1,
  kTest = 2,
  kPretraining = 3
};

// What the layout of the files means; part of the directory the runner keeps
// them in, so that a changed design is never read from an old directory.
inline constexpr int kDefaultTasksVersion = 2;

// The split of each of `num_documents` documents (see the top of this file).
// CHECKs valid options.
std::vector<DefaultTaskSplit> AssignDocumentSplits(
    int64_t num_documents, const DefaultTasksOptions& options);

// One output file: its path relative to the output directory
// ("pair/train.tsv") and its bytes.
struct DefaultTaskFile {
  std::string path;
  std::string contents;
};

// Every file of the three tasks, READMEs included, in memory. Errors: invalid
// options, or a split too small for the examples asked of it (naming the
// task, the split and both counts).
absl::StatusOr<std::vector<DefaultTaskFile>> BuildDefaultTaskFiles(
    const std::vector<Document>& documents, const DefaultTasksOptions& options);

// BuildDefaultTaskFiles, then writes the files under `output_dir` (created
// with its subdirectories as needed; each file written atomically, existing
// files replaced).
absl::Status MakeDefaultTasks(const std::vector<Document>& documents,
                              const DefaultTasksOptions& options,
                              const std::string& output_dir);

// Every sentence of the documents the tasks read (train, dev and test): what
// pre-training on `documents` must leave out.
ContaminationFilter DefaultTasksText(const std::vector<Document>& documents,
                                     const DefaultTasksOptions& options);

// Every document of a corpus in the reference format
// (tasks/corpus/reference_format_reader.h), such as the default corpus.
absl::StatusOr<std::vector<Document>> ReadReferenceFormatDocuments(
    const std::string& path);

}  // namespace bertlab

#endif  // BERTLAB_TASKS_DEFAULT_TASKS_DEFAULT_TASKS_H_
