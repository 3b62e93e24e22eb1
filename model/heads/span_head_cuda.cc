// The GPU span head; see span_head_cuda.h. Line for line the composition of
// model/heads/span_head.cc with the CUDA op twins.
#include "model/heads/span_head_cuda.h"

// The complete __nv_bfloat16 (the headers only declare it) for pointer
// arithmetic on bf16 params; g++ may include it (model/cuda/README.md).
#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include <type_traits>

#include "common/check.h"
#include "model/cuda/cuda_check.h"
#include "model/heads/float_logits_cuda.h"
#include "model/heads/span_logits_cuda.h"
#include "model/ops/cross_entropy_cuda.h"

namespace bertlab {
namespace cuda {
namespace {

bool HasTargets(const SpanTargets& targets) {
  CHECK((targets.start_positions == nullptr) ==
        (targets.end_positions == nullptr))
      << "span targets need both start and end positions, or neither";
  return targets.start_positions != nullptr;
}

}  // namespace

template <typename T>
SpanHeadActivations<T>::SpanHeadActivations(
    const BertConfig& /*config: no buffer here depends on H*/, int64_t batch,
    int64_t seq_len)
    : batch_(batch), seq_len_(seq_len) {
  CHECK_GT(batch, 0);
  CHECK_GT(seq_len, 0);
  const int64_t tokens = batch * seq_len;
  logits_ = DeviceBuffer<float>("span.logits", tokens * 2);
  start_logits_ = DeviceBuffer<float>("span.start_logits", tokens);
  end_logits_ = DeviceBuffer<float>("span.end_logits", tokens);
  start_probs_ = DeviceBuffer<float>("span.start_probs", tokens);
  end_probs_ = DeviceBuffer<float>("span.end_probs", tokens);
  start_labels_ = DeviceBuffer<int32_t>("span.start_labels", batch);
  end_labels_ = DeviceBuffer<int32_t>("span.end_labels", batch);
  losses_ = DeviceBuffer<float>("span.losses", 3);
  row_terms_ = DeviceBuffer<double>("span.row_terms", batch);
  d_start_logits_ = DeviceBuffer<float>("span.d_start_logits", tokens);
  d_end_logits_ = DeviceBuffer<float>("span.d_end_logits", tokens);
  d_logits_ = DeviceBuffer<float>("span.d_logits", tokens * 2);
  // The float mode's GEMMs read the float d_logits themselves.
  d_logits_bf16_ = ActivationBuffer<T>(
      "span.d_logits_bf16", std::is_same<T, float>::value ? 0 : tokens * 2);
}

template <typename T>
int64_t SpanHeadActivations<T>::SizeInBytes() const {
  int64_t bytes = 0;
  for (const DeviceBuffer<float>* buffer :
       {&logits_, &start_logits_, &end_logits_, &start_probs_, &end_probs_,
        &d_start_logits_, &d_end_logits_, &d_logits_}) {
    bytes += static_cast<int64_t>(buffer->bytes());
  }
  return bytes + static_cast<int64_t>(d_logits_bf16_.bytes()) +
         static_cast<int64_t>(start_labels_.bytes()) +
         static_cast<int64_t>(end_labels_.bytes()) +
         static_cast<int64_t>(losses_.bytes()) +
         static_cast<int64_t>(row_terms_.bytes());
}

template <typename T>
const float* SpanHeadForward(const BertConfig& config,
                             const SpanHeadOffsets& head, const T* params,
                             const T* sequence_output,
                             const SpanTargets& targets, int64_t batch,
                             int64_t seq_len, SpanHeadActivations<T>* acts,
                             const CudaContext& context) {
  const int64_t hidden = config.hidden_size;
  const int64_t tokens = batch * seq_len;
  CHECK_LE(batch, acts->batch_);
  CHECK_EQ(seq_len, acts->seq_len_);
  float* loss = acts->losses_.data();
  FloatLogitsForward(acts->logits_.data(), sequence_output,
                     params + head.weight, params + head.bias, tokens, hidden,
                     int64_t{2}, context);
  SplitSpanLogits(acts->start_logits_.data(), acts->end_logits_.data(),
                  acts->logits_.data(), tokens, context);
  BERTLAB_CUDA_CHECK(
      cudaMemsetAsync(loss, 0, acts->losses_.bytes(), context.stream()));
  if (!HasTargets(targets)) return loss;
  SpanPositionsToLabels(acts->start_labels_.data(), targets.start_positions,
                        batch, seq_len, kIgnoreLabel, context);
  SpanPositionsToLabels(acts->end_labels_.data(), targets.end_positions, batch,
                        seq_len, kIgnoreLabel, context);
  // Both cross-entropies use row_terms_ in turn (same stream).
  SoftmaxCrossEntropyForward(
      loss + 1, acts->start_probs_.data(), acts->row_terms_.data(),
      acts->start_logits_.data(), acts->start_labels_.data(), nullptr, batch,
      seq_len, kIgnoreLabel, context);
  SoftmaxCrossEntropyForward(loss + 2, acts->end_probs_.data(),
                             acts->row_terms_.data(), acts->end_logits_.data(),
                             acts->end_labels_.data(), nullptr, batch, seq_len,
                             kIgnoreLabel, context);
  MeanOfSpanLosses(loss, loss + 1, loss + 2, context);
  return loss;
}

template <typename T>
void SpanHeadBackward(const BertConfig& config, const SpanHeadOffsets& head,
                      const T* params, float* grads, const T* sequence_output,
                      const SpanTargets& targets, int64_t batch,
                      int64_t seq_len, SpanHeadActivations<T>* acts,
                      T* d_sequence_output, const CudaContext& context) {
  const int64_t hidden = config.hidden_size;
  const int64_t tokens = batch * seq_len;
  CHECK_LE(batch, acts->batch_);
  CHECK_EQ(seq_len, acts->seq_len_);
  CHECK(HasTargets(targets)) << "span backward without positions";
  // d loss / d start_loss = d loss / d end_loss = 1/2.
  SoftmaxCrossEntropyBackward(acts->d_start_logits_.data(),
                              acts->start_probs_.data(),
                              acts->start_labels_.data(), nullptr, batch,
                              seq_len, kIgnoreLabel, 0.5f, context);
  SoftmaxCrossEntropyBackward(acts->d_end_logits_.data(),
                              acts->end_probs_.data(), acts->end_labels_.data(),
                              nullptr, batch, seq_len, kIgnoreLabel, 0.5f,
                              context);
  JoinSpanLogitGradients(acts->d_logits_.data(), acts->d_start_logits_.data(),
                         acts->d_end_logits_.data(), tokens, context);
  FloatLogitsBackward(d_sequence_output, grads + head.weight, grads + head.bias,
                      acts->d_logits_bf16_.data(), acts->d_logits_.data(),
                      sequence_output, params + head.weight, tokens, hidden,
                      int64_t{2}, context);
}

#define BERTLAB_INSTANTIATE_SPAN_HEAD_CUDA(T)                                \
  template class SpanHeadActivations<T>;                                     \
  template const float* SpanHeadForward<T>(                                  \
      const BertConfig&, const SpanHeadOffsets&, const T*, const T*,         \
      const SpanTargets&, int64_t, int64_t, SpanHeadActivations<T>*,         \
      const CudaContext&);                                                   \
  template void SpanHeadBackward<T>(                                         \
      const BertConfig&, const SpanHeadOffsets&, const T*, float*, const T*, \
      const SpanTargets&, int64_t, int64_t, SpanHeadActivations<T>*, T*,     \
      const CudaContext&);

// FP32 mode.
BERTLAB_INSTANTIATE_SPAN_HEAD_CUDA(float)
// BF16 mixed precision (bf16 working-copy params, float logits and grads).
BERTLAB_INSTANTIATE_SPAN_HEAD_CUDA(__nv_bfloat16)

#undef BERTLAB_INSTANTIATE_SPAN_HEAD_CUDA

}  // namespace cuda
}  // namespace bertlab
