/* consumer-machine.c -- a consumer's placement, sampled as items arrive. */
#include "system.h"
#include "consumer-machine.h"
#include "die.h"

#include <limits.h>
#include <sys/stat.h>
#include <unistd.h>

void
consumer_machine_init (struct consumer_machine *m, const char *device_pci)
{
  memset (m, 0, sizeof *m);
  if (!device_pci && getenv ("ARENABENCH_TEST_SYSFS"))
    device_pci = getenv ("ARENABENCH_TEST_PCI");
  if (device_pci && *device_pci)
    {
      m->have_device = true;
      snprintf (m->device.address, sizeof m->device.address, "%s", device_pci);
    }
}

void
consumer_machine_end (struct consumer_machine *m)
{
  if (m->have_device)
    {
      char address[sizeof m->device.address];
      snprintf (address, sizeof address, "%s", m->device.address);
      machine_pci_describe (address, &m->device);
    }
}

struct arenas_of
{
  struct consumer_machine *m;
  int pid;
  char dir[64];
};

/* For a descriptor NAME of the process: note the object it holds when
   that is an arena object in /dev/shm (named, or unlinked:
   "/dev/shm/arenabench.P.X (deleted)", or not yet named:
   "/dev/shm/#INODE"): its device and inode, which known_worker matches
   against the consumer's own descriptor of the arena.  */
static void
note_arena_fd (const char *name, void *context)
{
  struct arenas_of *a = context;
  struct consumer_machine *m = a->m;
  char path[PATH_MAX], target[PATH_MAX];
  snprintf (path, sizeof path, "%s/%s", a->dir, name);
  ssize_t n = readlink (path, target, sizeof target - 1);
  if (n <= 0)
    return;
  target[n] = '\0';
  struct stat st;
  if (strncmp (target, "/dev/shm/", 9) != 0 || stat (path, &st) != 0 || !S_ISREG (st.st_mode))
    return;
  if (m->nworkers == m->workers_size)
    {
      m->workers_size = m->workers_size ? 2 * m->workers_size : 16;
      m->workers = xreallocarray (m->workers, m->workers_size, sizeof *m->workers);
    }
  m->workers[m->nworkers++] = (struct consumer_worker) { st.st_dev, st.st_ino, a->pid };
}

/* Scan the children of PRODUCER: its workers, each holding its arena.
   (No allocation but the table's: a long-lived consumer stays flat.)  */
static void
scan_workers (struct consumer_machine *m, int producer)
{
  char path[96], list[16384];
  m->scanned_producer = producer;
  m->nworkers = 0;
  snprintf (path, sizeof path, "/proc/%d/task/%d/children", producer, producer);
  if (machine_read_file (path, list, sizeof list) <= 0)
    return;
  char *save;
  for (char *tok = strtok_r (list, " \n", &save); tok; tok = strtok_r (NULL, " \n", &save))
    {
      struct arenas_of a = { m, atoi (tok), "" };
      snprintf (a.dir, sizeof a.dir, "/proc/%d/fd", a.pid);
      machine_each_entry (a.dir, note_arena_fd, &a);
    }
}

static int
known_worker (const struct consumer_machine *m, const struct arena *arena)
{
  struct stat st;
  if (fstat (arena->fd, &st) != 0)
    return -1;
  for (size_t i = 0; i < m->nworkers; i++)
    if (m->workers[i].dev == st.st_dev && m->workers[i].ino == st.st_ino)
      return m->workers[i].pid;
  return -1;
}

/* The worker process that fills ARENA: the child of its producer that
   holds it open (a pid of another PID namespace finds none); -1 when not
   found (yet: a worker forked later is found at a later look).  */
static int
find_worker (struct consumer_machine *m, const struct arena *arena)
{
  int producer = arena->header ? arena->header->producer_pid : 0;
  if (producer <= 0)
    return -1;
  int pid = producer == m->scanned_producer ? known_worker (m, arena) : -1;
  if (pid < 0)
    {
      scan_workers (m, producer);
      pid = known_worker (m, arena);
    }
  return pid;
}

