// The cloze test of an experiment (ClozeSpec, experiment.proto; issue 38):
// each pre-trained encoder scored on blanked held-out sentences without
// fine-tuning, the paper's bidirectionality question asked directly.
//
// Items (tasks/cloze/cloze_items.h) are made from a prepared pre-training
// corpus (tasks/pretraining_data/pretraining_data_prep.h): the sentences are
// the lines of its held_out.txt, which no run on that corpus trained on (and
// which, being decontaminated, share no sentence with the fine-tuning tasks);
// word frequencies come from its train.txt, read line by line. Every row that
// shares the corpus and vocabulary gets the same items, so the report pairs
// them example by example.
//
// How each encoder answers (model/train/cloze_scorer.h): a masked LM reads
// the blank from both sides; a left-to-right or right-to-left LM scores
// each candidate by the likelihood of the whole sentence with it (so the
// words on the far side of the blank count too); the ELMo-style pair by the
// sum of its two encoders' scores. Two record tasks come out:
//   "cloze":      both sides of the blank, every encoder;
//   "cloze_left": the words after the blank removed, for a masked or
//                 left-to-right LM alone (a right-to-left LM, and so the
//                 pair, reads the blank from the right: not defined).
// The no-pre-training control is its config with random parameters (the
// truncated normal of model/bert/initialize.h from a seed): what an encoder
// that learned nothing scores.
#ifndef BERTLAB_EXPERIMENTS_CLOZE_EVALUATION_H_
#define BERTLAB_EXPERIMENTS_CLOZE_EVALUATION_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "experiments/experiment.pb.h"
#include "reports/dev_examples.h"
#include "reports/run_records.h"
#include "tasks/cloze/cloze_items.h"
#include "tasks/full_tokenizer.h"

namespace bertlab {
namespace experiments {

inline constexpr char kClozeTask[] = "cloze";
inline constexpr char kClozeLeftTask[] = "cloze_left";

struct ClozeTest {
  std::vector<ClozeItem> items;
  int candidates = 0;
  // Lines of held_out.txt that are sentences (blank lines separate
  // documents), and of train.txt counted.
  int64_t held_out_sentences = 0;
  int64_t counted_sentences = 0;
  // The vocabulary's special tokens.
  int cls_id = -1, sep_id = -1, mask_id = -1, pad_id = -1;
  // Per item, the candidate most frequent in train.txt (ties: the first):
  // a baseline that reads no context.
  std::vector<int> frequency_choices;
};

// The items of `spec` from `corpus_dir`'s held_out.txt and train.txt, with
// `tokenizer` (the corpus's vocabulary and casing). Errors: unreadable
// files (named), a vocabulary without [CLS], [SEP], [MASK] or [PAD], no item
// (cloze_items.h says when).
absl::StatusOr<ClozeTest> MakeClozeTest(const std::string& corpus_dir,
                                        const FullTokenizer& tokenizer,
                                        const ClozeSpec& spec);

// What is scored: one pre-training checkpoint, the ELMo-style pair (a
// left-to-right checkpoint and rtl_checkpoint), or a checkpoint's config
// with random parameters.
struct ClozeEncoder {
  std::string checkpoint;
  std::string rtl_checkpoint;  // the pair's right-to-left encoder, or empty
  bool random_init = false;    // checkpoint's config only
  uint64_t seed = 0;           // random_init's parameters
};

struct ClozeOutcome {
  std::string task;       // kClozeTask or kClozeLeftTask
  double accuracy = 0.0;  // percent
  // Labels: gold = the answer's index among the candidates, predicted = the
  // encoder's first highest-scored candidate; ids are the items'.
  reports::DevExamples examples;
};

// kClozeTask, then kClozeLeftTask where it is defined (see above). Errors:
// an unreadable checkpoint, an item longer than its positions, a pair whose
// encoders are not left-to-right and right-to-left.
absl::StatusOr<std::vector<ClozeOutcome>> RunClozeTest(
    const ClozeTest& test, const ClozeEncoder& encoder);

// The records' trivial predictor (chance: every candidate equally likely,
// so 100 / candidates) and baselines (the frequency choice), the same for
// both tasks.
reports::TrivialBaseline ClozeChance(const ClozeTest& test);
std::vector<reports::TrivialBaseline> ClozeBaselines(const ClozeTest& test);

}  // namespace experiments
}  // namespace bertlab

#endif  // BERTLAB_EXPERIMENTS_CLOZE_EVALUATION_H_
