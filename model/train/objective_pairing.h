// Which attention and next-sentence setting each pre-training objective
// (the paper's section 5.1) goes with, stated once:
//
//   objective       attention        next-sentence task
//   masked LM       bidirectional    optional (BERT; No NSP without it)
//   left-to-right   causal           none ("LTR & No NSP")
//   right-to-left   reverse-causal   none (ELMo's backward LM)
//
// A left-to-right model must not see the token it predicts (the next one),
// nor a right-to-left one the previous one; the masked LM predicts a token
// from both sides; and a unidirectional LM's sequence is one segment of one
// document, so there is no second segment to classify. The experiment loader
// reports a conflict at the schema's fields (experiments/run_spec_checks.cc)
// and ValidatePretrainingOptions (pretrainer.h) refuses options with one;
// both word the fix in their own vocabulary from what this finds.
#ifndef BERTLAB_MODEL_TRAIN_OBJECTIVE_PAIRING_H_
#define BERTLAB_MODEL_TRAIN_OBJECTIVE_PAIRING_H_

#include <string>

#include "model/bert/config.h"
#include "tasks/pretraining_data/language_model.h"

namespace bertlab {

// The attention mode `objective` trains with.
AttentionMode ObjectiveAttentionMode(LanguageModel objective);

// Whether `objective` can train a next-sentence task beside it.
bool ObjectiveAllowsNextSentence(LanguageModel objective);

// "masked-LM", "left-to-right", "right-to-left": the objective in prose.
const char* ObjectiveProse(LanguageModel objective);

// What breaks the table above for one run; empty strings where nothing does.
struct ObjectiveConflicts {
  // next_sentence is on with an objective that has none: why it cannot be.
  std::string next_sentence;
  // `mode` is not ObjectiveAttentionMode(objective): why it does not fit.
  std::string attention;

  bool empty() const { return next_sentence.empty() && attention.empty(); }
};

ObjectiveConflicts FindObjectiveConflicts(LanguageModel objective,
                                          bool next_sentence,
                                          AttentionMode mode);

}  // namespace bertlab

#endif  // BERTLAB_MODEL_TRAIN_OBJECTIVE_PAIRING_H_
