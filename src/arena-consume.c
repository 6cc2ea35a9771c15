/* arena-consume -- the CPU consumer: check every value of every item the
   handle rows name, release it, print receipts. */
#include "system.h"
#include "clock.h"
#include "compute-step.h"
#include "consumer.h"
#include "die.h"
#include "exit-statuses.h"
#include "launcher.h"
#include "options.h"

#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

enum
{
  OPT_SAVE_DIR = CONSUMER_OPT_FIRST_PRIVATE,
};

static const struct option long_options[] = {
  CONSUMER_LONG_OPTIONS,
  { "save-dir", required_argument, NULL, OPT_SAVE_DIR },
  OPTIONS_COMMON_LONG,
  { NULL, 0, NULL, 0 },
};

static _Noreturn void
usage (void)
{
  printf ("Usage: %s [OPTION]... < HANDLE-ROWS\n", program_name);
  fputs ("\
Read arena-produce's handle rows on stdin, check every value of every item\n\
against its pattern and the padding between its leaves against zero,\n\
release it, and print CSV receipts.\n\
\n\
  --no-verify           release items without checking their values\n", stdout);
  fputs (CONSUMER_OPTIONS_HELP, stdout);
  fputs ("\
  --save-dir DIR        write each leaf as DIR/seq<SEQUENCE>_leaf<L>.npy\n\
", stdout);
  fputs (OPTIONS_HELP_DESCRIPTION, stdout);
  fputs ("\
\n\
", stdout);
  exit_statuses_put_help (stdout, "arena-consume");
  puts ("See arena-consume(1) and arenabench(7).");
  exit (EXIT_OK);
}

struct cpu_sink
{
  bool verify;
  const char *save_dir;
};

/* Page-lock with mlock(2): the CPU analogue of cudaHostRegister.  */
static bool
cpu_pin (void *context UNUSED, struct arena *arena, uint64_t *pin_ns, char *why, size_t why_size)
{
  uint64_t start = clock_now_ns ();
  if (mlock (arena->base, arena->map_bytes) != 0)
    {
      snprintf (why, why_size, "mlock: %s", strerror (errno));
      *pin_ns = 0;
      return false;
    }
  *pin_ns = clock_now_ns () - start;
  return true;
}

static void
cpu_unpin (void *context UNUSED, struct arena *arena)
{
  munlock (arena->base, arena->map_bytes);
}

/* The longest name save_leaf writes in the directory, its temporary one
   at the largest numbers, with its '/' and terminating NUL.  */
#define SAVE_NAME_MAX \
  sizeof "/.seq18446744073709551615_leaf4294967295.npy.-9223372036854775808.4294967295"

/* Write leaf L of ITEM as DIR/seq<SEQUENCE>_leaf<L>.npy: first under a
   fresh temporary name (O_EXCL, so nothing planted there is followed or
   overwritten), then moved to its name only if that does not exist
   (renameat2 RENAME_NOREPLACE, else link and unlink), so a reader never
   sees half a file and no existing file or symlink target is replaced.  */
static void
save_leaf (const struct cpu_sink *sink, const struct consumer_item *item, unsigned l)
{
  static unsigned counter;
  char path[PATH_MAX], temp[PATH_MAX];
  snprintf (path, sizeof path, "%s/seq%" PRIu64 "_leaf%u.npy", sink->save_dir,
            item->row.sequence, l);
  int err;
  unsigned tries = 0;
  do
    {
      snprintf (temp, sizeof temp, "%s/.seq%" PRIu64 "_leaf%u.npy.%ld.%u", sink->save_dir,
                item->row.sequence, l, (long) getpid (), counter++);
      err = payload_save_npy (&item->row.layout, item->data, l, temp);
    }
  while (err == EEXIST && ++tries < 100);
  if (err)
    {
      if (err != EEXIST)
        unlink (temp);
      die (EXIT_IOERR, err, "%s", quote (temp));
    }
  if (renameat2 (AT_FDCWD, temp, AT_FDCWD, path, RENAME_NOREPLACE) == 0)
    return;
  err = errno;
  if (err == EINVAL || err == ENOSYS)
    {
      /* A file system without RENAME_NOREPLACE: link(2) never replaces.  */
      err = link (temp, path) == 0 ? 0 : errno;
    }
  unlink (temp);
  if (err)
    die (EXIT_IOERR, err, "%s", quote (path));
}

