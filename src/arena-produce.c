/* arena-produce -- producer processes write deterministic payloads into
   shared-memory arenas and print one handle row per item. */
#include "system.h"
#include "arena.h"
#include "clock.h"
#include "close-stdout.h"
#include "csv-writer.h"
#include "die.h"
#include "exit-statuses.h"
#include "epoch-barrier.h"
#include "fill-pace.h"
#include "handle-row.h"
#include "machine.h"
#include "options.h"
#include "payload.h"
#include "work-share.h"

#include <inttypes.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

enum
{
  OPT_BACKEND = OPTION_FIRST_PRIVATE, OPT_SIZE, OPT_ITEMS, OPT_EPOCHS, OPT_WORKERS,
  OPT_SLOTS, OPT_DTYPE, OPT_KIND, OPT_PIN, OPT_TIMEOUT, OPT_FILL,
  OPT_FILL_RATE, OPT_FILL_CHUNK, OPT_CPU_LIST, OPT_NUMA_NODE, OPT_SWEEP, OPT_SHARE,
  OPT_LIST_BACKENDS,
};

static const struct option long_options[] = {
  { "backend", required_argument, NULL, OPT_BACKEND },
  { "size", required_argument, NULL, OPT_SIZE },
  { "items", required_argument, NULL, OPT_ITEMS },
  { "epochs", required_argument, NULL, OPT_EPOCHS },
  { "workers", required_argument, NULL, OPT_WORKERS },
  { "slots", required_argument, NULL, OPT_SLOTS },
  { "dtype", required_argument, NULL, OPT_DTYPE },
  { "kind", required_argument, NULL, OPT_KIND },
  { "pin", no_argument, NULL, OPT_PIN },
  { "timeout", required_argument, NULL, OPT_TIMEOUT },
  { "fill", required_argument, NULL, OPT_FILL },
  { "fill-rate", required_argument, NULL, OPT_FILL_RATE },
  { "fill-chunk", required_argument, NULL, OPT_FILL_CHUNK },
  { "cpu-list", required_argument, NULL, OPT_CPU_LIST },
  { "numa-node", required_argument, NULL, OPT_NUMA_NODE },
  { "sweep", no_argument, NULL, OPT_SWEEP },
  { "share", required_argument, NULL, OPT_SHARE },
  { "list-backends", no_argument, NULL, OPT_LIST_BACKENDS },
  OPTIONS_COMMON_LONG,
  { NULL, 0, NULL, 0 },
};

static _Noreturn void
usage (void)
{
  printf ("Usage: %s [OPTION]...\n", program_name);
  fputs ("\
Start producer processes that write deterministic payloads into POSIX\n\
shared-memory arenas and print one CSV handle row per item on stdout.\n\
\n\
", stdout);
  /* From the backend table: a new backend is listed without a word here.  */
  fputs ("  --backend NAME        the arena's kind (default pool):\n", stdout);
  for (int b = 0; b < ARENA_BACKEND_COUNT; b++)
    printf ("                          %-5s %s\n", arena_backend_names[b], arena_backend_summary (b));
  fputs ("\
  --list-backends       print the backends, one a line, and exit\n\
  --size SIZE           bytes per item, e.g. 4096, 64K, 8MiB (default 8MiB)\n\
  --items N             items per worker per epoch (default 64): an epoch is\n\
                        W x N items\n\
  --epochs E            epochs (default 1); a consumer can skip warm-up epochs\n\
  --workers W           producer processes, one arena each (default 1)\n\
  --share pull|static   pull: each worker claims the epoch's next item as it\n\
                        comes free, so a slow worker fills fewer (default);\n\
                        static: worker w fills the epoch's w-th N items\n\
  --slots S             items an arena holds at once (default 4)\n\
  --dtype fp32|fp16|uint8  element type (default fp32)\n\
  --kind tensor|nested  one leaf, or three leaves (default tensor)\n\
  --pin                 mark arenas for page-locking by the consumer\n\
  --timeout SECONDS     longest wait for the consumer to free space (default 60)\n\
  --fill MODE           how payloads are written: auto, cached or streaming\n\
                        (default auto: non-temporal stores for leaves of\n\
                        1 MiB and more)\n\
  --fill-rate RATE[,RATE]...  bytes per second each worker writes at most,\n\
                        e.g. 2GB (default 0: no limit); a list gives worker\n\
                        w the w-th, the last to the rest: 200MB,0 slows\n\
                        worker 0 alone\n\
  --fill-chunk SIZE     bytes written between looks at the rate (default 256K)\n\
  --cpu-list LIST       bind worker W to the W-th CPU of LIST, e.g. 0-3,8\n\
  --numa-node N         place the arenas' pages on NUMA node N, and run the\n\
                        workers on its CPUs (those of --cpu-list if given)\n\
  --sweep               remove arenas whose producers were killed, then exit\n\
", stdout);
  fputs (OPTIONS_HELP_DESCRIPTION, stdout);
  fputs ("\
\n\
SIZE takes K, M, G (powers of 1024, also KiB, MiB, GiB) or KB, MB, GB.\n\
", stdout);
  exit_statuses_put_help (stdout, "arena-produce");
  puts ("See arena-produce(1) and arenabench(7).");
  exit (EXIT_OK);
}

