// The fine-tuning tasks' data: each task's files read and encoded as its row
// of finetune_task_table.h says (reader, directory, dev sets), with the
// lengths and limits of FinetuneDataOptions, into the sets fine-tuning trains
// on, chooses on (the tune split) and is scored on. What the model does with
// them (training set, head, dev evaluation in the paper's units with the
// official scorers, trivial baselines) is experiments/task_evaluation.h's.
//
// Where the data is (`data_dir`, the official layouts):
//   GLUE     data_dir/glue/<MNLI|QQP|QNLI|SST-2|CoLA|STS-B|MRPC|RTE|WNLI>/
//            train.tsv and dev.tsv (MNLI: dev_matched.tsv, dev_mismatched.tsv)
//   SQuAD    data_dir/squad/v1.1/ train-v1.1.json + dev-v1.1.json, or one
//            train-v1.1*.json alone (e.g. the shared 44-article subset),
//            which is split by article: the last quarter of the articles
//            (at least one) becomes dev; the same for v2.0 with
//            *-v2.0*.json files
//   SWAG     data_dir/swag/train.csv + val.csv
// The derived stand-ins (tasks/default_tasks, made from the embedded corpus)
// are read from `default_tasks_dir`: pair/ (GLUE MRPC layout), squad/
// (SQuAD v1.1 layout), swag/ (SWAG layout).
#ifndef BERTLAB_TASKS_FINETUNE_FINETUNE_TASKS_H_
#define BERTLAB_TASKS_FINETUNE_FINETUNE_TASKS_H_

#include <stdint.h>

#include <map>
#include <string>
#include <variant>
#include <vector>

#include "absl/status/statusor.h"
#include "tasks/finetune/encoded_example.h"
#include "tasks/finetune/finetune_task_table.h"
#include "tasks/finetune/input_baselines.h"
#include "tasks/full_tokenizer.h"
#include "tasks/glue/glue_features.h"
#include "tasks/glue/glue_tasks.h"
#include "tasks/squad/squad_features.h"
#include "tasks/squad/squad_reader.h"

namespace bertlab {

struct TaskSources {
  std::string data_dir;           // may be empty: no real data
  std::string default_tasks_dir;  // make_default_tasks output
  // Where split files (SQuAD by article) are written.
  std::string scratch_dir;
};

// How a task's files become its sets: the experiment's FinetuneTaskSpec
// (experiments/spec_conversions.h ToFinetuneDataOptions). No defaults of its
// own: the schema holds them.
struct FinetuneDataOptions {
  // Tokens per encoded sequence ([CLS] and [SEP] included).
  int max_seq_length = 0;
  // The first this many training examples (0: all); SQuAD with a tune split
  // keeps this many spread evenly over the training questions instead, so
  // that the split by article has articles on both sides.
  int64_t max_train_examples = 0;
  // The first this many dev examples (0: all); SQuAD's spread evenly over
  // the dev questions, so that every dev article has its share.
  int64_t max_eval_examples = 0;
  // SQuAD's windows over the context, and its question's length.
  int doc_stride = 0;
  int max_query_length = 0;
  // This fraction of the training examples (SQuAD: of its training
  // articles) is held out as the tune split, chosen by a fixed hash of each
  // one's position so that every run of the task holds out the same; 0:
  // none.
  double tune_fraction = 0;
  // The unlabelled test sets are not read (no test predictions).
  bool skip_test_sets = false;
};

// A GLUE-format task's sets (GLUE and the derived pair task).
struct GlueTaskData {
  const GlueTaskSpec* spec = nullptr;  // the reader's spec of the format
  std::vector<ClassificationExample> train;
  std::vector<ClassificationExample> tune;  // FinetuneDataOptions.tune_fraction
  std::vector<GlueEncodedSet> dev;          // one per dev set, in order
  // The unlabelled test sets that are there, and the name of each one's
  // file in the GLUE submission layout.
  std::vector<GlueEncodedSet> test;
  std::vector<std::string> test_files;
  // Pair tasks: the texts of `train` and of each dev set (empty otherwise),
  // which the word-overlap baseline reads.
  std::vector<LabelledPair> train_pairs;
  std::vector<std::vector<LabelledPair>> dev_pairs;
};

// A SQuAD-format task's sets (v1.1, v2.0 and the derived span task).
struct SquadTaskData {
  bool v2 = false;
  std::vector<SpanFeature> train;
  // The length in words of each training answer, which the v1.1 trivial
  // predictor is fitted on.
  std::vector<int64_t> train_answer_words;
  SquadDataset dev;
  SquadFeatures dev_features;  // with decoding info
  // FinetuneDataOptions.tune_fraction: the training questions held out.
  SquadDataset tune;
  SquadFeatures tune_features;
};

// A SWAG-format task's sets (SWAG and the derived four-way task).
struct SwagTaskData {
  std::vector<MultipleChoiceExample> train;
  std::vector<MultipleChoiceExample> dev;
  std::vector<MultipleChoiceExample> tune;  // FinetuneDataOptions.tune_fraction
};

// A task read and encoded.
struct FinetuneTaskData {
  // The task that was read: a real task or a derived one (WEB_PAIR).
  const FinetuneTaskInfo* info = nullptr;
  // "../shared/data/glue/MRPC", or the derived data's description.
  std::string data_source;
  // Relative name -> absolute path of every file read (for data hashes).
  std::map<std::string, std::string> data_files;
  int64_t train_size = 0;
  int64_t dev_size = 0;
  // Examples (SQuAD: questions) of the tune split, held out of train_size;
  // 0 without one.
  int64_t tune_size = 0;
  // What reading the files found worth telling but not fatal, one line
  // each, e.g. SQuAD training questions skipped because their answer is not
  // at its offset: a count, then the first few (file:line and question id).
  std::vector<std::string> warnings;
  // The sets, of the type of info->reader.
  std::variant<GlueTaskData, SquadTaskData, SwagTaskData> sets;
};

// Whether the real data of `task` is in sources.data_dir (never, for a
// derived task: its data is made, in default_tasks_dir).
bool TaskDataAvailable(FinetuneTaskId task, const TaskSources& sources);

// Reads and encodes `task` (MRPC, ..., or a derived WEB_*) with `options`'
// lengths and limits; the files are a derived task's in
// sources.default_tasks_dir, which must have been made. Errors: missing or
// malformed files (file and line, or line and column for malformed JSON), a
// training set that comes out empty (the file and why: no rows, or every
// SQuAD answer misaligned), and a tune split that leaves either side empty.
absl::StatusOr<FinetuneTaskData> LoadFinetuneTaskData(
    FinetuneTaskId task, const FinetuneDataOptions& options,
    const FullTokenizer& tokenizer, const TaskSources& sources);

}  // namespace bertlab

#endif  // BERTLAB_TASKS_FINETUNE_FINETUNE_TASKS_H_
