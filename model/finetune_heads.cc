#include "model/finetune_heads.h"

#include "common/check.h"

namespace bertlab {

FinetuneTaskHead AddFinetuneTaskHead(const BertConfig& head_config,
                                     const FinetuneModelOptions& options,
                                     ParameterLayout* layout) {
  FinetuneTaskHead head;
  head.config = head_config;
  head.options = options;
  switch (options.head) {
    case FinetuneHead::kClassifier:
      CHECK_GE(options.num_labels, 1);
      head.classifier =
          AddClassifierHeadParameters(head_config, options.num_labels, layout);
      break;
    case FinetuneHead::kSpan:
      head.span = AddSpanHeadParameters(head_config, layout);
      break;
    case FinetuneHead::kMultipleChoice:
      CHECK_GE(options.num_choices, 2);
      head.multiple_choice =
          AddMultipleChoiceHeadParameters(head_config, layout);
      break;
  }
  return head;
}

std::string FinetuneHeadPrefix(FinetuneHead head) {
  return head == FinetuneHead::kSpan ? "qa_outputs." : "classifier.";
}

template <typename T>
FinetuneHeadActivations<T>::FinetuneHeadActivations(
    const FinetuneTaskHead& head, int64_t rows, int64_t seq_len) {
  const FinetuneModelOptions& options = head.options;
  switch (options.head) {
    case FinetuneHead::kClassifier:
      classifier = std::make_unique<ClassifierHeadActivations<T>>(
          head.config, options.num_labels, rows);
      break;
    case FinetuneHead::kSpan:
      span =
          std::make_unique<SpanHeadActivations<T>>(head.config, rows, seq_len);
      break;
    case FinetuneHead::kMultipleChoice:
      CHECK_EQ(rows % options.num_choices, 0)
          << "rows must be whole examples of " << options.num_choices
          << " choices";
      multiple_choice = std::make_unique<MultipleChoiceHeadActivations<T>>(
          head.config, rows / options.num_choices, options.num_choices);
      break;
  }
}

template <typename T>
T FinetuneHeadForward(const FinetuneTaskHead& head, const T* params,
                      const T* sequence, const T* pooled, int64_t rows,
                      int64_t seq_len, const FinetuneTargets& targets,
                      const DropoutSettings& dropout,
                      FinetuneHeadActivations<T>* activations) {
  const FinetuneModelOptions& options = head.options;
  switch (options.head) {
    case FinetuneHead::kClassifier:
      return ClassifierHeadForward(
          head.config, head.classifier, params, pooled,
          ClassifierTargets{targets.labels, targets.scores}, rows, dropout,
          activations->classifier.get());
    case FinetuneHead::kSpan:
      return SpanHeadForward(
          head.config, head.span, params, sequence,
          SpanTargets{targets.start_positions, targets.end_positions}, rows,
          seq_len, activations->span.get());
    case FinetuneHead::kMultipleChoice:
      return MultipleChoiceHeadForward(
          head.config, head.multiple_choice, params, pooled, targets.labels,
          rows / options.num_choices, options.num_choices, dropout,
          activations->multiple_choice.get());
  }
  return T(0);
}

template <typename T>
void FinetuneHeadBackward(const FinetuneTaskHead& head, const T* params,
                          T* grads, const T* sequence, int64_t rows,
                          int64_t seq_len, const FinetuneTargets& targets,
                          const DropoutSettings& dropout,
                          FinetuneHeadActivations<T>* activations, T* d_input) {
  const FinetuneModelOptions& options = head.options;
  switch (options.head) {
    case FinetuneHead::kClassifier:
      ClassifierHeadBackward(head.config, head.classifier, params, grads,
                             ClassifierTargets{targets.labels, targets.scores},
                             rows, dropout, activations->classifier.get(),
                             d_input);
      break;
    case FinetuneHead::kSpan:
      SpanHeadBackward(
          head.config, head.span, params, grads, sequence,
          SpanTargets{targets.start_positions, targets.end_positions}, rows,
          seq_len, activations->span.get(), d_input);
      break;
    case FinetuneHead::kMultipleChoice:
      MultipleChoiceHeadBackward(
          head.config, head.multiple_choice, params, grads, targets.labels,
          rows / options.num_choices, options.num_choices, dropout,
          activations->multiple_choice.get(), d_input);
      break;
  }
}

template struct FinetuneHeadActivations<float>;
template struct FinetuneHeadActivations<double>;
#define BERTLAB_INSTANTIATE(T)                                                 \
  template T FinetuneHeadForward<T>(                                           \
      const FinetuneTaskHead&, const T*, const T*, const T*, int64_t, int64_t, \
      const FinetuneTargets&, const DropoutSettings&,                          \
      FinetuneHeadActivations<T>*);                                            \
  template void FinetuneHeadBackward<T>(                                       \
      const FinetuneTaskHead&, const T*, T*, const T*, int64_t, int64_t,       \
      const FinetuneTargets&, const DropoutSettings&,                          \
      FinetuneHeadActivations<T>*, T*);
BERTLAB_INSTANTIATE(float)
BERTLAB_INSTANTIATE(double)
#undef BERTLAB_INSTANTIATE

}  // namespace bertlab