struct produce_config
{
  struct run_config run;
  bool sweep;
  uint64_t timeout_ns;
  double timeout_s;
  enum payload_store store;
  uint64_t *fill_rates, fill_chunk;
  size_t nfill_rates;
  int *cpus;
  size_t ncpus;
  int numa_node;                /* -1: wherever the kernel puts them */
};

/* Arenas and worker pids, for the signal handlers and die().  */
static struct arena *arenas;
static pid_t *worker_pids;
static uint32_t worker_count;
static int my_worker = -1;          /* in a worker: its index */
static struct epoch_barrier *epoch_barrier;   /* shared by the workers */
static struct work_claims *work_claims;       /* --share pull: shared by the workers */

static void
unlink_all (void)
{
  for (uint32_t w = 0; w < worker_count; w++)
    if (my_worker < 0 || (uint32_t) my_worker == w)
      unlink (arenas[w].path);     /* async-signal-safe; shm_unlink is not listed */
}

static void
on_fatal_signal (int sig)
{
  int saved = errno;
  if (my_worker < 0)
    for (uint32_t w = 0; w < worker_count; w++)
      if (worker_pids[w] > 0)
        kill (worker_pids[w], sig);
  unlink_all ();
  signal (sig, SIG_DFL);
  raise (sig);
  errno = saved;
}

static void
install_signal_handlers (void)
{
  static const int fatal[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT };
  struct sigaction sa = { .sa_handler = on_fatal_signal };
  sigemptyset (&sa.sa_mask);
  for (size_t i = 0; i < ARRAY_SIZE (fatal); i++)
    {
      struct sigaction old;
      /* An ignored signal (nohup's SIGHUP, a background job's SIGINT and
         SIGQUIT) stays so, as in arena-consume: the caller meant it.  */
      if (sigaction (fatal[i], NULL, &old) == 0 && old.sa_handler != SIG_IGN)
        sigaction (fatal[i], &sa, NULL);
    }
  /* A closed pipe is a consumer that went away: EPIPE lets us say so and
     clean up, the same as when we find it gone while waiting for space. */
  signal (SIGPIPE, SIG_IGN);
}

static _Noreturn void
worker_failed (uint32_t worker, enum arena_status status, const struct produce_config *cfg,
               const char *when)
{
  const struct arena *arena = &arenas[worker];
  const char *name = arena->name;
  uint64_t written = arena_published_count (arena);
  switch (status)
    {
    case ARENA_TIMEOUT:
      /* Which side stalled: rows written against items released.  */
      if (!arena_consumer_attached (arena))
        die (EXIT_TEMPFAIL, 0, "worker %" PRIu32 ": %s: no consumer attached to arena %s "
             "in %g s, %" PRIu64 " rows written: the rows are not reaching a consumer "
             "(a filter in the pipe holds them, or nobody reads them)",
             worker, when, quote (name), cfg->timeout_s, written);
      die (EXIT_TEMPFAIL, 0, "worker %" PRIu32 ": %s: no space freed in arena %s for %g s: "
           "the consumer stalled (it released %" PRIu64 " of %" PRIu64 " items)",
           worker, when, quote (name), cfg->timeout_s, arena_released_count (arena), written);
    case ARENA_PEER_GONE:
      die (EXIT_TEMPFAIL, 0, "worker %" PRIu32 ": %s: the consumer went away (arena %s)",
           worker, when, quote (name));
    default:
      die (EXIT_SOFTWARE, errno, "worker %" PRIu32 ": %s: arena %s", worker, when, quote (name));
    }
}

