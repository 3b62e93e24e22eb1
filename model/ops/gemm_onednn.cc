#include "model/ops/gemm_onednn.h"

#include <dnnl.h>
#include <dnnl_debug.h>
#include <omp.h>

#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <tuple>

#include "common/check.h"
#include "model/ops/gemm.h"

// Every oneDNN call is checked, with the call and oneDNN's status name.
#define DNNL_CHECK(call)                                        \
  do {                                                          \
    const dnnl_status_t dnnl_check_status = (call);             \
    CHECK(dnnl_check_status == dnnl_success)                    \
        << #call << ": " << dnnl_status2str(dnnl_check_status); \
  } while (0)

namespace bertlab {
namespace {

// (m, n, k, transpose_a, transpose_b, lda, ldb, ldc, scaled, accumulate,
// bf16): everything a primitive is made for. scaled: alpha != 1 (a runtime
// output scale, so every alpha shares one primitive); accumulate: beta != 0;
// bf16: A and B are bfloat16 (C is f32 either way).
using MatmulKey = std::tuple<int64_t, int64_t, int64_t, bool, bool, int64_t,
                             int64_t, int64_t, bool, bool, bool>;

// A primitive of the process-wide cache. Never destroyed: the cache lives
// as long as the process, and so do the engine and primitives (no
// destruction order to get wrong at exit).
struct Matmul {
  dnnl_primitive_t primitive = nullptr;
  dnnl_memory_desc_t a{}, b{}, c{}, scratchpad{};
  bool scaled = false;
};

std::atomic<int64_t> primitives_created{0};

dnnl_engine_t CpuEngine() {
  static const dnnl_engine_t engine = [] {
    dnnl_engine_t created = nullptr;
    DNNL_CHECK(dnnl_engine_create(&created, dnnl_cpu, 0));
    return created;
  }();
  return engine;
}

// A row-major 2-D matrix of `rows` x `cols` stored as given, transposed or
// not, with leading dimension `ld`.
dnnl_memory_desc_t MatrixDesc(int64_t rows, int64_t cols, bool transposed,
                              int64_t ld, dnnl_data_type_t type) {
  const dnnl_dims_t dims = {rows, cols};
  const dnnl_dims_t strides = {transposed ? 1 : ld, transposed ? ld : 1};
  dnnl_memory_desc_t desc;
  DNNL_CHECK(dnnl_memory_desc_init_by_strides(&desc, 2, dims, type, strides));
  return desc;
}

// Returns nullptr (and makes nothing) when oneDNN has no implementation.
dnnl_primitive_desc_t MatmulPrimitiveDesc(const dnnl_memory_desc_t& a,
                                          const dnnl_memory_desc_t& b,
                                          const dnnl_memory_desc_t& c,
                                          bool scaled, bool accumulate) {
  dnnl_primitive_attr_t attr = nullptr;
  DNNL_CHECK(dnnl_primitive_attr_create(&attr));
  // Our own scratchpad per (thread, primitive): a primitive may then run on
  // several threads at once.
  DNNL_CHECK(
      dnnl_primitive_attr_set_scratchpad_mode(attr, dnnl_scratchpad_mode_user));
  if (scaled) {
    const float runtime_scale = DNNL_RUNTIME_F32_VAL;
    DNNL_CHECK(
        dnnl_primitive_attr_set_output_scales(attr, 1, 0, &runtime_scale));
  }
  if (accumulate) {
    dnnl_post_ops_t post_ops = nullptr;
    DNNL_CHECK(dnnl_post_ops_create(&post_ops));
    DNNL_CHECK(dnnl_post_ops_append_sum(post_ops, 1.0f));
    DNNL_CHECK(dnnl_primitive_attr_set_post_ops(attr, post_ops));
    DNNL_CHECK(dnnl_post_ops_destroy(post_ops));
  }
  dnnl_matmul_desc_t matmul;
  DNNL_CHECK(dnnl_matmul_desc_init(&matmul, &a, &b, nullptr, &c));
  dnnl_primitive_desc_t primitive_desc = nullptr;
  const dnnl_status_t status = dnnl_primitive_desc_create(
      &primitive_desc, &matmul, attr, CpuEngine(), nullptr);
  DNNL_CHECK(dnnl_primitive_attr_destroy(attr));
  if (status == dnnl_unimplemented) return nullptr;
  DNNL_CHECK(status);
  return primitive_desc;
}

Matmul* CreateMatmul(const MatmulKey& key) {
  const auto [m, n, k, transpose_a, transpose_b, lda, ldb, ldc, scaled,
              accumulate, bf16] = key;
  const dnnl_data_type_t input_type = bf16 ? dnnl_bf16 : dnnl_f32;
  auto matmul = std::make_unique<Matmul>();
  matmul->a = MatrixDesc(m, k, transpose_a, lda, input_type);
  matmul->b = MatrixDesc(k, n, transpose_b, ldb, input_type);
  matmul->c = MatrixDesc(m, n, /*transposed=*/false, ldc, dnnl_f32);
  matmul->scaled = scaled;
  const dnnl_primitive_desc_t primitive_desc =
      MatmulPrimitiveDesc(matmul->a, matmul->b, matmul->c, scaled, accumulate);
  CHECK(primitive_desc != nullptr)
      << "oneDNN has no " << (bf16 ? "bf16" : "f32") << " matmul for m=" << m
      << " n=" << n << " k=" << k << " transpose_a=" << transpose_a
      << " transpose_b=" << transpose_b << " lda=" << lda << " ldb=" << ldb
      << " ldc=" << ldc;
  matmul->scratchpad = *dnnl_primitive_desc_query_md(
      primitive_desc, dnnl_query_scratchpad_md, 0);
  DNNL_CHECK(dnnl_primitive_create(&matmul->primitive, primitive_desc));
  DNNL_CHECK(dnnl_primitive_desc_destroy(primitive_desc));
  primitives_created.fetch_add(1, std::memory_order_relaxed);
  return matmul.release();
}

// The process-wide cache: one primitive per key, made on first use.
const Matmul* SharedMatmul(const MatmulKey& key) {
  static std::mutex* const mutex = new std::mutex;
  static std::map<MatmulKey, const Matmul*>* const cache =
      new std::map<MatmulKey, const Matmul*>;
  std::lock_guard<std::mutex> lock(*mutex);
  const Matmul*& matmul = (*cache)[key];
  if (matmul == nullptr) matmul = CreateMatmul(key);
  return matmul;
}

dnnl_memory_t CreateMemory(const dnnl_memory_desc_t& desc, void* handle) {
  dnnl_memory_t memory = nullptr;
  DNNL_CHECK(dnnl_memory_create(&memory, &desc, CpuEngine(), handle));
  return memory;
}

// What one thread needs to run one primitive: memory objects whose data
// handles are pointed at each call's operands, and its own scratchpad.
struct ThreadMatmul {
  explicit ThreadMatmul(const Matmul* shared) : matmul(shared) {
    a = CreateMemory(matmul->a, nullptr);
    b = CreateMemory(matmul->b, nullptr);
    c = CreateMemory(matmul->c, nullptr);
    scratchpad = CreateMemory(matmul->scratchpad, DNNL_MEMORY_ALLOCATE);
    if (matmul->scaled) {
      const dnnl_dims_t one = {1};
      dnnl_memory_desc_t scale_desc;
      DNNL_CHECK(
          dnnl_memory_desc_init_by_tag(&scale_desc, 1, one, dnnl_f32, dnnl_a));
      scale = CreateMemory(scale_desc, nullptr);
    }
  }
  ~ThreadMatmul() {
    for (dnnl_memory_t memory : {a, b, c, scratchpad, scale}) {
      if (memory != nullptr) dnnl_memory_destroy(memory);
    }
  }
  ThreadMatmul(const ThreadMatmul&) = delete;
  ThreadMatmul& operator=(const ThreadMatmul&) = delete;

