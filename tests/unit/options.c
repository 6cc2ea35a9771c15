/* options.c -- unit tests of option-value parsing: sizes, numbers, choices,
   lists.  The error paths die (exit 64), so the command tests cover them. */
#include "system.h"
#include "options.h"
#include "die.h"
#include "tap.h"

#include <inttypes.h>

struct size_case
{
  const char *text;
  uint64_t want;
};

/* Bare letters are binary, KB/MB/GB/TB decimal; case is free except the
   'i' of KiB.  */
static const struct size_case good_sizes[] = {
  { "0", 0 },
  { "1", 1 },
  { "4096", 4096 },
  { "1B", 1 },
  { "1b", 1 },
  { "64K", 64 * 1024 },
  { "64k", 64 * 1024 },
  { "64KiB", 64 * 1024 },
  { "64kib", 64 * 1024 },
  { "64KB", 64000 },
  { "8M", 8ULL << 20 },
  { "8MiB", 8ULL << 20 },
  { "8mib", 8ULL << 20 },
  { "8MB", 8000000 },
  { "1G", 1ULL << 30 },
  { "1GiB", 1ULL << 30 },
  { "1GB", 1000000000 },
  { "1gb", 1000000000 },
  { "2T", 2ULL << 40 },
  { "1TiB", 1ULL << 40 },
  { "1TB", 1000000000000ULL },
  { "007", 7 },
  { "18446744073709551615", UINT64_MAX },
  { "16777215T", 16777215ULL << 40 },
  { "17179869183G", 17179869183ULL << 30 },
};

struct bad_size
{
  const char *text;
  int err;
};

static const struct bad_size bad_sizes[] = {
  { "", EINVAL },
  { "M", EINVAL },
  { "KiB", EINVAL },
  { "x", EINVAL },
  { "-1", EINVAL },
  { "+1", EINVAL },
  { " 8", EINVAL },
  { "8 ", EINVAL },
  { "8 M", EINVAL },
  { "1.5M", EINVAL },
  { "8XB", EINVAL },
  { "8MIB", EINVAL },       /* only the 'i' is case-sensitive */
  { "8Mi", EINVAL },
  { "8MiBs", EINVAL },
  { "8KK", EINVAL },
  { "0x10", EINVAL },
  { "18446744073709551616", ERANGE },
  { "99999999999999999999999", ERANGE },
  { "16777216T", ERANGE },  /* 2^24 * 2^40 = 2^64 */
  { "17179869184G", ERANGE },
  { "18446744073709552K", ERANGE },
  { "18446744073709552KB", ERANGE },
};

