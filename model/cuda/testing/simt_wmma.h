// CUDA's warp matrix API (<mma.h>, nvcuda::wmma) for kernel source run under
// the host SIMT emulator (simt_emulator.h): the 16 x 16 x 16 shape with
// __nv_bfloat16 inputs and float accumulators, which is all the kernels use.
//
// On a GPU a fragment is spread over the warp's 32 lanes in an unspecified
// layout. Here every lane's fragment holds the whole tile, so kernel code
// that only loads, multiplies, fills and stores fragments (the
// layout-independent use) computes the same thing, and code that reads a
// fragment's elements does not compile (the layout is the GPU's secret).
//
// Each call is a warp collective, as on a GPU: all 32 lanes must reach it
// (the emulator's warp barrier: a missing lane deadlocks loudly, a lane at a
// different call site is a divergent-barrier error), and the load / store
// calls check that every lane passes the same pointer and ldm, that the
// pointer is 256-bit aligned and ldm a multiple of 16 bytes, as the CUDA
// programming guide requires. Products are summed in float in k order; the
// tensor cores' order (and their rounding of intermediate sums) is not
// specified, so results agree with a GPU to rounding, not bit for bit.
#ifndef BERTLAB_MODEL_CUDA_TESTING_SIMT_WMMA_H_
#define BERTLAB_MODEL_CUDA_TESTING_SIMT_WMMA_H_

#include <cstdint>
#include <cstring>
#include <type_traits>

#include "model/cuda/testing/simt_emulator.h"

namespace nvcuda {
namespace wmma {

struct matrix_a {};
struct matrix_b {};
struct accumulator {};
struct row_major {};
struct col_major {};
enum layout_t { mem_row_major, mem_col_major };

template <typename Use, int M, int N, int K, typename T, typename Layout = void>
class fragment {
  static_assert(M == 16 && N == 16 && K == 16,
                "the emulator has the 16 x 16 x 16 shape only");
  static_assert(std::is_same<Use, accumulator>::value
                    ? std::is_same<T, float>::value
                    : std::is_same<T, __nv_bfloat16>::value,
                "the emulator has bf16 inputs and float accumulators only");
  static_assert(std::is_same<Use, accumulator>::value ==
                    std::is_same<Layout, void>::value,
                "inputs name their layout, accumulators do not");