  const Matmul* matmul;
  dnnl_memory_t a = nullptr, b = nullptr, c = nullptr;
  dnnl_memory_t scratchpad = nullptr, scale = nullptr;
};

// One per thread that calls OneDnnGemm.
class ThreadState {
 public:
  ThreadState() {
    // This thread's OpenMP team size: oneDNN asks for it when it makes or
    // runs a primitive here (see the header).
    omp_set_num_threads(1);
    DNNL_CHECK(
        dnnl_stream_create(&stream_, CpuEngine(), dnnl_stream_default_flags));
  }
  ~ThreadState() {
    matmuls_.clear();
    dnnl_stream_destroy(stream_);
  }
  ThreadState(const ThreadState&) = delete;
  ThreadState& operator=(const ThreadState&) = delete;

  dnnl_stream_t stream() const { return stream_; }

  ThreadMatmul& Find(const MatmulKey& key) {
    std::unique_ptr<ThreadMatmul>& found = matmuls_[key];
    if (found == nullptr) {
      found = std::make_unique<ThreadMatmul>(SharedMatmul(key));
    }
    return *found;
  }

 private:
  dnnl_stream_t stream_ = nullptr;
  std::map<MatmulKey, std::unique_ptr<ThreadMatmul>> matmuls_;
};

ThreadState& CurrentThreadState() {
  static thread_local ThreadState state;
  return state;
}

// One product through the cached primitive for its key; `a` and `b` are
// float or bfloat16 as bf16 says.
void RunMatmul(Transpose transpose_a, Transpose transpose_b, int64_t m,
               int64_t n, int64_t k, float alpha, const void* a, int64_t lda,
               const void* b, int64_t ldb, float beta, float* c, int64_t ldc,
               bool bf16) {
  CHECK(m >= 1 && n >= 1 && k >= 1)
      << "OneDnnGemm m=" << m << " n=" << n << " k=" << k;
  const bool transpose_a_bool = transpose_a == Transpose::kYes;
  const bool transpose_b_bool = transpose_b == Transpose::kYes;
  CHECK(lda >= (transpose_a_bool ? m : k) &&
        ldb >= (transpose_b_bool ? k : n) && ldc >= n)
      << "leading dimensions lda=" << lda << " ldb=" << ldb << " ldc=" << ldc;
  const bool scaled = alpha != 1.0f;
  const bool accumulate = beta != 0.0f;
  if (accumulate && beta != 1.0f) {
    for (int64_t row = 0; row < m; ++row) {
      float* c_row = c + row * ldc;
      for (int64_t col = 0; col < n; ++col) c_row[col] *= beta;
    }
  }
  ThreadState& state = CurrentThreadState();
  ThreadMatmul& matmul =
      state.Find(MatmulKey{m, n, k, transpose_a_bool, transpose_b_bool, lda,
                           ldb, ldc, scaled, accumulate, bf16});
  DNNL_CHECK(dnnl_memory_set_data_handle(matmul.a, const_cast<void*>(a)));
  DNNL_CHECK(dnnl_memory_set_data_handle(matmul.b, const_cast<void*>(b)));
  DNNL_CHECK(dnnl_memory_set_data_handle(matmul.c, c));
  dnnl_exec_arg_t args[5] = {{DNNL_ARG_SRC, matmul.a},
                             {DNNL_ARG_WEIGHTS, matmul.b},
                             {DNNL_ARG_DST, matmul.c},
                             {DNNL_ARG_SCRATCHPAD, matmul.scratchpad}};
  int num_args = 4;
  if (scaled) {
    DNNL_CHECK(dnnl_memory_set_data_handle(matmul.scale, &alpha));
    args[num_args++] = {DNNL_ARG_ATTR_OUTPUT_SCALES, matmul.scale};
  }
  DNNL_CHECK(dnnl_primitive_execute(matmul.matmul->primitive, state.stream(),
                                    num_args, args));
  DNNL_CHECK(dnnl_stream_wait(state.stream()));
}

}  // namespace

void OneDnnGemm(Transpose transpose_a, Transpose transpose_b, int64_t m,
                int64_t n, int64_t k, float alpha, const float* a, int64_t lda,
                const float* b, int64_t ldb, float beta, float* c,
                int64_t ldc) {
  RunMatmul(transpose_a, transpose_b, m, n, k, alpha, a, lda, b, ldb, beta, c,
            ldc, /*bf16=*/false);
}

void OneDnnBf16Gemm(Transpose transpose_a, Transpose transpose_b, int64_t m,
                    int64_t n, int64_t k, float alpha, const uint16_t* a,
                    int64_t lda, const uint16_t* b, int64_t ldb, float beta,
                    float* c, int64_t ldc) {
  RunMatmul(transpose_a, transpose_b, m, n, k, alpha, a, lda, b, ldb, beta, c,
            ldc, /*bf16=*/true);
}

int64_t OneDnnMatmulPrimitivesCreated() {
  return primitives_created.load(std::memory_order_relaxed);
}

bool OneDnnBf16MatmulAvailable() {
  constexpr int64_t kSize = 64;
  const dnnl_primitive_desc_t primitive_desc = MatmulPrimitiveDesc(
      MatrixDesc(kSize, kSize, false, kSize, dnnl_bf16),
      MatrixDesc(kSize, kSize, false, kSize, dnnl_bf16),
      MatrixDesc(kSize, kSize, false, kSize, dnnl_f32), /*scaled=*/false,
      /*accumulate=*/false);
  if (primitive_desc == nullptr) return false;
  DNNL_CHECK(dnnl_primitive_desc_destroy(primitive_desc));
  return true;
}

}  // namespace bertlab
