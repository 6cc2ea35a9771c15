/* overlap-cuda.cu -- d2h-overlap's engine (overlap.h) over the CUDA runtime.

   Three streams, each owned by one role: the producer stream made the source
   tensors; the compute stream runs the foreground SGEMM from the main thread;
   the copy stream belongs to a persistent background thread that moves the
   tensors to the host, ordered after the producer by an event and never
   after the compute.  (The batched method may spread a large batch over
   that thread's further copy lanes, each ordered by the same event.)  The
   main thread times every case with the host clock,
   as a caller of the transfer would see it.  */
#include <config.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include <pthread.h>
#include <cuda_runtime.h>

/* The C headers use C11's _Noreturn, which C++ spells differently.  */
#define _Noreturn __attribute__ ((noreturn))
extern "C" {
#include "system.h"
#include "die.h"
#include "clock.h"
#include "rng.h"
}
#include "gpu.h"
#include "overlap.h"

/* ---- kernels ------------------------------------------------------------ */

/* C = A B for row-major N x N matrices, N a multiple of 64.  Each block of
   256 threads computes a 64 x 64 tile of C from 64 x 16 and 16 x 64 tiles
   of A and B staged in shared memory; each thread owns a 4 x 4 set of C,
   strided by 16 so that a warp's shared-memory reads of B hit 16 distinct
   banks and its stores to C are coalesced.  */
enum { TILE = 64, TILE_K = 16, SGEMM_THREADS = 256 };

__global__ void __launch_bounds__ (SGEMM_THREADS)
sgemm_kernel (const float *__restrict__ a, const float *__restrict__ b,
              float *__restrict__ c, int n)
{
  __shared__ float as[TILE_K][TILE + 4];   /* A's tile, transposed */
  __shared__ float bs[TILE_K][TILE];
  int t = threadIdx.x;
  int tx = t % 16, ty = t / 16;
  int row0 = blockIdx.y * TILE, col0 = blockIdx.x * TILE;
  float acc[4][4] = {};

  for (int k0 = 0; k0 < n; k0 += TILE_K)
    {
#pragma unroll
      for (int i = 0; i < 4; i++)
        {
          int idx = t + i * SGEMM_THREADS;
          int ar = idx / TILE_K, ac = idx % TILE_K;
          as[ac][ar] = a[(size_t) (row0 + ar) * n + k0 + ac];
          int br = idx / TILE, bc = idx % TILE;
          bs[br][bc] = b[(size_t) (k0 + br) * n + col0 + bc];
        }
      __syncthreads ();
#pragma unroll
      for (int k = 0; k < TILE_K; k++)
        {
          float av[4], bv[4];
#pragma unroll
          for (int i = 0; i < 4; i++)
            {
              av[i] = as[k][ty + 16 * i];
              bv[i] = bs[k][tx + 16 * i];
            }
#pragma unroll
          for (int i = 0; i < 4; i++)
#pragma unroll
            for (int j = 0; j < 4; j++)
              acc[i][j] = fmaf (av[i], bv[j], acc[i][j]);
        }
      __syncthreads ();
    }
#pragma unroll
  for (int i = 0; i < 4; i++)
#pragma unroll
    for (int j = 0; j < 4; j++)
      c[(size_t) (row0 + ty + 16 * i) * n + col0 + tx + 16 * j] = acc[i][j];
}

/* Count the elements of X that are not finite.  */
__global__ void
count_nonfinite_kernel (const float *x, size_t count, unsigned long long *bad)
{
  unsigned long long mine = 0;
  for (size_t i = blockIdx.x * (size_t) blockDim.x + threadIdx.x; i < count;
       i += (size_t) gridDim.x * blockDim.x)
    mine += !isfinite (x[i]);
  if (mine)
    atomicAdd (bad, mine);
}

/* The gather method: one kernel copies every tensor into the mapped pinned
   arena, 16 bytes a thread where both ends allow it.  */
struct gather_item
{
  const uint8_t *src;
  uint8_t *dst;
  unsigned long long bytes;
};

