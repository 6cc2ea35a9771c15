/* gpu-cuda.cu -- gpu.h over the CUDA runtime: device choice, error checks,
   the GPU receipt and raw copy bandwidth.  */
#include <config.h>

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include <sys/mman.h>
#include <unistd.h>

#include <cuda_runtime.h>

/* The C headers use C11's _Noreturn, which C++ spells differently.  */
#define _Noreturn __attribute__ ((noreturn))
extern "C" {
#include "system.h"
#include "die.h"
#include "launcher.h"
#include "options.h"
}
#include "gpu.h"

int
gpu_require (void)
{
  int count = 0;
  /* No driver, a driver too old, or CUDA_VISIBLE_DEVICES hiding every
     device all mean the same to the user: nothing to run on.  */
  if (cudaGetDeviceCount (&count) != cudaSuccess || count <= 0)
    {
      cudaGetLastError ();
      die (EXIT_UNAVAILABLE, 0, "no CUDA device available");
    }
  return count;
}

int
gpu_default_device (void)
{
  /* Ranks beyond the devices this process sees share them in turn.  */
  long local = launcher_self ()->local_rank;
  return local > 0 ? (int) (local % gpu_require ()) : 0;
}

void
gpu_check_status (int status, const char *call)
{
  if (status == (int) cudaSuccess)
    return;
  /* "cudaMemcpyAsync (dst, ...)" reads best as "cudaMemcpyAsync".  */
  int len = (int) strcspn (call, " (");
  die (EXIT_SOFTWARE, 0, "%.*s: %s", len, call,
       cudaGetErrorString ((cudaError_t) status));
}

void
gpu_check_launch (const char *what)
{
  cudaError_t err = cudaGetLastError ();
  if (err != cudaSuccess)
    die (EXIT_SOFTWARE, 0, "%s: %s", what, cudaGetErrorString (err));
}

void
gpu_select (int device)
{
  int count = gpu_require ();
  if (device < 0 || device >= count)
    die (EXIT_UNAVAILABLE, 0, "CUDA device %d does not exist (%d available)",
         device, count);
  GPU_CHECK (cudaSetDevice (device));
}

static void
version_text (char *buf, size_t size, int version)
{
  if (version > 0)
    snprintf (buf, size, "%d.%d", version / 1000, version % 1000 / 10);
}

/* "NVRM version: NVIDIA UNIX x86_64 Kernel Module  580.159.04  Tue ..."
   or "... UNIX Open Kernel Module for x86_64  580.159.04  Release Build":
   the first word after "Module" made of digits and dots.  */
static void
read_driver_version (char *buf, size_t size)
{
  FILE *f = fopen ("/proc/driver/nvidia/version", "r");
  if (!f)
    return;
  char line[512];
  char *p = fgets (line, sizeof line, f) ? strstr (line, "Module") : NULL;
  fclose (f);
  while (p && *p)
    {
      p += strcspn (p, " \t\n");
      p += strspn (p, " \t\n");
      size_t len = strcspn (p, " \t\n");
      if (len && isdigit ((unsigned char) *p) && strspn (p, "0123456789.") == len
          && memchr (p, '.', len))
        {
          snprintf (buf, size, "%.*s", (int) len, p);
          return;
        }
    }
}

/* sysfs speaks of transfer rates; the generation is the nicer name.  */
static const struct
{
  double gts;
  int gen;
} pcie_rates[] = {
  { 2.5, 1 }, { 5.0, 2 }, { 8.0, 3 }, { 16.0, 4 }, { 32.0, 5 }, { 64.0, 6 },
  { 128.0, 7 },
};

