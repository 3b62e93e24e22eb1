#include <algorithm>
#include <cstdint>

#include "common/check.h"
#include "common/parallel.h"
#include "model/ops/embedding.h"

namespace bertlab {
namespace {

// Roughly the element count below which a ParallelFor chunk is not worth it.
constexpr int64_t kMinElementsPerChunk = 1 << 14;
// Backward splits columns; fewer than a cache line's worth per thread would
// share lines between threads.
constexpr int64_t kMinColumnsPerChunk = 16;

void CheckIdsInRange(const int32_t* ids, int64_t count, int64_t limit,
                     const char* name) {
  for (int64_t i = 0; i < count; ++i) {
    CHECK(ids[i] >= 0 && ids[i] < limit) << name << "[" << i << "] = " << ids[i]
                                         << " is outside [0, " << limit << ")";
  }
}

void CheckShapes(const int32_t* input_ids, const int32_t* token_type_ids,
                 int64_t batch, int64_t seq_len, int64_t hidden,
                 int64_t vocab_size, int64_t max_positions,
                 int64_t type_vocab_size) {
  CHECK_GE(batch, 0);
  CHECK_GE(seq_len, 0);
  CHECK_GE(hidden, 0);
  CHECK_LE(seq_len, max_positions) << "sequence longer than the position table";
  CheckIdsInRange(input_ids, batch * seq_len, vocab_size, "input_ids");
  CheckIdsInRange(token_type_ids, batch * seq_len, type_vocab_size,
                  "token_type_ids");
}

}  // namespace

template <typename T>
void EmbeddingForward(T* out, const int32_t* input_ids,
                      const int32_t* token_type_ids, const T* word,
                      const T* position, const T* token_type, int64_t batch,
                      int64_t seq_len, int64_t hidden, int64_t vocab_size,
                      int64_t max_positions, int64_t type_vocab_size) {
  CheckShapes(input_ids, token_type_ids, batch, seq_len, hidden, vocab_size,
              max_positions, type_vocab_size);
  const int64_t min_rows =
      std::max<int64_t>(1, kMinElementsPerChunk / std::max<int64_t>(1, hidden));
  ParallelFor(0, batch * seq_len, min_rows, [&](int64_t begin, int64_t end) {
    for (int64_t row = begin; row < end; ++row) {
      const T* word_row = word + input_ids[row] * hidden;
      const T* type_row = token_type + token_type_ids[row] * hidden;
      const T* position_row = position + (row % seq_len) * hidden;
      T* out_row = out + row * hidden;
      for (int64_t c = 0; c < hidden; ++c) {
        out_row[c] = word_row[c] + type_row[c] + position_row[c];
      }
    }
  });
}

template <typename T>
void EmbeddingBackward(T* d_word, T* d_position, T* d_token_type,
                       const T* d_out, const int32_t* input_ids,
                       const int32_t* token_type_ids, int64_t batch,
                       int64_t seq_len, int64_t hidden, int64_t vocab_size,
                       int64_t max_positions, int64_t type_vocab_size) {
  CheckShapes(input_ids, token_type_ids, batch, seq_len, hidden, vocab_size,
              max_positions, type_vocab_size);
  CHECK(d_word != nullptr && d_position != nullptr && d_token_type != nullptr);
  const int64_t rows = batch * seq_len;
  const int64_t min_columns = std::max<int64_t>(
      kMinColumnsPerChunk, kMinElementsPerChunk / std::max<int64_t>(1, rows));
  ParallelFor(0, hidden, min_columns, [&](int64_t begin, int64_t end) {
    for (int64_t row = 0; row < rows; ++row) {
      const T* gradient = d_out + row * hidden;
      T* word_row = d_word + input_ids[row] * hidden;
      T* type_row = d_token_type + token_type_ids[row] * hidden;
      T* position_row = d_position + (row % seq_len) * hidden;
      for (int64_t c = begin; c < end; ++c) {
        word_row[c] += gradient[c];
        type_row[c] += gradient[c];
        position_row[c] += gradient[c];
      }
    }
  });
}

template void EmbeddingForward<float>(float*, const int32_t*, const int32_t*,
                                      const float*, const float*, const float*,
                                      int64_t, int64_t, int64_t, int64_t,
                                      int64_t, int64_t);
template void EmbeddingForward<double>(double*, const int32_t*, const int32_t*,
                                       const double*, const double*,
                                       const double*, int64_t, int64_t, int64_t,
                                       int64_t, int64_t, int64_t);
template void EmbeddingBackward<float>(float*, float*, float*, const float*,
                                       const int32_t*, const int32_t*, int64_t,
                                       int64_t, int64_t, int64_t, int64_t,
                                       int64_t);
template void EmbeddingBackward<double>(double*, double*, double*,
                                        const double*, const int32_t*,
                                        const int32_t*, int64_t, int64_t,
                                        int64_t, int64_t, int64_t, int64_t);

}  // namespace bertlab
