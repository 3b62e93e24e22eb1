#include "model/heads/bilstm.h"

#include <algorithm>
#include <cmath>
#include <string>

#include "common/check.h"
#include "model/ops/lstm.h"

namespace bertlab {
namespace {

LstmDirectionOffsets AddDirection(const std::string& suffix, int64_t input,
                                  int64_t hidden, ParameterLayout* layout) {
  // nn.LSTM's reset_parameters: every tensor U(-1/sqrt(Hd), 1/sqrt(Hd)).
  const Initializer uniform =
      Initializer::Uniform(1.0 / std::sqrt(static_cast<double>(hidden)));
  LstmDirectionOffsets offsets;
  offsets.weight_ih =
      layout->Add("bilstm.weight_ih_l0" + suffix, {4 * hidden, input}, uniform);
  offsets.weight_hh = layout->Add("bilstm.weight_hh_l0" + suffix,
                                  {4 * hidden, hidden}, uniform);
  offsets.bias_ih =
      layout->Add("bilstm.bias_ih_l0" + suffix, {4 * hidden}, uniform);
  offsets.bias_hh =
      layout->Add("bilstm.bias_hh_l0" + suffix, {4 * hidden}, uniform);
  return offsets;
}

}  // namespace

int64_t BiLstmParameterCount(int64_t input_size, int64_t hidden_size) {
  return 2 * 4 * hidden_size * (input_size + hidden_size + 2);
}

BiLstmOffsets AddBiLstmParameters(const BertConfig& config,
                                  const BiLstmOptions& options,
                                  ParameterLayout* layout) {
  BiLstmOffsets offsets;
  offsets.input_size = config.hidden_size;
  if (options.hidden_size == 0) {
    CHECK_EQ(config.hidden_size % 2, 0)
        << "the default BiLSTM width H / 2 per direction needs an even H; set "
           "BiLstmOptions.hidden_size";
    offsets.hidden_size = config.hidden_size / 2;
  } else {
    CHECK_GT(options.hidden_size, 0) << "BiLstmOptions.hidden_size";
    offsets.hidden_size = options.hidden_size;
  }
  offsets.forward =
      AddDirection("", offsets.input_size, offsets.hidden_size, layout);
  offsets.reverse =
      AddDirection("_reverse", offsets.input_size, offsets.hidden_size, layout);
  return offsets;
}

void SequenceLengthsFromMask(int32_t* lengths, const int32_t* attention_mask,
                             int64_t batch, int64_t seq_len) {
  for (int64_t b = 0; b < batch; ++b) {
    if (attention_mask == nullptr) {
      lengths[b] = static_cast<int32_t>(seq_len);
      continue;
    }
    const int32_t* row = attention_mask + b * seq_len;
    int64_t length = 0;
    while (length < seq_len && row[length] != 0) ++length;
    for (int64_t t = length; t < seq_len; ++t) {
      CHECK_EQ(row[t], 0) << "attention mask of sequence " << b
                          << " has a token at " << t << " after padding at "
                          << length << "; the BiLSTM needs padding at the end";
    }
    CHECK_GE(length, 1) << "sequence " << b << " has no real token";
    lengths[b] = static_cast<int32_t>(length);
  }
}

template <typename T>
BiLstmActivations<T>::BiLstmActivations(const BiLstmOffsets& offsets,
                                        int64_t batch, int64_t seq_len)
    : batch_(batch), seq_len_(seq_len) {
  const size_t tokens = batch * seq_len;
  const size_t hidden = offsets.hidden_size;
  lengths_.resize(batch);
  forward_out_.resize(tokens * hidden);
  forward_gates_.resize(tokens * 4 * hidden);
  forward_cells_.resize(tokens * hidden);
  reverse_out_.resize(tokens * hidden);
  reverse_gates_.resize(tokens * 4 * hidden);
  reverse_cells_.resize(tokens * hidden);
  output_.resize(tokens * 2 * hidden);
  d_forward_out_.resize(tokens * hidden);
  d_reverse_out_.resize(tokens * hidden);
  d_reverse_input_.resize(tokens * offsets.input_size);
}

template <typename T>
void BiLstmForward(const BiLstmOffsets& offsets, const T* params,
                   const T* input, const int32_t* attention_mask, int64_t batch,
                   int64_t seq_len, BiLstmActivations<T>* acts) {
  const int64_t in_size = offsets.input_size;
  const int64_t hidden = offsets.hidden_size;
  CHECK_LE(batch, acts->batch_);
  CHECK_EQ(seq_len, acts->seq_len_);
  SequenceLengthsFromMask(acts->lengths_.data(), attention_mask, batch,
                          seq_len);
  const LstmDirectionOffsets& fwd = offsets.forward;
  LstmForward(acts->forward_out_.data(), acts->forward_gates_.data(),
              acts->forward_cells_.data(), input, params + fwd.weight_ih,
              params + fwd.weight_hh, params + fwd.bias_ih,
              params + fwd.bias_hh, batch, seq_len, in_size, hidden,
              /*reverse=*/false);
  const LstmDirectionOffsets& rev = offsets.reverse;
  for (int64_t b = 0; b < batch; ++b) {
    const int64_t token = b * seq_len;
    LstmForward(acts->reverse_out_.data() + token * hidden,
                acts->reverse_gates_.data() + token * 4 * hidden,
                acts->reverse_cells_.data() + token * hidden,
                input + token * in_size, params + rev.weight_ih,
                params + rev.weight_hh, params + rev.bias_ih,
                params + rev.bias_hh, int64_t{1}, int64_t{acts->lengths_[b]},
                in_size, hidden,
                /*reverse=*/true);
  }
  for (int64_t b = 0; b < batch; ++b) {
    for (int64_t t = 0; t < seq_len; ++t) {
      const int64_t token = b * seq_len + t;
      T* out = acts->output_.data() + token * 2 * hidden;
      if (t >= acts->lengths_[b]) {
        std::fill(out, out + 2 * hidden, T(0));
        continue;
      }
      const T* forward_h = acts->forward_out_.data() + token * hidden;
      const T* reverse_h = acts->reverse_out_.data() + token * hidden;
      std::copy(forward_h, forward_h + hidden, out);
      std::copy(reverse_h, reverse_h + hidden, out + hidden);
    }
  }
}

template <typename T>
void BiLstmBackward(const BiLstmOffsets& offsets, const T* params, T* grads,
                    const T* input, const T* d_output, int64_t batch,
                    int64_t seq_len, BiLstmActivations<T>* acts, T* d_input) {
  const int64_t in_size = offsets.input_size;
  const int64_t hidden = offsets.hidden_size;
  CHECK_LE(batch, acts->batch_);
  CHECK_EQ(seq_len, acts->seq_len_);
  // Split d_output by direction; padded outputs are constants.
  for (int64_t b = 0; b < batch; ++b) {
    for (int64_t t = 0; t < seq_len; ++t) {
      const int64_t token = b * seq_len + t;
      T* d_forward = acts->d_forward_out_.data() + token * hidden;
      T* d_reverse = acts->d_reverse_out_.data() + token * hidden;
      if (t >= acts->lengths_[b]) {
        std::fill(d_forward, d_forward + hidden, T(0));
        std::fill(d_reverse, d_reverse + hidden, T(0));
        continue;
      }
      const T* d_out = d_output + token * 2 * hidden;
      std::copy(d_out, d_out + hidden, d_forward);
      std::copy(d_out + hidden, d_out + 2 * hidden, d_reverse);
    }
  }
  // With zero output gradients after L_b, the forward direction's padded
  // steps carry no gradient back, so d_input is 0 there.
  const LstmDirectionOffsets& fwd = offsets.forward;
  LstmBackward(d_input, grads + fwd.weight_ih, grads + fwd.weight_hh,
               grads + fwd.bias_ih, grads + fwd.bias_hh,
               acts->d_forward_out_.data(), input, params + fwd.weight_ih,
               params + fwd.weight_hh, acts->forward_out_.data(),
               acts->forward_gates_.data(), acts->forward_cells_.data(), batch,
               seq_len, in_size, hidden, /*reverse=*/false);
  const LstmDirectionOffsets& rev = offsets.reverse;
  for (int64_t b = 0; b < batch; ++b) {
    const int64_t token = b * seq_len;
    const int64_t length = acts->lengths_[b];
    T* d_reverse_input = acts->d_reverse_input_.data() + token * in_size;
    LstmBackward(
        d_input != nullptr ? d_reverse_input : nullptr, grads + rev.weight_ih,
        grads + rev.weight_hh, grads + rev.bias_ih, grads + rev.bias_hh,
        acts->d_reverse_out_.data() + token * hidden, input + token * in_size,
        params + rev.weight_ih, params + rev.weight_hh,
        acts->reverse_out_.data() + token * hidden,
        acts->reverse_gates_.data() + token * 4 * hidden,
        acts->reverse_cells_.data() + token * hidden, int64_t{1}, length,
        in_size, hidden, /*reverse=*/true);
    if (d_input == nullptr) continue;
    T* d_in = d_input + token * in_size;
    for (int64_t i = 0; i < length * in_size; ++i) {
      d_in[i] += d_reverse_input[i];
    }
  }
}

template <typename T>
void BiLstmPoolForward(T* pooled, const T* output, const int32_t* lengths,
                       int64_t batch, int64_t seq_len, int64_t hidden_size) {
  const int64_t width = 2 * hidden_size;
  for (int64_t b = 0; b < batch; ++b) {
    const int64_t length = lengths[b];
    CHECK(length >= 1 && length <= seq_len)
        << "length " << length << " of sequence " << b << ", T " << seq_len;
    const T* last = output + (b * seq_len + length - 1) * width;
    const T* first = output + b * seq_len * width;
    T* row = pooled + b * width;
    std::copy(last, last + hidden_size, row);
    std::copy(first + hidden_size, first + width, row + hidden_size);
  }
}

template <typename T>
void BiLstmPoolBackward(T* d_output, const T* d_pooled, const int32_t* lengths,
                        int64_t batch, int64_t seq_len, int64_t hidden_size) {
  const int64_t width = 2 * hidden_size;
  std::fill(d_output, d_output + batch * seq_len * width, T(0));
  for (int64_t b = 0; b < batch; ++b) {
    const int64_t length = lengths[b];
    CHECK(length >= 1 && length <= seq_len)
        << "length " << length << " of sequence " << b << ", T " << seq_len;
    const T* row = d_pooled + b * width;
    T* last = d_output + (b * seq_len + length - 1) * width;
    T* first = d_output + b * seq_len * width;
    std::copy(row, row + hidden_size, last);
    std::copy(row + hidden_size, row + width, first + hidden_size);
  }
}

template class BiLstmActivations<float>;
template class BiLstmActivations<double>;
#define BERTLAB_INSTANTIATE(T)                                               \
  template void BiLstmForward<T>(const BiLstmOffsets&, const T*, const T*,   \
                                 const int32_t*, int64_t, int64_t,           \
                                 BiLstmActivations<T>*);                     \
  template void BiLstmBackward<T>(const BiLstmOffsets&, const T*, T*,        \
                                  const T*, const T*, int64_t, int64_t,      \
                                  BiLstmActivations<T>*, T*);                \
  template void BiLstmPoolForward<T>(T*, const T*, const int32_t*, int64_t,  \
                                     int64_t, int64_t);                      \
  template void BiLstmPoolBackward<T>(T*, const T*, const int32_t*, int64_t, \
                                      int64_t, int64_t);
BERTLAB_INSTANTIATE(float)
BERTLAB_INSTANTIATE(double)
#undef BERTLAB_INSTANTIATE

}  // namespace bertlab
