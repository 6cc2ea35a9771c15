/* h2d-pipeline.cu -- h2d-check's engine over the CUDA runtime: pipelined
   host-to-device copies and a kernel that checks every element.  */
#include <config.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <condition_variable>
#include <list>
#include <mutex>
#include <thread>
#include <vector>

#include <cuda_fp16.h>
#include <cuda_runtime.h>

/* The C headers use C11's _Noreturn, which C++ spells differently.  */
#define _Noreturn __attribute__ ((noreturn))
extern "C" {
#include "system.h"
#include "clock.h"
#include "compute-step.h"
#include "die.h"
#include "payload.h"
}
#include "gpu.h"
#include "h2d-pipeline.h"

/* What the check kernel leaves behind.  FIRST holds the complement of
   part<<56 | index, so atomicMax finds the first in item order; 0 means
   none.  Part 2L+1 is leaf L (INDEX an element), part 2L the padding
   before it and part 2*nleaves any after the last (INDEX a byte offset
   in the item).  */
struct check_result
{
  unsigned long long mismatches;    /* elements and padding bytes */
  unsigned long long padding;       /* of those, padding bytes */
  unsigned long long first;
};

struct check_leaf
{
  unsigned long long offset, count;
  unsigned shift;
};

/* One item of a batch: where it lies in the batch's buffer, its leaves
   and their pattern shifts.  */
struct check_item
{
  unsigned long long offset;
  unsigned long long bytes;         /* the whole item, padding included */
  const unsigned char *source;      /* sm path: the item in the mapped arena */
  check_leaf leaves[PAYLOAD_MAX_LEAVES];
  unsigned nleaves;
};

/* A batch's descriptors travel as the check kernel's parameter, in the
   launch itself: a copy of them would queue on the host-to-device copy
   engine behind the next batch's items (on the H200 that held each
   check, and so each buffer's reuse, about 0.2 ms, and left the link idle
   15-20% of the time).  Kernel parameters may take 32 KiB since CUDA 12.1
   on compute capability 7.0 and later.  */
struct check_batch
{
  check_item items[H2D_BATCH_ITEMS];
};
static_assert (sizeof (check_batch) <= 32000, "check_batch must fit in a kernel's parameters");

/* Element type traits: the bits the producer wrote for pattern value V,
   and how many elements one 16-byte load carries.  */
template <int DTYPE> struct element;

template <> struct element<DTYPE_FP32>
{
  typedef unsigned bits;
  static constexpr int per_vector = 4;
  static __device__ unsigned expect (unsigned v) { return __float_as_uint ((float) v); }
  static __device__ unsigned lane (const uint4 &w, int e)
  {
    return e == 0 ? w.x : e == 1 ? w.y : e == 2 ? w.z : w.w;
  }
};

template <> struct element<DTYPE_FP16>
{
  typedef unsigned short bits;
  static constexpr int per_vector = 8;
  /* Exact: every pattern value is an integer below 2048.  */
  static __device__ unsigned expect (unsigned v) { return __half_as_ushort (__uint2half_rn (v)); }
  static __device__ unsigned lane (const uint4 &w, int e)
  {
    unsigned word = element<DTYPE_FP32>::lane (w, e >> 1);
    return (e & 1) ? word >> 16 : word & 0xffff;
  }
};

template <> struct element<DTYPE_UINT8>
{
  typedef unsigned char bits;
  static constexpr int per_vector = 16;
  static __device__ unsigned expect (unsigned v) { return v; }
  static __device__ unsigned lane (const uint4 &w, int e)
  {
    unsigned word = element<DTYPE_FP32>::lane (w, e >> 2);
    return (word >> (8 * (e & 3))) & 0xff;
  }
};

__device__ static inline void
note_mismatch (unsigned long long &count, unsigned long long &first, unsigned part,
               unsigned long long index)
{
  count++;
  unsigned long long key = ~((unsigned long long) part << 56 | index);
  first = key > first ? key : first;
}

/* What one thread saw wrong.  */
struct check_tally
{
  unsigned long long count, padding, first;
};

/* Padding bytes [FROM, TO) of the item (part PART) must be zero.  A gap
   is under PAYLOAD_LEAF_ALIGN bytes: a few threads each read one byte
   (from SRC; COPY: and write it to DST).  */
template <bool COPY, bool CHECK>
__device__ static inline void
check_padding (const unsigned char *src, unsigned char *dst, unsigned long long from,
               unsigned long long to, unsigned part, unsigned long long tid,
               unsigned long long stride, check_tally &t)
{
  for (unsigned long long b = from + tid; b < to; b += stride)
    {
      unsigned char byte = src[b];
      if (COPY)
        dst[b] = byte;
      if (CHECK && byte != 0)
        {
          t.padding++;
          note_mismatch (t.count, t.first, part, b);
        }
    }
}

/* Thread TID of STRIDE threads working on item IT: regenerate the pattern
   and compare every element of every leaf read at SRC, and check the
   padding between leaves is zero, with 16-byte loads and a scalar loop
   for the ragged tail.  COPY: SRC is the item in mapped host memory, and
   every byte read is written to DST (the item's place in the buffer), so
   the copy and the check are one pass; each thread keeps four loads in
   flight to cover the link's latency.  CHECK false: copy only.  The one
   place the pattern is checked on the device.  */
template <int DTYPE, bool COPY, bool CHECK>
__device__ static void
check_item_bytes (const check_item &it, const unsigned char *__restrict__ src,
                  unsigned char *__restrict__ dst, unsigned long long tid,
                  unsigned long long stride, check_tally &t)
{
  typedef element<DTYPE> E;
  constexpr int U = COPY ? 4 : 1;
  unsigned long long end = 0;
  for (unsigned l = 0; l < it.nleaves; l++)
    {
      const check_leaf leaf = it.leaves[l];
      check_padding<COPY, CHECK> (src, dst, end, leaf.offset, 2 * l, tid, stride, t);
      end = leaf.offset + leaf.count * sizeof (typename E::bits);
      const uint4 *vec = reinterpret_cast<const uint4 *> (src + leaf.offset);
      uint4 *vec_out = reinterpret_cast<uint4 *> (dst + leaf.offset);
      const unsigned long long nvec = leaf.count / E::per_vector;
      for (unsigned long long i0 = tid; i0 < nvec; i0 += U * stride)
        {
          uint4 w[U];
#pragma unroll
          for (int u = 0; u < U; u++)
            {
              unsigned long long i = i0 + u * stride;
              if (i < nvec)
                w[u] = COPY ? vec[i] : __ldg (vec + i);
            }
#pragma unroll
          for (int u = 0; u < U; u++)
            {
              unsigned long long i = i0 + u * stride;
              if (i >= nvec)
                break;
              if (COPY)
                vec_out[i] = w[u];
              if (!CHECK)
                continue;
              unsigned long long j = i * E::per_vector;
              unsigned v = (unsigned) ((j % PAYLOAD_PERIOD + leaf.shift) % PAYLOAD_PERIOD);
#pragma unroll
              for (int e = 0; e < E::per_vector; e++)
                {
                  if (E::lane (w[u], e) != E::expect (v))
                    note_mismatch (t.count, t.first, 2 * l + 1, j + e);
                  v = v + 1 == PAYLOAD_PERIOD ? 0 : v + 1;
                }
            }
        }
      const typename E::bits *scalar
        = reinterpret_cast<const typename E::bits *> (src + leaf.offset);
      typename E::bits *scalar_out = reinterpret_cast<typename E::bits *> (dst + leaf.offset);
      for (unsigned long long j = nvec * E::per_vector + tid; j < leaf.count; j += stride)
        {
          typename E::bits x = scalar[j];
          if (COPY)
            scalar_out[j] = x;
          if (!CHECK)
            continue;
          unsigned v = (unsigned) ((j % PAYLOAD_PERIOD + leaf.shift) % PAYLOAD_PERIOD);
          if ((unsigned) x != E::expect (v))
            note_mismatch (t.count, t.first, 2 * l + 1, j);
        }
    }
  check_padding<COPY, CHECK> (src, dst, end, it.bytes, 2 * it.nleaves, tid, stride, t);
}

