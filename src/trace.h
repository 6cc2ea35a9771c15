/* trace.h -- a consumer's --trace FILE: every item's stages on one
   timeline, written as Chrome trace-event JSON (Perfetto and
   chrome://tracing open it), one track per producer, one for the consumer
   and, on the GPU, one per copy stream and one each for the checks and
   the releases.

   Times are CLOCK_MONOTONIC ns, the clock every process of a host shares,
   so the producers' fill and row times (the rows carry them) line up with
   the consumer's.  Items are kept in memory while the run goes on and
   formatted once, at trace_close, outside the measured window: a record
   costs a copy of a few words, not a formatted line.  */
#ifndef ARENABENCH_TRACE_H
#define ARENABENCH_TRACE_H

#include <stdint.h>

/* The stages an item passes, in the order they happen.  */
enum trace_stage
{
  TRACE_FILL_START,     /* its producer began writing it */
  TRACE_FILL_END,
  TRACE_ROW,            /* its producer handed its row to the pipe */
  TRACE_WAIT_START,     /* the consumer began waiting for its row */
  TRACE_READ,           /* the consumer read its row */
  TRACE_SUBMIT,         /* its copy was submitted (GPU) */
  TRACE_COPY_START,     /* its copy ran (GPU, device events) */
  TRACE_COPY_END,
  TRACE_CHECK_START,    /* its values were checked */
  TRACE_CHECK_END,
  TRACE_RELEASE,        /* its space went back to the producer */
  TRACE_STAGE_COUNT
};

struct trace_item
{
  uint64_t sequence, bytes;
  uint32_t worker, epoch;
  int copy_stream;              /* -1: not copied (the CPU consumer) */
  uint64_t at[TRACE_STAGE_COUNT];       /* 0: did not happen, or unknown */
};

struct trace;

/* Create the file for PATH now (so that a bad path fails before the
   run) for a consumer named CONSUMER with COPY_STREAMS copy tracks (0:
   none).  A regular file is written beside PATH and renamed to it at
   trace_close; a FIFO (one nobody reads fails at once), a terminal or a
   device is written in place.  Dies with EXIT_IOERR.  */
struct trace *trace_open (const char *path, const char *consumer, unsigned copy_streams);

/* Keep ITEM for the file.  */
void trace_add (struct trace *trace, const struct trace_item *item);

/* Write the file and free TRACE.  Dies with EXIT_IOERR on a write error. */
void trace_close (struct trace *trace);

/* A run that failed: free TRACE, leaving an earlier file at its path as
   it was (the trace of a regular file is written beside it, and only
   renamed over it by trace_close).  */
void trace_discard (struct trace *trace);

#endif