int
main (int argc, char **argv)
{
  die_set_program_name (argv[0]);
  (void) argc;

  for (size_t i = 0; i < ARRAY_SIZE (good_sizes); i++)
    {
      uint64_t value = 12345;
      bool parsed = options_parse_size (good_sizes[i].text, &value);
      if (!ok (parsed && value == good_sizes[i].want, "size '%s' is %" PRIu64,
               good_sizes[i].text, good_sizes[i].want))
        printf ("#   parsed %d, value %" PRIu64 "\n", parsed, value);
    }

  for (size_t i = 0; i < ARRAY_SIZE (bad_sizes); i++)
    {
      uint64_t value = 12345;
      errno = 0;
      bool parsed = options_parse_size (bad_sizes[i].text, &value);
      int err = errno;
      if (!ok (!parsed && err == bad_sizes[i].err && value == 12345,
               "size '%s' refused with %s, value untouched", bad_sizes[i].text,
               bad_sizes[i].err == ERANGE ? "ERANGE" : "EINVAL"))
        printf ("#   parsed %d, errno %d, value %" PRIu64 "\n", parsed, err, value);
    }

  /* options_size: success paths within [min, max], bounds inclusive.  */
  ok (options_size ("--size", "8MiB", 1, 1ULL << 40) == 8ULL << 20, "options_size 8MiB");
  ok (options_size ("--size", "1", 1, 1) == 1, "options_size at min == max");
  ok (options_size ("--size", "1T", 1, 1ULL << 40) == 1ULL << 40, "options_size at max");
  ok (options_size ("--size", "4k", 4096, 4096) == 4096, "options_size 4k");

  /* options_uint.  */
  ok (options_uint ("--items", "0", 0, 10) == 0, "uint 0 at min");
  ok (options_uint ("--items", "42", 1, 100) == 42, "uint 42");
  ok (options_uint ("--items", "0042", 1, 100) == 42, "uint with leading zeros");
  ok (options_uint ("--items", "100", 1, 100) == 100, "uint at max");
  ok (options_uint ("--items", "18446744073709551615", 0, UINT64_MAX) == UINT64_MAX,
      "uint UINT64_MAX");
  ok (options_uint ("--workers", "1024", 1, 1024) == 1024, "uint 1024 for --workers");

  /* options_parse_uint: the one decimal parser, also of handle rows.  */
  static const struct
  {
    const char *text;
    uint64_t max;
    bool ok;
    int err;
    uint64_t want;
  } uints[] = {
    { "0", 10, true, 0, 0 },
    { "10", 10, true, 0, 10 },
    { "11", 10, false, ERANGE, 0 },
    { "18446744073709551615", UINT64_MAX, true, 0, UINT64_MAX },
    { "18446744073709551616", UINT64_MAX, false, ERANGE, 0 },
    { "", 10, false, EINVAL, 0 },
    { "+1", 10, false, EINVAL, 0 },
    { "-1", 10, false, EINVAL, 0 },
    { " 1", 10, false, EINVAL, 0 },
    { "1 ", 10, false, EINVAL, 0 },
    { "1K", 10000, false, EINVAL, 0 },
    { "0x10", 100, false, EINVAL, 0 },
  };
  for (size_t i = 0; i < ARRAY_SIZE (uints); i++)
    {
      uint64_t value = 12345;
      errno = 0;
      bool parsed = options_parse_uint (uints[i].text, uints[i].max, &value);
      int err = errno;
      if (!ok (parsed == uints[i].ok && (parsed ? value == uints[i].want
                                         : err == uints[i].err && value == 12345),
               "parse_uint '%s' (max %" PRIu64 ")", uints[i].text, uints[i].max))
        printf ("#   parsed %d, errno %d, value %" PRIu64 "\n", parsed, err, value);
    }

  /* quote and quotef: names as coreutils quotes them.  */
  static const struct
  {
    const char *name, *quoted, *subject;
  } quotes[] = {
    { "plain.csv", "'plain.csv'", "plain.csv" },
    { "/dev/shm/arenabench.1.ab", "'/dev/shm/arenabench.1.ab'", "/dev/shm/arenabench.1.ab" },
    { "a b", "'a b'", "'a b'" },
    { "it's", "'it'\\''s'", "'it'\\''s'" },
    { "a\nb", "'a'$'\\n''b'", "'a'$'\\n''b'" },
    { "\033[2J", "''$'\\033''[2J'", "''$'\\033''[2J'" },
    { "t\t\r", "'t'$'\\t\\r'", "'t'$'\\t\\r'" },
    { "caf\303\251", "'caf'$'\\303\\251'", "'caf'$'\\303\\251'" },
    { "", "''", "''" },
  };
  for (size_t i = 0; i < ARRAY_SIZE (quotes); i++)
    {
      const char *q = quote (quotes[i].name), *f = quotef (quotes[i].name);
      if (!ok (STREQ (q, quotes[i].quoted) && STREQ (f, quotes[i].subject),
               "quote of name %zu is %s", i, quotes[i].quoted))
        printf ("#   quote %s, quotef %s\n", q, f);
    }

  /* A name longer than a message line is cut, and says so.  */
  char long_name[3000];
  memset (long_name, 'a', sizeof long_name - 1);
  long_name[sizeof long_name - 1] = '\0';
  const char *cut = quote (long_name);
  size_t cut_len = strlen (cut);
  ok (cut_len < 1024 && cut[0] == '\'' && STREQ (cut + cut_len - 3, "..."),
      "a 2999-byte name is cut to %zu bytes ending in '...'", cut_len);

  /* options_double.  */
  is_double (options_double ("--timeout", "60", 0.001, 1e6), 60, 0, "double 60");
  is_double (options_double ("--timeout", "0.5", 0.001, 1e6), 0.5, 0, "double 0.5");
  is_double (options_double ("--timeout", "0.001", 0.001, 1e6), 0.001, 0, "double at min");
  is_double (options_double ("--timeout", "1e3", 0.001, 1e6), 1000, 0, "double 1e3");
  is_double (options_double ("--timeout", "1e6", 0.001, 1e6), 1e6, 0, "double at max");
  is_double (options_double ("--x", "-2.5", -10, 10), -2.5, 0, "double negative");

  /* options_parse_decimal: strtod's wider language is refused.  */
  static const struct
  {
    const char *text;
    bool ok;
    int err;
    double want;
  } decimals[] = {
    { "5", true, 0, 5 },
    { "0.5", true, 0, 0.5 },
    { "5.", true, 0, 5 },
    { ".5", true, 0, 0.5 },
    { "007.250", true, 0, 7.25 },
    { "1e3", true, 0, 1000 },
    { "1E3", true, 0, 1000 },
    { "2.5e-1", true, 0, 0.25 },
    { "1e+2", true, 0, 100 },
    { "-2.5", true, 0, -2.5 },
    { "0", true, 0, 0 },
    { "", false, EINVAL, 0 },
    { ".", false, EINVAL, 0 },
    { "-", false, EINVAL, 0 },
    { " 5", false, EINVAL, 0 },
    { "\t5", false, EINVAL, 0 },
    { "5 ", false, EINVAL, 0 },
    { "+5", false, EINVAL, 0 },
    { "--5", false, EINVAL, 0 },
    { "0x10", false, EINVAL, 0 },
    { "0x1p3", false, EINVAL, 0 },
    { "inf", false, EINVAL, 0 },
    { "infinity", false, EINVAL, 0 },
    { "nan", false, EINVAL, 0 },
    { "1e", false, EINVAL, 0 },
    { "1e+", false, EINVAL, 0 },
    { "e3", false, EINVAL, 0 },
    { "1.2.3", false, EINVAL, 0 },
    { "1,5", false, EINVAL, 0 },
    { "5s", false, EINVAL, 0 },
    { "1e999", false, ERANGE, 0 },
    { "-1e999", false, ERANGE, 0 },
  };
  for (size_t i = 0; i < ARRAY_SIZE (decimals); i++)
    {
      double value = 12345;
      errno = 0;
      bool parsed = options_parse_decimal (decimals[i].text, &value);
      int err = errno;
      if (!ok (parsed == decimals[i].ok && (parsed ? value == decimals[i].want
                                            : err == decimals[i].err && value == 12345),
               "parse_decimal '%s' %s", decimals[i].text,
               decimals[i].ok ? "accepted" : decimals[i].err == ERANGE ? "ERANGE" : "EINVAL"))
        printf ("#   parsed %d, errno %d, value %g\n", parsed, err, value);
    }

  /* options_choice.  */
  static const char *const names[] = { "pool", "ring", "third", NULL };
  ok (options_choice ("--backend", "pool", names) == 0, "choice pool is 0");
  ok (options_choice ("--backend", "ring", names) == 1, "choice ring is 1");
  ok (options_choice ("--backend", "third", names) == 2, "choice third is 2");

  /* options_list.  */
  char **items;
  size_t n = options_list ("--arms", "a,bb,ccc", &items);
  ok (n == 3 && STREQ (items[0], "a") && STREQ (items[1], "bb") && STREQ (items[2], "ccc"),
      "list 'a,bb,ccc' has three items in order");
  options_list_free (items, n);
  n = options_list ("--arms", "single", &items);
  ok (n == 1 && STREQ (items[0], "single"), "list of one item");
  options_list_free (items, n);
  n = options_list ("--arms", "pool-pinned,ring-pageable", &items);
  ok (n == 2 && STREQ (items[0], "pool-pinned") && STREQ (items[1], "ring-pageable"),
      "list of two arm names");
  options_list_free (items, n);

  /* options_env_uint.  */
  unsetenv ("ARENABENCH_TEST_UINT");
  ok (options_env_uint ("ARENABENCH_TEST_UINT", 7, 100) == 7, "env unset gives the fallback");
  setenv ("ARENABENCH_TEST_UINT", "", 1);
  ok (options_env_uint ("ARENABENCH_TEST_UINT", 7, 100) == 7, "env empty gives the fallback");
  setenv ("ARENABENCH_TEST_UINT", "99", 1);
  ok (options_env_uint ("ARENABENCH_TEST_UINT", 7, 100) == 99, "env 99 is read");
  unsetenv ("ARENABENCH_TEST_UINT");

  tap_plan (tap_count);
  return done_testing ();
}
