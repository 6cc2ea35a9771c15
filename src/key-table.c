/* key-table.c -- open-addressing hash table of byte-string keys. */
#include "system.h"
#include "key-table.h"
#include "die.h"

uint64_t
key_hash (const char *key, size_t len)
{
  /* FNV-1a, then a multiply-xorshift so the low bits used as the slot
     depend on every byte.  */
  uint64_t h = 0xcbf29ce484222325ULL;
  for (size_t i = 0; i < len; i++)
    h = (h ^ (unsigned char) key[i]) * 0x100000001b3ULL;
  h ^= h >> 32;
  h *= 0xd6e8feb86659fd93ULL;
  return h ^ (h >> 32);
}

static void
table_grow (struct key_table *t)
{
  size_t size = t->slots ? 2 * (t->mask + 1) : 64;
  free (t->slots);
  t->slots = xcalloc (size, sizeof *t->slots);
  t->mask = size - 1;
  for (size_t e = 0; e < t->count; e++)
    {
      size_t s = t->entries[e].hash & t->mask;
      while (t->slots[s])
        s = (s + 1) & t->mask;
      t->slots[s] = e + 1;
    }
}

size_t
key_table_intern (struct key_table *t, const char *key, size_t len, size_t next)
{
  if (!t->slots)
    table_grow (t);
  uint64_t h = key_hash (key, len);
  size_t s = h & t->mask;
  for (; t->slots[s]; s = (s + 1) & t->mask)
    {
      const struct key_entry *e = &t->entries[t->slots[s] - 1];
      if (e->hash == h && e->len == len
          && (len == 0 || memcmp (t->bytes + e->start, key, len) == 0))
        return e->value;
    }
  if (next == SIZE_MAX)
    return SIZE_MAX;
  if (t->count == t->capacity)
    {
      t->capacity = t->capacity ? 2 * t->capacity : 64;
      t->entries = xreallocarray (t->entries, t->capacity, sizeof *t->entries);
    }
  if (t->used + len > t->size)
    {
      while (t->used + len > t->size)
        t->size = t->size ? 2 * t->size : 4096;
      t->bytes = xrealloc (t->bytes, t->size);
    }
  if (len)                      /* no --by: the one key is empty */
    memcpy (t->bytes + t->used, key, len);
  t->entries[t->count] = (struct key_entry) { h, t->used, len, next };
  t->used += len;
  t->slots[s] = ++t->count;
  /* Keep the load under one half.  */
  if (2 * t->count > t->mask + 1)
    table_grow (t);
  return next;
}

void
key_table_free (struct key_table *t)
{
  free (t->slots);
  free (t->entries);
  free (t->bytes);
  *t = (struct key_table) { 0 };
}

void
key_buffer_add (struct key_buffer *k, const char *field, size_t len)
{
  size_t need = k->used + sizeof len + len;
  if (need > k->size)
    {
      while (need > k->size)
        k->size = k->size ? 2 * k->size : 256;
      k->text = xrealloc (k->text, k->size);
    }
  memcpy (k->text + k->used, &len, sizeof len);
  memcpy (k->text + k->used + sizeof len, field, len);
  k->used = need;
}