static int
read_sysfs_int (const char *bus_id, const char *attr, bool speed)
{
  char path[256];
  snprintf (path, sizeof path, "/sys/bus/pci/devices/%s/%s", bus_id, attr);
  FILE *f = fopen (path, "r");
  if (!f)
    return 0;
  double value = 0;
  int ok = fscanf (f, "%lf", &value);
  fclose (f);
  if (ok != 1 || value <= 0)
    return 0;
  if (!speed)
    return (int) value;
  for (size_t i = 0; i < ARRAY_SIZE (pcie_rates); i++)
    if (value > pcie_rates[i].gts - 0.1 && value < pcie_rates[i].gts + 0.1)
      return pcie_rates[i].gen;
  return 0;
}

void
gpu_describe (int device, struct gpu_info *info)
{
  memset (info, 0, sizeof *info);
  info->device = device;

  cudaDeviceProp prop;
  GPU_CHECK (cudaGetDeviceProperties (&prop, device));
  snprintf (info->name, sizeof info->name, "%s", prop.name);
  info->memory_bytes = prop.totalGlobalMem;

  int major = 0, minor = 0, sms = 0;
  GPU_CHECK (cudaDeviceGetAttribute (&major, cudaDevAttrComputeCapabilityMajor, device));
  GPU_CHECK (cudaDeviceGetAttribute (&minor, cudaDevAttrComputeCapabilityMinor, device));
  GPU_CHECK (cudaDeviceGetAttribute (&sms, cudaDevAttrMultiProcessorCount, device));
  snprintf (info->capability, sizeof info->capability, "%d.%d", major, minor);
  info->multiprocessors = sms;

  int version = 0;
  if (cudaDriverGetVersion (&version) == cudaSuccess)
    version_text (info->driver_cuda, sizeof info->driver_cuda, version);
  if (cudaRuntimeGetVersion (&version) == cudaSuccess)
    version_text (info->runtime_cuda, sizeof info->runtime_cuda, version);
  read_driver_version (info->driver, sizeof info->driver);

  /* sysfs names the function in lower case; the runtime in upper case.  */
  char bus[sizeof info->pci_bus_id];
  if (cudaDeviceGetPCIBusId (bus, (int) sizeof bus, device) == cudaSuccess)
    {
      for (char *p = bus; *p; p++)
        *p = (char) tolower ((unsigned char) *p);
      snprintf (info->pci_bus_id, sizeof info->pci_bus_id, "%s", bus);
      info->pcie_gen = read_sysfs_int (bus, "current_link_speed", true);
      info->pcie_width = read_sysfs_int (bus, "current_link_width", false);
      info->pcie_max_gen = read_sysfs_int (bus, "max_link_speed", true);
      info->pcie_max_width = read_sysfs_int (bus, "max_link_width", false);
      if (info->pcie_gen && info->pcie_width)
        snprintf (info->pcie, sizeof info->pcie, "gen%d x%d",
                  info->pcie_gen, info->pcie_width);
    }
  cudaGetLastError ();
}

/* Registered shared memory is page-locked as a pinned arena is, in pieces
   of at most 1 GiB (H2D_REGISTER_CHUNK), each a whole number of buffers. */
static size_t
registered_per_chunk (size_t bytes)
{
  return std::max<size_t> (1, ((size_t) 1 << 30) / bytes);
}

static size_t
registered_chunk (size_t bytes, size_t left)
{
  return std::min (registered_per_chunk (bytes), left) * bytes;
}

