/* rng.c -- xoshiro256** by Blackman and Vigna, seeded with splitmix64. */
#include "system.h"
#include "rng.h"
#include "die.h"

#include <sys/random.h>

static uint64_t
splitmix64 (uint64_t *state)
{
  uint64_t z = (*state += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

void
rng_seed (struct rng *rng, uint64_t seed)
{
  for (int i = 0; i < 4; i++)
    rng->s[i] = splitmix64 (&seed);
}

static inline uint64_t
rotl (uint64_t x, int k)
{
  return (x << k) | (x >> (64 - k));
}

uint64_t
rng_next (struct rng *rng)
{
  uint64_t *s = rng->s;
  uint64_t result = rotl (s[1] * 5, 7) * 9;
  uint64_t t = s[1] << 17;
  s[2] ^= s[0];
  s[3] ^= s[1];
  s[1] ^= s[2];
  s[0] ^= s[3];
  s[2] ^= t;
  s[3] = rotl (s[3], 45);
  return result;
}

uint64_t
rng_below (struct rng *rng, uint64_t bound)
{
  /* Lemire's multiply-and-reject.  */
  unsigned __int128 m = (unsigned __int128) rng_next (rng) * bound;
  uint64_t low = (uint64_t) m;
  if (low < bound)
    {
      uint64_t threshold = -bound % bound;
      while (low < threshold)
        {
          m = (unsigned __int128) rng_next (rng) * bound;
          low = (uint64_t) m;
        }
    }
  return (uint64_t) (m >> 64);
}

double
rng_uniform (struct rng *rng)
{
  return (double) (rng_next (rng) >> 11) * 0x1.0p-53;
}

void
rng_entropy_bytes (void *buf, size_t len)
{
  unsigned char *p = buf;
  while (len)
    {
      ssize_t got = getrandom (p, len, 0);
      if (got < 0)
        {
          if (errno == EINTR)
            continue;
          die (EXIT_OSERR, errno, "getrandom");
        }
      p += got;
      len -= (size_t) got;
    }
}

uint64_t
rng_entropy_seed (void)
{
  uint64_t seed;
  rng_entropy_bytes (&seed, sizeof seed);
  return seed;
}