/* Nobody attached a few seconds after the first row: most often a filter
   between us and the consumer that buffers its output.  */
static void
attach_notice (const struct arena *arena, uint64_t waited_ns)
{
  warn (0, "worker %d: no consumer has attached to arena %s %.0f s after its first row: "
        "a filter in the pipe may be holding the rows (use grep --line-buffered, sed -u, "
        "stdbuf -oL, or fflush() in awk); waiting up to --timeout",
        my_worker, quote (arena->name), (double) waited_ns / 1e9);
}

/* Rows held back to go out together (csv_line_batch): small items come
   faster than one write(2) per row, and its reader's read(2), can carry.
   A row is held only while the last fill was quicker than ROW_HOLD_NS and
   the oldest held row is younger than that, so no row waits much longer,
   and every held row goes out before the worker waits for space.  */
#define ROW_HOLD_NS (10 * 1000ULL)

static struct csv_line held_rows;
static uint64_t held_since_ns;
static const struct produce_config *worker_config;

/* A handle row that could not be written: ERR from write_fully.  */
static void
row_not_written (uint32_t worker, int err)
{
  if (err == EPIPE)
    worker_failed (worker, ARENA_PEER_GONE, worker_config, "writing a handle row");
  if (err == ETIMEDOUT)
    die (EXIT_TEMPFAIL, 0, "worker %" PRIu32 ": writing a handle row: stdout not read for %g s "
         "(--timeout): the consumer stopped reading", worker, worker_config->timeout_s);
  if (err)
    die (EXIT_IOERR, err, "write error");
}

static void
send_held_rows (uint32_t worker)
{
  row_not_written (worker, csv_batch_flush (&held_rows, STDOUT_FILENO));
}

static void
send_rows_before_wait (struct arena *arena)
{
  send_held_rows (arena->id.worker);
}

/* Add the row in LINE, made at NOW, to the held rows; send them if it is
   time.  */
static void
write_row (uint32_t worker, struct csv_line *line, uint64_t fill_ns, uint64_t now)
{
  if (!held_rows.used)
    held_since_ns = now;
  row_not_written (worker, csv_line_batch (line, &held_rows, STDOUT_FILENO));
  if (fill_ns >= ROW_HOLD_NS || now - held_since_ns >= ROW_HOLD_NS)
    send_held_rows (worker);
}

/* At the end of EPOCH: every item released, then every worker there
   (epoch-barrier.h says why).  */
static void
end_epoch (uint32_t worker, uint32_t epoch, const struct produce_config *cfg)
{
  send_held_rows (worker);
  enum arena_status st = arena_drain (&arenas[worker], cfg->timeout_ns, STDOUT_FILENO);
  if (st != ARENA_OK)
    worker_failed (worker, st, cfg, "waiting for the consumer to release the epoch's items");
  if (!epoch_barrier_wait (epoch_barrier, epoch, clock_now_ns () + cfg->timeout_ns))
    die (EXIT_TEMPFAIL, 0, "worker %" PRIu32 ": the other workers did not finish epoch %" PRIu32
         " within %g s (--timeout)", worker, epoch, cfg->timeout_s);
}

/* --numa-node without --cpu-list: the worker runs on the node's CPUs
   (a node of memory only has none: check_numa_node said so).  */
static void
bind_to_node (uint32_t worker, int node)
{
  struct machine_cpus cpus;
  if (!machine_node_cpus (node, &cpus))
    return;
  if ((errno = machine_bind_cpus (&cpus)))
    die (EXIT_OSERR, errno, "worker %" PRIu32 ": cannot run on the CPUs of NUMA node %d",
         worker, node);
}

