// A host SIMT emulator: CUDA kernel source, unchanged, compiled by g++ and
// run on the CPU, so that plain `bazel test //...` (no GPU, no nvcc) executes
// the kernels' own code. A kernel declares itself with model/cuda/
// kernel_decl.h's macros (BERTLAB_KERNEL(_UNBOUNDED), BERTLAB_DYNAMIC_ /
// BERTLAB_STATIC_SHARED_MEMORY);
// everything else it uses comes from here: the function qualifiers, dim3 /
// uint3 / float2 / float4 / int2 / int4 / uint2 / uint4 and their make_*,
// threadIdx / blockIdx / blockDim / gridDim / warpSize, __syncthreads(_and /
// _or / _count), __syncwarp, __shfl(_xor / _up / _down)_sync, atomicAdd /
// Min / Max, min / max, __nv_bfloat16(2) with cuda_bf16.h's conversions
// (common/half.h's round-to-nearest-even), the _rn arithmetic intrinsics
// (__fadd_rn ... __ddiv_rn, __dsqrt_rn, __double2float_rn), __trap (aborts
// naming the thread), global isfinite / isinf / isnan, and the running
// block's static shared arrays (kernel_decl.h's BERTLAB_STATIC_SHARED_MEMORY).
// Host <cmath> supplies expf, logf, erfcf, tanhf, sqrt, fmaf. Kernels get
// ToFloat / FromFloat, the warp / block sums and ColumnSumsKernel from
// model/cuda/kernel_util_device.cuh, which both compilers read
// (kernel_util.cuh, nvcc-only, adds the <<< >>> launches).
//
//   simt::Launch(grid, block, shared_bytes, &Kernel<...>, args...);
//
// runs every block of the grid, one after another, each as blockDim fibers
// (ucontext) on the calling OS thread: deterministic, so a test's result is
// the same on every run (host libm may differ between machines). A fiber runs
// until it reaches a barrier
// (__syncthreads*, a warp shuffle, __syncwarp) or returns; the scheduler sweeps
// the block's threads in a fixed order, each one running as far as it can,
// until all have returned. The arguments are converted to the kernel's
// parameter types once, as a launch copies them, and every thread gets its
// own copy.
//
// What it checks:
//   - Dynamic shared memory is exactly shared_bytes long, allocated per block
//     with posix_memalign (ASan, `--config=asan`, reports any overrun) and
//     filled with 0xFF bytes (float NaN, int -1), so a value read before it is
//     written shows up as NaN.
//   - A barrier that not every thread of the block (the warp, for shuffles and
//     __syncwarp) reaches, e.g. one in a branch some threads skip or after an
//     early return, aborts with "deadlock in block (x, y, z)", saying how
//     many threads wait where and how many have returned. So does a barrier
//     generation whose threads arrive from different call sites (file:line).
//   - Schedule::kReverse runs blocks and threads in the opposite order. A
//     missing barrier between a write and another thread's read makes the
//     reader see the value, or the NaN fill, depending on which of the two ran
//     first: compare the two orders' outputs bit for bit. The sweeps stop
//     every thread at every barrier, so a warp barrier (a shuffle, a wmma
//     call) between another warp's write and the read hides a missing
//     __syncthreads; Schedule::kWarpByWarp(Reverse) runs each warp alone up
//     to its next block barrier and shows it: compare those outputs too.
//   - Fiber stacks (LaunchOptions::stack_bytes, 64 KiB by default: the
//     kernels keep register tiles on the stack) sit above PROT_NONE guard
//     pages, so an overflow faults instead of corrupting a neighbour.
//
// What it does NOT catch:
//   - Races between barriers that the schedules happen to agree on, and
//     intra-warp races: a warp shuffle here orders every lane's earlier
//     shared-memory writes before the other lanes' later reads, which on a
//     GPU only __syncwarp / __syncthreads guarantee, and nothing tracks which
//     thread wrote which word (compute-sanitizer's racecheck / synccheck on
//     a GPU is the real check).
//   - GPU arithmetic: host expf / logf differ from CUDA's by an ulp or so,
//     and nvcc contracts a * b + c into one fma where g++ rounds twice (only
//     explicit fmaf calls are fused here). Results agree to rounding, not bit
//     for bit.
//   - The memory model: no caches, no reordering, no visibility delays;
//     atomics are plain read-modify-writes in the fixed order. Nothing runs
//     concurrently across blocks, so inter-block races never show.
//   - __launch_bounds__, register limits, occupancy, shared-memory limits of a
//     real device, bank conflicts, and anything about speed.
//   - Partial-warp masks (a mask other than 0xffffffff aborts), cooperative
//     groups, texture / constant memory. Warp matrix ops (nvcuda::wmma) are
//     simt_wmma.h's, the 16 x 16 x 16 bf16 shape only, and hide the GPU's
//     fragment layout (see there); CUB's BlockRadixSort / BlockScan are
//     simt_cub.h's, by their contract, not CUB's code.
//   - Two calls of one helper (e.g. a warp-sum function) from different places
//     look alike to the call-site check: the site is the barrier call itself.
//
// Test-only, g++ only (never include it from code nvcc compiles); targets
// that compile kernel source with it add SIMT_EMULATOR_COPTS
// (simt_emulator.bzl: #pragma unroll, type punning). Kernels must not throw.
// One Launch at a time per OS thread; a kernel must not launch. Under ASan the
// fiber switches are annotated (__sanitizer_start_switch_fiber); ASan still
// prints once that it does not fully support swapcontext.
#ifndef BERTLAB_MODEL_CUDA_TESTING_SIMT_EMULATOR_H_
#define BERTLAB_MODEL_CUDA_TESTING_SIMT_EMULATOR_H_

