/* h2d-pipeline.cu -- h2d-check's engine over the CUDA runtime: pipelined
   host-to-device copies and a kernel that checks every element.  */
#include <config.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <vector>

#include <cuda_fp16.h>
#include <cuda_runtime.h>

/* The C headers use C11's _Noreturn, which C++ spells differently.  */
#define _Noreturn __attribute__ ((noreturn))
extern "C" {
#include "system.h"
#include "clock.h"
#include "die.h"
#include "payload.h"
}
#include "gpu.h"
#include "h2d-pipeline.h"

/* What the check kernel leaves behind.  FIRST holds the complement of
   leaf<<56 | index, so atomicMax finds the smallest; 0 means none.  */
struct check_result
{
  unsigned long long mismatches;
  unsigned long long first;
};

struct check_leaf
{
  unsigned long long offset, count;
  unsigned shift;
};

struct check_args
{
  check_leaf leaves[PAYLOAD_MAX_LEAVES];
  unsigned nleaves;
};

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
note_mismatch (unsigned long long &count, unsigned long long &first, unsigned leaf,
               unsigned long long index)
{
  count++;
  unsigned long long key = ~((unsigned long long) leaf << 56 | index);
  first = key > first ? key : first;
}

/* Regenerate the pattern and compare every element of every leaf: 16-byte
   loads over a grid-stride loop, a scalar loop for the ragged tail, one
   pair of atomics per thread that saw a mismatch.  */
template <int DTYPE>
__global__ void
check_kernel (const unsigned char *__restrict__ item, check_args args,
              check_result *__restrict__ result)
{
  typedef element<DTYPE> E;
  const unsigned long long stride = (unsigned long long) gridDim.x * blockDim.x;
  const unsigned long long tid = (unsigned long long) blockIdx.x * blockDim.x + threadIdx.x;
  unsigned long long count = 0, first = 0;

  for (unsigned l = 0; l < args.nleaves; l++)
    {
      const check_leaf leaf = args.leaves[l];
      const uint4 *vec = reinterpret_cast<const uint4 *> (item + leaf.offset);
      const unsigned long long nvec = leaf.count / E::per_vector;
      for (unsigned long long i = tid; i < nvec; i += stride)
        {
          uint4 w = __ldg (vec + i);
          unsigned long long j = i * E::per_vector;
          unsigned v = (unsigned) ((j % PAYLOAD_PERIOD + leaf.shift) % PAYLOAD_PERIOD);
#pragma unroll
          for (int e = 0; e < E::per_vector; e++)
            {
              if (E::lane (w, e) != E::expect (v))
                note_mismatch (count, first, l, j + e);
              v = v + 1 == PAYLOAD_PERIOD ? 0 : v + 1;
            }
        }
      const typename E::bits *scalar = reinterpret_cast<const typename E::bits *> (item + leaf.offset);
      for (unsigned long long j = nvec * E::per_vector + tid; j < leaf.count; j += stride)
        {
          unsigned v = (unsigned) ((j % PAYLOAD_PERIOD + leaf.shift) % PAYLOAD_PERIOD);
          if ((unsigned) scalar[j] != E::expect (v))
            note_mismatch (count, first, l, j);
        }
    }
  if (count)
    {
      atomicAdd (&result->mismatches, count);
      atomicMax (&result->first, first);
    }
}

typedef void (*check_launcher) (const unsigned char *, check_args, check_result *,
                                unsigned, cudaStream_t);

template <int DTYPE>
static void
launch_check (const unsigned char *item, check_args args, check_result *result,
              unsigned blocks, cudaStream_t stream)
{
  check_kernel<DTYPE><<<blocks, 256, 0, stream>>> (item, args, result);
}

static const check_launcher check_launchers[DTYPE_COUNT] = {
  launch_check<DTYPE_FP32>, launch_check<DTYPE_FP16>, launch_check<DTYPE_UINT8>,
};

/* One buffer of the ring of K and what travels with its item.  */
struct flight
{
  unsigned char *device;
  check_result *device_result;
  check_result *host_result;        /* pinned, written by the result copy */
  cudaEvent_t copy_start, copy_stop, verify_start, verify_stop, verified, retired;
  h2d_item item;
  uint64_t done_ns;                 /* written by a host function */
  uint64_t submit_ns;               /* for the trace */
};

struct registration
{
  unsigned char *base;
  uint64_t bytes;
};