/* --numa-node N: it must exist, and --cpu-list CPUs off it are named.  */
static void
check_numa_node (const struct produce_config *cfg)
{
  if (!machine_node_exists (cfg->numa_node))
    {
      char online[256];
      machine_nodes_online (online, sizeof online);
      die (EXIT_USAGE, 0, "--numa-node: this host has no NUMA node %d (its nodes: %s)",
           cfg->numa_node, online);
    }
  struct machine_cpus on;
  bool known = machine_node_cpus (cfg->numa_node, &on);
  if (!known && !cfg->ncpus)
    warn (0, "warning: NUMA node %d lists no CPUs (memory only?): the workers run where "
          "the kernel puts them (name CPUs with --cpu-list)", cfg->numa_node);
  for (size_t i = 0; known && i < cfg->ncpus; i++)
    {
      struct machine_cpus one = { { 0 } };
      machine_cpus_add (&one, cfg->cpus[i]);
      struct machine_nodes nodes;
      machine_nodes_of_cpus (&one, &nodes);
      if (!machine_nodes_has (&nodes, cfg->numa_node))
        {
          char list[64];
          machine_nodes_format (&nodes, list, sizeof list);
          warn (0, "warning: --cpu-list CPU %d is on NUMA node %s, not on --numa-node %d: "
                "its worker fills the arena across sockets", cfg->cpus[i], list, cfg->numa_node);
        }
    }
}

/* The sequence of this worker's item number INDEX of the epoch whose
   sequences are [FIRST, FIRST + COUNT): its own block's next (static), or
   the next nobody has claimed (pull).  False when the epoch is spent.  */
static bool
next_item (const struct produce_config *cfg, uint64_t first, uint64_t count, uint64_t index,
           uint64_t *sequence)
{
  if (cfg->run.share == ARENA_SHARE_PULL)
    return work_claims_next (work_claims, first + count, sequence);
  *sequence = first + index;
  return index < count;
}

static void
run_worker (uint32_t worker, const struct produce_config *cfg)
{
  struct arena *arena = &arenas[worker];
  struct handle_row row = { .worker = worker, .config = cfg->run };
  snprintf (row.arena, sizeof row.arena, "%s", arena->name);
  payload_layout_init (&row.layout, cfg->run.size_bytes, cfg->run.dtype, cfg->run.kind);
  struct csv_line line = { 0 };
  struct fill_pace pace;
  fill_pace_init (&pace, fill_pace_rate_of (cfg->fill_rates, cfg->nfill_rates, worker),
                  cfg->fill_chunk);
  int cpu = cfg->ncpus ? cfg->cpus[worker % cfg->ncpus] : -1;
  if (cpu >= 0 && (errno = fill_pace_bind (cpu)))
    die (EXIT_OSERR, errno, "worker %" PRIu32 ": cannot bind to CPU %d", worker, cpu);
  if (cpu < 0 && cfg->numa_node >= 0)
    bind_to_node (worker, cfg->numa_node);
  arena->attach_notice = attach_notice;
  arena->before_wait = send_rows_before_wait;
  worker_config = cfg;
  sigjmp_buf truncated;
  if (sigsetjmp (truncated, 1))
    die (EXIT_DATAERR, 0, "worker %" PRIu32 ": arena %s: truncated by another process "
         "while in use", worker, quote (arena_fault_name ()));
  arena_fault_catch (&truncated);

  for (uint32_t epoch = 0; epoch < cfg->run.epochs; epoch++)
    {
      if (epoch > 0)
        end_epoch (worker, epoch - 1, cfg);
      uint64_t first, count;
      work_share_range (cfg->run.share, cfg->run.workers, cfg->run.items, worker, epoch,
                        &first, &count);
      row.epoch = epoch;
      /* The next item is claimed before the current one is published, so
         that a worker always knows when it publishes its last: a
         consumer that has released it then knows the arena is finished
         without waiting for arena_finish (a long-lived consumer unmaps
         it before its next row).  */
      uint64_t index = 0;
      bool have = next_item (cfg, first, count, index, &row.sequence);
      while (have)
        {
          enum arena_status st = arena_reserve (arena, row.layout.bytes, cfg->timeout_ns,
                                                STDOUT_FILENO, &row.handle);
          if (st != ARENA_OK)
            worker_failed (worker, st, cfg, "waiting for space");
          row.fill_start_ns = clock_now_ns ();
          fill_pace_fill (&pace, &row.layout, row.sequence, arena->base + row.handle.offset,
                          cfg->store);
          row.gen_ns = clock_now_ns () - row.fill_start_ns;
          uint64_t next = 0;
          have = next_item (cfg, first, count, ++index, &next);
          struct arena_item item = { .sequence = row.sequence, .epoch = epoch };
          arena_publish (arena, &row.handle, &item, !have && epoch + 1 == cfg->run.epochs);
          row.row_ns = clock_now_ns ();
          handle_row_format (&line, &row);
          write_row (worker, &line, row.gen_ns, row.row_ns);
          row.sequence = next;
        }
    }
  send_held_rows (worker);
  csv_line_free (&line);
  csv_line_free (&held_rows);

  enum arena_status st = arena_finish (arena, cfg->timeout_ns, STDOUT_FILENO);
  if (st != ARENA_OK)
    worker_failed (worker, st, cfg, "waiting for the consumer to release every item");
  arena_fault_catch (NULL);
  arena_detach (arena, false);
}