__global__ void
gather_kernel (const gather_item *items, int count)
{
  size_t tid = blockIdx.x * (size_t) blockDim.x + threadIdx.x;
  size_t stride = (size_t) gridDim.x * blockDim.x;
  for (int t = 0; t < count; t++)
    {
      gather_item it = items[t];
      bool aligned = (((uintptr_t) it.src | (uintptr_t) it.dst) & 15) == 0;
      size_t vectors = aligned ? it.bytes / 16 : 0;
      const uint4 *s = (const uint4 *) it.src;
      uint4 *d = (uint4 *) it.dst;
      for (size_t i = tid; i < vectors; i += stride)
        d[i] = s[i];
      for (size_t i = vectors * 16 + tid; i < it.bytes; i += stride)
        it.dst[i] = it.src[i];
    }
}

/* ---- state -------------------------------------------------------------- */

/* Destinations are laid out in an arena with each tensor 256-byte aligned,
   as a DMA engine and 16-byte stores like them.  */
enum { ARENA_ALIGN = 256, GATHER_BLOCKS = 64, GATHER_THREADS = 256 };

/* A batch of many tensors goes out as up to BATCH_LANES batched copies on
   as many streams, one lane per BATCH_LANE_TENSORS tensors.  Each copy in a
   batch costs a fixed setup beside its bytes (about 0.3 us each, measured on
   an H200: 256 tensors of 256 KiB in one batch ran 5-15% slower than one
   tensor of 64 MiB); lanes overlap those setups with other lanes' bytes,
   which brought 256 tensors to within 3-6% of one tensor.  */
enum { BATCH_LANES = 4, BATCH_LANE_TENSORS = 64 };

/* Spin this long for the next job before sleeping on the condition: the
   steps of a block follow each other within milliseconds, and a sleeping
   thread would add its wake-up latency to every transfer it times.  */
static const uint64_t WORKER_SPIN_NS = 500000000;

struct tensors
{
  size_t count = 0;
  uint64_t total = 0;
  std::vector<uint8_t *> source;        /* device */
  std::vector<size_t> size;
  std::vector<size_t> packed;           /* offset in EXPECTED */
  std::vector<size_t> placed;           /* offset in the arenas */
  size_t arena_bytes = 0;
  uint8_t *expected = nullptr;          /* host copy of the source */
  std::vector<uint8_t *> direct;        /* pinned, one per tensor */
  uint8_t *arena = nullptr;             /* pinned, batched */
  uint8_t *pageable = nullptr;          /* malloc'd */
  uint8_t *mapped = nullptr;            /* pinned and mapped, gather */
  gather_item *items = nullptr;         /* device table for gather */
  std::vector<void *> batch_dst;
  std::vector<const void *> batch_src;
};

struct overlap
{
  int device;
  unsigned n;
  unsigned iterations = 1;
  float *a = nullptr, *b = nullptr, *c = nullptr;
  std::vector<float> host_a, host_b;
  cudaStream_t compute, producer, copy;
  cudaStream_t lanes[BATCH_LANES];      /* lanes[0] is COPY */
  cudaEvent_t ready;
  tensors set;

  /* The background transfer thread and its one job at a time.  */
  pthread_t thread;
  pthread_mutex_t lock;
  pthread_cond_t wake;
  std::atomic<uint64_t> posted{0}, done{0};
  std::atomic<int> arrivals{0};
  int job_method = 0;
  bool job_barrier = false, job_quit = false;
  uint64_t job_started_ns = 0;
};

static inline void
cpu_relax (void)
{
#if defined __x86_64__ || defined __i386__
  __builtin_ia32_pause ();
#endif
}

static double
ms_between (uint64_t from, uint64_t to)
{
  return (double) (to - from) / 1e6;
}

/* ---- the transfer methods (run on the background thread) ---------------- */

static uint8_t *
destination (struct overlap *ov, int method, size_t i)
{
  tensors &s = ov->set;
  switch (method)
    {
    case OVERLAP_DIRECT:
      return s.direct[i];
    case OVERLAP_BATCHED:
      return s.arena + s.placed[i];
    case OVERLAP_PAGEABLE:
      return s.pageable + s.placed[i];
    case OVERLAP_GATHER:
      return s.mapped + s.placed[i];
    }
  die (EXIT_SOFTWARE, 0, "unknown transfer method %d", method);
}

