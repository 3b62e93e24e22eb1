// BERT's input embeddings before LayerNorm and dropout (HF BertEmbeddings with
// absolute positions): for row r = b * seq_len + t,
//   out[r] = word[input_ids[b][t]] + token_type[token_type_ids[b][t]]
//            + position[t]
// (added in that order, as HF does). Backward scatter-adds (accumulates)
//   d_word[input_ids[b][t]]            += d_out[r]
//   d_token_type[token_type_ids[b][t]] += d_out[r]
//   d_position[t]                      += d_out[r]
// for every r in increasing order. The work is split over hidden columns, so
// a repeated id accumulates in the same order for any thread count and the
// result is bit-identical run to run and across thread counts. Every id is
// CHECKed to be in range (and seq_len <= max_positions) in both directions.
#ifndef BERTLAB_MODEL_OPS_EMBEDDING_H_
#define BERTLAB_MODEL_OPS_EMBEDDING_H_

#include <cstdint>

namespace bertlab {

template <typename T>
void EmbeddingForward(T* out,                    // (batch * seq_len, hidden)
                      const int32_t* input_ids,  // (batch, seq_len)
                      const int32_t* token_type_ids,  // (batch, seq_len)
                      const T* word,                  // (vocab_size, hidden)
                      const T* position,              // (max_positions, hidden)
                      const T* token_type,  // (type_vocab_size, hidden)
                      int64_t batch, int64_t seq_len, int64_t hidden,
                      int64_t vocab_size, int64_t max_positions,
                      int64_t type_vocab_size);

// Only parameter gradients: token ids have none.
template <typename T>
void EmbeddingBackward(T* d_word,                 // (vocab_size, hidden)
                       T* d_position,             // (max_positions, hidden)
                       T* d_token_type,           // (type_vocab_size, hidden)
                       const T* d_out,            // (batch * seq_len, hidden)
                       const int32_t* input_ids,  // (batch, seq_len)
                       const int32_t* token_type_ids,  // (batch, seq_len)
                       int64_t batch, int64_t seq_len, int64_t hidden,
                       int64_t vocab_size, int64_t max_positions,
                       int64_t type_vocab_size);

}  // namespace bertlab

#endif  // BERTLAB_MODEL_OPS_EMBEDDING_H_