/* Add what one thread saw to its item's results.  */
__device__ static inline void
report_tally (const check_tally &t, check_result *result)
{
  if (t.count)
    {
      atomicAdd (&result->mismatches, t.count);
      if (t.padding)
        atomicAdd (&result->padding, t.padding);
      atomicMax (&result->first, t.first);
    }
}

/* Check every item of a batch (item blockIdx.y) in the buffer: a
   grid-stride loop per item, a few atomics per thread that saw a
   mismatch.  */
template <int DTYPE>
__global__ void
check_kernel (const unsigned char *__restrict__ buffer, const __grid_constant__ check_batch batch,
              check_result *__restrict__ results)
{
  const check_item &it = batch.items[blockIdx.y];
  const unsigned long long stride = (unsigned long long) gridDim.x * blockDim.x;
  const unsigned long long tid = (unsigned long long) blockIdx.x * blockDim.x + threadIdx.x;
  check_tally t = {};
  check_item_bytes<DTYPE, false, true> (it, buffer + it.offset, nullptr, tid, stride, t);
  report_tally (t, &results[blockIdx.y]);
}

/* The sm path: the grid's warps copy and check the batch's COUNT items
   from the mapped arena into the buffer.  Warps, not blocks, take items,
   so that a few blocks keep many small items in flight at once: with at
   least as many items as warps each warp takes every WARPS-th item, else
   each item gets WARPS / COUNT warps.  */
template <int DTYPE, bool CHECK>
__global__ void
copy_check_kernel (unsigned char *__restrict__ buffer, const __grid_constant__ check_batch batch,
                   unsigned count, check_result *__restrict__ results)
{
  const unsigned warps = gridDim.x * blockDim.x / 32;
  const unsigned warp = (blockIdx.x * blockDim.x + threadIdx.x) / 32;
  const unsigned lane = threadIdx.x % 32;
  unsigned first = warp, step = warps;
  unsigned long long tid = lane, stride = 32;
  if (count < warps)
    {
      unsigned per = warps / count;
      first = warp / per;
      step = count;
      tid = (unsigned long long) (warp % per) * 32 + lane;
      stride = (unsigned long long) per * 32;
    }
  for (unsigned i = first; i < count; i += step)
    {
      const check_item &it = batch.items[i];
      check_tally t = {};
      check_item_bytes<DTYPE, true, CHECK> (it, it.source, buffer + it.offset, tid, stride, t);
      if (CHECK)
        report_tally (t, &results[i]);
    }
}

/* A batch's results start at zero: one small kernel, so that nothing of
   the check travels through a copy engine the items' copies need.  */
__global__ void
clear_results (check_result *results, unsigned count)
{
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < count)
    results[i] = check_result ();
}

typedef void (*check_launcher) (const unsigned char *, const check_batch &, check_result *,
                                dim3, cudaStream_t);

template <int DTYPE>
static void
launch_check (const unsigned char *buffer, const check_batch &batch, check_result *results,
              dim3 blocks, cudaStream_t stream)
{
  check_kernel<DTYPE><<<blocks, 256, 0, stream>>> (buffer, batch, results);
}

static const check_launcher check_launchers[DTYPE_COUNT] = {
  launch_check<DTYPE_FP32>, launch_check<DTYPE_FP16>, launch_check<DTYPE_UINT8>,
};

typedef void (*copy_check_launcher) (unsigned char *, const check_batch &, unsigned,
                                     check_result *, unsigned, cudaStream_t);

template <int DTYPE, bool CHECK>
static void
launch_copy_check (unsigned char *buffer, const check_batch &batch, unsigned count,
                   check_result *results, unsigned blocks, cudaStream_t stream)
{
  copy_check_kernel<DTYPE, CHECK><<<blocks, H2D_SM_THREADS, 0, stream>>> (buffer, batch, count,
                                                                        results);
}

/* [checking][dtype] */
static const copy_check_launcher copy_check_launchers[2][DTYPE_COUNT] = {
  { launch_copy_check<DTYPE_FP32, false>, launch_copy_check<DTYPE_FP16, false>,
    launch_copy_check<DTYPE_UINT8, false> },
  { launch_copy_check<DTYPE_FP32, true>, launch_copy_check<DTYPE_FP16, true>,
    launch_copy_check<DTYPE_UINT8, true> },
};

/* Where an item's bytes go in a batch's buffer: leaves keep the 16-byte
   alignment the kernel's vector loads need.  */
#define H2D_ITEM_ALIGN 256

struct registration
{
  unsigned char *base;
  uint64_t bytes;
  /* Mapped (h2d_pipeline_map_arenas): where the device sees each
     H2D_REGISTER_CHUNK piece; empty when not mapped.  */
  std::vector<unsigned char *> device;
};

/* One cudaMemcpyAsync's worth of a run, or one copy of a batched call. */
struct copy_piece
{
  unsigned char *dst;
  const unsigned char *src;
  uint64_t bytes;
};

/* One item of a batch, where it lies in the buffer.  */
struct batch_entry
{
  h2d_item item;
  uint64_t offset;                  /* in the device buffer, from launch */
  unsigned run;                     /* the copy it travels in */
};

/* Bytes copied by one cudaMemcpyAsync: items that lie back to back in
   host memory (adjacent pool slots, consecutive ring records) in one
   registered piece travel together, the few bytes between them too.  */
struct copy_run
{
  const unsigned char *host;
  uint64_t offset, bytes;           /* OFFSET in the device buffer, from launch */
  const struct registration *reg;
};

/* A batch's results, copied back after its check (device-to-host: that
   engine has nothing else to do): page-locked on the host, one per
   buffer.  */
struct batch_block
{
  check_result results[H2D_BATCH_ITEMS];
};

/* How a batch's check (engine and batch paths) is ordered after its
   copy (ARENABENCH_COPY_ORDER, for compute-sanitizer's initcheck):
   EVENT, the check's stream waits on the copy's last event (the
   default, and the only order a run needs); SYNC, the host also waits
   for that event before it queues the check, so the check cannot begin
   before the copy's writes completed whatever the tools track; NONE, no
   wait at all: a negative control whose checks may read bytes not yet
   written (mismatches, initcheck reports).  */
enum copy_order { ORDER_EVENT, ORDER_SYNC, ORDER_NONE };
static const char *const copy_order_names[] = { "event", "sync", "none" };