/* Each method issues its copies and returns how many of the worker's lanes
   (copy streams, from lanes[0]) it used.  */
static int
copy_each (struct overlap *ov, int method)
{
  tensors &s = ov->set;
  for (size_t i = 0; i < s.count; i++)
    GPU_CHECK (cudaMemcpyAsync (destination (ov, method, i), s.source[i], s.size[i],
                                cudaMemcpyDeviceToHost, ov->copy));
  return 1;
}

static void
copy_batch (struct overlap *ov, size_t first, size_t count, cudaStream_t stream)
{
  tensors &s = ov->set;
#if CUDART_VERSION >= 12080
  cudaMemcpyAttributes attr;
  memset (&attr, 0, sizeof attr);
  attr.srcAccessOrder = cudaMemcpySrcAccessOrderStream;
  attr.flags = cudaMemcpyFlagPreferOverlapWithCompute;
  size_t attr_first = 0;
  GPU_CHECK (cudaMemcpyBatchAsync (s.batch_dst.data () + first,
                                   s.batch_src.data () + first,
                                   s.size.data () + first, count,
                                   &attr, &attr_first, 1, stream));
#else
  /* Runtimes before 12.8 have no batched copy: same arena, one call each.  */
  for (size_t i = first; i < first + count; i++)
    GPU_CHECK (cudaMemcpyAsync (s.batch_dst[i], s.batch_src[i], s.size[i],
                                cudaMemcpyDeviceToHost, stream));
#endif
}

static int
copy_batched (struct overlap *ov, int /* method */)
{
  size_t count = ov->set.count;
  size_t lanes = std::min<size_t> (BATCH_LANES,
                                   (count + BATCH_LANE_TENSORS - 1) / BATCH_LANE_TENSORS);
  size_t per = (count + lanes - 1) / lanes;
  size_t used = 0;
  for (size_t first = 0; first < count; first += per, used++)
    {
      if (used)
        GPU_CHECK (cudaStreamWaitEvent (ov->lanes[used], ov->ready, 0));
      copy_batch (ov, first, std::min (per, count - first), ov->lanes[used]);
    }
  return (int) used;
}

static int
copy_gather (struct overlap *ov, int /* method */)
{
  gather_kernel<<<GATHER_BLOCKS, GATHER_THREADS, 0, ov->copy>>> (ov->set.items,
                                                                (int) ov->set.count);
  gpu_check_launch ("gather kernel launch");
  return 1;
}

/* Indexed by enum overlap_method: direct, batched, pageable, gather.  */
static int (*const transfer_methods[OVERLAP_METHODS]) (struct overlap *, int) = {
  copy_each, copy_batched, copy_each, copy_gather,
};

static void
transfer (struct overlap *ov, int method)
{
  /* The copy stream waits for the producer, not for the foreground work.  */
  GPU_CHECK (cudaEventRecord (ov->ready, ov->producer));
  GPU_CHECK (cudaStreamWaitEvent (ov->copy, ov->ready, 0));
  int lanes = transfer_methods[method] (ov, method);
  for (int i = 0; i < lanes; i++)
    GPU_CHECK (cudaStreamSynchronize (ov->lanes[i]));
}

static void
barrier_arrive (struct overlap *ov)
{
  ov->arrivals.fetch_add (1);
  while (ov->arrivals.load () < 2)
    cpu_relax ();
}

static void *
worker_main (void *arg)
{
  struct overlap *ov = (struct overlap *) arg;
  gpu_select (ov->device);
  uint64_t seen = 0;
  for (;;)
    {
      uint64_t until = clock_now_ns () + WORKER_SPIN_NS;
      while (ov->posted.load (std::memory_order_acquire) == seen
             && clock_now_ns () < until)
        cpu_relax ();
      if (ov->posted.load (std::memory_order_acquire) == seen)
        {
          pthread_mutex_lock (&ov->lock);
          while (ov->posted.load (std::memory_order_acquire) == seen)
            pthread_cond_wait (&ov->wake, &ov->lock);
          pthread_mutex_unlock (&ov->lock);
        }
      seen = ov->posted.load (std::memory_order_acquire);
      if (ov->job_quit)
        break;
      if (ov->job_barrier)
        barrier_arrive (ov);
      ov->job_started_ns = clock_now_ns ();
      transfer (ov, ov->job_method);
      ov->done.store (seen, std::memory_order_release);
    }
  return NULL;
}

