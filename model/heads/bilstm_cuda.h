// The "+ BiLSTM" layer on the GPU (FP32 or BF16 mixed precision), the twin of
// model/heads/bilstm.h (read it for the math, the parameters and the padding
// rules): a single-layer bidirectional LSTM over the encoder's sequence
// output, each direction from h = c = 0 over each sequence's real tokens
// only (model/ops/lstm_cuda.h), their outputs side by side:
//
//   output[b, t] = concat(forward_h[b, t], reverse_h[b, t])   (B*T, 2Hd)
//   output[b, t] = 0 for padded positions t >= L_b
//
// The pooled summary of the sequence heads, the lengths from the mask and
// the pooled gradient are bilstm_rows_cuda.h's (bit-identical to the CPU).
// Same parameter offsets (BiLstmOffsets) as the CPU. Every pointer is device
// memory (the attention mask included); everything is enqueued on
// context.stream() and nothing synchronises.
//
// T is the activation storage type, as in encoder_cuda.h: float, or
// __nv_bfloat16 with params the bf16 working copy; the gates, cells and
// carries are float for every T, the gradients are float (lstm_cuda.h).
//
// UNVERIFIED ON A GPU: compiled for sm_80 / sm_90 only; bilstm_parity_test
// compares it with the CPU BiLSTM in FP32 and BF16 when run on a GPU machine,
// and its host_ twin runs it on the host CUDA build.
#ifndef BERTLAB_MODEL_HEADS_BILSTM_CUDA_H_
#define BERTLAB_MODEL_HEADS_BILSTM_CUDA_H_

#include <cstdint>

#include "model/cuda/activation_buffer.h"
#include "model/cuda/context.h"
#include "model/cuda/device_buffer.h"
#include "model/heads/bilstm.h"
#include "model/heads/bilstm_rows_cuda.h"
#include "model/ops/lstm_cuda.h"

// cuda_bf16.h is nvcc-only here (model/cuda/cuda_check.h).
struct __nv_bfloat16;

namespace bertlab {
namespace cuda {

// Device buffers for up to `batch` sequences of exactly `seq_len` tokens.
template <typename T>
class BiLstmActivations {
 public:
  BiLstmActivations(const BiLstmOffsets& offsets, int64_t batch,
                    int64_t seq_len);

  const T* output() const { return output_.data(); }          // (B*T, 2Hd)
  const int32_t* lengths() const { return lengths_.data(); }  // (B)
  // Bytes held by all buffers.
  int64_t SizeInBytes() const;

 private:
  template <typename U>
  friend void BiLstmForward(const BiLstmOffsets&, const U*, const U*,
                            const int32_t*, int64_t, int64_t,
                            BiLstmActivations<U>*, const CudaContext&);
  template <typename U>
  friend void BiLstmBackward(const BiLstmOffsets&, const U*, float*, const U*,
                             const U*, int64_t, int64_t, BiLstmActivations<U>*,
                             U*, const CudaContext&);

  LstmWorkspace<T> Workspace();

  int64_t batch_;
  int64_t seq_len_;
  DeviceBuffer<int32_t> lengths_;      // (B)
  ActivationBuffer<T> output_;         // (B*T, 2Hd) both directions
  DeviceBuffer<float> forward_gates_;  // (B*T, 4Hd) activated i, f, g, o
  DeviceBuffer<float> forward_cells_;  // (B*T, Hd)
  DeviceBuffer<float> reverse_gates_;
  DeviceBuffer<float> reverse_cells_;
  // lstm_cuda.h's workspace, shared by the two directions.
  DeviceBuffer<float> recurrent_;     // (B, 4Hd)
  ActivationBuffer<T> h_state_;       // (B, Hd)
  DeviceBuffer<float> c_state_;       // (B, Hd)
  ActivationBuffer<T> d_gates_;       // (B*T, 4Hd)
  ActivationBuffer<T> d_gates_step_;  // (B, 4Hd)
  DeviceBuffer<float> d_h_carry_;     // (B, Hd)
  DeviceBuffer<float> d_c_carry_;     // (B, Hd)
  ActivationBuffer<T> h_previous_;    // (B*T, Hd)
};

// input (B*T, H) is the encoder's sequence output; attention_mask (B, T) as
// in EncoderBatch (null = no padding). Fills activations->output() and
// activations->lengths().
template <typename T>
void BiLstmForward(const BiLstmOffsets& offsets, const T* params,
                   const T* input, const int32_t* attention_mask, int64_t batch,
                   int64_t seq_len, BiLstmActivations<T>* activations,
                   const CudaContext& context);

// Accumulates the eight parameter gradients into `grads` (float) and
// overwrites d_input (B*T, H) (zero at padded positions; skipped when
// nullptr). d_output (B*T, 2Hd) at padded positions is ignored. Must follow
// BiLstmForward on the same input, mask and params.
template <typename T>
void BiLstmBackward(const BiLstmOffsets& offsets, const T* params, float* grads,
                    const T* input, const T* d_output, int64_t batch,
                    int64_t seq_len, BiLstmActivations<T>* activations,
                    T* d_input, const CudaContext& context);

}  // namespace cuda
}  // namespace bertlab

#endif  // BERTLAB_MODEL_HEADS_BILSTM_CUDA_H_