/* One buffer of the ring of K and the batch that travels in it.  */
struct flight
{
  unsigned char *device;
  unsigned char *staging;           /* pinned, --staged only */
  batch_block *host_block, *device_block;
  cudaEvent_t copy_start, copy_stop, verify_start, verify_stop, verified, released, retired;
  batch_entry entries[H2D_BATCH_ITEMS];
  copy_run runs[H2D_BATCH_ITEMS];
  unsigned count, given, nruns;
  uint64_t end;                     /* bytes of the buffer in use */
  uint64_t item_bytes;              /* the items' own bytes */
  payload_dtype dtype;
  bool launched;
  h2d_copy_path path;               /* how it went, from launch */
  uint64_t done_ns;                 /* written by a host function */
  uint64_t released_ns;             /* likewise */
  uint64_t submit_ns;
  unsigned copy_stream;
  uint64_t copy_ns, verify_ns;
  /* Stage times on the host clock, taken at its first retire.  */
  uint64_t copy_start_ns, copy_end_ns, check_start_ns, check_end_ns;
};

/* --staged: N threads (this one and N-1 helpers) copy a batch's items
   from the arena into its pinned staging buffer, each a share of the
   bytes.  */
struct stage_piece
{
  unsigned char *dst;
  const unsigned char *src;
  uint64_t bytes;
};

struct stager
{
  unsigned nthreads;
  std::vector<std::thread> helpers;
  std::mutex lock;
  std::condition_variable start, done;
  uint64_t generation;
  unsigned busy;
  bool stop;
  std::vector<stage_piece> pieces;
  uint64_t total;
};

struct h2d_pipeline
{
  unsigned inflight;
  bool verify;
  unsigned blocks_max;
  /* Items take turns on NCOPIES copy streams (see H2D_COPY_STREAMS_MAX). */
  cudaStream_t copies[H2D_COPY_STREAMS_MAX];
  unsigned ncopies, submitted;
  /* RELEASE runs the batches' release callbacks, HOST stamps them done:
     on one stream a release would wait for the previous batch's check. */
  cudaStream_t check, release, host;
  std::vector<flight> flights;
  batch_block *host_blocks, *device_blocks;
  uint64_t capacity;
  unsigned head, nbatches, pending;
  unsigned batch_items;             /* at most H2D_BATCH_ITEMS */
  /* A list: batches being gathered point at their runs' registrations,
     which another arena's registration must not move.  */
  std::list<registration> registrations;
  bool map;                         /* register arenas mapped */
  h2d_copy_path path;
  unsigned sm_blocks;
  uint64_t path_batches[H2D_COPY_PATHS];
  std::vector<copy_piece> pieces;   /* a batch's copies, reused */
  /* The batched call's arrays, reused: no allocation per batch.  */
  std::vector<void *> batch_dsts;
  std::vector<const void *> batch_srcs;
  std::vector<size_t> batch_sizes;
  stager *stage;                    /* NULL: copies straight from the arena */
  /* Device events go on the host clock through ORIGIN, an event whose
     completion was seen at ORIGIN_NS.  */
  cudaEvent_t origin;
  uint64_t origin_ns;
  /* ARENABENCH_COPY_ORDER: how a batch's check waits for its copy, and
     (when given) the batches whose check was seen to begin before their
     copy ended, by their events' times.  */
  copy_order order;
  bool order_given;
  uint64_t order_batches, order_early;
  double order_min_gap_ms;
};

static void
create_event (cudaEvent_t *event, bool timed)
{
  GPU_CHECK (cudaEventCreateWithFlags (event, timed ? cudaEventDefault : cudaEventDisableTiming));
}

/* The host clock's reading when ORIGIN completed: the event is recorded
   on an idle stream and waited for, so it completed just before the
   wait returned (a few microseconds at most).  */
static void
take_origin (h2d_pipeline *pipe)
{
  create_event (&pipe->origin, true);
  GPU_CHECK (cudaEventRecord (pipe->origin, pipe->copies[0]));
  GPU_CHECK (cudaEventSynchronize (pipe->origin));
  pipe->origin_ns = clock_now_ns ();
}

/* EVENT's time on the host clock.  cudaEventElapsedTime gives float
   milliseconds: a microsecond's resolution for the first 16 s after the
   origin, 8 us after 128 s.  */
static uint64_t
host_time_ns (const h2d_pipeline *pipe, cudaEvent_t event)
{
  float ms = 0;
  GPU_CHECK (cudaEventElapsedTime (&ms, pipe->origin, event));
  return pipe->origin_ns + (uint64_t) std::max (0.0, (double) ms * 1e6);
}

/* ------------------------------------------------------------ staging */

/* Thread T's share of the pieces: bytes [T*TOTAL/N, (T+1)*TOTAL/N) of
   them laid end to end.  */
static void
stage_share (const stager *st, unsigned t)
{
  uint64_t from = st->total * t / st->nthreads, to = st->total * (t + 1) / st->nthreads;
  uint64_t at = 0;
  for (const stage_piece &p : st->pieces)
    {
      uint64_t lo = std::max (from, at), hi = std::min (to, at + p.bytes);
      if (lo < hi)
        memcpy (p.dst + (lo - at), p.src + (lo - at), hi - lo);
      at += p.bytes;
      if (at >= to)
        break;
    }
}

static void
stage_helper (stager *st, unsigned t)
{
  uint64_t seen = 0;
  std::unique_lock<std::mutex> hold (st->lock);
  for (;;)
    {
      st->start.wait (hold, [&] { return st->stop || st->generation != seen; });
      if (st->stop)
        return;
      seen = st->generation;
      hold.unlock ();
      stage_share (st, t);
      hold.lock ();
      if (--st->busy == 0)
        st->done.notify_one ();
    }
}

static stager *
stager_open (unsigned nthreads)
{
  stager *st = new stager ();
  st->nthreads = nthreads;
  for (unsigned t = 1; t < nthreads; t++)
    st->helpers.emplace_back (stage_helper, st, t);
  return st;
}

static void
stager_close (stager *st)
{
  {
    std::lock_guard<std::mutex> hold (st->lock);
    st->stop = true;
  }
  st->start.notify_all ();
  for (std::thread &t : st->helpers)
    t.join ();
  delete st;
}

/* Copy the pieces with every thread, this one included; returns when all
   bytes are in the staging buffer.  */
static void
stager_run (stager *st)
{
  st->total = 0;
  for (const stage_piece &p : st->pieces)
    st->total += p.bytes;
  if (st->nthreads > 1)
    {
      std::lock_guard<std::mutex> hold (st->lock);
      st->busy = st->nthreads - 1;
      st->generation++;
    }
  st->start.notify_all ();
  stage_share (st, 0);
  if (st->nthreads > 1)
    {
      std::unique_lock<std::mutex> hold (st->lock);
      st->done.wait (hold, [&] { return st->busy == 0; });
    }
}

/* ----------------------------------------------------------- pipeline */