static void
worker_post (struct overlap *ov, int method, bool barrier, bool quit)
{
  ov->job_method = method;
  ov->job_barrier = barrier;
  ov->job_quit = quit;
  ov->arrivals.store (0);
  ov->posted.fetch_add (1, std::memory_order_release);
  /* Cheap when the worker spins: no waiter, no system call.  */
  pthread_mutex_lock (&ov->lock);
  pthread_cond_signal (&ov->wake);
  pthread_mutex_unlock (&ov->lock);
}

static void
worker_wait (struct overlap *ov)
{
  uint64_t want = ov->posted.load (std::memory_order_relaxed);
  while (ov->done.load (std::memory_order_acquire) != want)
    cpu_relax ();
}

/* ---- the foreground compute --------------------------------------------- */

static void
compute_launch (struct overlap *ov, unsigned iterations)
{
  dim3 grid (ov->n / TILE, ov->n / TILE);
  for (unsigned i = 0; i < iterations; i++)
    sgemm_kernel<<<grid, SGEMM_THREADS, 0, ov->compute>>> (ov->a, ov->b, ov->c,
                                                         (int) ov->n);
  gpu_check_launch ("sgemm kernel launch");
}

static double
compute_timed (struct overlap *ov, unsigned iterations)
{
  uint64_t start = clock_now_ns ();
  compute_launch (ov, iterations);
  GPU_CHECK (cudaStreamSynchronize (ov->compute));
  return ms_between (start, clock_now_ns ());
}

static double
median3 (double x, double y, double z)
{
  return std::max (std::min (x, y), std::min (std::max (x, y), z));
}

unsigned
overlap_calibrate (struct overlap *ov, double target_ms)
{
  compute_timed (ov, 2);
  unsigned iterations = 1;
  /* Scale by the measured time until the estimate stops moving; a few
     rounds suffice because run time is linear in the repetitions.  */
  for (int round = 0; round < 6; round++)
    {
      double ms = median3 (compute_timed (ov, iterations),
                           compute_timed (ov, iterations),
                           compute_timed (ov, iterations));
      double estimate = std::round (iterations * target_ms / std::max (ms, 1e-3));
      unsigned next = (unsigned) std::min (1e5, std::max (1.0, estimate));
      if (next == iterations)
        break;
      iterations = next;
    }
  ov->iterations = iterations;
  return iterations;
}

void
overlap_set_iterations (struct overlap *ov, unsigned iterations)
{
  ov->iterations = iterations ? iterations : 1;
}

void
overlap_check_compute (struct overlap *ov)
{
  size_t n = ov->n, count = n * n;
  GPU_CHECK (cudaMemsetAsync (ov->c, 0xff, count * sizeof (float), ov->compute));   /* NaN */
  compute_timed (ov, ov->iterations);

  unsigned long long *bad_dev, bad = 0;
  GPU_CHECK (cudaMalloc (&bad_dev, sizeof *bad_dev));
  GPU_CHECK (cudaMemsetAsync (bad_dev, 0, sizeof *bad_dev, ov->compute));
  count_nonfinite_kernel<<<256, 256, 0, ov->compute>>> (ov->c, count, bad_dev);
  gpu_check_launch ("finite check kernel launch");
  GPU_CHECK (cudaMemcpyAsync (&bad, bad_dev, sizeof bad, cudaMemcpyDeviceToHost,
                              ov->compute));
  GPU_CHECK (cudaStreamSynchronize (ov->compute));
  GPU_CHECK (cudaFree (bad_dev));
  if (bad)
    die (EXIT_SOFTWARE, 0, "SGEMM produced %llu non-finite elements of %zu", bad, count);

  /* Spot-check against double precision: a wrong index shows at once.  */
  std::vector<float> out (count);
  GPU_CHECK (cudaMemcpy (out.data (), ov->c, count * sizeof (float),
                         cudaMemcpyDeviceToHost));
  struct rng rng;
  rng_seed (&rng, 0x5eed);
  for (int sample = 0; sample < 32; sample++)
    {
      size_t i = rng_below (&rng, n), j = rng_below (&rng, n);
      double ref = 0, mag = 0;
      for (size_t k = 0; k < n; k++)
        {
          double p = (double) ov->host_a[i * n + k] * ov->host_b[k * n + j];
          ref += p;
          mag += fabs (p);
        }
      double got = out[i * n + j];
      if (fabs (got - ref) > 1e-4 * mag + 1e-6)
        die (EXIT_SOFTWARE, 0, "SGEMM element (%zu, %zu) is %.9g, expected %.9g",
             i, j, got, ref);
    }
}