#ifdef __CUDACC__
#error "simt_emulator.h emulates CUDA for g++; nvcc has the real built-ins"
#endif

#define BERTLAB_SIMT_EMULATOR 1

#include <sys/mman.h>
#include <ucontext.h>
#include <unistd.h>

#include <cmath>
#include <cstdarg>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "common/half.h"

#if defined(__SANITIZE_ADDRESS__)
#define BERTLAB_SIMT_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define BERTLAB_SIMT_ASAN 1
#endif
#endif
#ifdef BERTLAB_SIMT_ASAN
#include <sanitizer/asan_interface.h>
#include <sanitizer/common_interface_defs.h>
#endif

// ---------------------------------------------------------------------------
// Function qualifiers: everything is host code here.

#define __host__
#define __device__
#define __forceinline__ inline

// ---------------------------------------------------------------------------
// Vector types (global, as CUDA's). may_alias: kernels reinterpret rows of
// float / bf16 through them, which CUDA allows and g++'s strict aliasing
// would not.

struct uint3 {
  unsigned int x, y, z;
};

struct dim3 {
  unsigned int x, y, z;
  constexpr dim3(unsigned int x_ = 1, unsigned int y_ = 1, unsigned int z_ = 1)
      : x(x_), y(y_), z(z_) {}
};

struct __attribute__((__may_alias__, __aligned__(8))) float2 {
  float x, y;
};
struct __attribute__((__may_alias__, __aligned__(16))) float4 {
  float x, y, z, w;
};
struct __attribute__((__may_alias__, __aligned__(8))) int2 {
  int x, y;
};
struct __attribute__((__may_alias__, __aligned__(16))) int4 {
  int x, y, z, w;
};
struct __attribute__((__may_alias__, __aligned__(8))) uint2 {
  unsigned int x, y;
};
struct __attribute__((__may_alias__, __aligned__(16))) uint4 {
  unsigned int x, y, z, w;
};

inline float2 make_float2(float x, float y) { return float2{x, y}; }
inline float4 make_float4(float x, float y, float z, float w) {
  return float4{x, y, z, w};
}
inline int2 make_int2(int x, int y) { return int2{x, y}; }
inline int4 make_int4(int x, int y, int z, int w) { return int4{x, y, z, w}; }
inline uint2 make_uint2(unsigned int x, unsigned int y) { return uint2{x, y}; }
inline uint4 make_uint4(unsigned int x, unsigned int y, unsigned int z,
                        unsigned int w) {
  return uint4{x, y, z, w};
}

// ---------------------------------------------------------------------------
// bfloat16 storage (layout of cuda_bf16.h's types; model/cuda/bf16.h's
// forward declaration of __nv_bfloat16 names this one). Conversions round to
// nearest even as CUDA's; NaN keeps its payload (common/half.h) where CUDA
// returns the canonical 0x7FFF.

struct __attribute__((__may_alias__, __aligned__(2))) __nv_bfloat16 {
  uint16_t __x;
};
struct __attribute__((__may_alias__, __aligned__(4))) __nv_bfloat162 {
  __nv_bfloat16 x, y;
};

inline float __bfloat162float(__nv_bfloat16 value) {
  return ::bertlab::Bf16ToFloat(value.__x);
}
inline __nv_bfloat16 __float2bfloat16_rn(float value) {
  return __nv_bfloat16{::bertlab::FloatToBf16(value)};
}
inline __nv_bfloat16 __float2bfloat16(float value) {
  return __float2bfloat16_rn(value);
}
inline float2 __bfloat1622float2(__nv_bfloat162 value) {
  return float2{__bfloat162float(value.x), __bfloat162float(value.y)};
}
inline __nv_bfloat162 __floats2bfloat162_rn(float low, float high) {
  return __nv_bfloat162{__float2bfloat16_rn(low), __float2bfloat16_rn(high)};
}

// ---------------------------------------------------------------------------
// CUDA's min / max overloads (same-type pairs; a mixed pair does not compile
// here, where nvcc might pick a conversion).

#define BERTLAB_SIMT_MIN_MAX(T)                    \
  inline T min(T a, T b) { return b < a ? b : a; } \
  inline T max(T a, T b) { return a < b ? b : a; }