struct h2d_pipeline *
h2d_pipeline_open (unsigned inflight, unsigned copy_streams, bool verify,
                   unsigned staging_threads)
{
  if (copy_streams < 1 || copy_streams > H2D_COPY_STREAMS_MAX)
    die (EXIT_SOFTWARE, 0, "h2d_pipeline_open: %u copy streams", copy_streams);
  h2d_pipeline *pipe = new h2d_pipeline ();
  pipe->inflight = inflight;
  pipe->ncopies = copy_streams;
  pipe->verify = verify;
  pipe->batch_items = H2D_BATCH_ITEMS;
  pipe->path = H2D_COPY_ENGINE;
  pipe->sm_blocks = H2D_COPY_SMS_DEFAULT;
  if (const char *order = getenv ("ARENABENCH_COPY_ORDER"))
    {
      int o = 0;
      while (o < 3 && strcmp (order, copy_order_names[o]) != 0)
        o++;
      if (o == 3)
        die (EXIT_USAGE, 0, "ARENABENCH_COPY_ORDER: %s is not event, sync or none",
             quote (order));
      pipe->order = (copy_order) o;
      pipe->order_given = true;
      pipe->order_min_gap_ms = HUGE_VAL;
    }
  int device = 0, sms = 0;
  GPU_CHECK (cudaGetDevice (&device));
  GPU_CHECK (cudaDeviceGetAttribute (&sms, cudaDevAttrMultiProcessorCount, device));
  pipe->blocks_max = (unsigned) std::max (sms, 1) * 8;
  for (unsigned i = 0; i < pipe->ncopies; i++)
    GPU_CHECK (cudaStreamCreateWithFlags (&pipe->copies[i], cudaStreamNonBlocking));
  GPU_CHECK (cudaStreamCreateWithFlags (&pipe->check, cudaStreamNonBlocking));
  GPU_CHECK (cudaStreamCreateWithFlags (&pipe->release, cudaStreamNonBlocking));
  GPU_CHECK (cudaStreamCreateWithFlags (&pipe->host, cudaStreamNonBlocking));
  GPU_CHECK (cudaHostAlloc (&pipe->host_blocks, inflight * sizeof (batch_block),
                            cudaHostAllocDefault));
  GPU_CHECK (cudaMalloc (&pipe->device_blocks, inflight * sizeof (batch_block)));
  pipe->flights.resize (inflight);
  for (unsigned i = 0; i < inflight; i++)
    {
      flight &f = pipe->flights[i];
      f.host_block = &pipe->host_blocks[i];
      f.device_block = &pipe->device_blocks[i];
      create_event (&f.copy_start, true);
      create_event (&f.copy_stop, true);
      create_event (&f.verify_start, true);
      create_event (&f.verify_stop, true);
      create_event (&f.verified, false);
      create_event (&f.released, false);
      create_event (&f.retired, false);
    }
  if (staging_threads)
    pipe->stage = stager_open (staging_threads);
  take_origin (pipe);
  return pipe;
}

void
h2d_pipeline_close (struct h2d_pipeline *pipe)
{
  GPU_CHECK (cudaDeviceSynchronize ());
  if (pipe->order_given)
    {
      char gap[64] = "";
      if (pipe->order_batches)
        snprintf (gap, sizeof gap, " (least copy end to check start: %.1f us)",
                  pipe->order_min_gap_ms * 1e3);
      warn (0, "ARENABENCH_COPY_ORDER=%s: %llu batches checked after a copy, "
            "%llu of them began their check before the copy ended%s",
            copy_order_names[pipe->order], (unsigned long long) pipe->order_batches,
            (unsigned long long) pipe->order_early, gap);
    }
  for (flight &f : pipe->flights)
    {
      if (f.device)
        GPU_CHECK (cudaFree (f.device));
      if (f.staging)
        GPU_CHECK (cudaFreeHost (f.staging));
      for (cudaEvent_t e : { f.copy_start, f.copy_stop, f.verify_start, f.verify_stop,
                             f.verified, f.released, f.retired })
        GPU_CHECK (cudaEventDestroy (e));
    }
  while (!pipe->registrations.empty ())
    h2d_pipeline_unregister (pipe, pipe->registrations.back ().base);
  GPU_CHECK (cudaFreeHost (pipe->host_blocks));
  GPU_CHECK (cudaFree (pipe->device_blocks));
  for (unsigned i = 0; i < pipe->ncopies; i++)
    GPU_CHECK (cudaStreamDestroy (pipe->copies[i]));
  GPU_CHECK (cudaStreamDestroy (pipe->check));
  GPU_CHECK (cudaStreamDestroy (pipe->release));
  GPU_CHECK (cudaStreamDestroy (pipe->host));
  if (pipe->stage)
    stager_close (pipe->stage);
  GPU_CHECK (cudaEventDestroy (pipe->origin));
  delete pipe;
}

static void
unregister_chunks (unsigned char *base, uint64_t bytes)
{
  for (uint64_t off = 0; off < bytes; off += H2D_REGISTER_CHUNK)
    GPU_CHECK (cudaHostUnregister (base + off));
}

bool
h2d_pipeline_register (struct h2d_pipeline *pipe, void *base, uint64_t bytes,
                       char *why, size_t why_size)
{
  unsigned char *p = static_cast<unsigned char *> (base);
  registration reg = { p, bytes, {} };
  unsigned flags = pipe->map ? cudaHostRegisterMapped : cudaHostRegisterDefault;
  for (uint64_t off = 0; off < bytes; off += H2D_REGISTER_CHUNK)
    {
      uint64_t n = std::min (bytes - off, H2D_REGISTER_CHUNK);
      cudaError_t err = cudaHostRegister (p + off, n, flags);
      void *device = nullptr;
      if (err == cudaSuccess && pipe->map)
        {
          err = cudaHostGetDevicePointer (&device, p + off, 0);
          if (err != cudaSuccess)
            {
              cudaGetLastError ();
              GPU_CHECK (cudaHostUnregister (p + off));
            }
        }
      if (err != cudaSuccess)
        {
          /* Clear it, or the next launch check would report it.  */
          cudaGetLastError ();
          snprintf (why, why_size, "%s", cudaGetErrorString (err));
          unregister_chunks (p, off);
          return false;
        }
      if (pipe->map)
        reg.device.push_back (static_cast<unsigned char *> (device));
    }
  pipe->registrations.push_back (reg);
  return true;
}

void
h2d_pipeline_unregister (struct h2d_pipeline *pipe, void *base)
{
  auto &regs = pipe->registrations;
  for (auto r = regs.begin (); r != regs.end (); ++r)
    if (r->base == base)
      {
        unregister_chunks (r->base, r->bytes);
        regs.erase (r);
        return;
      }
}

unsigned
h2d_pipeline_pending (const struct h2d_pipeline *pipe)
{
  return pipe->pending;
}

unsigned
h2d_pipeline_inflight (const struct h2d_pipeline *pipe)
{
  return pipe->inflight;
}

uint64_t
h2d_pipeline_capacity (const struct h2d_pipeline *pipe)
{
  return pipe->capacity;
}

void
h2d_pipeline_batch_items (struct h2d_pipeline *pipe, unsigned items)
{
  pipe->batch_items = std::max (1u, std::min (items, (unsigned) H2D_BATCH_ITEMS));
}

uint64_t
h2d_pipeline_staging_bytes (const struct h2d_pipeline *pipe)
{
  return pipe->stage ? pipe->capacity * pipe->inflight : 0;
}

static void
grow_buffers (h2d_pipeline *pipe, uint64_t bytes)
{
  if (pipe->pending)
    die (EXIT_SOFTWARE, 0, "h2d_pipeline_submit: buffers must grow with items in flight");
  /* 16 bytes more: the kernel's vector loads never leave the buffer.  */
  uint64_t size = std::max<uint64_t> ((bytes + 15) / 16 * 16, H2D_BATCH_BYTES);
  for (flight &f : pipe->flights)
    {
      if (f.device)
        GPU_CHECK (cudaFree (f.device));
      GPU_CHECK (cudaMalloc (&f.device, size));
      if (pipe->stage)
        {
          if (f.staging)
            GPU_CHECK (cudaFreeHost (f.staging));
          GPU_CHECK (cudaHostAlloc (&f.staging, size, cudaHostAllocDefault));
        }
    }
  pipe->capacity = size;
}