/* ---- source tensors and destinations ------------------------------------ */

static void
unload (struct overlap *ov)
{
  tensors &s = ov->set;
  for (uint8_t *p : s.source)
    GPU_CHECK (cudaFree (p));
  for (uint8_t *p : s.direct)
    GPU_CHECK (cudaFreeHost (p));
  if (s.arena)
    GPU_CHECK (cudaFreeHost (s.arena));
  if (s.mapped)
    GPU_CHECK (cudaFreeHost (s.mapped));
  if (s.items)
    GPU_CHECK (cudaFree (s.items));
  free (s.pageable);
  free (s.expected);
  s = tensors ();
}

void
overlap_load (struct overlap *ov, uint64_t total_bytes, size_t num_tensors,
              uint64_t seed)
{
  if (num_tensors == 0 || num_tensors > total_bytes)
    die (EXIT_USAGE, 0, "cannot split %llu bytes into %zu non-empty tensors",
         (unsigned long long) total_bytes, num_tensors);
  unload (ov);
  tensors &s = ov->set;
  s.count = num_tensors;
  s.total = total_bytes;

  /* Random bytes, drawn on the host so the reference owes nothing to the
     device-to-host path under test.  */
  s.expected = (uint8_t *) xmalloc (total_bytes);
  struct rng rng;
  rng_seed (&rng, seed);
  for (uint64_t off = 0; off < total_bytes; off += 8)
    {
      uint64_t word = rng_next (&rng);
      memcpy (s.expected + off, &word, std::min<uint64_t> (8, total_bytes - off));
    }

  size_t each = total_bytes / num_tensors, extra = total_bytes % num_tensors;
  size_t packed = 0, placed = 0;
  for (size_t i = 0; i < num_tensors; i++)
    {
      size_t bytes = each + (i < extra);
      s.size.push_back (bytes);
      s.packed.push_back (packed);
      s.placed.push_back (placed);
      packed += bytes;
      placed += (bytes + ARENA_ALIGN - 1) / ARENA_ALIGN * ARENA_ALIGN;

      uint8_t *src;
      GPU_CHECK (cudaMalloc (&src, bytes));
      GPU_CHECK (cudaMemcpyAsync (src, s.expected + s.packed[i], bytes,
                                  cudaMemcpyHostToDevice, ov->producer));
      s.source.push_back (src);

      uint8_t *dst;
      GPU_CHECK (cudaHostAlloc (&dst, bytes, cudaHostAllocDefault));
      s.direct.push_back (dst);
    }
  s.arena_bytes = placed;
  GPU_CHECK (cudaHostAlloc (&s.arena, placed, cudaHostAllocDefault));
  GPU_CHECK (cudaHostAlloc (&s.mapped, placed, cudaHostAllocMapped));
  s.pageable = (uint8_t *) xmalloc (placed);
  memset (s.pageable, 0, placed);   /* fault the pages in before timing */

  std::vector<gather_item> items (num_tensors);
  for (size_t i = 0; i < num_tensors; i++)
    {
      void *mapped_dev;
      GPU_CHECK (cudaHostGetDevicePointer (&mapped_dev, s.mapped + s.placed[i], 0));
      items[i] = { s.source[i], (uint8_t *) mapped_dev, s.size[i] };
      s.batch_dst.push_back (s.arena + s.placed[i]);
      s.batch_src.push_back (s.source[i]);
    }
  GPU_CHECK (cudaMalloc (&s.items, num_tensors * sizeof (gather_item)));
  GPU_CHECK (cudaMemcpyAsync (s.items, items.data (), num_tensors * sizeof (gather_item),
                              cudaMemcpyHostToDevice, ov->producer));
  /* Ready before any timing.  */
  GPU_CHECK (cudaStreamSynchronize (ov->producer));
}

