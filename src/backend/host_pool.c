// host_pool: the worker threads (host_pool.h). A job is published under the mutex with a
// new generation number. Items are claimed from one 64-bit atomic that holds the job's
// generation (high half) and the next item (low half), so a worker that wakes late can
// never take an item of a later job; the caller takes items too and waits only until every
// item has returned, not for workers that never woke (the other core may be busy).
// Waking a sleeping thread took 45-57 us here, and a pass has over a hundred jobs of
// 0.1-0.7 ms: so a worker spins for SPIN_NS after a job before it sleeps (it sees the next
// job's generation in `claim` at once), and so does the caller before it sleeps on the
// job's end, unless the pool is parked (OpenBLAS's own threads need the cores).
#include "host_pool.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>

#define SPIN_NS 200000

typedef struct {
  tt_host_pool *pool;
  int index;  // 1.. (0 is the caller)
} worker_arg;

typedef struct {
  tt_host_job fn;
  void *ctx;
  int n;
  uint32_t generation;
} job;

struct tt_host_pool {
  int threads;  // the caller and the workers that started
  pthread_t *workers;
  worker_arg *args;
  int started;
  pthread_mutex_t mu;
  pthread_cond_t wake, done;
  bool quit;
  job current;             // under mu
  _Atomic uint64_t claim;  // generation << 32 | next item
  atomic_int completed;    // items of the current job that have returned
  atomic_bool parked;      // no spinning until the next job
};

static inline void cpu_relax(void) {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#endif
}

// Spins until done(p, arg) is true, the pool is parked or SPIN_NS have passed.
static void spin_until(tt_host_pool *p, bool (*done)(tt_host_pool *, uint32_t), uint32_t arg) {
  uint64_t start = tt_now_ns();
  for (unsigned i = 1; !done(p, arg); i++) {
    if (atomic_load_explicit(&p->parked, memory_order_relaxed)) return;
    if (i % 64 == 0 && tt_now_ns() - start > SPIN_NS) return;
    cpu_relax();
  }
}

// A job after generation `seen` has been published.
static bool job_after(tt_host_pool *p, uint32_t seen) {
  return (uint32_t)(atomic_load_explicit(&p->claim, memory_order_acquire) >> 32) != seen;
}

// Every one of the current job's n items has returned.
static bool all_returned(tt_host_pool *p, uint32_t n) {
  return atomic_load_explicit(&p->completed, memory_order_acquire) >= (int)n;
}

// Takes and runs items of j until none is left (or a later job has begun).
static void drain(tt_host_pool *p, const job *j, int thread) {
  uint64_t v = atomic_load_explicit(&p->claim, memory_order_acquire);
  for (;;) {
    if ((uint32_t)(v >> 32) != j->generation || (int)(uint32_t)v >= j->n) return;
    if (!atomic_compare_exchange_weak_explicit(&p->claim, &v, v + 1, memory_order_acq_rel, memory_order_acquire))
      continue;
    j->fn(j->ctx, (int)(uint32_t)v, thread);
    if (atomic_fetch_add_explicit(&p->completed, 1, memory_order_acq_rel) + 1 == j->n) {
      pthread_mutex_lock(&p->mu);
      pthread_cond_signal(&p->done);
      pthread_mutex_unlock(&p->mu);
    }
    v = atomic_load_explicit(&p->claim, memory_order_acquire);
  }
}

static void *worker_main(void *arg) {
  worker_arg *w = arg;
  tt_host_pool *p = w->pool;
  uint32_t seen = 0;
  for (;;) {
    spin_until(p, job_after, seen);
    pthread_mutex_lock(&p->mu);
    while (p->current.generation == seen && !p->quit) pthread_cond_wait(&p->wake, &p->mu);
    if (p->quit) break;
    job j = p->current;
    seen = j.generation;
    pthread_mutex_unlock(&p->mu);
    drain(p, &j, w->index);
  }
  pthread_mutex_unlock(&p->mu);
  return NULL;
}

tt_status tt_host_pool_create(int threads, tt_host_pool **out, tt_error *err) {
  *out = NULL;
  tt_host_pool *p = calloc(1, sizeof *p);
  if (!p) return tt_fail(err, TT_ERR_NOMEM, "openblas: out of memory creating the thread pool");
  pthread_mutex_init(&p->mu, NULL);
  pthread_cond_init(&p->wake, NULL);
  pthread_cond_init(&p->done, NULL);
  atomic_init(&p->claim, 0);
  atomic_init(&p->completed, 0);
  atomic_init(&p->parked, false);
  int workers = threads > 1 ? threads - 1 : 0;
  if (workers > 0) {
    p->workers = calloc((size_t)workers, sizeof *p->workers);
    p->args = calloc((size_t)workers, sizeof *p->args);
    if (!p->workers || !p->args) {
      tt_host_pool_destroy(p);
      return tt_fail(err, TT_ERR_NOMEM, "openblas: out of memory creating the thread pool");
    }
  }
  for (int i = 0; i < workers; i++) {
    p->args[i] = (worker_arg){p, i + 1};
    if (pthread_create(&p->workers[i], NULL, worker_main, &p->args[i]) != 0) break;
    p->started++;
  }
  p->threads = p->started + 1;  // a thread that could not start is one fewer
  *out = p;
  return TT_OK;
}

void tt_host_pool_destroy(tt_host_pool *p) {
  if (!p) return;
  pthread_mutex_lock(&p->mu);
  p->quit = true;
  pthread_cond_broadcast(&p->wake);
  pthread_mutex_unlock(&p->mu);
  for (int i = 0; i < p->started; i++) pthread_join(p->workers[i], NULL);
  pthread_mutex_destroy(&p->mu);
  pthread_cond_destroy(&p->wake);
  pthread_cond_destroy(&p->done);
  free(p->workers);
  free(p->args);
  free(p);
}

int tt_host_pool_threads(const tt_host_pool *p) {
  return p ? p->threads : 1;
}

void tt_host_pool_run(tt_host_pool *p, int n, tt_host_job fn, void *ctx) {
  if (!p || p->threads == 1 || n <= 1) {
    for (int i = 0; i < n; i++) fn(ctx, i, 0);
    return;
  }
  pthread_mutex_lock(&p->mu);
  uint32_t gen = p->current.generation + 1;
  if (gen == 0) gen = 1;  // 0 is the workers' "seen nothing yet"
  p->current = (job){fn, ctx, n, gen};
  atomic_store_explicit(&p->parked, false, memory_order_relaxed);
  atomic_store_explicit(&p->completed, 0, memory_order_relaxed);
  atomic_store_explicit(&p->claim, (uint64_t)gen << 32, memory_order_release);
  pthread_cond_broadcast(&p->wake);
  pthread_mutex_unlock(&p->mu);
  job j = {fn, ctx, n, gen};
  drain(p, &j, 0);
  spin_until(p, all_returned, (uint32_t)n);
  pthread_mutex_lock(&p->mu);
  while (atomic_load_explicit(&p->completed, memory_order_acquire) < n) pthread_cond_wait(&p->done, &p->mu);
  pthread_mutex_unlock(&p->mu);
}

void tt_host_pool_park(tt_host_pool *p) {
  if (p) atomic_store_explicit(&p->parked, true, memory_order_relaxed);
}
