/* consumer-signals.c -- --timeout and the stop signals: the handlers only
   end the input; the receipts are written on the main path.  */
#include "system.h"
#include "consumer-signals.h"
#include "clock.h"
#include "close-stdout.h"
#include "die.h"

#include <signal.h>
#include <stdatomic.h>
#include <sys/time.h>
#include <unistd.h>

/* The time we started waiting for the next row (0 while busy), read by
   the timer's handler.  */
static _Atomic uint64_t waiting_since_ns;
static _Atomic uint64_t rows_read;
static uint64_t row_timeout_ns;
/* Why the input was cut short: SIGALRM for --timeout, or the SIGTERM,
   SIGINT or SIGHUP that came; 0 while it goes on.  */
static volatile sig_atomic_t stop_signal;
/* The read end of a pipe whose write end is closed: at a stop it replaces
   stdin, so the read in progress (restarted after the handler) and every
   later one ends the input at once, with no race between a check of
   stop_signal and a read that blocks.  */
static int eof_fd = -1;

/* Handlers only set stop_signal and dup2(2) (async-signal-safe): the
   receipts are written, and the producers told, on the main path.  */
static void
stop_input (int sig)
{
  stop_signal = sig;
  if (eof_fd >= 0)
    {
      dup2 (eof_fd, STDIN_FILENO);
      return;
    }
  /* No pipe to end the input with (no descriptor was left): the old way,
     without the receipts still held.  */
  static const char text[] = ": input cut short; receipts not yet written are lost\n";
  ssize_t ignored = write (STDERR_FILENO, program_name, strlen (program_name));
  ignored = write (STDERR_FILENO, text, sizeof text - 1);
  (void) ignored;
  _exit (sig == SIGALRM ? EXIT_TEMPFAIL : 128 + sig);
}

/* The timer's period, and the last moment we know this process ran (a
   tick it handled, or a continue).  */
static uint64_t row_tick_ns;
static _Atomic uint64_t last_ran_ns;
static struct sigaction cont_before;     /* SIGCONT's action before the timer */

/* Move the start of the wait past time this process may not have run:
   from the last moment we know it ran (the wait's start, or a later tick
   or continue) to NOW, less ALLOWED_NS of it.  */
static void
forgive_since_last_ran (uint64_t now, uint64_t allowed_ns)
{
  uint64_t since = atomic_load (&waiting_since_ns);
  uint64_t ran = atomic_load (&last_ran_ns);
  if (since > ran)
    ran = since;
  if (since && now > ran && now - ran > allowed_ns)
    atomic_compare_exchange_strong (&waiting_since_ns, &since, since + (now - ran - allowed_ns));
}

/* The timer: no row for --timeout seconds of time the producer could have
   acted in.  Time this process was stopped (Ctrl-Z, SIGSTOP, a debugger)
   or not run at all does not count: the producer may have been waiting
   on us all along (a full ring), and a healthy run was lost when we
   continued.  A stop by signal ends with SIGCONT: on_continue forgives
   all of it, and a tick that comes with the continue (pending since the
   stop, and taken first: Linux delivers the lower signal number first)
   leaves it that work.  Otherwise (a debugger's stop, a process not
   scheduled) a tick that comes long after the one before marks the gap:
   at most two periods of it count, from the last moment we know we ran,
   whenever the wait began.  */
static void
on_row_timer (int sig)
{
  sigset_t pending;
  if (sigpending (&pending) == 0 && sigismember (&pending, SIGCONT))
    return;
  uint64_t now = clock_now_ns ();
  forgive_since_last_ran (now, 2 * row_tick_ns);
  atomic_store (&last_ran_ns, now);
  uint64_t since = atomic_load (&waiting_since_ns);
  if (!stop_signal && since && now - since >= row_timeout_ns)
    stop_input (sig);
}

/* SIGCONT: we were stopped, at the earliest just after the last moment we
   know we ran; none of that counts, and the wait goes on from now.  */
static void
on_continue (int sig)
{
  (void) sig;
  int saved = errno;
  uint64_t now = clock_now_ns ();
  forgive_since_last_ran (now, 0);
  atomic_store (&last_ran_ns, now);
  errno = saved;
}

/* SIGTERM, SIGINT, SIGHUP: stop reading and finish as for --timeout; a
   second one (a consumer stuck in its sink) ends the process at once.  */
static void
on_stop_signal (int sig)
{
  if (stop_signal)
    {
      signal (sig, SIG_DFL);
      raise (sig);
      return;
    }
  stop_input (sig);
}

void
consumer_signals_catch (void)
{
  int p[2];
  if (eof_fd < 0 && pipe (p) == 0)
    {
      close (p[1]);
      eof_fd = p[0];
    }
  static const int stops[] = { SIGTERM, SIGINT, SIGHUP };
  struct sigaction sa = { .sa_handler = on_stop_signal, .sa_flags = SA_RESTART };
  sigemptyset (&sa.sa_mask);
  for (size_t i = 0; i < ARRAY_SIZE (stops); i++)
    {
      struct sigaction old;
      /* An ignored signal (nohup, a background job's SIGINT) stays so.  */
      if (sigaction (stops[i], NULL, &old) == 0 && old.sa_handler != SIG_IGN)
        sigaction (stops[i], &sa, NULL);
    }
  /* A write to a stdout nobody reads waits in poll, which the signal ends:
     a stop must not wait for a reader that may never come.  */
  write_fully_limit (0, &stop_signal);
}

void
consumer_signals_start_timer (double timeout_s)
{
  if (timeout_s <= 0)
    return;
  row_timeout_ns = (uint64_t) (timeout_s * 1e9);
  /* The two handlers never interrupt each other.  */
  struct sigaction sa = { .sa_handler = on_row_timer, .sa_flags = SA_RESTART };
  sigemptyset (&sa.sa_mask);
  sigaddset (&sa.sa_mask, SIGALRM);
  sigaddset (&sa.sa_mask, SIGCONT);
  sigaction (SIGALRM, &sa, NULL);
  /* Only with the timer: its ticks already interrupt every wait.  */
  sa.sa_handler = on_continue;
  sigaction (SIGCONT, &sa, &cont_before);
  /* Look four times per timeout, at most every second.  */
  uint64_t tick = row_timeout_ns / 4;
  if (tick > 1000000000ULL)
    tick = 1000000000ULL;
  if (tick < 1000000ULL)
    tick = 1000000ULL;
  row_tick_ns = tick;
  atomic_store (&last_ran_ns, clock_now_ns ());
  struct itimerval it = {
    .it_interval = { (time_t) (tick / 1000000000ULL), (suseconds_t) (tick % 1000000000ULL / 1000) },
  };
  it.it_value = it.it_interval;
  setitimer (ITIMER_REAL, &it, NULL);
}

void
consumer_signals_stop_timer (void)
{
  struct itimerval off = { 0 };
  setitimer (ITIMER_REAL, &off, NULL);
  if (row_timeout_ns)
    sigaction (SIGCONT, &cont_before, NULL);
  waiting_since_ns = 0;
}

void
consumer_signals_row_read (void)
{
  waiting_since_ns = 0;
  rows_read++;
}

void
consumer_signals_waiting (uint64_t since_ns)
{
  waiting_since_ns = since_ns;
}

int
consumer_signals_stopped (void)
{
  return stop_signal;
}

uint64_t
consumer_signals_rows_read (void)
{
  return atomic_load (&rows_read);
}