BERTLAB_SIMT_MIN_MAX(int)
BERTLAB_SIMT_MIN_MAX(unsigned int)
BERTLAB_SIMT_MIN_MAX(long)
BERTLAB_SIMT_MIN_MAX(unsigned long)
BERTLAB_SIMT_MIN_MAX(long long)
BERTLAB_SIMT_MIN_MAX(unsigned long long)
#undef BERTLAB_SIMT_MIN_MAX
inline float min(float a, float b) { return fminf(a, b); }
inline float max(float a, float b) { return fmaxf(a, b); }
inline double min(double a, double b) { return fmin(a, b); }
inline double max(double a, double b) { return fmax(a, b); }

inline constexpr int warpSize = 32;

// ---------------------------------------------------------------------------
// IEEE round-to-nearest arithmetic intrinsics. nvcc never contracts these into
// an fma; host float / double arithmetic on x86-64 (SSE2) is exactly
// round-to-nearest-even, and SIMT_EMULATOR_COPTS has -ffp-contract=off, so
// each is one correctly rounded host operation and a kernel built from them
// gives the GPU's bits (e.g. AdamW's step, bit-identical to the CPU's).
// __double2float_rn is the host double -> float conversion (also to nearest
// even). Other math (expf, logf, erfcf, tanhf, sqrt, ...) is host <cmath>,
// whose results may differ from CUDA's by an ulp or so.

// CUDA declares the classification functions globally for float and double.
using std::isfinite;
using std::isinf;
using std::isnan;

inline float __fadd_rn(float a, float b) { return a + b; }
inline float __fsub_rn(float a, float b) { return a - b; }
inline float __fmul_rn(float a, float b) { return a * b; }
inline float __fdiv_rn(float a, float b) { return a / b; }
inline double __dadd_rn(double a, double b) { return a + b; }
inline double __dsub_rn(double a, double b) { return a - b; }
inline double __dmul_rn(double a, double b) { return a * b; }
inline double __ddiv_rn(double a, double b) { return a / b; }
inline double __dsqrt_rn(double a) { return std::sqrt(a); }
inline float __double2float_rn(double a) { return static_cast<float>(a); }

