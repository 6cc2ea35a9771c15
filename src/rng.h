/* rng.h -- seeded pseudo-random numbers (xoshiro256**, seeded by splitmix64). */
#ifndef ARENABENCH_RNG_H
#define ARENABENCH_RNG_H

#include <stdint.h>

struct rng
{
  uint64_t s[4];
};

void rng_seed (struct rng *rng, uint64_t seed);
uint64_t rng_next (struct rng *rng);
/* Uniform integer in [0, bound), without modulo bias.  */
uint64_t rng_below (struct rng *rng, uint64_t bound);
/* Uniform double in [0, 1).  */
double rng_uniform (struct rng *rng);
/* A seed from the system's entropy source, for runs without --seed.  */
uint64_t rng_entropy_seed (void);
/* Fill BUF with unpredictable bytes (getrandom); dies on failure.  */
void rng_entropy_bytes (void *buf, size_t len);

#endif
