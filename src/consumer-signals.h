/* consumer-signals.h -- when a consumer stops reading: --timeout (no row
   for so long while the producer could act) and SIGTERM, SIGINT or SIGHUP.
   Either ends the input at once; the consumer then finishes on its main
   path (consumer.c).  */
#ifndef ARENABENCH_CONSUMER_SIGNALS_H
#define ARENABENCH_CONSUMER_SIGNALS_H

#include <stdint.h>

/* Catch SIGTERM, SIGINT and SIGHUP (unless ignored): the first ends the
   input, a second the process.  */
void consumer_signals_catch (void);

/* Start the --timeout timer, TIMEOUT_S seconds (0: none), and stop it.  */
void consumer_signals_start_timer (double timeout_s);
void consumer_signals_stop_timer (void);

/* A row was read: the wait for it is over.  */
void consumer_signals_row_read (void);

/* Waiting for the next row since SINCE_NS (clock_now_ns).  */
void consumer_signals_waiting (uint64_t since_ns);

/* The signal that cut the input short (SIGALRM for --timeout), or 0.  */
int consumer_signals_stopped (void);

/* Rows read so far, for --timeout's message.  */
uint64_t consumer_signals_rows_read (void);

#endif