namespace bertlab {
namespace simt {

// The order in which the scheduler runs the blocks of a grid and the threads
// of a block:
//   kForward / kReverse: blocks in (reverse) order; each block's threads swept
//     in (reverse) order, every thread running until its next barrier, so
//     all threads reach a barrier before any passes its next one.
//   kWarpByWarp / kWarpByWarpReverse: blocks in (reverse) order; the first
//     (last) warp runs through its warp barriers (shuffles, __syncwarp, wmma)
//     until it waits at a block barrier or returns, then the next warp. A
//     warp thus reads what other warps write only where a block barrier
//     orders it; in the sweeps, a warp barrier alone also orders it.
enum class Schedule { kForward, kReverse, kWarpByWarp, kWarpByWarpReverse };

inline bool Reversed(Schedule schedule) {
  return schedule == Schedule::kReverse ||
         schedule == Schedule::kWarpByWarpReverse;
}

struct LaunchOptions {
  Schedule schedule = Schedule::kForward;
  // Usable stack of each thread's fiber (a guard page lies below it).
  size_t stack_bytes = 64 * 1024;
};

namespace internal {

[[noreturn]] inline void Fail(const char* format, ...)
    __attribute__((format(printf, 1, 2)));

inline void Fail(const char* format, ...) {
  std::fputs("simt emulator: ", stderr);
  va_list arguments;
  va_start(arguments, format);
  std::vfprintf(stderr, format, arguments);
  va_end(arguments);
  std::fputc('\n', stderr);
  std::fflush(stderr);
  std::abort();
}

// Where a thread reached a barrier.
struct Site {
  const char* operation = "";
  const char* file = "";
  int line = 0;
};

inline bool SameSite(const Site& a, const Site& b) {
  return a.line == b.line && std::strcmp(a.operation, b.operation) == 0 &&
         std::strcmp(a.file, b.file) == 0;
}

// A block's or a warp's barrier. A generation completes when `expected`
// threads have arrived; its count of non-zero predicates stays readable (by
// generation parity) until the next generation completes, which needs every
// reader to arrive again first.
struct Barrier {
  int expected = 0;
  int arrived = 0;
  int64_t generation = 0;
  Site site;  // of this generation's first arrival
  int count = 0;
  int result[2] = {0, 0};
};

enum class FiberState { kRunnable, kWaiting, kDone };

struct Fiber {
  ucontext_t context;
  char* stack = nullptr;  // lowest usable address
  FiberState state = FiberState::kRunnable;
  Barrier* barrier = nullptr;  // while kWaiting: for this generation
  int64_t generation = 0;
  Site site;
  uint3 thread_index{0, 0, 0};
  void* fake_stack = nullptr;  // ASan's, while switched out
};

// The block being run on this OS thread.
struct BlockRun {
  dim3 grid_dim, block_dim;
  uint3 block_index{0, 0, 0};
  int threads = 0;
  size_t stack_bytes = 0;
  void* shared = nullptr;
  // Static shared arrays (BERTLAB_STATIC_SHARED_MEMORY) by declaration key.
  std::vector<std::pair<const void*, void*>> static_shared;
  Barrier block_barrier;
  std::vector<Barrier> warp_barriers;
  std::vector<uint64_t> exchange[2];  // shuffle values by generation parity
  std::vector<Fiber> fibers;
  int current = 0;
  ucontext_t scheduler;
  void (*run)(void*) = nullptr;  // the kernel with its arguments bound
  void* run_context = nullptr;
  const void* scheduler_stack = nullptr;  // ASan's view of it
  size_t scheduler_stack_bytes = 0;
};

inline thread_local BlockRun* current_block = nullptr;

inline BlockRun& Block() {
  if (current_block == nullptr) {
    Fail("a CUDA built-in was used outside simt::Launch");
  }
  return *current_block;
}

inline Fiber& CurrentFiber() {
  BlockRun& block = Block();
  return block.fibers[static_cast<size_t>(block.current)];
}

inline int LinearThread(const BlockRun& block, const uint3& t) {
  return static_cast<int>(t.x +
                          block.block_dim.x * (t.y + block.block_dim.y * t.z));
}

// Fiber -> scheduler. A finished fiber never comes back.
inline void SwitchToScheduler(BlockRun& block, Fiber& fiber, bool finished) {
#ifdef BERTLAB_SIMT_ASAN
  __sanitizer_start_switch_fiber(finished ? nullptr : &fiber.fake_stack,
                                 block.scheduler_stack,
                                 block.scheduler_stack_bytes);
#else
  (void)finished;
#endif
  swapcontext(&fiber.context, &block.scheduler);
#ifdef BERTLAB_SIMT_ASAN
  __sanitizer_finish_switch_fiber(fiber.fake_stack, &block.scheduler_stack,
                                  &block.scheduler_stack_bytes);
#endif
}

// Scheduler -> fiber, until it yields or returns.
inline void SwitchToFiber(BlockRun& block, Fiber& fiber) {
#ifdef BERTLAB_SIMT_ASAN
  void* fake_stack = nullptr;
  __sanitizer_start_switch_fiber(&fake_stack, fiber.stack, block.stack_bytes);
#endif
  swapcontext(&block.scheduler, &fiber.context);
#ifdef BERTLAB_SIMT_ASAN
  __sanitizer_finish_switch_fiber(fake_stack, nullptr, nullptr);
#endif
}

inline void FiberMain() {
  BlockRun& block = *current_block;
#ifdef BERTLAB_SIMT_ASAN
  __sanitizer_finish_switch_fiber(nullptr, &block.scheduler_stack,
                                  &block.scheduler_stack_bytes);
#endif
  block.run(block.run_context);
  Fiber& fiber = block.fibers[static_cast<size_t>(block.current)];
  fiber.state = FiberState::kDone;
  SwitchToScheduler(block, fiber, /*finished=*/true);
  Fail("a finished fiber was resumed");
}

// The calling thread arrives at `barrier` and yields; returns, once the
// generation is complete, its count of non-zero predicates.
inline int Arrive(Barrier& barrier, const Site& site, bool predicate) {
  BlockRun& block = Block();
  Fiber& fiber = CurrentFiber();
  if (barrier.arrived == 0) {
    barrier.site = site;
  } else if (!SameSite(barrier.site, site)) {
    const uint3& t = fiber.thread_index;
    Fail(
        "divergent barrier in block (%u, %u, %u): thread (%u, %u, %u) reached "
        "%s at %s:%d while %d thread(s) wait at %s at %s:%d",
        block.block_index.x, block.block_index.y, block.block_index.z, t.x, t.y,
        t.z, site.operation, site.file, site.line, barrier.arrived,
        barrier.site.operation, barrier.site.file, barrier.site.line);
  }
  if (predicate) ++barrier.count;
  const int64_t generation = barrier.generation;
  fiber.site = site;
  if (++barrier.arrived == barrier.expected) {
    // Complete. Still yield, so the schedule decides who runs on first.
    barrier.result[generation & 1] = barrier.count;
    barrier.arrived = 0;
    barrier.count = 0;
    ++barrier.generation;
    fiber.state = FiberState::kRunnable;
  } else {
    fiber.state = FiberState::kWaiting;
    fiber.barrier = &barrier;
    fiber.generation = generation;
  }
  SwitchToScheduler(block, fiber, /*finished=*/false);
  return barrier.result[generation & 1];
}

inline int BlockBarrier(const char* operation, bool predicate, const char* file,
                        int line) {
  return Arrive(Block().block_barrier, Site{operation, file, line}, predicate);
}

inline Barrier& WarpBarrier(const char* operation, unsigned int mask,
                            const char* file, int line) {
  BlockRun& block = Block();
  const int thread = LinearThread(block, CurrentFiber().thread_index);
  if (mask != 0xffffffffu) {
    Fail("%s at %s:%d: mask 0x%x: only full-warp masks are emulated", operation,
         file, line, mask);
  }
  Barrier& barrier = block.warp_barriers[static_cast<size_t>(thread / 32)];
  if (barrier.expected != 32) {
    Fail(
        "%s at %s:%d with mask 0xffffffff in a warp of %d threads (block of "
        "%d): lanes that do not exist cannot take part",
        operation, file, line, barrier.expected, block.threads);
  }
  return barrier;
}

enum class ShuffleMode { kIndex, kUp, kDown, kXor };

// PTX shfl.sync's source lane (mode, b, c = ((32 - width) << 8) | clamp).
inline int ShuffleSource(ShuffleMode mode, int lane, unsigned int b,
                         int width) {
  const unsigned int segment_mask = static_cast<unsigned int>(32 - width);
  const unsigned int clamp = mode == ShuffleMode::kUp ? 0u : 31u;
  const unsigned int lane_bits = static_cast<unsigned int>(lane);
  const unsigned int max_lane =
      (lane_bits & segment_mask) | (clamp & ~segment_mask & 31u);
  const unsigned int min_lane = lane_bits & segment_mask;
  const unsigned int bval = b & 31u;
  int64_t source = lane;
  bool valid = false;
  switch (mode) {
    case ShuffleMode::kUp:
      source = static_cast<int64_t>(lane_bits) - bval;
      valid = source >= static_cast<int64_t>(max_lane);
      break;
    case ShuffleMode::kDown:
      source = static_cast<int64_t>(lane_bits) + bval;
      valid = source <= static_cast<int64_t>(max_lane);
      break;
    case ShuffleMode::kXor:
      source = lane_bits ^ bval;
      valid = source <= static_cast<int64_t>(max_lane);
      break;
    case ShuffleMode::kIndex:
      source = min_lane | (bval & ~segment_mask & 31u);
      valid = source <= static_cast<int64_t>(max_lane);
      break;
  }
  return valid ? static_cast<int>(source) : lane;
}

template <typename T>
T Shuffle(const char* operation, ShuffleMode mode, unsigned int mask, T value,
          unsigned int b, int width, const char* file, int line) {
  static_assert(std::is_trivially_copyable<T>::value && sizeof(T) <= 8,
                "shuffles move values of up to 8 bytes");
  if (width < 1 || width > 32 || (width & (width - 1)) != 0) {
    Fail("%s at %s:%d: width %d is not a power of two <= 32", operation, file,
         line, width);
  }
  BlockRun& block = Block();
  const int thread = LinearThread(block, CurrentFiber().thread_index);
  Barrier& barrier = WarpBarrier(operation, mask, file, line);
  std::vector<uint64_t>& slots =
      block.exchange[static_cast<size_t>(barrier.generation & 1)];
  uint64_t bits = 0;
  std::memcpy(&bits, &value, sizeof(T));
  slots[static_cast<size_t>(thread)] = bits;
  Arrive(barrier, Site{operation, file, line}, false);
  const int lane = thread % 32;
  const int source = thread - lane + ShuffleSource(mode, lane, b, width);
  T result;
  bits = slots[static_cast<size_t>(source)];
  std::memcpy(&result, &bits, sizeof(T));
  return result;
}

// Reports a block whose fibers all wait and names where.
[[noreturn]] inline void ReportDeadlock(const BlockRun& block) {
  struct Group {
    const Barrier* barrier;
    Site site;
    int threads;
  };
  std::vector<Group> groups;
  int returned = 0;
  for (const Fiber& fiber : block.fibers) {
    if (fiber.state == FiberState::kDone) {
      ++returned;
      continue;
    }
    bool found = false;
    for (Group& group : groups) {
      if (group.barrier == fiber.barrier && SameSite(group.site, fiber.site)) {
        ++group.threads;
        found = true;
      }
    }
    if (!found) groups.push_back(Group{fiber.barrier, fiber.site, 1});
  }
  char waiting[1024] = "";
  size_t used = 0;
  for (const Group& group : groups) {
    if (used >= sizeof(waiting)) break;
    const bool warp = group.barrier != &block.block_barrier;
    const int written = std::snprintf(
        waiting + used, sizeof(waiting) - used, "%s%d at %s (%s:%d%s)",
        used == 0 ? "" : ", ", group.threads, group.site.operation,
        group.site.file, group.site.line,
        warp ? ", a warp barrier" : ", the block barrier");
    if (written < 0) break;
    used += static_cast<size_t>(written);
  }
  Fail(
      "deadlock in block (%u, %u, %u) of grid (%u, %u, %u): %d of %d threads "
      "returned, waiting: %s. Every thread of the block (of the warp, for "
      "shuffles and __syncwarp) must reach each barrier",
      block.block_index.x, block.block_index.y, block.block_index.z,
      block.grid_dim.x, block.grid_dim.y, block.grid_dim.z, returned,
      block.threads, waiting);
}

// Fiber stacks for one launch, each above a PROT_NONE guard page.
class FiberStacks {
 public:
  FiberStacks(int count, size_t stack_bytes) {
    page_ = static_cast<size_t>(sysconf(_SC_PAGESIZE));
    stride_ = page_ + (stack_bytes + page_ - 1) / page_ * page_;
    bytes_ = stride_ * static_cast<size_t>(count);
    void* memory = mmap(nullptr, bytes_, PROT_READ | PROT_WRITE,
                        MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (memory == MAP_FAILED) {
      Fail("cannot map %zu bytes of fiber stacks", bytes_);
    }
    base_ = static_cast<char*>(memory);
    for (int i = 0; i < count; ++i) {
      if (mprotect(base_ + stride_ * static_cast<size_t>(i), page_,
                   PROT_NONE) != 0) {
        Fail("cannot protect a fiber stack's guard page");
      }
    }
  }
  ~FiberStacks() { munmap(base_, bytes_); }
  FiberStacks(const FiberStacks&) = delete;
  FiberStacks& operator=(const FiberStacks&) = delete;

  char* Stack(int i) const {
    return base_ + stride_ * static_cast<size_t>(i) + page_;
  }
  size_t StackBytes() const { return stride_ - page_; }

 private:
  size_t page_ = 0, stride_ = 0, bytes_ = 0;
  char* base_ = nullptr;
};

// Runs the block at block.block_index to completion: fresh shared memory,
// barriers and fibers, then sweeps until every thread has returned.
inline void RunBlock(BlockRun& block, const FiberStacks& stacks,
                     size_t shared_bytes, Schedule schedule) {
  // 128-byte aligned, at least the GPU's dynamic shared memory base (wmma
  // loads and stores need 256-bit aligned tiles).
  void* shared = nullptr;
  if (posix_memalign(&shared, 128, shared_bytes) != 0) {
    Fail("cannot allocate %zu bytes of shared memory", shared_bytes);
  }
  std::memset(shared, 0xFF, shared_bytes);
  block.shared = shared;
  block.block_barrier = Barrier();
  block.block_barrier.expected = block.threads;
  for (size_t w = 0; w < block.warp_barriers.size(); ++w) {
    block.warp_barriers[w] = Barrier();
    const int first = static_cast<int>(w) * 32;
    block.warp_barriers[w].expected =
        block.threads - first < 32 ? block.threads - first : 32;
  }
  const dim3 d = block.block_dim;
  for (int t = 0; t < block.threads; ++t) {
    Fiber& fiber = block.fibers[static_cast<size_t>(t)];
    fiber = Fiber();
    fiber.thread_index = uint3{static_cast<unsigned int>(t) % d.x,
                               static_cast<unsigned int>(t) / d.x % d.y,
                               static_cast<unsigned int>(t) / (d.x * d.y)};
    fiber.stack = stacks.Stack(t);
#ifdef BERTLAB_SIMT_ASAN
    __asan_unpoison_memory_region(fiber.stack, stacks.StackBytes());
#endif
    if (getcontext(&fiber.context) != 0) Fail("getcontext failed");
    fiber.context.uc_stack.ss_sp = fiber.stack;
    fiber.context.uc_stack.ss_size = stacks.StackBytes();
    fiber.context.uc_link = nullptr;
    makecontext(&fiber.context, &FiberMain, 0);
  }
  int returned = 0;
  const bool reversed = Reversed(schedule);
  // Runs threads [first, last) (in the schedule's direction) once each, as
  // far as each can; returns whether any ran.
  auto sweep = [&](int first, int last) {
    bool progressed = false;
    for (int k = first; k < last; ++k) {
      const int t = reversed ? first + last - 1 - k : k;
      Fiber& fiber = block.fibers[static_cast<size_t>(t)];
      if (fiber.state == FiberState::kDone) continue;
      if (fiber.state == FiberState::kWaiting &&
          fiber.barrier->generation == fiber.generation) {
        continue;
      }
      fiber.state = FiberState::kRunnable;
      block.current = t;
      SwitchToFiber(block, fiber);
      progressed = true;
      if (fiber.state == FiberState::kDone) ++returned;
    }
    return progressed;
  };
  const bool warp_by_warp = schedule == Schedule::kWarpByWarp ||
                            schedule == Schedule::kWarpByWarpReverse;
  const int warps = (block.threads + 31) / 32;
  while (returned < block.threads) {
    bool progressed = false;
    if (warp_by_warp) {
      for (int k = 0; k < warps; ++k) {
        const int w = reversed ? warps - 1 - k : k;
        const int last =
            w * 32 + 32 < block.threads ? w * 32 + 32 : block.threads;
        while (sweep(w * 32, last)) progressed = true;
      }
    } else {
      progressed = sweep(0, block.threads);
    }
    if (!progressed) ReportDeadlock(block);
  }
  std::free(shared);
  block.shared = nullptr;
  for (const auto& array : block.static_shared) std::free(array.second);
  block.static_shared.clear();
}

inline void RunGrid(const LaunchOptions& options, dim3 grid, dim3 block_dim,
                    size_t shared_bytes, void (*run)(void*),
                    void* run_context) {
  if (current_block != nullptr) Fail("simt::Launch from inside a kernel");
  const uint64_t threads =
      static_cast<uint64_t>(block_dim.x) * block_dim.y * block_dim.z;
  if (grid.x == 0 || grid.y == 0 || grid.z == 0 || threads == 0 ||
      threads > 1024 || grid.y > 65535 || grid.z > 65535) {
    Fail("invalid launch: grid (%u, %u, %u), block (%u, %u, %u)", grid.x,
         grid.y, grid.z, block_dim.x, block_dim.y, block_dim.z);
  }
  BlockRun block;
  block.grid_dim = grid;
  block.block_dim = block_dim;
  block.threads = static_cast<int>(threads);
  block.run = run;
  block.run_context = run_context;
  block.fibers.resize(static_cast<size_t>(threads));
  block.warp_barriers.resize(static_cast<size_t>((threads + 31) / 32));
  block.exchange[0].assign(static_cast<size_t>(threads), 0);
  block.exchange[1].assign(static_cast<size_t>(threads), 0);
  const FiberStacks stacks(block.threads, options.stack_bytes);
  block.stack_bytes = stacks.StackBytes();
  const uint64_t blocks = static_cast<uint64_t>(grid.x) * grid.y * grid.z;
  current_block = &block;
  for (uint64_t k = 0; k < blocks; ++k) {
    const uint64_t b = Reversed(options.schedule) ? blocks - 1 - k : k;
    block.block_index = uint3{static_cast<unsigned int>(b % grid.x),
                              static_cast<unsigned int>(b / grid.x % grid.y),
                              static_cast<unsigned int>(b / grid.x / grid.y)};
    RunBlock(block, stacks, shared_bytes, options.schedule);
  }
  current_block = nullptr;
}

template <typename Bound>
void RunBound(void* bound) {
  (*static_cast<Bound*>(bound))();
}

}  // namespace internal

// The running block's dynamic shared memory (BERTLAB_DYNAMIC_SHARED_MEMORY).
template <typename T>
T* DynamicSharedMemory() {
  return static_cast<T*>(internal::Block().shared);
}

// The running block's instance of the static shared array declared with
// `key` (BERTLAB_STATIC_SHARED_MEMORY): allocated by the first thread that
// reaches the declaration, 0xFF-filled (NaN) like dynamic shared memory, and
// freed when the block ends, so no block sees another's values.
template <typename Array>
Array* StaticSharedMemory(const void* key) {
  internal::BlockRun& block = internal::Block();
  for (const auto& array : block.static_shared) {
    if (array.first == key) return static_cast<Array*>(array.second);
  }
  static_assert(alignof(Array) <= 16, "static shared arrays align to 16");
  void* memory = nullptr;
  if (posix_memalign(&memory, 16, sizeof(Array)) != 0) {
    internal::Fail("cannot allocate %zu bytes of static shared memory",
                   sizeof(Array));
  }
  std::memset(memory, 0xFF, sizeof(Array));
  block.static_shared.emplace_back(key, memory);
  return static_cast<Array*>(memory);
}

// Runs kernel<<<grid, block, shared_bytes>>>(args...) to completion.
template <typename... Params, typename... Args>
void Launch(const LaunchOptions& options, dim3 grid, dim3 block,
            size_t shared_bytes, void (*kernel)(Params...), Args&&... args) {
  static_assert(sizeof...(Params) == sizeof...(Args),
                "simt::Launch: wrong number of kernel arguments");
  // The launch's copy of the arguments, converted to the parameter types.
  const std::tuple<std::decay_t<Params>...> parameters(
      std::forward<Args>(args)...);
  auto bound = [&] { std::apply(kernel, parameters); };
  internal::RunGrid(options, grid, block, shared_bytes,
                    &internal::RunBound<decltype(bound)>, &bound);
}

template <typename... Params, typename... Args>
void Launch(dim3 grid, dim3 block, size_t shared_bytes,
            void (*kernel)(Params...), Args&&... args) {
  Launch(LaunchOptions(), grid, block, shared_bytes, kernel,
         std::forward<Args>(args)...);
}

// What kernel_decl.h's BERTLAB_LAUNCH(grid, block, shared, stream, kernel)
// (args...) is under the emulator: `call` calls the kernel with the launch's
// arguments (a generic lambda, so template arguments are deduced as nvcc
// deduces them); the grid runs to completion at once (the stream is
// ignored: work is synchronous, in issue order). Every thread calls it with
// its own copy of the arguments.
template <typename Call>
class Launcher {
 public:
  Launcher(dim3 grid, dim3 block, size_t shared_bytes, Call call)
      : grid_(grid), block_(block), shared_bytes_(shared_bytes), call_(call) {}

