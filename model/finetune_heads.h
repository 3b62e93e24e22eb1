// The task heads of the fine-tuning models, one dispatch for both
// BertForFinetuning (model/bert_for_finetuning.h) and
// TwoEncoderForFinetuning (model/two_encoder_for_finetuning.h): which head,
// its parameters, its activations, and its forward and backward passes on
// whatever the model feeds it.
//
//   head             reads                       loss
//   kClassifier      pooled (B, W)               CE over num_labels, or MSE
//                                                when num_labels == 1 (STS-B)
//   kSpan            sequence (B*T, W)           (CE start + CE end) / 2
//   kMultipleChoice  pooled of B*C rows (B*C, W) CE over the C choices
//
// W is the head's input width, FinetuneTaskHead::config.hidden_size: H for
// the encoder alone, the BiLSTM's 2Hd with it, 2H for the two-encoder model.
#ifndef BERTLAB_MODEL_FINETUNE_HEADS_H_
#define BERTLAB_MODEL_FINETUNE_HEADS_H_

#include <stdint.h>

#include <memory>
#include <string>

#include "model/bert/config.h"
#include "model/bert/encoder.h"
#include "model/bert/parameter_layout.h"
#include "model/heads/bilstm.h"
#include "model/heads/classifier_head.h"
#include "model/heads/finetune_head.h"
#include "model/heads/multiple_choice_head.h"
#include "model/heads/span_head.h"

namespace bertlab {

struct FinetuneModelOptions {
  FinetuneHead head = FinetuneHead::kClassifier;
  // kClassifier: classes, or 1 for regression.
  int64_t num_labels = 2;
  // kMultipleChoice: choices per example (SWAG: 4).
  int64_t num_choices = 4;
  // The "+ BiLSTM" variant of BertForFinetuning: a randomly initialised
  // BiLSTM between the encoder and the head.
  bool bilstm = false;
  BiLstmOptions bilstm_options;
};

// One batch of encoder rows and the targets of the model's head. Rows: B
// sequences (kMultipleChoice: B examples x C choices, example-major). Null
// targets: prediction only.
struct FinetuneTargets {
  const int32_t* labels = nullptr;           // (B) kClassifier / choices
  const float* scores = nullptr;             // (B) regression
  const int32_t* start_positions = nullptr;  // (B) kSpan
  const int32_t* end_positions = nullptr;    // (B) kSpan
};

// A model's task head: what it is, the config it is built for (hidden_size
// = its input width W) and where its parameters are; the offsets of the
// heads other than options.head are unset.
struct FinetuneTaskHead {
  BertConfig config;
  FinetuneModelOptions options;
  ClassifierHeadOffsets classifier{-1, -1, 0};
  SpanHeadOffsets span{-1, -1};
  MultipleChoiceHeadOffsets multiple_choice{-1, -1};
};

// Adds options.head's parameters ("classifier.*" or "qa_outputs.*") for
// inputs of width head_config.hidden_size to `layout`.
FinetuneTaskHead AddFinetuneTaskHead(const BertConfig& head_config,
                                     const FinetuneModelOptions& options,
                                     ParameterLayout* layout);

// The name prefix of the head's parameters: "classifier." or "qa_outputs.".
std::string FinetuneHeadPrefix(FinetuneHead head);

// The head's buffers for `rows` rows of seq_len tokens; only options.head's
// pointer is set. Outputs after FinetuneHeadForward: classifier->logits()
// (B, num_labels), span->start_logits() / end_logits() (B, T),
// multiple_choice->scores() (B / C, C).
template <typename T>
struct FinetuneHeadActivations {
  FinetuneHeadActivations(const FinetuneTaskHead& head, int64_t rows,
                          int64_t seq_len);
  std::unique_ptr<ClassifierHeadActivations<T>> classifier;
  std::unique_ptr<SpanHeadActivations<T>> span;
  std::unique_ptr<MultipleChoiceHeadActivations<T>> multiple_choice;
};

// Runs the head on `rows` rows of seq_len tokens: kSpan reads `sequence`
// (rows*T, W), the others `pooled` (rows, W); the other may be null. Returns
// the loss (0 without targets).
template <typename T>
T FinetuneHeadForward(const FinetuneTaskHead& head, const T* params,
                      const T* sequence, const T* pooled, int64_t rows,
                      int64_t seq_len, const FinetuneTargets& targets,
                      const DropoutSettings& dropout,
                      FinetuneHeadActivations<T>* activations);

// Accumulates the head's parameter gradients into `grads` and overwrites
// d_input, the gradient of the head's input: (rows*T, W) of `sequence` for
// kSpan, (rows, W) of the pooled rows otherwise. `sequence` is the forward's
// (read by kSpan only). Must follow FinetuneHeadForward with the same
// arguments.
template <typename T>
void FinetuneHeadBackward(const FinetuneTaskHead& head, const T* params,
                          T* grads, const T* sequence, int64_t rows,
                          int64_t seq_len, const FinetuneTargets& targets,
                          const DropoutSettings& dropout,
                          FinetuneHeadActivations<T>* activations, T* d_input);

}  // namespace bertlab

#endif  // BERTLAB_MODEL_FINETUNE_HEADS_H_