static const registration *
registration_of (const h2d_pipeline *pipe, const unsigned char *p)
{
  for (const registration &r : pipe->registrations)
    if (p >= r.base && p < r.base + r.bytes)
      return &r;
  return nullptr;
}

/* The copies of N bytes from SRC, added to PIECES: a pinned source is
   split at registration chunks so that every piece lies in one registered
   range.  */
static void
split_pieces (std::vector<copy_piece> &pieces, unsigned char *dst, const unsigned char *src,
              uint64_t n, const registration *reg)
{
  while (n)
    {
      uint64_t piece = n;
      if (reg)
        {
          uint64_t into = (uint64_t) (src - reg->base) % H2D_REGISTER_CHUNK;
          piece = std::min (n, H2D_REGISTER_CHUNK - into);
        }
      pieces.push_back ({ dst, src, piece });
      dst += piece;
      src += piece;
      n -= piece;
    }
}

/* Where the device reads BYTES at HOST of REG in place, or NULL: not
   mapped, not 16-byte aligned (the kernel's vector loads), or across two
   chunks the device does not see back to back.  */
static const unsigned char *
device_source (const registration *reg, const unsigned char *host, uint64_t bytes)
{
  if (!reg || reg->device.empty () || (uintptr_t) host % 16)
    return nullptr;
  uint64_t at = (uint64_t) (host - reg->base);
  size_t chunk = (size_t) (at / H2D_REGISTER_CHUNK);
  const unsigned char *dev = reg->device[chunk] + at % H2D_REGISTER_CHUNK;
  uint64_t last = (at + (bytes ? bytes - 1 : 0)) / H2D_REGISTER_CHUNK;
  for (size_t k = chunk + 1; k <= last; k++)
    if (reg->device[k] != reg->device[chunk] + (k - chunk) * H2D_REGISTER_CHUNK)
      return nullptr;
  return dev;
}

/* Queue PIPE's pieces on COPY: one call each, or (BATCHED) one call for
   all.  */
static void
copy_pieces (h2d_pipeline *pipe, bool batched, cudaStream_t copy)
{
  const std::vector<copy_piece> &pieces = pipe->pieces;
#if CUDART_VERSION >= 12080
  if (batched && !pieces.empty ())
    {
      std::vector<void *> &dsts = pipe->batch_dsts;
      std::vector<const void *> &srcs = pipe->batch_srcs;
      std::vector<size_t> &sizes = pipe->batch_sizes;
      dsts.resize (pieces.size ());
      srcs.resize (pieces.size ());
      sizes.resize (pieces.size ());
      for (size_t i = 0; i < pieces.size (); i++)
        {
          dsts[i] = pieces[i].dst;
          srcs[i] = pieces[i].src;
          sizes[i] = pieces[i].bytes;
        }
      /* One set of attributes for every copy: read the source in stream
         order, as cudaMemcpyAsync does.  */
      cudaMemcpyAttributes attr = {};
      attr.srcAccessOrder = cudaMemcpySrcAccessOrderStream;
      size_t attr_index = 0;
# if CUDART_VERSION >= 13000
      GPU_CHECK (cudaMemcpyBatchAsync (dsts.data (), srcs.data (), sizes.data (), pieces.size (),
                                       &attr, &attr_index, 1, copy));
# else
      size_t fail_index = 0;
      /* 12.8 and 12.9 take plain void ** and a failure index.  */
      GPU_CHECK (cudaMemcpyBatchAsync (dsts.data (), (void **) srcs.data (), sizes.data (),
                                       pieces.size (), &attr, &attr_index, 1, &fail_index, copy));
# endif
      return;
    }
#else
  if (batched)
    die (EXIT_SOFTWARE, 0, "copy_pieces: no cudaMemcpyBatchAsync in this build");
#endif
  for (const copy_piece &p : pieces)
    GPU_CHECK (cudaMemcpyAsync (p.dst, p.src, p.bytes, cudaMemcpyHostToDevice, copy));
}

static uint64_t
align_item (uint64_t bytes)
{
  return (bytes + H2D_ITEM_ALIGN - 1) / H2D_ITEM_ALIGN * H2D_ITEM_ALIGN;
}

/* The bytes of F's buffer its runs take, laid end to end at aligned
   offsets, with run R holding BYTES (R == f.nruns: a new last run).  */
static uint64_t
batch_span (const flight &f, unsigned r, uint64_t bytes)
{
  unsigned n = std::max (f.nruns, r + 1);
  uint64_t span = 0;
  for (unsigned k = 0; k < n; k++)
    {
      uint64_t b = k == r ? bytes : f.runs[k].bytes;
      span = k + 1 < n ? span + align_item (b) : span + b;
    }
  return span;
}

/* Where ITEM would go in batch F: the run it joins, *RUN (f.nruns: a run
   of its own), and the run's bytes with it, *RUN_BYTES; false when it does
   not fit.  An item joins any run of the batch that it follows closely in
   the same registered piece of host memory (the next slot of the same
   pool, the next record of the same ring), so that items of several
   producers, arriving interleaved, still travel as one copy per arena.
   Staged, every item is a run of its own: the staging copy is one.  */
static bool
place (const h2d_pipeline *pipe, const flight &f, const h2d_item *item, unsigned *run,
       uint64_t *run_bytes, const registration **reg)
{
  *reg = nullptr;
  *run = f.nruns;
  *run_bytes = item->layout.bytes;
  if (f.count == pipe->batch_items || (f.count && f.dtype != item->layout.dtype))
    return false;
  if (!pipe->stage)
    {
      *reg = registration_of (pipe, item->host);
      for (unsigned r = 0; r < f.nruns; r++)
        {
          const copy_run &c = f.runs[r];
          const unsigned char *end = c.host + c.bytes;
          if (c.reg == *reg && item->host >= end && item->host - end <= H2D_COALESCE_GAP
              && (item->host - c.host) % 16 == 0)
            {
              *run = r;
              *run_bytes = (uint64_t) (item->host - c.host) + item->layout.bytes;
              break;
            }
        }
    }
  return batch_span (f, *run, *run_bytes) <= pipe->capacity;
}

bool
h2d_pipeline_ready (const struct h2d_pipeline *pipe, const struct h2d_item *item)
{
  if (item->layout.bytes > pipe->capacity)
    return pipe->pending == 0;
  if (pipe->nbatches)
    {
      const flight &last = pipe->flights[(pipe->head + pipe->nbatches - 1) % pipe->inflight];
      unsigned run;
      uint64_t run_bytes;
      const registration *reg;
      if (!last.launched && place (pipe, last, item, &run, &run_bytes, &reg))
        return true;
    }
  return pipe->nbatches < pipe->inflight;
}

static void CUDART_CB
release_batch (void *arg)
{
  flight *f = static_cast<flight *> (arg);
  for (unsigned i = 0; i < f->count; i++)
    f->entries[i].item.release (f->entries[i].item.release_arg);
  f->released_ns = clock_now_ns ();
}

static void CUDART_CB
stamp_done (void *arg)
{
  flight *f = static_cast<flight *> (arg);
  f->done_ns = clock_now_ns ();
}

/* The descriptors of batch F's items for a check kernel; returns the most
   16-byte vectors of any item.  */
