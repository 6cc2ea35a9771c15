/* options.h -- the one way arenabench commands parse option values. */
#ifndef ARENABENCH_OPTIONS_H
#define ARENABENCH_OPTIONS_H

#include <getopt.h>
#include <stdint.h>

/* Long-option codes shared by every command's getopt_long table.  */
enum
{
  OPTION_HELP = 0x1000,
  OPTION_VERSION,
  OPTION_FIRST_PRIVATE       /* commands number their own options from here */
};

/* The --help and --version lines of every usage, as coreutils'
   HELP_OPTION_DESCRIPTION and VERSION_OPTION_DESCRIPTION: one text, so
   that no command's help can drift from the others.  */
#define OPTIONS_HELP_DESCRIPTION \
  "      --help            display this help and exit\n" \
  "      --version         output version information and exit\n"

#define OPTIONS_COMMON_LONG \
  { "help", no_argument, NULL, OPTION_HELP }, \
  { "version", no_argument, NULL, OPTION_VERSION }

/* First thing in every main, before anything is opened: descriptors 0-2
   are made open (on /dev/null where closed, so nothing else lands there),
   messages name the program (getopt_long's
   own ones too, which use argv[0]), a write to stdout that was lost
   fails the command at exit (close_stdout), and SIGXFSZ is ignored so
   that the file size limit gives EFBIG, an error like any other.  */
void options_init (char **argv);

/* The last cases of every option loop: --help runs USAGE (which exits 0),
   --version prints the version, anything else is a usage error.  */
_Noreturn void options_common (int code, void (*usage) (void));

/* Commands that take no operands: a usage error names the first one.  */
void options_no_operands (int argc, char **argv);

/* Commands that read standard input: at most one operand, "-" (standard
   input, as bench-summarize takes it); anything else is a usage error.  */
void options_stdin_operand (int argc, char **argv);

/* Print "PROGRAM (arenabench) VERSION", a licence line and whether CUDA
   support is built in; exit 0.  */
_Noreturn void options_version (void);

/* After a bad option: "Try 'PROGRAM --help' for more information." on
   stderr and exit EXIT_USAGE.  */
_Noreturn void options_try_help (void);

/* Each parser names OPTION ("--size") in its error and dies with
   EXIT_USAGE: "arena-produce: --size: invalid size '8XB'".  */

/* Byte counts: plain digits, or a suffix K, M, G, T (also KiB, MiB, GiB,
   TiB; powers of 1024) or KB, MB, GB, TB (powers of 1000).  */
uint64_t options_size (const char *option, const char *text,
                       uint64_t min, uint64_t max);

/* Parse TEXT as a byte count; false (errno EINVAL or ERANGE) if it is not one.
   For callers that report their own context.  */
bool options_parse_size (const char *text, uint64_t *value);

/* Parse TEXT as a decimal integer from 0 to MAX: ASCII digits only, the
   whole text.  False (errno EINVAL, or ERANGE above MAX) if it is not one.
   The one number parser of options and handle rows.  */
bool options_parse_uint (const char *text, uint64_t max, uint64_t *value);

/* Parse TEXT as a decimal number: an optional '-', digits with at most
   one '.' (at least one digit), then optionally an exponent (e or E, an
   optional sign, digits).  No blanks, '+', hex, inf or nan.  False (errno
   EINVAL, or ERANGE beyond a double's range) if it is not one.  */
bool options_parse_decimal (const char *text, double *value);

/* The option parsers: integers (options_parse_uint), decimals
   (options_parse_decimal) and sizes (options_parse_size) only, so that
   " 5", "+5", "0x10" or "0x1p3" are never taken for numbers.  */
uint64_t options_uint (const char *option, const char *text,
                       uint64_t min, uint64_t max);
double options_double (const char *option, const char *text,
                       double min, double max);

/* Index of TEXT in the NULL-terminated NAMES; dies listing the choices.  */
int options_choice (const char *option, const char *text,
                    const char *const *names);

/* Split a comma-separated list into newly allocated strings; empty items
   are refused.  Returns the count; *ITEMS is freed with options_list_free. */
size_t options_list (const char *option, const char *text, char ***items);
void options_list_free (char **items, size_t count);

/* $NAME as a non-negative integer, or FALLBACK when unset or empty.  */
uint64_t options_env_uint (const char *name, uint64_t fallback, uint64_t max);

#endif