  template <typename... Args>
  void operator()(Args&&... args) const {
    const std::tuple<std::decay_t<Args>...> arguments(
        std::forward<Args>(args)...);
    auto bound = [&] {
      std::tuple<std::decay_t<Args>...> copy = arguments;
      std::apply(call_, copy);
    };
    internal::RunGrid(LaunchOptions(), grid_, block_, shared_bytes_,
                      &internal::RunBound<decltype(bound)>, &bound);
  }

 private:
  dim3 grid_, block_;
  size_t shared_bytes_;
  Call call_;
};

template <typename Call>
Launcher(dim3, dim3, size_t, Call) -> Launcher<Call>;

}  // namespace simt

}  // namespace bertlab

// ---------------------------------------------------------------------------
// Built-in variables and intrinsics of the running thread.

#define threadIdx (::bertlab::simt::internal::CurrentFiber().thread_index)
#define blockIdx (::bertlab::simt::internal::Block().block_index)
#define blockDim (::bertlab::simt::internal::Block().block_dim)
#define gridDim (::bertlab::simt::internal::Block().grid_dim)

// A kernel's trap (e.g. after printf of a bad argument) aborts the test,
// naming the thread; printf itself is the host's.
[[noreturn]] inline void __trap() {
  const uint3 b = blockIdx, t = threadIdx;
  std::fflush(stdout);  // the kernel's printf, before the abort
  ::bertlab::simt::internal::Fail(
      "__trap() in block (%u, %u, %u), thread (%u, %u, %u)", b.x, b.y, b.z, t.x,
      t.y, t.z);
}

inline void __syncthreads(const char* file = __builtin_FILE(),
                          int line = __builtin_LINE()) {
  ::bertlab::simt::internal::BlockBarrier("__syncthreads", false, file, line);
}

inline int __syncthreads_count(int predicate,
                               const char* file = __builtin_FILE(),
                               int line = __builtin_LINE()) {
  return ::bertlab::simt::internal::BlockBarrier("__syncthreads_count",
                                                 predicate != 0, file, line);
}

inline int __syncthreads_and(int predicate, const char* file = __builtin_FILE(),
                             int line = __builtin_LINE()) {
  const int count = ::bertlab::simt::internal::BlockBarrier(
      "__syncthreads_and", predicate != 0, file, line);
  return count == ::bertlab::simt::internal::Block().threads ? 1 : 0;
}

inline int __syncthreads_or(int predicate, const char* file = __builtin_FILE(),
                            int line = __builtin_LINE()) {
  return ::bertlab::simt::internal::BlockBarrier("__syncthreads_or",
                                                 predicate != 0, file, line) > 0
             ? 1
             : 0;
}

inline void __syncwarp(unsigned int mask = 0xffffffffu,
                       const char* file = __builtin_FILE(),
                       int line = __builtin_LINE()) {
  ::bertlab::simt::internal::Arrive(
      ::bertlab::simt::internal::WarpBarrier("__syncwarp", mask, file, line),
      ::bertlab::simt::internal::Site{"__syncwarp", file, line}, false);
}

template <typename T>
T __shfl_sync(unsigned int mask, T value, int source_lane, int width = 32,
              const char* file = __builtin_FILE(),
              int line = __builtin_LINE()) {
  return ::bertlab::simt::internal::Shuffle(
      "__shfl_sync", ::bertlab::simt::internal::ShuffleMode::kIndex, mask,
      value, static_cast<unsigned int>(source_lane), width, file, line);
}

template <typename T>
T __shfl_up_sync(unsigned int mask, T value, unsigned int delta, int width = 32,
                 const char* file = __builtin_FILE(),
                 int line = __builtin_LINE()) {
  return ::bertlab::simt::internal::Shuffle(
      "__shfl_up_sync", ::bertlab::simt::internal::ShuffleMode::kUp, mask,
      value, delta, width, file, line);
}

template <typename T>
T __shfl_down_sync(unsigned int mask, T value, unsigned int delta,
                   int width = 32, const char* file = __builtin_FILE(),
                   int line = __builtin_LINE()) {
  return ::bertlab::simt::internal::Shuffle(
      "__shfl_down_sync", ::bertlab::simt::internal::ShuffleMode::kDown, mask,
      value, delta, width, file, line);
}

template <typename T>
T __shfl_xor_sync(unsigned int mask, T value, int lane_mask, int width = 32,
                  const char* file = __builtin_FILE(),
                  int line = __builtin_LINE()) {
  return ::bertlab::simt::internal::Shuffle(
      "__shfl_xor_sync", ::bertlab::simt::internal::ShuffleMode::kXor, mask,
      value, static_cast<unsigned int>(lane_mask), width, file, line);
}

// Atomics: fibers never interleave inside one, so a plain read-modify-write
// is atomic; the order among threads is the schedule's.
#define BERTLAB_SIMT_ATOMIC(T)              \
  inline T atomicAdd(T* address, T value) { \
    const T old = *address;                 \
    *address = old + value;                 \
    return old;                             \
  }                                         \
  inline T atomicMin(T* address, T value) { \
    const T old = *address;                 \
    if (value < old) *address = value;      \
    return old;                             \
  }                                         \
  inline T atomicMax(T* address, T value) { \
    const T old = *address;                 \
    if (old < value) *address = value;      \
    return old;                             \
  }
BERTLAB_SIMT_ATOMIC(int)
BERTLAB_SIMT_ATOMIC(unsigned int)
BERTLAB_SIMT_ATOMIC(unsigned long long)
#undef BERTLAB_SIMT_ATOMIC

inline float atomicAdd(float* address, float value) {
  const float old = *address;
  *address = old + value;
  return old;
}

#endif  // BERTLAB_MODEL_CUDA_TESTING_SIMT_EMULATOR_H_