void
overlap_validate (struct overlap *ov, enum overlap_method method)
{
  tensors &s = ov->set;
  /* Poison with the complement of the answer, so a byte never written
     cannot pass by chance.  */
  for (size_t i = 0; i < s.count; i++)
    {
      uint8_t *dst = destination (ov, method, i);
      const uint8_t *want = s.expected + s.packed[i];
      for (size_t k = 0; k < s.size[i]; k++)
        dst[k] = (uint8_t) ~want[k];
    }
  worker_post (ov, method, false, false);
  worker_wait (ov);

  /* A deliberate fault, so the tests can see this check fail.  */
  const char *fault = getenv ("ARENABENCH_D2H_FAULT");
  if (fault && STREQ (fault, overlap_method_names[method]))
    {
      size_t last = s.count - 1;
      destination (ov, method, last)[s.size[last] / 2] ^= 0x10;
    }

  for (size_t i = 0; i < s.count; i++)
    {
      const uint8_t *got = destination (ov, method, i);
      const uint8_t *want = s.expected + s.packed[i];
      if (memcmp (got, want, s.size[i]) == 0)
        continue;
      size_t k = 0;
      while (got[k] == want[k])
        k++;
      die (EXIT_MISMATCH, 0, "%s: tensor %zu byte %zu: expected 0x%02x, got 0x%02x",
           overlap_method_names[method], i, k, want[k], got[k]);
    }
}

/* ---- timed cases -------------------------------------------------------- */

static double
time_transfer (struct overlap *ov, int method)
{
  uint64_t start = clock_now_ns ();
  worker_post (ov, method, false, false);
  worker_wait (ov);
  return ms_between (start, clock_now_ns ());
}

static double
time_serialized (struct overlap *ov, int method)
{
  uint64_t start = clock_now_ns ();
  worker_post (ov, method, false, false);
  worker_wait (ov);
  compute_launch (ov, ov->iterations);
  GPU_CHECK (cudaStreamSynchronize (ov->compute));
  return ms_between (start, clock_now_ns ());
}

static double
time_concurrent (struct overlap *ov, int method, double *skew_ms)
{
  uint64_t start = clock_now_ns ();
  worker_post (ov, method, true, false);
  barrier_arrive (ov);
  uint64_t compute_started = clock_now_ns ();
  compute_launch (ov, ov->iterations);
  GPU_CHECK (cudaStreamSynchronize (ov->compute));
  worker_wait (ov);
  uint64_t end = clock_now_ns ();
  uint64_t other = ov->job_started_ns;
  *skew_ms = ms_between (std::min (compute_started, other),
                         std::max (compute_started, other));
  return ms_between (start, end);
}

void
overlap_run_block (struct overlap *ov, const int *methods, size_t nmethods,
                   uint64_t shuffle_seed, struct overlap_block *block)
{
  memset (block, 0, sizeof *block);
  struct overlap_step *steps = block->steps;
  size_t n = 0;
  steps[n++] = { -1, OVERLAP_COMPUTE };
  for (size_t m = 0; m < nmethods && m < OVERLAP_METHODS; m++)
    for (int what = OVERLAP_TRANSFER; what <= OVERLAP_CONCURRENT; what++)
      steps[n++] = { methods[m], (enum overlap_case) what };
  block->nsteps = n;

  /* Fisher-Yates: every order equally likely, reproducible from the seed.  */
  struct rng rng;
  rng_seed (&rng, shuffle_seed);
  for (size_t i = n - 1; i > 0; i--)
    std::swap (steps[i], steps[rng_below (&rng, i + 1)]);

  for (size_t i = 0; i < n; i++)
    {
      int method = steps[i].method;
      struct overlap_times *t = method >= 0 ? &block->times[method] : NULL;
      switch (steps[i].what)
        {
        case OVERLAP_COMPUTE:
          block->compute_ms = compute_timed (ov, ov->iterations);
          break;
        case OVERLAP_TRANSFER:
          t->transfer_ms = time_transfer (ov, method);
          break;
        case OVERLAP_SERIALIZED:
          t->serialized_ms = time_serialized (ov, method);
          break;
        case OVERLAP_CONCURRENT:
          t->concurrent_ms = time_concurrent (ov, method, &t->launch_skew_ms);
          break;
        case OVERLAP_CASES:
          break;
        }
    }
}