void
consumer_machine_item (struct consumer_machine *m, const struct arena *arena, uint64_t items,
                       int *worker_pid)
{
  machine_cpus_add (&m->consumer_cpus, machine_cpu_now ());
  if (items & (items - 1))
    return;                     /* not a power of two */
  if (*worker_pid <= 0)
    *worker_pid = find_worker (m, arena);
  if (*worker_pid > 0)
    machine_cpus_add (&m->producer_cpus, machine_cpu_of_pid (*worker_pid));
  m->arena_pages += machine_page_nodes (arena->base, arena->map_bytes, &m->arena_nodes);
}

void
consumer_machine_free (struct consumer_machine *m)
{
  free (m->workers);
  m->workers = NULL;
  m->nworkers = m->workers_size = 0;
}

void
consumer_machine_cells (const struct consumer_machine *m, struct consumer_machine_cells *c)
{
  memset (c, 0, sizeof *c);
  /* No device (arena-consume): its cells are empty, not unknown.  */
  if (m->have_device)
    {
      snprintf (c->device_pci, sizeof c->device_pci, "%s", m->device.address);
      machine_pci_link (&m->device, false, c->link, sizeof c->link);
      machine_pci_link (&m->device, true, c->link_max, sizeof c->link_max);
      snprintf (c->device_numa, sizeof c->device_numa, "%s", m->device.node);
    }
  machine_nodes_format (&m->arena_nodes, c->arena_numa, sizeof c->arena_numa);
  struct machine_nodes nodes;
  machine_cpus_format (&m->producer_cpus, c->producer_cpus, sizeof c->producer_cpus);
  machine_nodes_of_cpus (&m->producer_cpus, &nodes);
  machine_nodes_format (&nodes, c->producer_numa, sizeof c->producer_numa);
  machine_cpus_format (&m->consumer_cpus, c->consumer_cpus, sizeof c->consumer_cpus);
  machine_nodes_of_cpus (&m->consumer_cpus, &nodes);
  machine_nodes_format (&nodes, c->consumer_numa, sizeof c->consumer_numa);
  machine_thp (c->thp, sizeof c->thp, c->thp_shmem, sizeof c->thp_shmem);
  struct machine_cpus all = m->consumer_cpus;
  for (size_t i = 0; i < ARRAY_SIZE (all.bits); i++)
    all.bits[i] |= m->producer_cpus.bits[i];
  machine_governors (&all, c->governor, sizeof c->governor);
}

/* Whether SET holds a node other than NODE.  */
static bool
other_node (const struct machine_nodes *set, int node)
{
  for (int n = 0; n < MACHINE_NODES_MAX; n++)
    if (n != node && machine_nodes_has (set, n))
      return true;
  return false;
}

unsigned
consumer_machine_warn (const struct consumer_machine *m)
{
  if (!m->have_device)
    return 0;
  unsigned warned = 0;
  const struct machine_pci *d = &m->device;
  char link[40], max[40], list[256];
  if (machine_pci_degraded (d))
    {
      machine_pci_link (d, false, link, sizeof link);
      machine_pci_link (d, true, max, sizeof max);
      warn (0, "warning: device %s: its PCIe link runs at %s, below its maximum %s "
            "(a link trained at a lower speed or width): every copy is capped by it",
            d->address, link, max);
      warned++;
    }
  int node = machine_pci_node (d);
  if (node < 0)
    return warned;
  if (other_node (&m->arena_nodes, node))
    {
      machine_nodes_format (&m->arena_nodes, list, sizeof list);
      warn (0, "warning: arena pages on NUMA node %s, device %s on node %d: every copy "
            "crosses between sockets (arena-produce --numa-node %d places them)",
            list, d->address, node, node);
      warned++;
    }
  struct machine_nodes nodes;
  machine_nodes_of_cpus (&m->producer_cpus, &nodes);
  if (other_node (&nodes, node))
    {
      char cpus[256];
      machine_cpus_format (&m->producer_cpus, cpus, sizeof cpus);
      machine_nodes_format (&nodes, list, sizeof list);
      warn (0, "warning: producers ran on CPUs %s (NUMA node %s), device %s on node %d "
            "(arena-produce --numa-node %d runs them there)",
            cpus, list, d->address, node, node);
      warned++;
    }
  return warned;
}