/* The gate the workers wait at until the header is out (start_worker,
   open_gate): its read and write ends.  */
static int gate[2] = { -1, -1 };

/* Fork worker W for its arena, created just before: the worker inherits
   that arena alone, since the parent lets go of each arena (the worker's
   descriptor keeps its lock) before it creates the next.  Forking once
   every arena was made copied all of them into every worker, and each
   worker then closed and unmapped the others: start time grew with the
   square of the workers (1024 took 46 s).  The worker waits at the gate
   until the parent has written the header; a parent that dies first
   closes it, and the worker removes its arena and leaves.  */
static void
start_worker (uint32_t w, const struct produce_config *cfg)
{
  if (gate[0] < 0 && pipe (gate) != 0)
    die (EXIT_OSERR, errno, "cannot make the workers' start pipe");
  pid_t parent = getpid ();
  pid_t pid = fork ();
  if (pid < 0)
    die (EXIT_OSERR, errno, "cannot start worker %" PRIu32, w);
  if (pid == 0)
    {
      my_worker = (int) w;
      /* Die with the parent, so a killed producer leaves no worker
         (and, through the handler, no arena) behind.  */
      prctl (PR_SET_PDEATHSIG, SIGTERM);
      close (gate[1]);
      char go = 0;
      ssize_t n;
      while ((n = read (gate[0], &go, 1)) < 0 && errno == EINTR)
        ;
      close (gate[0]);
      if (getppid () != parent || n != 1)
        {
          unlink_all ();
          _exit (EXIT_TEMPFAIL);
        }
      run_worker (w, cfg);
      exit (EXIT_OK);
    }
  worker_pids[w] = pid;
  arena_detach (&arenas[w], false);
}

/* The header is out: every worker may write rows.  */
static void
open_gate (void)
{
  close (gate[0]);
  char go[256];
  memset (go, 'g', sizeof go);
  for (uint32_t left = worker_count; left > 0;)
    {
      size_t chunk = left < sizeof go ? left : sizeof go;
      ssize_t n = write (gate[1], go, chunk);
      if (n < 0 && errno == EINTR)
        continue;
      if (n < 0)
        die (EXIT_OSERR, errno, "cannot start the workers");
      left -= (uint32_t) n;
    }
  close (gate[1]);
}