/* ---- open and close ----------------------------------------------------- */

struct overlap *
overlap_open (int device, unsigned matrix_size, uint64_t seed)
{
  if (matrix_size == 0 || matrix_size % TILE)
    die (EXIT_USAGE, 0, "matrix size %u is not a positive multiple of %d",
         matrix_size, (int) TILE);
  gpu_select (device);
  struct overlap *ov = new overlap;
  ov->device = device;
  ov->n = matrix_size;

  /* Non-blocking streams: nothing here may serialize on the legacy stream.  */
  GPU_CHECK (cudaStreamCreateWithFlags (&ov->compute, cudaStreamNonBlocking));
  GPU_CHECK (cudaStreamCreateWithFlags (&ov->producer, cudaStreamNonBlocking));
  GPU_CHECK (cudaStreamCreateWithFlags (&ov->copy, cudaStreamNonBlocking));
  ov->lanes[0] = ov->copy;
  for (int i = 1; i < BATCH_LANES; i++)
    GPU_CHECK (cudaStreamCreateWithFlags (&ov->lanes[i], cudaStreamNonBlocking));
  GPU_CHECK (cudaEventCreateWithFlags (&ov->ready, cudaEventDisableTiming));

  size_t count = (size_t) matrix_size * matrix_size;
  ov->host_a.resize (count);
  ov->host_b.resize (count);
  struct rng rng;
  rng_seed (&rng, seed ^ 0x9e3779b97f4a7c15ULL);
  for (size_t i = 0; i < count; i++)
    {
      ov->host_a[i] = (float) (2 * rng_uniform (&rng) - 1);
      ov->host_b[i] = (float) (2 * rng_uniform (&rng) - 1);
    }
  GPU_CHECK (cudaMalloc (&ov->a, count * sizeof (float)));
  GPU_CHECK (cudaMalloc (&ov->b, count * sizeof (float)));
  GPU_CHECK (cudaMalloc (&ov->c, count * sizeof (float)));
  GPU_CHECK (cudaMemcpy (ov->a, ov->host_a.data (), count * sizeof (float),
                         cudaMemcpyHostToDevice));
  GPU_CHECK (cudaMemcpy (ov->b, ov->host_b.data (), count * sizeof (float),
                         cudaMemcpyHostToDevice));

  pthread_mutex_init (&ov->lock, NULL);
  pthread_cond_init (&ov->wake, NULL);
  int err = pthread_create (&ov->thread, NULL, worker_main, ov);
  if (err)
    die (EXIT_OSERR, err, "cannot start the transfer thread");
  return ov;
}

void
overlap_close (struct overlap *ov)
{
  worker_post (ov, 0, false, true);
  pthread_join (ov->thread, NULL);
  pthread_mutex_destroy (&ov->lock);
  pthread_cond_destroy (&ov->wake);
  unload (ov);
  GPU_CHECK (cudaFree (ov->a));
  GPU_CHECK (cudaFree (ov->b));
  GPU_CHECK (cudaFree (ov->c));
  GPU_CHECK (cudaEventDestroy (ov->ready));
  GPU_CHECK (cudaStreamDestroy (ov->compute));
  GPU_CHECK (cudaStreamDestroy (ov->producer));
  for (int i = 0; i < BATCH_LANES; i++)
    GPU_CHECK (cudaStreamDestroy (ov->lanes[i]));
  delete ov;
}
