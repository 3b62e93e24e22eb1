// The two-encoder fine-tuning step on the GPU; see
// two_encoder_for_finetuning_cuda.h. The paths of
// model/two_encoder_for_finetuning.cc, with the heads of
// bert_for_finetuning_cuda.cc.
#include "model/two_encoder_for_finetuning_cuda.h"

#include <cuda_runtime.h>

#include <cstddef>

#include "common/check.h"
#include "model/cuda/cuda_check.h"

namespace bertlab {
namespace cuda {
namespace {

bool IsSpan(const TwoEncoderForFinetuning& model) {
  return model.options().head == FinetuneHead::kSpan;
}

// Rows of the head's input: every position for kSpan, else one per sequence.
int64_t HeadRows(const TwoEncoderForFinetuning& model, int64_t rows,
                 int64_t seq_len) {
  return IsSpan(model) ? rows * seq_len : rows;
}

// Bytes of `width` values of storage type T (g++ sees __nv_bfloat16 only
// declared, so the size is that of its layout twin).
template <typename T>
size_t RowBytes(int64_t width) {
  return static_cast<size_t>(width) *
         sizeof(typename ActivationBuffer<T>::Storage);
}

// out row i = [left row i ; right row i]; left and right are (n, h), out
// (n, 2h): each half one strided copy.
template <typename T>
void ConcatRows(const T* left, const T* right, int64_t n, int64_t h, T* out,
                const CudaContext& context) {
  const size_t half = RowBytes<T>(h);
  char* out_bytes = reinterpret_cast<char*>(out);
  BERTLAB_CUDA_CHECK(cudaMemcpy2DAsync(
      out_bytes, 2 * half, left, half, half, static_cast<size_t>(n),
      cudaMemcpyDeviceToDevice, context.stream()));
  BERTLAB_CUDA_CHECK(cudaMemcpy2DAsync(
      out_bytes + half, 2 * half, right, half, half, static_cast<size_t>(n),
      cudaMemcpyDeviceToDevice, context.stream()));
}

// out (n, h) = the left (which_half 0) or right (1) half of in (n, 2h).
template <typename T>
void CopyHalf(const T* in, int64_t n, int64_t h, int which_half, T* out,
              const CudaContext& context) {
  const size_t half = RowBytes<T>(h);
  const char* in_bytes = reinterpret_cast<const char*>(in) + which_half * half;
  BERTLAB_CUDA_CHECK(cudaMemcpy2DAsync(
      out, half, in_bytes, 2 * half, half, static_cast<size_t>(n),
      cudaMemcpyDeviceToDevice, context.stream()));
}

}  // namespace

template <typename T>
TwoEncoderStepBuffers<T>::TwoEncoderStepBuffers(
    const TwoEncoderForFinetuning& model, int64_t rows, int64_t seq_len)
    : FinetuneHeadActivations<T>(model.head(), rows, seq_len),
      ltr(model.ltr_config(), rows, seq_len, GpuAttention::kUnfused),
      rtl(model.rtl_config(), rows, seq_len, GpuAttention::kUnfused),
      head_input("two_encoder.head_input", HeadRows(model, rows, seq_len) *
                                               model.head_config().hidden_size),
      d_head_input(
          "two_encoder.d_head_input",
          HeadRows(model, rows, seq_len) * model.head_config().hidden_size),
      d_encoder_output(
          "two_encoder.d_encoder_output",
          HeadRows(model, rows, seq_len) * model.ltr_config().hidden_size) {
  CHECK_EQ(model.head_config().hidden_size, 2 * model.ltr_config().hidden_size);
}

template <typename T>
const float* TwoEncoderForward(const TwoEncoderForFinetuning& model,
                               const T* params, const EncoderBatch& batch,
                               const FinetuneTargets& targets,
                               const DropoutSettings& dropout,
                               TwoEncoderStepBuffers<T>* buffers,
                               const CudaContext& context) {
  CHECK(IsSpan(model) || batch.pooled_positions != nullptr)
      << "the LTR encoder must pool each row's last real token";
  const int64_t hidden = model.ltr_config().hidden_size;
  EncoderForward(model.ltr_config(), model.ltr_encoder().offsets, params, batch,
                 dropout, &buffers->ltr, context);
  EncoderForward(model.rtl_config(), model.rtl_encoder().offsets, params,
                 RightToLeftBatch(batch), RightToLeftDropout(dropout),
                 &buffers->rtl, context);
  T* head_input = buffers->head_input.data();
  const T* input = head_input;
  const bool span = IsSpan(model);
  if (span) {
    ConcatRows(buffers->ltr.sequence_output(), buffers->rtl.sequence_output(),
               batch.batch * batch.seq_len, hidden, head_input, context);
  } else {
    ConcatRows(buffers->ltr.pooled_output(), buffers->rtl.pooled_output(),
               batch.batch, hidden, head_input, context);
  }
  const T* none = nullptr;
  return FinetuneHeadForward(model.head(), params, span ? input : none,
                             span ? none : input, batch.batch, batch.seq_len,
                             targets, dropout, buffers, context);
}

template <typename T>
const float* TwoEncoderForwardBackward(const TwoEncoderForFinetuning& model,
                                       const T* params, float* grads,
                                       const EncoderBatch& batch,
                                       const FinetuneTargets& targets,
                                       const DropoutSettings& dropout,
                                       TwoEncoderStepBuffers<T>* buffers,
                                       const CudaContext& context) {
  const float* loss = TwoEncoderForward(model, params, batch, targets, dropout,
                                        buffers, context);
  const bool span = IsSpan(model);
  T* d_input = buffers->d_head_input.data();
  FinetuneHeadBackward(model.head(), params, grads,
                       static_cast<const T*>(buffers->head_input.data()),
                       batch.batch, batch.seq_len, targets, dropout, buffers,
                       d_input, context);
  // The span head reads every position of both encoders, the pooled heads
  // their poolers only. One buffer holds each half in turn: the stream runs
  // the LTR backward before the RTL half overwrites it.
  const int64_t rows = HeadRows(model, batch.batch, batch.seq_len);
  const int64_t hidden = model.ltr_config().hidden_size;
  const T* none = nullptr;
  const T* d_output = buffers->d_encoder_output.data();
  CopyHalf(static_cast<const T*>(d_input), rows, hidden, /*which_half=*/0,
           buffers->d_encoder_output.data(), context);
  EncoderBackward(model.ltr_config(), model.ltr_encoder().offsets, params,
                  grads, batch, dropout, span ? d_output : none,
                  span ? none : d_output, &buffers->ltr, context);
  CopyHalf(static_cast<const T*>(d_input), rows, hidden, /*which_half=*/1,
           buffers->d_encoder_output.data(), context);
  EncoderBackward(model.rtl_config(), model.rtl_encoder().offsets, params,
                  grads, RightToLeftBatch(batch), RightToLeftDropout(dropout),
                  span ? d_output : none, span ? none : d_output, &buffers->rtl,
                  context);
  return loss;
}

#define BERTLAB_INSTANTIATE_TWO_ENCODER_STEP_CUDA(T)                         \
  template struct TwoEncoderStepBuffers<T>;                                  \
  template const float* TwoEncoderForward<T>(                                \
      const TwoEncoderForFinetuning&, const T*, const EncoderBatch&,         \
      const FinetuneTargets&, const DropoutSettings&,                        \
      TwoEncoderStepBuffers<T>*, const CudaContext&);                        \
  template const float* TwoEncoderForwardBackward<T>(                        \
      const TwoEncoderForFinetuning&, const T*, float*, const EncoderBatch&, \
      const FinetuneTargets&, const DropoutSettings&,                        \
      TwoEncoderStepBuffers<T>*, const CudaContext&);

// FP32 mode.
BERTLAB_INSTANTIATE_TWO_ENCODER_STEP_CUDA(float)
// BF16 mixed precision (bf16 working-copy params, float master gradients).
BERTLAB_INSTANTIATE_TWO_ENCODER_STEP_CUDA(__nv_bfloat16)

#undef BERTLAB_INSTANTIATE_TWO_ENCODER_STEP_CUDA

}  // namespace cuda
}  // namespace bertlab