/* Wait for every worker; the first failure stops the others.  */
static int
wait_workers (void)
{
  int result = EXIT_OK;
  for (uint32_t left = worker_count; left > 0;)
    {
      int wstatus;
      pid_t pid = waitpid (-1, &wstatus, 0);
      if (pid < 0)
        {
          if (errno == EINTR)
            continue;
          die (EXIT_OSERR, errno, "waitpid");
        }
      for (uint32_t w = 0; w < worker_count; w++)
        if (worker_pids[w] == pid)
          worker_pids[w] = 0;
      left--;
      int code = WIFEXITED (wstatus) ? WEXITSTATUS (wstatus) : 128 + WTERMSIG (wstatus);
      if (code != EXIT_OK && result == EXIT_OK)
        {
          result = code;
          if (WIFSIGNALED (wstatus))
            warn (0, "a worker was killed by signal %d", WTERMSIG (wstatus));
          for (uint32_t w = 0; w < worker_count; w++)
            if (worker_pids[w] > 0)
              kill (worker_pids[w], SIGTERM);
        }
    }
  return result;
}

/* --sweep: remove what producers killed before any consumer attached
   left behind (arenabench(7), "Leftover arenas").  */
static int
sweep (void)
{
  unsigned kept;
  unsigned removed = arena_sweep_orphans (0, &kept);
  printf ("removed %u orphaned arena%s; %u in use left alone\n", removed,
          removed == 1 ? "" : "s", kept);
  return EXIT_OK;
}

static void
parse_options (int argc, char **argv, struct produce_config *cfg)
{
  *cfg = (struct produce_config) {
    .run = { .backend = ARENA_POOL, .size_bytes = 8 << 20, .dtype = DTYPE_FP32,
             .kind = KIND_TENSOR, .workers = 1, .slots = 4, .items = 64, .epochs = 1,
             .share = ARENA_SHARE_PULL },
    .timeout_s = 60,
    .numa_node = -1,
  };
  int c;
  while ((c = getopt_long (argc, argv, "", long_options, NULL)) != -1)
    switch (c)
      {
      case OPT_BACKEND:
        cfg->run.backend = options_choice ("--backend", optarg, arena_backend_names);
        break;
      case OPT_SIZE:
        cfg->run.size_bytes = options_size ("--size", optarg, 1, PAYLOAD_MAX_SIZE);
        break;
      case OPT_ITEMS:
        cfg->run.items = options_uint ("--items", optarg, 1, UINT32_MAX);
        break;
      case OPT_EPOCHS:
        cfg->run.epochs = options_uint ("--epochs", optarg, 1, ARENA_MAX_EPOCHS);
        break;
      case OPT_WORKERS:
        cfg->run.workers = options_uint ("--workers", optarg, 1, 1024);
        break;
      case OPT_SLOTS:
        cfg->run.slots = options_uint ("--slots", optarg, 1, ARENA_MAX_SLOTS);
        break;
      case OPT_DTYPE:
        cfg->run.dtype = options_choice ("--dtype", optarg, payload_dtype_names);
        break;
      case OPT_KIND:
        cfg->run.kind = options_choice ("--kind", optarg, payload_kind_names);
        break;
      case OPT_PIN:
        cfg->run.pinned = true;
        break;
      case OPT_TIMEOUT:
        cfg->timeout_s = options_double ("--timeout", optarg, 0.001, 1e6);
        break;
      case OPT_FILL:
        cfg->store = options_choice ("--fill", optarg, payload_store_names);
        break;
      case OPT_FILL_RATE:
        free (cfg->fill_rates);
        cfg->nfill_rates = fill_pace_parse_rates ("--fill-rate", optarg, &cfg->fill_rates);
        break;
      case OPT_FILL_CHUNK:
        cfg->fill_chunk = fill_pace_parse_chunk ("--fill-chunk", optarg);
        break;
      case OPT_CPU_LIST:
        free (cfg->cpus);
        cfg->ncpus = fill_pace_parse_cpus ("--cpu-list", optarg, &cfg->cpus);
        break;
      case OPT_NUMA_NODE:
        cfg->numa_node = (int) options_uint ("--numa-node", optarg, 0, MACHINE_NODES_MAX - 1);
        break;
      case OPT_SWEEP:
        cfg->sweep = true;
        break;
      case OPT_SHARE:
        cfg->run.share = options_choice ("--share", optarg, work_share_names);
        break;
      case OPT_LIST_BACKENDS:
        /* The drivers' list of backends: one table, arena_backend_names.  */
        for (const char *const *name = arena_backend_names; *name; name++)
          puts (*name);
        exit (EXIT_OK);
      default:
        options_common (c, usage);
      }
  options_no_operands (argc, argv);
  cfg->timeout_ns = (uint64_t) (cfg->timeout_s * 1e9);
  /* A reader that stops reading is a stalled consumer too.  */
  write_fully_limit (cfg->timeout_s, NULL);
}