/* COUNT host buffers of BYTES of kind MEMORY, every page touched.  */
static std::vector<unsigned char *>
host_buffers (enum gpu_host_memory memory, size_t bytes, size_t count)
{
  std::vector<unsigned char *> buffers (count);
  size_t total = bytes * count;
  switch (memory)
    {
    case GPU_HOST_PINNED:
      for (size_t i = 0; i < count; i++)
        GPU_CHECK (cudaHostAlloc (&buffers[i], bytes, cudaHostAllocDefault));
      break;
    case GPU_HOST_PAGEABLE:
      for (size_t i = 0; i < count; i++)
        buffers[i] = static_cast<unsigned char *> (xmalloc (bytes));
      break;
    case GPU_HOST_PAGEABLE_SHM:
    case GPU_HOST_REGISTERED_SHM:
      {
        /* One memfd mapping: no name is left in /dev/shm whatever happens. */
        int fd = memfd_create ("arenabench-raw-copy", MFD_CLOEXEC);
        if (fd < 0)
          die (EXIT_OSERR, errno, "memfd_create");
        if (ftruncate (fd, (off_t) total) != 0)
          die (EXIT_OSERR, errno, "ftruncate of %zu bytes of shared memory", total);
        void *p = mmap (NULL, total, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
        if (p == MAP_FAILED)
          die (EXIT_OSERR, errno, "mmap of %zu bytes of shared memory", total);
        close (fd);
        for (size_t i = 0; i < count; i++)
          buffers[i] = static_cast<unsigned char *> (p) + i * bytes;
        break;
      }
    }
  /* Fault every page in first: the limit, not the page faults, is wanted. */
  for (unsigned char *b : buffers)
    memset (b, 0xa5, bytes);
  return buffers;
}

/* Page-lock registered shared memory's buffers; on failure undo, warn and
   return false.  */
static bool
register_buffers (std::vector<unsigned char *> &buffers, size_t bytes)
{
  for (size_t i = 0; i < buffers.size (); i += registered_per_chunk (bytes))
    {
      cudaError_t err = cudaHostRegister (buffers[i], registered_chunk (bytes, buffers.size () - i),
                                          cudaHostRegisterDefault);
      if (err != cudaSuccess)
        {
          cudaGetLastError ();
          warn (0, "raw copy from registered shared memory: cudaHostRegister: %s",
                cudaGetErrorString (err));
          for (size_t j = 0; j < i; j += registered_per_chunk (bytes))
            GPU_CHECK (cudaHostUnregister (buffers[j]));
          return false;
        }
    }
  return true;
}

static void
free_host_buffers (enum gpu_host_memory memory, std::vector<unsigned char *> &buffers,
                   size_t bytes)
{
  for (unsigned char *b : buffers)
    if (memory == GPU_HOST_PINNED)
      GPU_CHECK (cudaFreeHost (b));
    else if (memory == GPU_HOST_PAGEABLE)
      free (b);
  if (memory == GPU_HOST_REGISTERED_SHM)
    for (size_t i = 0; i < buffers.size (); i += registered_per_chunk (bytes))
      GPU_CHECK (cudaHostUnregister (buffers[i]));
  if (memory == GPU_HOST_PAGEABLE_SHM || memory == GPU_HOST_REGISTERED_SHM)
    munmap (buffers[0], bytes * buffers.size ());
}

/* Holds a stream until the host has queued a whole loop of copies, as
   nvbandwidth does, so the loop is timed back to back on the device and
   not at the pace the host queues it.  FLAG[0] is the host's release;
   after SPIN_TIMEOUT_NS the kernel gives up and sets FLAG[1], lest a host
   that never releases it hang the device.  */
#define SPIN_TIMEOUT_NS 10000000000ULL


__device__ static inline unsigned long long
global_ns (void)
{
  unsigned long long t;
  asm volatile ("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}

__global__ void
spin_kernel (volatile int *flag)
{
  unsigned long long start = global_ns ();
  while (!flag[0])
    if (global_ns () - start > SPIN_TIMEOUT_NS)
      {
        flag[1] = 1;
        break;
      }
}

/* Copies per timed loop: nvbandwidth's loop count, fewer for items so big
   that 16 would take long.  */
static unsigned
raw_loop_copies (size_t bytes)
{
  const size_t loop_bytes = (size_t) 1 << 30;
  return (unsigned) std::max<size_t> (2, std::min<size_t> (16, loop_bytes / bytes));
}

double
gpu_raw_copy_gbps (enum gpu_copy_direction direction, enum gpu_host_memory memory,
                   size_t bytes, unsigned repeats)
{
  if (bytes == 0 || repeats == 0)
    die (EXIT_SOFTWARE, 0, "gpu_raw_copy_gbps: nothing to copy");

  size_t count = std::max<size_t> (1, (GPU_COLD_BYTES + bytes - 1) / bytes);
  std::vector<unsigned char *> host = host_buffers (memory, bytes, count);
  if (memory == GPU_HOST_REGISTERED_SHM && !register_buffers (host, bytes))
    {
      free_host_buffers (GPU_HOST_PAGEABLE_SHM, host, bytes);
      return 0;
    }
  void *device_buf;
  GPU_CHECK (cudaMalloc (&device_buf, bytes));
  GPU_CHECK (cudaMemset (device_buf, 0x5a, bytes));

  /* The spin kernel's flags, in mapped page-locked memory.  */
  int *flag_host = nullptr, *flag_device = nullptr;
  GPU_CHECK (cudaHostAlloc (&flag_host, 2 * sizeof *flag_host, cudaHostAllocMapped));
  GPU_CHECK (cudaHostGetDevicePointer (&flag_device, flag_host, 0));

  cudaStream_t stream;
  cudaEvent_t start, stop;
  GPU_CHECK (cudaStreamCreateWithFlags (&stream, cudaStreamNonBlocking));
  GPU_CHECK (cudaEventCreate (&start));
  GPU_CHECK (cudaEventCreate (&stop));

  bool d2h = direction == GPU_DEVICE_TO_HOST;
  cudaMemcpyKind kind = d2h ? cudaMemcpyDeviceToHost : cudaMemcpyHostToDevice;
  /* A pageable copy may block the host until its staged bytes have gone,
     which a held stream would never let happen: those loops are queued
     without the spin kernel.  */
  bool hold = memory == GPU_HOST_PINNED || memory == GPU_HOST_REGISTERED_SHM;
  unsigned loop = raw_loop_copies (bytes);
  std::vector<double> gbps;
  const unsigned warmup = 1;
  size_t next = 0;
  for (unsigned i = 0; i < warmup + repeats; i++)
    {
      volatile int *flag = flag_host;
      flag[0] = flag[1] = 0;
      if (hold)
        {
          spin_kernel<<<1, 1, 0, stream>>> (flag_device);
          gpu_check_launch ("spin_kernel");
        }
      GPU_CHECK (cudaEventRecord (start, stream));
      for (unsigned c = 0; c < loop; c++)
        {
          unsigned char *h = host[next++ % count];
          GPU_CHECK (cudaMemcpyAsync (d2h ? (void *) h : device_buf,
                                      d2h ? device_buf : (void *) h, bytes, kind, stream));
        }
      GPU_CHECK (cudaEventRecord (stop, stream));
      __sync_synchronize ();
      flag[0] = 1;
      GPU_CHECK (cudaEventSynchronize (stop));
      if (flag[1])
        die (EXIT_SOFTWARE, 0, "gpu_raw_copy_gbps: the stream was held past %llu s "
             "while copies were queued", SPIN_TIMEOUT_NS / 1000000000ULL);
      float ms = 0;
      GPU_CHECK (cudaEventElapsedTime (&ms, start, stop));
      if (i >= warmup && ms > 0)
        gbps.push_back ((double) bytes * loop / (ms * 1e6));
    }

  GPU_CHECK (cudaEventDestroy (start));
  GPU_CHECK (cudaEventDestroy (stop));
  GPU_CHECK (cudaStreamDestroy (stream));
  GPU_CHECK (cudaFreeHost (flag_host));
  GPU_CHECK (cudaFree (device_buf));
  free_host_buffers (memory, host, bytes);

  if (gbps.empty ())
    return 0;
  std::sort (gbps.begin (), gbps.end ());
  size_t n = gbps.size ();
  return n % 2 ? gbps[n / 2] : (gbps[n / 2 - 1] + gbps[n / 2]) / 2;
}