static void
save_leaves (const struct cpu_sink *sink, const struct consumer_item *item)
{
  for (unsigned l = 0; l < item->row.layout.nleaves; l++)
    save_leaf (sink, item, l);
}

static void
cpu_process (void *context, struct consumer *consumer, const struct consumer_item *item)
{
  struct cpu_sink *sink = context;
  struct consumer_result result = { .stages.copy_stream = -1 };
  if (sink->verify)
    {
      uint64_t start = clock_now_ns ();
      payload_verify (&item->row.layout, item->row.sequence, item->data, &result.check);
      uint64_t end = clock_now_ns ();
      result.verify_ns = end - start;
      result.stages.at[TRACE_CHECK_START] = start;
      result.stages.at[TRACE_CHECK_END] = end;
    }
  if (sink->save_dir)
    save_leaves (sink, item);
  consumer_release (item);
  bool tracing = consumer_tracing (consumer);
  if (tracing)
    result.stages.at[TRACE_RELEASE] = clock_now_ns ();
  /* --compute-us: the step, once the slot is back with the producer, as
     a trainer computes on a batch already copied.  */
  compute_step_spin ();
  /* Done once released (and stepped).  With nothing but a check before
     the release, the check's end stands for it: a release is a few
     stores, a clock read a tenth of a 4 KiB item's whole cost.  */
  if (sink->verify && !sink->save_dir && !tracing && !compute_step_us ())
    result.done_ns = result.stages.at[TRACE_CHECK_END];
  consumer_complete (consumer, item, &result);
}

int
main (int argc, char **argv)
{
  options_init (argv);
  struct consumer_options options;
  consumer_options_init (&options);
  struct cpu_sink cpu = { 0 };
  int c;
  while ((c = getopt_long (argc, argv, "", long_options, NULL)) != -1)
    switch (c)
      {
      case OPT_SAVE_DIR:
        cpu.save_dir = optarg;
        break;
      default:
        if (!consumer_option (c, optarg, &options))
          options_common (c, usage);
      }
  options_stdin_operand (argc, argv);
  cpu.verify = options.verify;
  if (cpu.save_dir)
    {
      struct stat st;
      if (stat (cpu.save_dir, &st) != 0)
        die (EXIT_USAGE, errno, "--save-dir: %s", quote (cpu.save_dir));
      if (!S_ISDIR (st.st_mode))
        die (EXIT_USAGE, 0, "--save-dir: %s is not a directory", quote (cpu.save_dir));
      /* Checked once here, so no name is ever cut short.  */
      if (strlen (cpu.save_dir) > PATH_MAX - SAVE_NAME_MAX)
        die (EXIT_USAGE, 0, "--save-dir: %s: too long: the names of the files in it "
             "would exceed PATH_MAX (%d bytes)", quote (cpu.save_dir), PATH_MAX);
    }

  /* Under a launcher: this rank's share of the host's CPUs, and its
     identity line.  */
  char cpus[256], detail[300];
  launcher_set_device ("cpu");
  if (launcher_present (launcher_self ()))
    {
      launcher_bind_cpus (cpus, sizeof cpus);
      snprintf (detail, sizeof detail, "CPUs %s", cpus);
      launcher_announce (detail);
    }

  const struct consumer_sink sink = {
    .context = &cpu,
    .pin_column = "mlock_ms",
    .pin = cpu_pin,
    .unpin = cpu_unpin,
    .process = cpu_process,
  };
  return consumer_run (&options, &sink);
}