static uint64_t
describe_batch (const flight &f, check_batch *batch)
{
  *batch = check_batch ();
  uint64_t vectors_max = 0;
  size_t itemsize = payload_dtypes[f.dtype].itemsize;
  for (unsigned i = 0; i < f.count; i++)
    {
      const h2d_item &item = f.entries[i].item;
      const payload_layout &layout = item.layout;
      check_item &c = batch->items[i];
      c.offset = f.entries[i].offset;
      c.bytes = layout.bytes;
      c.nleaves = layout.nleaves;
      uint64_t vectors = 0;
      for (unsigned l = 0; l < layout.nleaves; l++)
        {
          c.leaves[l].offset = layout.leaves[l].offset;
          c.leaves[l].count = layout.leaves[l].count;
          c.leaves[l].shift = payload_shift (item.sequence, l);
          vectors += layout.leaves[l].count * itemsize / 16 + 1;
        }
      vectors_max = std::max (vectors_max, vectors);
    }
  return vectors_max;
}

/* The sm path's descriptors of batch F into *BATCH, each item with where
   the device reads it in place; false when one cannot be read so (a
   pageable arena): the batch goes by the engine.  */
static bool
sm_sources (const h2d_pipeline *pipe, const flight &f, check_batch *batch)
{
  describe_batch (f, batch);
  for (unsigned i = 0; i < f.count; i++)
    {
      const h2d_item &item = f.entries[i].item;
      const unsigned char *src = device_source (registration_of (pipe, item.host), item.host,
                                                item.layout.bytes);
      if (!src)
        return false;
      batch->items[i].source = src;
    }
  return true;
}

/* Batch F's results back to the host (device-to-host: that engine has
   nothing else to do), on STREAM.  */
static void
fetch_results (flight &f, cudaStream_t stream)
{
  GPU_CHECK (cudaMemcpyAsync (f.host_block->results, f.device_block->results,
                              f.count * sizeof (check_result), cudaMemcpyDeviceToHost, stream));
}

/* The sm path's copy of batch F, described by BATCH, on COPY: one kernel
   copies and (verifying) checks; its check is the copy's time.  */
static void
launch_copy_check_batch (h2d_pipeline *pipe, flight &f, const check_batch &batch,
                         cudaStream_t copy)
{
  if (pipe->verify)
    {
      GPU_CHECK (cudaEventRecord (f.verify_start, copy));
      clear_results<<<1, H2D_BATCH_ITEMS, 0, copy>>> (f.device_block->results, f.count);
      gpu_check_launch ("clear_results");
    }
  copy_check_launchers[pipe->verify][f.dtype] (f.device, batch, f.count,
                                               f.device_block->results, pipe->sm_blocks, copy);
  gpu_check_launch ("copy_check_kernel");
  if (pipe->verify)
    GPU_CHECK (cudaEventRecord (f.verify_stop, copy));
}

/* The batch's check: one kernel over all its items.  */
static void
launch_check_batch (h2d_pipeline *pipe, flight &f)
{
  check_batch batch;
  uint64_t vectors_max = describe_batch (f, &batch);
  unsigned per_item = std::max (1u, pipe->blocks_max / f.count);
  dim3 blocks ((unsigned) std::min<uint64_t> ((vectors_max + 255) / 256, per_item), f.count);
  GPU_CHECK (cudaEventRecord (f.verify_start, pipe->check));
  clear_results<<<1, H2D_BATCH_ITEMS, 0, pipe->check>>> (f.device_block->results, f.count);
  gpu_check_launch ("clear_results");
  check_launchers[f.dtype] (f.device, batch, f.device_block->results, blocks, pipe->check);
  gpu_check_launch ("check_kernel");
  GPU_CHECK (cudaEventRecord (f.verify_stop, pipe->check));
  fetch_results (f, pipe->check);
}

/* Send batch F on its way: copies (through the staging buffer with
   --staged), the slots' release once copied, the check, the stamp.  */
static void
launch (h2d_pipeline *pipe, flight &f)
{
  f.launched = true;
  /* Lay the runs out in the buffer, and each item in its run.  */
  uint64_t at = 0;
  for (unsigned r = 0; r < f.nruns; r++)
    {
      f.runs[r].offset = at;
      at += align_item (f.runs[r].bytes);
    }
  for (unsigned i = 0; i < f.count; i++)
    f.entries[i].offset += f.runs[f.entries[i].run].offset;
  f.submit_ns = clock_now_ns ();
  f.path = pipe->stage ? H2D_COPY_ENGINE : pipe->path;
  check_batch sm_batch;
  if (f.path == H2D_COPY_SM && !sm_sources (pipe, f, &sm_batch))
    f.path = H2D_COPY_ENGINE;
  /* A pageable run is staged by the driver as it always is.  */
  for (unsigned r = 0; r < f.nruns && f.path == H2D_COPY_BATCH; r++)
    if (!f.runs[r].reg)
      f.path = H2D_COPY_ENGINE;
  pipe->path_batches[f.path]++;
  /* The sm path's kernels queue on one stream, so that at most its
     blocks copy at once.  */
  f.copy_stream = f.path == H2D_COPY_SM ? 0 : pipe->submitted++ % pipe->ncopies;
  cudaStream_t copy = pipe->copies[f.copy_stream];
  if (pipe->stage)
    {
      /* As a pin_memory loader does: the bytes are ours once copied, and
         the slots go back at once.  */
      pipe->stage->pieces.clear ();
      for (unsigned i = 0; i < f.count; i++)
        pipe->stage->pieces.push_back ({ f.staging + f.entries[i].offset, f.entries[i].item.host,
                                         f.entries[i].item.layout.bytes });
      stager_run (pipe->stage);
      release_batch (&f);
      GPU_CHECK (cudaEventRecord (f.copy_start, copy));
      GPU_CHECK (cudaMemcpyAsync (f.device, f.staging, f.end, cudaMemcpyHostToDevice, copy));
      GPU_CHECK (cudaEventRecord (f.copy_stop, copy));
    }
  else
    {
      /* The buffer's previous batch has retired: nothing on the device
         still reads it, so the copy need not wait for anything.  */
      GPU_CHECK (cudaEventRecord (f.copy_start, copy));
      if (f.path == H2D_COPY_SM)
        launch_copy_check_batch (pipe, f, sm_batch, copy);
      else
        {
          pipe->pieces.clear ();
          for (unsigned r = 0; r < f.nruns; r++)
            split_pieces (pipe->pieces, f.device + f.runs[r].offset, f.runs[r].host,
                          f.runs[r].bytes, f.runs[r].reg);
          copy_pieces (pipe, f.path == H2D_COPY_BATCH, copy);
        }
      GPU_CHECK (cudaEventRecord (f.copy_stop, copy));
      /* Give the slots back as soon as the bytes are on the device.  */
      GPU_CHECK (cudaStreamWaitEvent (pipe->release, f.copy_stop, 0));
      GPU_CHECK (cudaLaunchHostFunc (pipe->release, release_batch, &f));
      GPU_CHECK (cudaEventRecord (f.released, pipe->release));
    }

  if (pipe->order == ORDER_SYNC)
    GPU_CHECK (cudaEventSynchronize (f.copy_stop));
  if (pipe->order != ORDER_NONE)
    GPU_CHECK (cudaStreamWaitEvent (pipe->check, f.copy_stop, 0));
  if (pipe->verify && f.path == H2D_COPY_SM)
    fetch_results (f, pipe->check);
  else if (pipe->verify)
    launch_check_batch (pipe, f);
  GPU_CHECK (cudaEventRecord (f.verified, pipe->check));
  /* --compute-us: the batch's steps; it retires once they ran.  */
  if (cudaEvent_t stepped = compute_step_gpu_after (f.verified, f.count))
    GPU_CHECK (cudaStreamWaitEvent (pipe->host, stepped, 0));

  /* RETIRED also means the slots went back.  */
  if (!pipe->stage)
    GPU_CHECK (cudaStreamWaitEvent (pipe->host, f.released, 0));
  GPU_CHECK (cudaStreamWaitEvent (pipe->host, f.verified, 0));
  GPU_CHECK (cudaLaunchHostFunc (pipe->host, stamp_done, &f));
  GPU_CHECK (cudaEventRecord (f.retired, pipe->host));
}

