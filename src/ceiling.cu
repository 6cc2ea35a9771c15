/* ceiling.cu -- the host's fill+copy ceiling over the CUDA runtime (see
   ceiling.h).  */
#include <config.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <deque>
#include <thread>
#include <vector>

#include <sys/mman.h>
#include <unistd.h>

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
#include "ceiling.h"
#include "h2d-pipeline.h"

/* Copies in flight at most, the streams they take turns on and the
   device slots they land in.  */
#define CEILING_INFLIGHT 8
#define CEILING_STREAMS 2
#define CEILING_DEVICE_SLOTS 16

namespace
{

/* A slot's owner: its producer while free, the copy thread once filled. */
enum slot_state { SLOT_FREE, SLOT_FILLED };

struct shared_state
{
  unsigned char *host;
  uint64_t item_bytes;
  const payload_layout *layout;
  payload_store store;
  unsigned producers, slots;
  std::vector<std::atomic<int>> state;      /* per slot */
  std::atomic<bool> stop{ false };
};

/* Producer P fills its slots in turn, each once it is free again.  */
void
produce (shared_state *s, unsigned p)
{
  uint64_t sequence = p;
  for (unsigned k = 0;; k = (k + 1) % s->slots)
    {
      unsigned slot = p * s->slots + k;
      while (s->state[slot].load (std::memory_order_acquire) != SLOT_FREE)
        {
          if (s->stop.load (std::memory_order_relaxed))
            return;
          std::this_thread::yield ();
        }
      payload_fill_store (s->layout, sequence, s->host + (uint64_t) slot * s->item_bytes,
                          s->store);
      sequence += s->producers;
      s->state[slot].store (SLOT_FILLED, std::memory_order_release);
    }
}

/* A copy in flight: COUNT slots from SLOT on, back to back in the
   buffer.  */
struct copy_in_flight
{
  unsigned slot, count;
  cudaEvent_t done;
};

/* BYTES of page-locked MEMORY at *HOST, every page touched, as an arena's
   pages are before its first fill; false with WHY set when refused.  */
bool
host_acquire (ceiling_memory memory, uint64_t bytes, unsigned char **host, char *why,
              size_t why_size)
{
  if (memory == CEILING_HOST_ALLOC)
    {
      cudaError_t err = cudaHostAlloc (host, bytes, cudaHostAllocDefault);
      if (err != cudaSuccess)
        {
          cudaGetLastError ();
          snprintf (why, why_size, "cudaHostAlloc of %llu bytes: %s",
                    (unsigned long long) bytes, cudaGetErrorString (err));
          return false;
        }
      memset (*host, 0, bytes);
      return true;
    }
  /* One memfd mapping: no name is left in /dev/shm whatever happens.  */
  int fd = memfd_create ("arenabench-ceiling", MFD_CLOEXEC);
  void *p = MAP_FAILED;
  if (fd >= 0 && ftruncate (fd, (off_t) bytes) == 0)
    p = mmap (NULL, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  int err = errno;
  if (fd >= 0)
    close (fd);
  if (p == MAP_FAILED)
    {
      snprintf (why, why_size, "%llu bytes of shared memory: %s", (unsigned long long) bytes,
                strerror (err));
      return false;
    }
  memset (p, 0, bytes);
  cudaError_t cerr = cudaHostRegister (p, bytes, cudaHostRegisterDefault);
  if (cerr != cudaSuccess)
    {
      cudaGetLastError ();
      munmap (p, bytes);
      snprintf (why, why_size, "cudaHostRegister of %llu bytes: %s", (unsigned long long) bytes,
                cudaGetErrorString (cerr));
      return false;
    }
  *host = static_cast<unsigned char *> (p);
  return true;
}

void
host_release (ceiling_memory memory, unsigned char *host, uint64_t bytes)
{
  if (memory == CEILING_HOST_ALLOC)
    GPU_CHECK (cudaFreeHost (host));
  else
    {
      GPU_CHECK (cudaHostUnregister (host));
      munmap (host, bytes);
    }
}

} // namespace

bool
ceiling_measure (const struct payload_layout *layout, enum payload_store store,
                 enum ceiling_memory memory, unsigned producers, unsigned slots,
                 double warmup_s, double seconds, struct ceiling_result *result, char *why,
                 size_t why_size)
{
  shared_state s;
  s.item_bytes = layout->bytes;
  s.layout = layout;
  s.store = store;
  s.producers = producers;
  uint64_t fit = CEILING_BYTES_MAX / ((uint64_t) producers * layout->bytes);
  s.slots = (unsigned) std::max<uint64_t> (2, std::min<uint64_t> (slots, fit));
  uint64_t host_bytes = (uint64_t) producers * s.slots * layout->bytes;
  if (!host_acquire (memory, host_bytes, &s.host, why, why_size))
    return false;
  cudaError_t err;
  std::vector<std::atomic<int>> state (producers * s.slots);
  for (auto &st : state)
    st.store (SLOT_FREE);
  s.state.swap (state);

  /* A copy takes the filled slots that follow each other in one
     producer's range, as h2d-check joins an arena's adjacent items, up to
     one batch's bytes (or one item, when larger).  */
  uint64_t run_bytes = std::max<uint64_t> (layout->bytes, H2D_BATCH_BYTES);
  unsigned run_slots = (unsigned) std::max<uint64_t> (1, run_bytes / layout->bytes);
  unsigned char *device;
  GPU_CHECK (cudaMalloc (&device, CEILING_DEVICE_SLOTS * run_bytes));
  cudaStream_t streams[CEILING_STREAMS];
  for (cudaStream_t &st : streams)
    GPU_CHECK (cudaStreamCreateWithFlags (&st, cudaStreamNonBlocking));
  std::vector<cudaEvent_t> events (CEILING_INFLIGHT);
  for (cudaEvent_t &e : events)
    GPU_CHECK (cudaEventCreateWithFlags (&e, cudaEventDisableTiming));

  std::vector<std::thread> threads;
  for (unsigned p = 0; p < producers; p++)
    threads.emplace_back (produce, &s, p);

  /* Copy what is filled as soon as it is, the producers in turn, each
     from the slot it fills next; free the slots once their copy is done.
     The clock starts after the warm-up, counting completed items.  */
  std::deque<copy_in_flight> inflight;
  std::vector<unsigned> next (producers, 0);     /* per producer, in its range */
  unsigned turn = 0;
  uint64_t submitted = 0, completed = 0, completed_at_start = 0;
  uint64_t start = clock_now_ns (), measure_from = 0;
  uint64_t warmup_ns = (uint64_t) (warmup_s * 1e9), measure_ns = (uint64_t) (seconds * 1e9);
  for (;;)
    {
      uint64_t now = clock_now_ns ();
      if (!measure_from && now - start >= warmup_ns)
        {
          measure_from = now;
          completed_at_start = completed;
        }
      if (measure_from && now - measure_from >= measure_ns)
        break;
      while (!inflight.empty ())
        {
          err = cudaEventQuery (inflight.front ().done);
          if (err == cudaErrorNotReady)
            {
              cudaGetLastError ();
              break;
            }
          GPU_CHECK (err);
          const copy_in_flight &c = inflight.front ();
          for (unsigned k = 0; k < c.count; k++)
            s.state[c.slot + k].store (SLOT_FREE, std::memory_order_release);
          completed += c.count;
          inflight.pop_front ();
        }
      int slot = -1;
      unsigned count = 0;
      for (unsigned i = 0; i < producers && slot < 0 && inflight.size () < CEILING_INFLIGHT; i++)
        {
          unsigned p = (turn + i) % producers;
          unsigned first = p * s.slots + next[p];
          if (s.state[first].load (std::memory_order_acquire) != SLOT_FILLED)
            continue;
          /* The state stays FILLED until the copy is done: only this thread
             reads it there, and the producer waits for FREE.  */
          count = 1;
          while (count < run_slots && next[p] + count < s.slots
                 && s.state[first + count].load (std::memory_order_acquire) == SLOT_FILLED)
            count++;
          slot = (int) first;
          next[p] = (next[p] + count) % s.slots;
          turn = p + 1;
        }
      if (slot < 0)
        {
          std::this_thread::yield ();
          continue;
        }
      cudaStream_t stream = streams[submitted % CEILING_STREAMS];
      GPU_CHECK (cudaMemcpyAsync (device + (submitted % CEILING_DEVICE_SLOTS) * run_bytes,
                                  s.host + (uint64_t) slot * layout->bytes,
                                  (uint64_t) count * layout->bytes, cudaMemcpyHostToDevice,
                                  stream));
      cudaEvent_t done = events[submitted % CEILING_INFLIGHT];
      GPU_CHECK (cudaEventRecord (done, stream));
      inflight.push_back ({ (unsigned) slot, count, done });
      submitted++;
    }
  uint64_t elapsed = clock_now_ns () - measure_from;
  uint64_t items = completed - completed_at_start;

  s.stop.store (true);
  for (std::thread &t : threads)
    t.join ();
  GPU_CHECK (cudaDeviceSynchronize ());
  for (cudaEvent_t e : events)
    GPU_CHECK (cudaEventDestroy (e));
  for (cudaStream_t st : streams)
    GPU_CHECK (cudaStreamDestroy (st));
  GPU_CHECK (cudaFree (device));
  host_release (memory, s.host, host_bytes);

  *result = (ceiling_result) { .items = items, .bytes = items * layout->bytes,
                               .seconds = (double) elapsed / 1e9, .slots = s.slots };
  return true;
}
