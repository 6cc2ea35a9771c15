/* key-table.h -- byte-string keys to indexes, for grouping rows.

   An open-addressing hash table whose key bytes live back to back in one
   buffer, so a new group costs no malloc; and a key buffer that joins
   several strings into one key, each preceded by its length so that
   ("a,b", "c") and ("a", "b,c") differ.  */
#ifndef ARENABENCH_KEY_TABLE_H
#define ARENABENCH_KEY_TABLE_H

#include <stddef.h>
#include <stdint.h>

struct key_entry
{
  uint64_t hash;
  size_t start, len, value;
};

struct key_table
{
  size_t *slots;                /* entry index + 1; 0 is empty */
  size_t mask;
  struct key_entry *entries;
  size_t count, capacity;
  char *bytes;
  size_t used, size;
};

struct key_buffer
{
  char *text;
  size_t used, size;
};

/* FNV-1a with a final mix: every bit depends on every byte.  */
uint64_t key_hash (const char *key, size_t len);

/* The value stored for KEY, or NEXT after storing it there.  With NEXT
   SIZE_MAX, only look (SIZE_MAX when absent).  */
size_t key_table_intern (struct key_table *t, const char *key, size_t len, size_t next);
void key_table_free (struct key_table *t);

/* Append FIELD[0..LEN) to the key in K.  */
void key_buffer_add (struct key_buffer *k, const char *field, size_t len);

#endif