void
h2d_pipeline_kick (struct h2d_pipeline *pipe)
{
  if (!pipe->nbatches)
    return;
  flight &last = pipe->flights[(pipe->head + pipe->nbatches - 1) % pipe->inflight];
  if (!last.launched)
    launch (pipe, last);
}

void
h2d_pipeline_submit (struct h2d_pipeline *pipe, const struct h2d_item *item)
{
  if (!h2d_pipeline_ready (pipe, item))
    die (EXIT_SOFTWARE, 0, "h2d_pipeline_submit: %u items already in flight", pipe->pending);
  if (item->layout.bytes > pipe->capacity)
    grow_buffers (pipe, item->layout.bytes);
  unsigned run = 0;
  uint64_t run_bytes = 0;
  const registration *reg = nullptr;
  bool placed = false;
  if (pipe->nbatches)
    {
      flight &last = pipe->flights[(pipe->head + pipe->nbatches - 1) % pipe->inflight];
      if (!last.launched)
        {
          placed = place (pipe, last, item, &run, &run_bytes, &reg);
          if (!placed)
            launch (pipe, last);
        }
    }
  if (!placed)
    {
      flight &f = pipe->flights[(pipe->head + pipe->nbatches) % pipe->inflight];
      pipe->nbatches++;
      f.count = f.given = f.nruns = 0;
      f.end = f.item_bytes = 0;
      f.launched = false;
      f.done_ns = f.released_ns = 0;
      f.dtype = item->layout.dtype;
      place (pipe, f, item, &run, &run_bytes, &reg);
    }
  flight &f = pipe->flights[(pipe->head + pipe->nbatches - 1) % pipe->inflight];
  uint64_t bytes = item->layout.bytes;
  if (run == f.nruns)
    f.runs[f.nruns++] = { item->host, 0, run_bytes, reg };
  else
    f.runs[run].bytes = run_bytes;
  /* The item's place in the device buffer is known once the runs are laid
     out, at launch; until then OFFSET is its place in its run.  */
  f.entries[f.count++] = { *item, (uint64_t) (item->host - f.runs[run].host), run };
  f.item_bytes += bytes;
  f.end = batch_span (f, f.nruns - 1, f.runs[f.nruns - 1].bytes);
  pipe->pending++;
  /* A full batch need not wait for the input to pause.  */
  if (f.count == pipe->batch_items || f.end + H2D_ITEM_ALIGN > pipe->capacity)
    launch (pipe, f);
}

static uint64_t
elapsed_ns (cudaEvent_t start, cudaEvent_t stop)
{
  float ms = 0;
  GPU_CHECK (cudaEventElapsedTime (&ms, start, stop));
  return (uint64_t) ((double) ms * 1e6 + 0.5);
}

/* The first mismatch's details: the element or padding byte as it
   arrived on the device.  */
static void
describe_mismatch (const flight &f, unsigned i, payload_check *check)
{
  const batch_entry &e = f.entries[i];
  unsigned long long key = ~f.host_block->results[i].first;
  const payload_layout &layout = e.item.layout;
  unsigned part = (unsigned) (key >> 56);
  check->found = true;
  check->index = key & ((1ULL << 56) - 1);
  if (part > 2 * layout.nleaves || (part % 2 == 0 && check->index >= layout.bytes))
    die (EXIT_SOFTWARE, 0, "check_kernel: first mismatch names part %u of %u", part,
         2 * layout.nleaves + 1);
  if (part % 2 == 0)
    {
      unsigned char byte;
      GPU_CHECK (cudaMemcpy (&byte, f.device + e.offset + check->index, 1,
                             cudaMemcpyDeviceToHost));
      check->in_padding = true;
      check->expected = 0;
      check->actual = byte;
      return;
    }
  check->leaf = part / 2;
  size_t itemsize = payload_dtypes[layout.dtype].itemsize;
  unsigned char element[16];
  GPU_CHECK (cudaMemcpy (element, f.device + e.offset + layout.leaves[check->leaf].offset
                         + check->index * itemsize, itemsize, cudaMemcpyDeviceToHost));
  check->actual = payload_element (layout.dtype, element, 0);
  check->expected = payload_value (check->index, payload_shift (e.item.sequence, check->leaf));
}

bool
h2d_pipeline_retire (struct h2d_pipeline *pipe, bool wait, struct h2d_outcome *out)
{
  if (!pipe->nbatches)
    return false;
  flight &f = pipe->flights[pipe->head];
  if (!f.launched)
    {
      if (!wait)
        return false;
      launch (pipe, f);
    }
  if (f.given == 0)
    {
      if (wait)
        GPU_CHECK (cudaEventSynchronize (f.retired));
      else
        {
          cudaError_t err = cudaEventQuery (f.retired);
          if (err == cudaErrorNotReady)
            {
              cudaGetLastError ();
              return false;
            }
          GPU_CHECK (err);
        }
      f.copy_ns = elapsed_ns (f.copy_start, f.copy_stop);
      f.verify_ns = pipe->verify ? elapsed_ns (f.verify_start, f.verify_stop) : 0;
      f.copy_start_ns = host_time_ns (pipe, f.copy_start);
      f.copy_end_ns = f.copy_start_ns + f.copy_ns;
      f.check_start_ns = pipe->verify ? host_time_ns (pipe, f.verify_start) : 0;
      f.check_end_ns = pipe->verify ? f.check_start_ns + f.verify_ns : 0;
      /* The order's proof: the check's first event against the copy's
         last (the sm path's check is its copy).  */
      if (pipe->order_given && pipe->verify && f.path != H2D_COPY_SM)
        {
          float ms = 0;
          GPU_CHECK (cudaEventElapsedTime (&ms, f.copy_stop, f.verify_start));
          pipe->order_batches++;
          pipe->order_early += ms < 0;
          pipe->order_min_gap_ms = std::min (pipe->order_min_gap_ms, (double) ms);
        }
    }

  /* A batch's times are shared among its items by their bytes.  */
  unsigned i = f.given++;
  const batch_entry &e = f.entries[i];
  double share = f.item_bytes ? (double) e.item.layout.bytes / (double) f.item_bytes : 1;
  *out = h2d_outcome ();
  out->token = e.item.token;
  out->h2d_ns = (uint64_t) ((double) f.copy_ns * share + 0.5);
  out->done_ns = f.done_ns;
  out->submit_ns = f.submit_ns;
  out->copy_start_ns = f.copy_start_ns;
  out->copy_end_ns = f.copy_end_ns;
  out->check_start_ns = f.check_start_ns;
  out->check_end_ns = f.check_end_ns;
  out->release_ns = f.released_ns;
  out->copy_stream = f.copy_stream;
  out->first_of_batch = i == 0;
  if (pipe->verify)
    {
      out->verify_ns = (uint64_t) ((double) f.verify_ns * share + 0.5);
      out->check.mismatches = f.host_block->results[i].mismatches;
      out->check.padding = f.host_block->results[i].padding;
      if (out->check.mismatches)
        describe_mismatch (f, i, &out->check);
    }
  pipe->pending--;
  if (f.given == f.count)
    {
      pipe->head = (pipe->head + 1) % pipe->inflight;
      pipe->nbatches--;
    }
  return true;
}