 public:
  // The whole 16 x 16 tile, row-major, as float (bf16 converts exactly).
  // Named so that no kernel mistakes it for CUDA's per-lane `x`.
  float emulated_tile[256];
};

namespace emulated {

// Every lane of the warp passes the same (pointer, ldm): one warp exchange.
// Also the warp barrier that makes the call a collective.
inline void CheckUniform(const char* operation, const void* pointer,
                         unsigned ldm, size_t element_bytes, const char* file,
                         int line) {
  using ::bertlab::simt::internal::Fail;
  if (reinterpret_cast<uintptr_t>(pointer) % 32 != 0) {
    Fail("%s at %s:%d: pointer %p is not 256-bit aligned", operation, file,
         line, pointer);
  }
  if ((ldm * element_bytes) % 16 != 0) {
    Fail("%s at %s:%d: ldm %u is not a multiple of 16 bytes", operation, file,
         line, ldm);
  }
  const uint64_t mine =
      reinterpret_cast<uintptr_t>(pointer) ^ (static_cast<uint64_t>(ldm) << 48);
  const uint64_t lane0 = ::bertlab::simt::internal::Shuffle(
      operation, ::bertlab::simt::internal::ShuffleMode::kIndex, 0xffffffffu,
      mine, 0u, 32, file, line);
  if (lane0 != mine) {
    Fail("%s at %s:%d: lanes of one warp pass different pointers or ldm",
         operation, file, line);
  }
}

template <typename T>
float Value(T element) {
  if constexpr (std::is_same<T, float>::value) {
    return element;
  } else {
    return __bfloat162float(element);
  }
}

// Element (row, column) of a 16 x 16 tile at `pointer`.
inline size_t Offset(int row, int column, unsigned ldm, bool row_major) {
  return row_major ? static_cast<size_t>(row) * ldm + column
                   : static_cast<size_t>(column) * ldm + row;
}

template <typename T>
void Load(float (&tile)[256], const T* pointer, unsigned ldm, bool row_major) {
  for (int r = 0; r < 16; ++r) {
    for (int c = 0; c < 16; ++c) {
      tile[r * 16 + c] = Value(pointer[Offset(r, c, ldm, row_major)]);
    }
  }
}

}  // namespace emulated

template <typename Use, int M, int N, int K, typename T, typename Layout>
void fill_fragment(fragment<Use, M, N, K, T, Layout>& a, const T& value) {
  for (float& element : a.emulated_tile) element = emulated::Value(value);
}

template <typename Use, int M, int N, int K, typename T, typename Layout>
void load_matrix_sync(fragment<Use, M, N, K, T, Layout>& a, const T* pointer,
                      unsigned ldm, const char* file = __builtin_FILE(),
                      int line = __builtin_LINE()) {
  static_assert(!std::is_same<Use, accumulator>::value,
                "an accumulator load names the memory layout");
  emulated::CheckUniform("wmma::load_matrix_sync", pointer, ldm, sizeof(T),
                         file, line);
  emulated::Load(a.emulated_tile, pointer, ldm,
                 std::is_same<Layout, row_major>::value);
}

template <int M, int N, int K>
void load_matrix_sync(fragment<accumulator, M, N, K, float>& a,
                      const float* pointer, unsigned ldm, layout_t layout,
                      const char* file = __builtin_FILE(),
                      int line = __builtin_LINE()) {
  emulated::CheckUniform("wmma::load_matrix_sync", pointer, ldm, sizeof(float),
                         file, line);
  emulated::Load(a.emulated_tile, pointer, ldm, layout == mem_row_major);
}

// Every lane writes the whole tile (the same values) once the collective's
// warp barrier has passed: other warps see the words only after a
// __syncthreads, as on a GPU (the reverse schedule shows a missing one).
template <int M, int N, int K>
void store_matrix_sync(float* pointer,
                       const fragment<accumulator, M, N, K, float>& a,
                       unsigned ldm, layout_t layout,
                       const char* file = __builtin_FILE(),
                       int line = __builtin_LINE()) {
  emulated::CheckUniform("wmma::store_matrix_sync", pointer, ldm, sizeof(float),
                         file, line);
  for (int r = 0; r < 16; ++r) {
    for (int c = 0; c < 16; ++c) {
      pointer[emulated::Offset(r, c, ldm, layout == mem_row_major)] =
          a.emulated_tile[r * 16 + c];
    }
  }
}

// d = a b + c. The 32 lanes hold the same tiles, so the product is computed
// once and the other lanes of the warp (which run one after another) reuse
// it: a memo keyed by the whole input, correct whatever the schedule.
template <int M, int N, int K, typename LayoutA, typename LayoutB>
void mma_sync(fragment<accumulator, M, N, K, float>& d,
              const fragment<matrix_a, M, N, K, __nv_bfloat16, LayoutA>& a,
              const fragment<matrix_b, M, N, K, __nv_bfloat16, LayoutB>& b,
              const fragment<accumulator, M, N, K, float>& c,
              const char* file = __builtin_FILE(),
              int line = __builtin_LINE()) {
  ::bertlab::simt::internal::Arrive(
      ::bertlab::simt::internal::WarpBarrier("wmma::mma_sync", 0xffffffffu,
                                             file, line),
      ::bertlab::simt::internal::Site{"wmma::mma_sync", file, line}, false);
  struct Memo {
    bool valid = false;
    float a[256], b[256], c[256], d[256];
  };
  static thread_local Memo memo;
  const size_t bytes = sizeof(memo.a);
  if (!(memo.valid && std::memcmp(memo.a, a.emulated_tile, bytes) == 0 &&
        std::memcmp(memo.b, b.emulated_tile, bytes) == 0 &&
        std::memcmp(memo.c, c.emulated_tile, bytes) == 0)) {
    std::memcpy(memo.a, a.emulated_tile, bytes);
    std::memcpy(memo.b, b.emulated_tile, bytes);
    std::memcpy(memo.c, c.emulated_tile, bytes);
    for (int m = 0; m < 16; ++m) {
      for (int n = 0; n < 16; ++n) {
        float sum = memo.c[m * 16 + n];
        for (int k = 0; k < 16; ++k) {
          sum = fmaf(memo.a[m * 16 + k], memo.b[k * 16 + n], sum);
        }
        memo.d[m * 16 + n] = sum;
      }
    }
    memo.valid = true;
  }
  std::memcpy(d.emulated_tile, memo.d, bytes);
}

}  // namespace wmma
}  // namespace nvcuda

#endif  // BERTLAB_MODEL_CUDA_TESTING_SIMT_WMMA_H_
