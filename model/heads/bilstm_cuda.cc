// The GPU BiLSTM; see bilstm_cuda.h. The composition of
// model/heads/bilstm.cc with lstm_cuda.h's directions.
#include "model/heads/bilstm_cuda.h"

// The complete __nv_bfloat16 (the headers only declare it) for pointer
// arithmetic on bf16 params; g++ may include it (model/cuda/README.md).
#include <cuda_bf16.h>

#include "common/check.h"

namespace bertlab {
namespace cuda {

template <typename T>
BiLstmActivations<T>::BiLstmActivations(const BiLstmOffsets& offsets,
                                        int64_t batch, int64_t seq_len)
    : batch_(batch), seq_len_(seq_len) {
  CHECK_GT(batch, 0);
  CHECK_GT(seq_len, 0);
  const int64_t tokens = batch * seq_len;
  const int64_t hidden = offsets.hidden_size;
  lengths_ = DeviceBuffer<int32_t>("bilstm.lengths", batch);
  output_ = ActivationBuffer<T>("bilstm.output", tokens * 2 * hidden);
  forward_gates_ =
      DeviceBuffer<float>("bilstm.forward_gates", tokens * 4 * hidden);
  forward_cells_ = DeviceBuffer<float>("bilstm.forward_cells", tokens * hidden);
  reverse_gates_ =
      DeviceBuffer<float>("bilstm.reverse_gates", tokens * 4 * hidden);
  reverse_cells_ = DeviceBuffer<float>("bilstm.reverse_cells", tokens * hidden);
  recurrent_ = DeviceBuffer<float>("bilstm.recurrent", batch * 4 * hidden);
  h_state_ = ActivationBuffer<T>("bilstm.h_state", batch * hidden);
  c_state_ = DeviceBuffer<float>("bilstm.c_state", batch * hidden);
  d_gates_ = ActivationBuffer<T>("bilstm.d_gates", tokens * 4 * hidden);
  d_gates_step_ =
      ActivationBuffer<T>("bilstm.d_gates_step", batch * 4 * hidden);
  d_h_carry_ = DeviceBuffer<float>("bilstm.d_h_carry", batch * hidden);
  d_c_carry_ = DeviceBuffer<float>("bilstm.d_c_carry", batch * hidden);
  h_previous_ = ActivationBuffer<T>("bilstm.h_previous", tokens * hidden);
}

template <typename T>
int64_t BiLstmActivations<T>::SizeInBytes() const {
  int64_t bytes = static_cast<int64_t>(lengths_.bytes());
  for (const DeviceBuffer<float>* buffer :
       {&forward_gates_, &forward_cells_, &reverse_gates_, &reverse_cells_,
        &recurrent_, &c_state_, &d_h_carry_, &d_c_carry_}) {
    bytes += static_cast<int64_t>(buffer->bytes());
  }
  for (const ActivationBuffer<T>* buffer :
       {&output_, &h_state_, &d_gates_, &d_gates_step_, &h_previous_}) {
    bytes += static_cast<int64_t>(buffer->bytes());
  }
  return bytes;
}

template <typename T>
LstmWorkspace<T> BiLstmActivations<T>::Workspace() {
  return LstmWorkspace<T>{recurrent_.data(),    h_state_.data(),
                          c_state_.data(),      d_gates_.data(),
                          d_gates_step_.data(), d_h_carry_.data(),
                          d_c_carry_.data(),    h_previous_.data()};
}

template <typename T>
void BiLstmForward(const BiLstmOffsets& offsets, const T* params,
                   const T* input, const int32_t* attention_mask, int64_t batch,
                   int64_t seq_len, BiLstmActivations<T>* acts,
                   const CudaContext& context) {
  const int64_t in_size = offsets.input_size;
  const int64_t hidden = offsets.hidden_size;
  CHECK_LE(batch, acts->batch_);
  CHECK_EQ(seq_len, acts->seq_len_);
  SequenceLengths(acts->lengths_.data(), attention_mask, batch, seq_len,
                  context);
  // The directions write real positions only; padded outputs are 0.
  acts->output_.Zero(context.stream());
  const LstmWorkspace<T> workspace = acts->Workspace();
  const LstmDirectionOffsets& fwd = offsets.forward;
  LstmForward(acts->output_.data(), 2 * hidden, acts->forward_gates_.data(),
              acts->forward_cells_.data(), input, params + fwd.weight_ih,
              params + fwd.weight_hh, params + fwd.bias_ih,
              params + fwd.bias_hh, acts->lengths_.data(), batch, seq_len,
              in_size, hidden, /*reverse=*/false, workspace, context);
  const LstmDirectionOffsets& rev = offsets.reverse;
  LstmForward(acts->output_.data() + hidden, 2 * hidden,
              acts->reverse_gates_.data(), acts->reverse_cells_.data(), input,
              params + rev.weight_ih, params + rev.weight_hh,
              params + rev.bias_ih, params + rev.bias_hh, acts->lengths_.data(),
              batch, seq_len, in_size, hidden,
              /*reverse=*/true, workspace, context);
}

template <typename T>
void BiLstmBackward(const BiLstmOffsets& offsets, const T* params, float* grads,
                    const T* input, const T* d_output, int64_t batch,
                    int64_t seq_len, BiLstmActivations<T>* acts, T* d_input,
                    const CudaContext& context) {
  const int64_t in_size = offsets.input_size;
  const int64_t hidden = offsets.hidden_size;
  CHECK_LE(batch, acts->batch_);
  CHECK_EQ(seq_len, acts->seq_len_);
  const LstmWorkspace<T> workspace = acts->Workspace();
  const T* output = acts->output_.data();
  const LstmDirectionOffsets& fwd = offsets.forward;
  LstmBackward(d_input, /*accumulate_d_in=*/false, grads + fwd.weight_ih,
               grads + fwd.weight_hh, grads + fwd.bias_ih, grads + fwd.bias_hh,
               d_output, 2 * hidden, input, params + fwd.weight_ih,
               params + fwd.weight_hh, output, 2 * hidden,
               acts->forward_gates_.data(), acts->forward_cells_.data(),
               acts->lengths_.data(), batch, seq_len, in_size, hidden,
               /*reverse=*/false, workspace, context);
  const LstmDirectionOffsets& rev = offsets.reverse;
  LstmBackward(d_input, /*accumulate_d_in=*/true, grads + rev.weight_ih,
               grads + rev.weight_hh, grads + rev.bias_ih, grads + rev.bias_hh,
               d_output + hidden, 2 * hidden, input, params + rev.weight_ih,
               params + rev.weight_hh, output + hidden, 2 * hidden,
               acts->reverse_gates_.data(), acts->reverse_cells_.data(),
               acts->lengths_.data(), batch, seq_len, in_size, hidden,
               /*reverse=*/true, workspace, context);
}

#define BERTLAB_INSTANTIATE_BILSTM_CUDA(T)                                   \
  template class BiLstmActivations<T>;                                       \
  template void BiLstmForward<T>(const BiLstmOffsets&, const T*, const T*,   \
                                 const int32_t*, int64_t, int64_t,           \
                                 BiLstmActivations<T>*, const CudaContext&); \
  template void BiLstmBackward<T>(                                           \
      const BiLstmOffsets&, const T*, float*, const T*, const T*, int64_t,   \
      int64_t, BiLstmActivations<T>*, T*, const CudaContext&);

// FP32 mode.
BERTLAB_INSTANTIATE_BILSTM_CUDA(float)
// BF16 mixed precision (bf16 working-copy params, float gradients).
BERTLAB_INSTANTIATE_BILSTM_CUDA(__nv_bfloat16)

#undef BERTLAB_INSTANTIATE_BILSTM_CUDA

}  // namespace cuda
}  // namespace bertlab