struct h2d_pipeline
{
  unsigned inflight;
  bool verify;
  unsigned blocks_max;
  /* Items take turns on NCOPIES copy streams (see H2D_COPY_STREAMS_MAX). */
  cudaStream_t copies[H2D_COPY_STREAMS_MAX];
  unsigned ncopies, submitted;
  cudaStream_t check, host;
  std::vector<flight> flights;
  check_result *host_results;
  uint64_t capacity;
  unsigned head, pending;
  std::vector<registration> registrations;
  /* $ARENABENCH_H2D_TRACE: one line per retired item, times from ORIGIN. */
  FILE *trace;
  cudaEvent_t origin;
  uint64_t origin_ns, traced;
};

static void
create_event (cudaEvent_t *event, bool timed)
{
  GPU_CHECK (cudaEventCreateWithFlags (event, timed ? cudaEventDefault : cudaEventDisableTiming));
}

/* Where the time of a run goes, item by item, when $ARENABENCH_H2D_TRACE
   names a file: host times (submit, retire, done) in ns and device event
   times (copy and check) in ms, both from one origin taken at open.  */
static void
open_trace (h2d_pipeline *pipe)
{
  const char *path = getenv ("ARENABENCH_H2D_TRACE");
  if (!path || !*path)
    return;
  pipe->trace = fopen (path, "w");
  if (!pipe->trace)
    die (EXIT_IOERR, errno, "%s", path);
  create_event (&pipe->origin, true);
  GPU_CHECK (cudaEventRecord (pipe->origin, pipe->copies[0]));
  GPU_CHECK (cudaEventSynchronize (pipe->origin));
  pipe->origin_ns = clock_now_ns ();
  fputs ("item,sequence,bytes,submit_ns,copy_start_ms,copy_stop_ms,verify_start_ms,"
         "verify_stop_ms,done_ns,retire_ns\n", pipe->trace);
}

static double
since_origin_ms (const h2d_pipeline *pipe, cudaEvent_t event)
{
  float ms = 0;
  GPU_CHECK (cudaEventElapsedTime (&ms, pipe->origin, event));
  return ms;
}

static void
trace_item (h2d_pipeline *pipe, const flight &f)
{
  long long o = (long long) pipe->origin_ns;
  fprintf (pipe->trace, "%llu,%llu,%llu,%lld,%.4f,%.4f,", (unsigned long long) pipe->traced++,
           (unsigned long long) f.item.sequence, (unsigned long long) f.item.layout.bytes,
           (long long) f.submit_ns - o, since_origin_ms (pipe, f.copy_start),
           since_origin_ms (pipe, f.copy_stop));
  if (pipe->verify)
    fprintf (pipe->trace, "%.4f,%.4f,", since_origin_ms (pipe, f.verify_start),
             since_origin_ms (pipe, f.verify_stop));
  else
    fputs (",,", pipe->trace);
  fprintf (pipe->trace, "%lld,%lld\n", (long long) f.done_ns - o, (long long) clock_now_ns () - o);
}

struct h2d_pipeline *
h2d_pipeline_open (unsigned inflight, unsigned copy_streams, bool verify)
{
  if (copy_streams < 1 || copy_streams > H2D_COPY_STREAMS_MAX)
    die (EXIT_SOFTWARE, 0, "h2d_pipeline_open: %u copy streams", copy_streams);
  h2d_pipeline *pipe = new h2d_pipeline ();
  pipe->inflight = inflight;
  pipe->ncopies = copy_streams;
  pipe->verify = verify;
  int device = 0, sms = 0;
  GPU_CHECK (cudaGetDevice (&device));
  GPU_CHECK (cudaDeviceGetAttribute (&sms, cudaDevAttrMultiProcessorCount, device));
  pipe->blocks_max = (unsigned) std::max (sms, 1) * 8;
  for (unsigned i = 0; i < pipe->ncopies; i++)
    GPU_CHECK (cudaStreamCreateWithFlags (&pipe->copies[i], cudaStreamNonBlocking));
  GPU_CHECK (cudaStreamCreateWithFlags (&pipe->check, cudaStreamNonBlocking));
  GPU_CHECK (cudaStreamCreateWithFlags (&pipe->host, cudaStreamNonBlocking));
  GPU_CHECK (cudaHostAlloc (&pipe->host_results, inflight * sizeof (check_result),
                            cudaHostAllocDefault));
  pipe->flights.resize (inflight);
  for (unsigned i = 0; i < inflight; i++)
    {
      flight &f = pipe->flights[i];
      f.host_result = &pipe->host_results[i];
      GPU_CHECK (cudaMalloc (&f.device_result, sizeof (check_result)));
      create_event (&f.copy_start, true);
      create_event (&f.copy_stop, true);
      create_event (&f.verify_start, true);
      create_event (&f.verify_stop, true);
      create_event (&f.verified, false);
      create_event (&f.retired, false);
    }
  open_trace (pipe);
  return pipe;
}

