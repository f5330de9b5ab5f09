// writer_thread: a safetensors file's data written by a second thread, chunk after chunk in
// the order given, while the caller hashes and makes the next tensors (write.c). Copying
// into the page cache is the slow part of a save on some machines (on the development VM
// about 0.5 GB/s, as fast as the disk took it), and a save that made its derived tensors
// and hashed between writes ran at 0.68x the speed of a plain write. Internal to the
// module.
#ifndef TT_ST_WRITER_THREAD_H
#define TT_ST_WRITER_THREAD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

typedef struct tt_st_writer tt_st_writer;

// A writer for fp (positioned where the data goes); NULL when no thread could be had (the
// caller then writes the data itself).
tt_st_writer *tt_st_writer_start(FILE *fp);
// Queues n bytes at p (which must stay as they are until chunk `returned` is written) and
// returns the chunk's number; waits while the queue is full.
uint64_t tt_st_writer_put(tt_st_writer *w, const void *p, size_t n);
// Waits until chunk `seq` and those before it are written (or a write failed).
void tt_st_writer_wait(tt_st_writer *w, uint64_t seq);
// Waits for every chunk, stops the thread and frees w; false when a write failed.
bool tt_st_writer_finish(tt_st_writer *w);

#endif