int
main (int argc, char **argv)
{
  options_init (argv);
  struct produce_config cfg;
  parse_options (argc, argv, &cfg);
  if (cfg.sweep)
    return sweep ();
  if (cfg.numa_node >= 0)
    check_numa_node (&cfg);

  /* Each arena is handed to its worker before the next is made: the
     parent holds a few descriptors whatever the worker count.  */
  worker_count = cfg.run.workers;
  arenas = xcalloc (worker_count, sizeof *arenas);
  worker_pids = xcalloc (worker_count, sizeof *worker_pids);
  install_signal_handlers ();
  die_set_cleanup (unlink_all);
  /* Arenas of producers that were killed before anyone could remove them
     would otherwise hold /dev/shm space until reboot.  */
  arena_sweep_orphans (0, NULL);

  struct payload_layout layout;
  payload_layout_init (&layout, cfg.run.size_bytes, cfg.run.dtype, cfg.run.kind);
  struct arena_identity id = {
    .run_id = arena_new_run_id (), .workers = cfg.run.workers, .epochs = cfg.run.epochs,
    .items = cfg.run.items, .share = cfg.run.share, .size_bytes = cfg.run.size_bytes,
    .dtype = cfg.run.dtype, .kind = cfg.run.kind,
  };
  /* What the workers share, before the first is forked.  */
  if (cfg.run.epochs > 1 && !(epoch_barrier = epoch_barrier_create (worker_count)))
    die (EXIT_OSERR, errno, "cannot map the workers' epoch barrier");
  if (cfg.run.share == ARENA_SHARE_PULL && !(work_claims = work_claims_create ()))
    die (EXIT_OSERR, errno, "cannot map the workers' item counter");
  for (uint32_t w = 0; w < worker_count; w++)
    {
      id.worker = w;
      int err = arena_create (&arenas[w], cfg.run.backend, layout.bytes, cfg.run.slots,
                              cfg.run.pinned, &id);
      if (err)
        {
          uint64_t hb, cap, sb;
          die (EXIT_OSERR, err == EFBIG ? 0 : err,
               "cannot create a %s arena of %" PRIu64 " bytes in /dev/shm%s",
               arena_backend_names[cfg.run.backend],
               arena_size (cfg.run.backend, layout.bytes, cfg.run.slots, &hb, &cap, &sb),
               err == EFBIG ? ": larger than the file size limit (ulimit -f)" : "");
        }
      /* Before the workers touch the payload: its pages come from the node.  */
      if (cfg.numa_node >= 0
          && (err = machine_bind_memory (arenas[w].base, arenas[w].map_bytes, cfg.numa_node)))
        die (EXIT_OSERR, err, "arena %s: cannot bind its pages to NUMA node %d",
             quote (arenas[w].name), cfg.numa_node);
      start_worker (w, &cfg);
    }

  struct csv_line line = { 0 };
  handle_row_header (&line);
  int err = csv_line_write (&line, STDOUT_FILENO);
  csv_line_free (&line);
  if (err == EPIPE)
    die (EXIT_TEMPFAIL, 0, "writing the header: the consumer went away");
  if (err == ETIMEDOUT)
    die (EXIT_TEMPFAIL, 0, "writing the header: stdout not read for %g s (--timeout)", cfg.timeout_s);
  if (err)
    die (EXIT_IOERR, err, "write error");

  open_gate ();
  int result = wait_workers ();
  unlink_all ();
  free (cfg.fill_rates);
  free (cfg.cpus);
  return result > 125 ? EXIT_TEMPFAIL : result;
}