void
h2d_pipeline_close (struct h2d_pipeline *pipe)
{
  GPU_CHECK (cudaDeviceSynchronize ());
  for (flight &f : pipe->flights)
    {
      if (f.device)
        GPU_CHECK (cudaFree (f.device));
      GPU_CHECK (cudaFree (f.device_result));
      for (cudaEvent_t e : { f.copy_start, f.copy_stop, f.verify_start, f.verify_stop,
                             f.verified, f.retired })
        GPU_CHECK (cudaEventDestroy (e));
    }
  while (!pipe->registrations.empty ())
    h2d_pipeline_unregister (pipe, pipe->registrations.back ().base);
  GPU_CHECK (cudaFreeHost (pipe->host_results));
  for (unsigned i = 0; i < pipe->ncopies; i++)
    GPU_CHECK (cudaStreamDestroy (pipe->copies[i]));
  GPU_CHECK (cudaStreamDestroy (pipe->check));
  GPU_CHECK (cudaStreamDestroy (pipe->host));
  if (pipe->trace)
    {
      GPU_CHECK (cudaEventDestroy (pipe->origin));
      if (fclose (pipe->trace) != 0)
        die (EXIT_IOERR, errno, "%s", getenv ("ARENABENCH_H2D_TRACE"));
    }
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
  for (uint64_t off = 0; off < bytes; off += H2D_REGISTER_CHUNK)
    {
      uint64_t n = std::min (bytes - off, H2D_REGISTER_CHUNK);
      cudaError_t err = cudaHostRegister (p + off, n, cudaHostRegisterDefault);
      if (err != cudaSuccess)
        {
          /* Clear it, or the next launch check would report it.  */
          cudaGetLastError ();
          snprintf (why, why_size, "%s", cudaGetErrorString (err));
          unregister_chunks (p, off);
          return false;
        }
    }
  pipe->registrations.push_back ({ p, bytes });
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

static void
grow_buffers (h2d_pipeline *pipe, uint64_t bytes)
{
  if (pipe->pending)
    die (EXIT_SOFTWARE, 0, "h2d_pipeline_submit: buffers must grow with items in flight");
  /* 16 bytes more: the kernel's vector loads never leave the buffer.  */
  uint64_t size = (bytes + 15) / 16 * 16;
  for (flight &f : pipe->flights)
    {
      if (f.device)
        GPU_CHECK (cudaFree (f.device));
      GPU_CHECK (cudaMalloc (&f.device, size));
    }
  pipe->capacity = size;
}

/* Copy N bytes from SRC; a pinned source is split at registration chunks
   so that every piece lies in one registered range.  */
static void
copy_piecewise (h2d_pipeline *pipe, cudaStream_t copy, unsigned char *dst,
                const unsigned char *src, uint64_t n)
{
  const registration *reg = nullptr;
  for (const registration &r : pipe->registrations)
    if (src >= r.base && src < r.base + r.bytes)
      reg = &r;
  while (n)
    {
      uint64_t piece = n;
      if (reg)
        {
          uint64_t into = (uint64_t) (src - reg->base) % H2D_REGISTER_CHUNK;
          piece = std::min (n, H2D_REGISTER_CHUNK - into);
        }
      GPU_CHECK (cudaMemcpyAsync (dst, src, piece, cudaMemcpyHostToDevice, copy));
      dst += piece;
      src += piece;
      n -= piece;
    }
}

static void CUDART_CB
release_item (void *arg)
{
  flight *f = static_cast<flight *> (arg);
  f->item.release (f->item.release_arg);
}

static void CUDART_CB
stamp_done (void *arg)
{
  flight *f = static_cast<flight *> (arg);
  f->done_ns = clock_now_ns ();
}

void
h2d_pipeline_submit (struct h2d_pipeline *pipe, const struct h2d_item *item)
{
  if (pipe->pending >= pipe->inflight)
    die (EXIT_SOFTWARE, 0, "h2d_pipeline_submit: %u items already in flight", pipe->pending);
  if (item->layout.bytes > pipe->capacity)
    grow_buffers (pipe, item->layout.bytes);
  flight &f = pipe->flights[(pipe->head + pipe->pending) % pipe->inflight];
  f.item = *item;
  f.done_ns = 0;
  f.submit_ns = clock_now_ns ();
  const payload_layout &layout = item->layout;
  size_t itemsize = payload_dtypes[layout.dtype].itemsize;

  /* The buffer's previous item has retired: nothing on the device still
     reads it, so the copy need not wait for anything.  */
  cudaStream_t copy = pipe->copies[pipe->submitted++ % pipe->ncopies];
  GPU_CHECK (cudaEventRecord (f.copy_start, copy));
  for (unsigned l = 0; l < layout.nleaves; l++)
    copy_piecewise (pipe, copy, f.device + layout.leaves[l].offset, item->host + layout.leaves[l].offset,
                    layout.leaves[l].count * itemsize);
  GPU_CHECK (cudaEventRecord (f.copy_stop, copy));

  /* Give the slot back as soon as the bytes are on the device.  */
  GPU_CHECK (cudaStreamWaitEvent (pipe->host, f.copy_stop, 0));
  GPU_CHECK (cudaLaunchHostFunc (pipe->host, release_item, &f));

  GPU_CHECK (cudaStreamWaitEvent (pipe->check, f.copy_stop, 0));
  if (pipe->verify)
    {
      check_args args = {};
      uint64_t vectors = 0;
      args.nleaves = layout.nleaves;
      for (unsigned l = 0; l < layout.nleaves; l++)
        {
          args.leaves[l].offset = layout.leaves[l].offset;
          args.leaves[l].count = layout.leaves[l].count;
          args.leaves[l].shift = payload_shift (item->sequence, l);
          vectors += layout.leaves[l].count * itemsize / 16 + 1;
        }
      unsigned blocks = (unsigned) std::min<uint64_t> ((vectors + 255) / 256, pipe->blocks_max);
      GPU_CHECK (cudaEventRecord (f.verify_start, pipe->check));
      GPU_CHECK (cudaMemsetAsync (f.device_result, 0, sizeof (check_result), pipe->check));
      check_launchers[layout.dtype] (f.device, args, f.device_result, blocks, pipe->check);
      gpu_check_launch ("check_kernel");
      GPU_CHECK (cudaEventRecord (f.verify_stop, pipe->check));
      GPU_CHECK (cudaMemcpyAsync (f.host_result, f.device_result, sizeof (check_result),
                                  cudaMemcpyDeviceToHost, pipe->check));
    }
  GPU_CHECK (cudaEventRecord (f.verified, pipe->check));

  /* Same stream as the release, so RETIRED also means the slot went back. */
  GPU_CHECK (cudaStreamWaitEvent (pipe->host, f.verified, 0));
  GPU_CHECK (cudaLaunchHostFunc (pipe->host, stamp_done, &f));
  GPU_CHECK (cudaEventRecord (f.retired, pipe->host));
  pipe->pending++;
}

static uint64_t
elapsed_ns (cudaEvent_t start, cudaEvent_t stop)
{
  float ms = 0;
  GPU_CHECK (cudaEventElapsedTime (&ms, start, stop));
  return (uint64_t) ((double) ms * 1e6 + 0.5);
}

/* The first mismatch's details: the element as it arrived on the device. */
static void
describe_mismatch (const flight &f, payload_check *check)
{
  unsigned long long key = ~f.host_result->first;
  const payload_layout &layout = f.item.layout;
  check->found = true;
  check->leaf = (unsigned) (key >> 56);
  check->index = key & ((1ULL << 56) - 1);
  if (check->leaf >= layout.nleaves)
    die (EXIT_SOFTWARE, 0, "check_kernel: first mismatch names leaf %u of %u",
         check->leaf, layout.nleaves);
  size_t itemsize = payload_dtypes[layout.dtype].itemsize;
  unsigned char element[16];
  GPU_CHECK (cudaMemcpy (element, f.device + layout.leaves[check->leaf].offset
                         + check->index * itemsize, itemsize, cudaMemcpyDeviceToHost));
  check->actual = payload_element (layout.dtype, element, 0);
  check->expected = payload_value (check->index, payload_shift (f.item.sequence, check->leaf));
}

bool
h2d_pipeline_retire (struct h2d_pipeline *pipe, bool wait, struct h2d_outcome *out)
{
  if (!pipe->pending)
    return false;
  flight &f = pipe->flights[pipe->head];
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

  *out = h2d_outcome ();
  out->token = f.item.token;
  out->h2d_ns = elapsed_ns (f.copy_start, f.copy_stop);
  out->done_ns = f.done_ns;
  if (pipe->verify)
    {
      out->verify_ns = elapsed_ns (f.verify_start, f.verify_stop);
      out->check.mismatches = f.host_result->mismatches;
      if (out->check.mismatches)
        describe_mismatch (f, &out->check);
    }
  if (pipe->trace)
    trace_item (pipe, f);
  pipe->head = (pipe->head + 1) % pipe->inflight;
  pipe->pending--;
  return true;
}