/* ---------------------------------------------------------- copy paths */

void
h2d_pipeline_map_arenas (struct h2d_pipeline *pipe)
{
  pipe->map = true;
}

bool
h2d_pipeline_copy_path_available (const struct h2d_pipeline *pipe, enum h2d_copy_path path,
                                  char *why, size_t why_size)
{
  int device = 0, value = 0;
  switch (path)
    {
    case H2D_COPY_ENGINE:
      return true;
    case H2D_COPY_BATCH:
#if CUDART_VERSION >= 12080
      GPU_CHECK (cudaDriverGetVersion (&value));
      if (value < 12080)
        {
          snprintf (why, why_size, "cudaMemcpyBatchAsync needs a driver for CUDA 12.8 or "
                    "later; this one supports %d.%d", value / 1000, value % 1000 / 10);
          return false;
        }
      return true;
#else
      snprintf (why, why_size, "cudaMemcpyBatchAsync needs CUDA runtime 12.8 or later; "
                "this build has %d.%d", CUDART_VERSION / 1000, CUDART_VERSION % 1000 / 10);
      return false;
#endif
    case H2D_COPY_SM:
      if (!pipe->map)
        {
          snprintf (why, why_size, "arenas were not registered mapped");
          return false;
        }
      GPU_CHECK (cudaGetDevice (&device));
      GPU_CHECK (cudaDeviceGetAttribute (&value, cudaDevAttrCanMapHostMemory, device));
      if (!value)
        {
          snprintf (why, why_size, "the device cannot map page-locked host memory");
          return false;
        }
      return true;
    case H2D_COPY_PATHS:
      break;
    }
  die (EXIT_SOFTWARE, 0, "h2d_pipeline_copy_path_available: path %d", (int) path);
}

void
h2d_pipeline_copy_path (struct h2d_pipeline *pipe, enum h2d_copy_path path, unsigned blocks)
{
  char why[200];
  if (!h2d_pipeline_copy_path_available (pipe, path, why, sizeof why))
    die (EXIT_SOFTWARE, 0, "h2d_pipeline_copy_path: %s", why);
  if (blocks < 1 || blocks > H2D_COPY_SMS_MAX)
    die (EXIT_SOFTWARE, 0, "h2d_pipeline_copy_path: %u blocks", blocks);
  pipe->path = path;
  pipe->sm_blocks = blocks;
}

void
h2d_pipeline_path_batches (const struct h2d_pipeline *pipe, uint64_t *counts)
{
  for (int p = 0; p < H2D_COPY_PATHS; p++)
    counts[p] = pipe->path_batches[p];
}

static void
calibrate_release (void *arg)
{
  (void) arg;
}

/* Scratch bytes a calibration cycles through: more than the CPU's caches,
   as a run's items are.  */
#define CALIBRATE_SCRATCH_BYTES (UINT64_C (64) << 20)

/* Retire one item of a calibration, which must have passed its check.  */
static bool
calibrate_retire (h2d_pipeline *pipe, bool wait)
{
  h2d_outcome out;
  if (!h2d_pipeline_retire (pipe, wait, &out))
    return false;
  if (out.check.mismatches)
    die (EXIT_SOFTWARE, 0, "h2d_pipeline_calibrate: a scratch item failed its check "
         "(%llu mismatches)", (unsigned long long) out.check.mismatches);
  return true;
}

void
h2d_pipeline_calibrate (struct h2d_pipeline *pipe, const struct payload_layout *layout,
                        unsigned producers, unsigned blocks, double seconds,
                        unsigned rounds, double *gbps)
{
  if (pipe->pending || pipe->stage)
    die (EXIT_SOFTWARE, 0, "h2d_pipeline_calibrate: the pipeline is busy or staged");
  producers = std::max (1u, producers);
  /* PRODUCERS pool arenas of SLOTS slots each, one stride apart; item K
     comes from arena K % PRODUCERS, as a run's producers interleave.  */
  uint64_t stride = (layout->bytes + 4095) / 4096 * 4096;
  uint64_t slots = std::max<uint64_t> (2, CALIBRATE_SCRATCH_BYTES / stride / producers);
  uint64_t arena_bytes = slots * stride, total = arena_bytes * producers;
  for (unsigned k = 0; k < rounds * H2D_COPY_PATHS; k++)
    gbps[k] = 0;
  unsigned char *scratch = nullptr;
  /* No page-locked scratch (the driver refused): nothing is timed.  */
  if (cudaHostAlloc (&scratch, total, cudaHostAllocMapped) != cudaSuccess)
    {
      cudaGetLastError ();
      return;
    }
  void *device = nullptr;
  GPU_CHECK (cudaHostGetDevicePointer (&device, scratch, 0));
  for (uint64_t k = 0; k < slots * producers; k++)
    payload_fill (layout, k, scratch + (k % producers) * arena_bytes + k / producers * stride);
  /* Registered as an arena is, for the copies' placement and the sm
     path's reads (one piece: it is far below H2D_REGISTER_CHUNK).  */
  registration reg = { scratch, total, {} };
  reg.device.push_back (static_cast<unsigned char *> (device));
  pipe->registrations.push_back (reg);

  h2d_copy_path was = pipe->path;
  unsigned was_blocks = pipe->sm_blocks;
  /* A round to warm up (half as long), then ROUNDS timed; within each the
     paths take turns, so that a host growing busier slows them alike.  */
  for (unsigned round = 0; round <= rounds; round++)
    for (int p = 0; p < H2D_COPY_PATHS; p++)
      {
        char why[200];
        h2d_copy_path path = (h2d_copy_path) p;
        if (!h2d_pipeline_copy_path_available (pipe, path, why, sizeof why))
          continue;
        h2d_pipeline_copy_path (pipe, path, blocks);
        uint64_t start = clock_now_ns (), n = 0;
        uint64_t limit = (uint64_t) (seconds * (round ? 1e9 : 0.5e9));
        do
          {
            uint64_t k = n % (slots * producers);
            h2d_item item = {};
            item.host = scratch + (k % producers) * arena_bytes + k / producers * stride;
            item.layout = *layout;
            item.sequence = k;
            item.release = calibrate_release;
            while (calibrate_retire (pipe, false))
              continue;
            while (!h2d_pipeline_ready (pipe, &item))
              calibrate_retire (pipe, true);
            h2d_pipeline_submit (pipe, &item);
            n++;
          }
        while (clock_now_ns () - start < limit || n < 2ULL * pipe->inflight);
        while (calibrate_retire (pipe, true))
          continue;
        double ns = (double) (clock_now_ns () - start);
        double rate = ns > 0 ? (double) (n * layout->bytes) / ns : 0;
        if (round)
          gbps[(round - 1) * H2D_COPY_PATHS + p] = rate;
      }

  GPU_CHECK (cudaDeviceSynchronize ());
  pipe->registrations.pop_back ();
  GPU_CHECK (cudaFreeHost (scratch));
  pipe->path = was;
  pipe->sm_blocks = was_blocks;
  for (uint64_t &c : pipe->path_batches)
    c = 0;
  pipe->order_batches = pipe->order_early = 0;
  pipe->order_min_gap_ms = HUGE_VAL;
}
