// The BERT encoder forward and backward on the GPU (FP32), the twin of
// model/bert/encoder.h composed from the CUDA op twins in model/ops/*_cuda.h:
//
//   e   = LayerNorm(word[ids] + position[t] + token_type[types]); Dropout
//   for each of the L layers (post-LayerNorm):
//     a = Dropout(Dense(Attention(QKV(x))))     attention-prob dropout inside
//     h = LayerNorm(x + a)
//     f = Dropout(Dense2(GELU(Dense1(h))))
//     x = LayerNorm(h + f)
//   sequence_output = x                                          (B*T, H)
//   pooled_output   = tanh(Dense(x at t = 0 or pooled_positions))  (B, H)
//
// Same op order, same buffer roles and the same Philox tensor ids
// (kEmbeddingDropoutTensorId, LayerDropoutTensorId) as the CPU encoder, so a
// step's dropout masks are bit-identical to the CPU's for the same
// DropoutSettings. Differences from the CPU are the ops' own (reduction
// orders, CUDA's expf/erfcf/tanhf; see each *_cuda.h), checked by
// encoder_parity_test with model/cuda/parity_comparator.h.
//
// Every pointer is device memory: params / grads in the flat layout of
// AddEncoderParameters, EncoderBatch's ids, mask and pooled positions (int32),
// and the output gradients. Ids and pooled positions are not range-checked on
// the device (a bad pooled position traps); validate them where they come
// from. Everything is enqueued on context.stream(); nothing synchronises.
#ifndef BERTLAB_MODEL_CUDA_ENCODER_CUDA_H_
#define BERTLAB_MODEL_CUDA_ENCODER_CUDA_H_

#include <cstdint>
#include <vector>

#include "model/bert/config.h"
#include "model/bert/encoder.h"
#include "model/bert/encoder_parameters.h"
#include "model/cuda/context.h"
#include "model/cuda/device_buffer.h"

namespace bertlab {
namespace cuda {

// The device buffers of EncoderForward / EncoderBackward for one
// (config, batch, seq_len), allocated once in the constructor (every buffer
// named after its role, so an out-of-memory report says which) and reused by
// every step of that shape. Mirrors bertlab::EncoderActivations<float>, plus
// the attention scratch the CUDA attention op needs (one, shared by layers).
// T is the activation storage type: float (FP32 mode). Means and rstds are
// float for every T.
template <typename T>
class EncoderActivations {
 public:
  EncoderActivations(const BertConfig& config, int64_t batch, int64_t seq_len);

  int64_t batch() const { return batch_; }
  int64_t seq_len() const { return seq_len_; }

  const T* sequence_output() const;                          // (B*T, H)
  const T* pooled_output() const { return pooled_.data(); }  // (B, H)
  // Bytes held by all buffers.
  int64_t SizeInBytes() const;

 private:
  template <typename U>
  friend void EncoderForward(const BertConfig&, const EncoderOffsets&, const U*,
                             const EncoderBatch&, const DropoutSettings&,
                             EncoderActivations<U>*, const CudaContext&);
  template <typename U>
  friend void EncoderBackward(const BertConfig&, const EncoderOffsets&,
                              const U*, float*, const EncoderBatch&,
                              const DropoutSettings&, const U*, const U*,
                              EncoderActivations<U>*, const CudaContext&);

  struct Layer {
    DeviceBuffer<T> qkv;                 // (N, 3H)
    DeviceBuffer<T> probs;               // (B, A, T, T)
    DeviceBuffer<T> context;             // (N, H)
    DeviceBuffer<T> attention_residual;  // (N, H) x + a, LayerNorm input
    DeviceBuffer<T> attention_norm;      // (N, H) h
    DeviceBuffer<float> attention_mean;  // (N)
    DeviceBuffer<float> attention_rstd;  // (N)
    DeviceBuffer<T> intermediate_input;  // (N, I) Dense1 output
    DeviceBuffer<T> intermediate;        // (N, I) GELU output
    DeviceBuffer<T> output_residual;     // (N, H) h + f, LayerNorm input
    DeviceBuffer<T> output;              // (N, H) x of the next layer
    DeviceBuffer<float> output_mean;     // (N)
    DeviceBuffer<float> output_rstd;     // (N)
  };

  int64_t batch_;
  int64_t seq_len_;
  DeviceBuffer<T> embedding_sum_;       // (N, H) LayerNorm input
  DeviceBuffer<T> embedding_output_;    // (N, H) after LayerNorm, dropout
  DeviceBuffer<float> embedding_mean_;  // (N)
  DeviceBuffer<float> embedding_rstd_;  // (N)
  std::vector<Layer> layers_;
  DeviceBuffer<T> cls_;     // (B, H) sequence output at the pooled token
  DeviceBuffer<T> pooled_;  // (B, H)
  // Attention's scratch: dropped probs (forward), d_scores (backward).
  DeviceBuffer<T> attention_scratch_;  // (B, A, T, T)
  // Backward work space.
  DeviceBuffer<T> d_a_, d_b_, d_c_;  // (N, H) each
  DeviceBuffer<T> d_qkv_;            // (N, 3H)
  DeviceBuffer<T> d_intermediate_;   // (N, I)
  DeviceBuffer<T> d_cls_;            // (B, H)
};

// Runs the encoder on `batch` (device pointers; shape must match
// `activations`) with device parameters `params`.
template <typename T>
void EncoderForward(const BertConfig& config, const EncoderOffsets& offsets,
                    const T* params, const EncoderBatch& batch,
                    const DropoutSettings& dropout,
                    EncoderActivations<T>* activations,
                    const CudaContext& context);

// Accumulates into device `grads` (params' layout) the gradient of a loss
// whose output gradients are d_sequence_output (B*T, H) and d_pooled_output
// (B, H), device pointers, either may be null. Must follow EncoderForward on
// the same batch, params and dropout settings.
template <typename T>
void EncoderBackward(const BertConfig& config, const EncoderOffsets& offsets,
                     const T* params, float* grads, const EncoderBatch& batch,
                     const DropoutSettings& dropout, const T* d_sequence_output,
                     const T* d_pooled_output,
                     EncoderActivations<T>* activations,
                     const CudaContext& context);

}  // namespace cuda
}  // namespace bertlab

#endif  // BERTLAB_MODEL_CUDA_ENCODER_CUDA_H_
