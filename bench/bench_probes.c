// bench_probes: what this machine can do, for the limits bench/run_perf.py compares with.
//
//   bench_probes bandwidth THREADS   streaming read of 1 GiB, GB/s (best of 5)
//   bench_probes peak THREADS        the cores' peak FMA rate (GFLOP/s, best of 3)
//   bench_probes sgemm T             cblas_sgemm over the matrix products of one GPT-2-small
//                                    forward pass at T tokens: FLOPs, seconds, GFLOP/s
//   bench_probes smallm              weight streaming rate (GB/s) of the small-M kernel and
//                                    of cblas_sgemm at M = 1, 4, 16 on the block's shapes
//   bench_probes fresh MIB PAUSE_S   what new memory costs: four rounds of MIB mapped on huge
//                                    pages, written once (new) and again (ms), unmapped, then
//                                    PAUSE_S seconds (time for a VM's kernel to hand the freed
//                                    memory back to its host, which makes it new again)
// Output lines are "key value ..." (bench/run_perf.py reads them). OpenBLAS's thread count
// is OPENBLAS_NUM_THREADS, as for bench_forward.
#include <cblas.h>
#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#endif
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "backend/small_m.h"
#include "bench_util.h"

static double now(void) {
  return bench_now();
}

// ---- memory bandwidth --------------------------------------------------------------------
typedef struct {
  const uint64_t *p;
  size_t n;
  uint64_t sum;
} read_job;

#if defined(__x86_64__) && defined(__GNUC__)
// The same with 512-bit loads, four 64-byte lines per step: one core then reads at what
// its memory path allows (the portable loop's 128-bit loads ran at ~65 % of that here,
// below what the small-M kernel streams, so the limit they gave was no limit).
__attribute__((target("avx512f"))) static uint64_t read_avx512(const uint64_t *p, size_t n) {
  __m512i s0 = _mm512_setzero_si512(), s1 = s0, s2 = s0, s3 = s0;
  size_t n32 = n / 32 * 32;
  for (size_t i = 0; i < n32; i += 32) {
    s0 = _mm512_add_epi64(s0, _mm512_loadu_si512(p + i));
    s1 = _mm512_add_epi64(s1, _mm512_loadu_si512(p + i + 8));
    s2 = _mm512_add_epi64(s2, _mm512_loadu_si512(p + i + 16));
    s3 = _mm512_add_epi64(s3, _mm512_loadu_si512(p + i + 24));
  }
  uint64_t sum =
      (uint64_t)_mm512_reduce_add_epi64(_mm512_add_epi64(_mm512_add_epi64(s0, s1), _mm512_add_epi64(s2, s3)));
  for (size_t i = n32; i < n; i++) sum += p[i];
  return sum;
}
#endif

// Integer sums in four independent chains (the compiler vectorizes them), or the AVX-512
// loop where the CPU has it: every byte is read once, and the adds keep up with memory.
static void *read_part(void *arg) {
  read_job *j = arg;
#if defined(__x86_64__) && defined(__GNUC__)
  if (__builtin_cpu_supports("avx512f")) {
    j->sum = read_avx512(j->p, j->n);
    return NULL;
  }
#endif
  uint64_t s[4] = {0, 0, 0, 0};
  size_t n4 = j->n / 4 * 4;
  for (size_t i = 0; i < n4; i += 4) s[0] += j->p[i], s[1] += j->p[i + 1], s[2] += j->p[i + 2], s[3] += j->p[i + 3];
  for (size_t i = n4; i < j->n; i++) s[0] += j->p[i];
  j->sum = s[0] + s[1] + s[2] + s[3];
  return NULL;
}

static int bench_bandwidth(int threads) {
  size_t bytes = (size_t)1 << 30, n = bytes / 8;
  uint64_t *buf = malloc(bytes);
  if (!buf || threads < 1 || threads > 64) return 1;
  for (size_t i = 0; i < n; i++) buf[i] = i;  // fault every page in first
  double best = 1e30;
  uint64_t check = 0;
  for (int rep = 0; rep < 5; rep++) {
    read_job jobs[64];
    pthread_t tid[64];
    double t0 = now();
    for (int t = 0; t < threads; t++) {
      jobs[t] = (read_job){buf + n / threads * t, t == threads - 1 ? n - n / threads * t : n / threads, 0};
      pthread_create(&tid[t], NULL, read_part, &jobs[t]);
    }
    for (int t = 0; t < threads; t++) pthread_join(tid[t], NULL), check += jobs[t].sum;
    double dt = now() - t0;
    best = dt < best ? dt : best;
  }
  printf("bandwidth threads %d bytes %zu best_s %.6f gbps %.2f check %llu\n", threads, bytes, best, bytes / best * 1e-9,
         (unsigned long long)(check & 0xff));
  free(buf);
  return 0;
}

// ---- the cores' peak FMA rate ------------------------------------------------------------
// FMA_CHAINS independent chains of vector FMAs on registers (no memory): what the cores can
// compute at most, the compute floor of a pass whose products are bound by arithmetic (at
// T = 16 the products need 4 GFLOP: on a core that streams 30 GB/s that takes longer than
// reading the 497 MB of weights).
#define FMA_CHAINS 16
#define FMA_STEPS 50000000L
typedef struct {
  double flops;
  float sink;
} fma_job;

#if defined(__x86_64__) && defined(__GNUC__)
// steps rounds of FMA_CHAINS independent FMAs on vectors of one type; leaves their sum in
// acc[0] (so that none is optimized away).
#define FMA_CHAINS_BODY(VEC, SET1, FMADD, ADD)                                                  \
  VEC acc[FMA_CHAINS], x = SET1(0.999999f), y = SET1(1e-7f);                                    \
  for (int i = 0; i < FMA_CHAINS; i++) acc[i] = SET1((float)i);                                 \
  for (long k = 0; k < steps; k++)                                                              \
    _Pragma("GCC unroll 16") for (int i = 0; i < FMA_CHAINS; i++) acc[i] = FMADD(acc[i], x, y); \
  for (int i = 1; i < FMA_CHAINS; i++) acc[0] = ADD(acc[0], acc[i]);

__attribute__((target("avx512f"))) static float fma_chains_avx512(long steps) {
  FMA_CHAINS_BODY(__m512, _mm512_set1_ps, _mm512_fmadd_ps, _mm512_add_ps)
  return _mm512_reduce_add_ps(acc[0]);
}

__attribute__((target("avx2,fma"))) static float fma_chains_avx2(long steps) {
  FMA_CHAINS_BODY(__m256, _mm256_set1_ps, _mm256_fmadd_ps, _mm256_add_ps)
  float lanes[8];
  _mm256_storeu_ps(lanes, acc[0]);
  return lanes[0];
}
#endif

static void *fma_part(void *arg) {
  fma_job *j = arg;
  j->flops = 0;
#if defined(__x86_64__) && defined(__GNUC__)
  if (__builtin_cpu_supports("avx512f")) {
    j->sink = fma_chains_avx512(FMA_STEPS);
    j->flops = 2.0 * 16 * FMA_CHAINS * (double)FMA_STEPS;
  } else if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) {
    j->sink = fma_chains_avx2(FMA_STEPS);
    j->flops = 2.0 * 8 * FMA_CHAINS * (double)FMA_STEPS;
  }
#endif
  return NULL;
}

static int bench_peak(int threads) {
  if (threads < 1 || threads > 64) return 1;
  double best = 0, flops = 0;
  float sink = 0;
  for (int rep = 0; rep < 3; rep++) {
    fma_job jobs[64];
    pthread_t tid[64];
    double t0 = now();
    for (int t = 0; t < threads; t++) pthread_create(&tid[t], NULL, fma_part, &jobs[t]);
    flops = 0;
    for (int t = 0; t < threads; t++) pthread_join(tid[t], NULL), flops += jobs[t].flops, sink += jobs[t].sink;
    double rate = flops / (now() - t0);
    best = rate > best ? rate : best;
  }
  if (flops == 0) {
    printf("peak threads %d gflops 0 (no AVX2/FMA or AVX-512 here)\n", threads);
    return 0;
  }
  printf("peak threads %d gflops %.1f check %d\n", threads, best * 1e-9, sink != 0);
  return 0;
}

// ---- sgemm at the forward pass's shapes ------------------------------------------------------
typedef struct {
  int batch, M, K, N, calls;
  bool trans_b;
} shape;

static double time_sgemm(const shape *s, int reps) {
  return bench_sgemm_seconds(s->batch, s->M, s->K, s->N, s->trans_b, reps);
}

// GPT-2 small: L = 12, H = 12, C = 768, D = 64, F = 3072, V = 50257.
static int bench_sgemm(int T) {
  const shape shapes[] = {
      {1, T, 768, 2304, 12, false}, {12, T, 64, T, 12, true},     {12, T, T, 64, 12, false},
      {1, T, 768, 768, 12, false},  {1, T, 768, 3072, 12, false}, {1, T, 3072, 768, 12, false},
      {1, T, 768, 50257, 1, true},
  };
  double flops = 0, seconds = 0;
  for (size_t i = 0; i < sizeof shapes / sizeof *shapes; i++) {
    const shape *s = &shapes[i];
    double f = 2.0 * s->batch * (double)s->M * s->K * s->N, t = time_sgemm(s, 3);
    printf("sgemm_shape T %d batch %d M %d K %d N %d trans_b %d gflops %.1f\n", T, s->batch, s->M, s->K, s->N,
           (int)s->trans_b, f / t * 1e-9);
    flops += f * s->calls, seconds += t * s->calls;
  }
  printf("sgemm T %d flops %.0f seconds %.6f gflops %.2f\n", T, flops, seconds, flops / seconds * 1e-9);
  return 0;
}

// ---- the small-M kernel against sgemm ------------------------------------------------------
static double time_small(int M, int K, int N, bool trans_b, bool ours, const float *a, const float *b, float *o) {
  double best = 1e30;
  for (int r = 0; r < 1; r++) {
    double t0 = now();
    if (ours)
      tt_small_m_matmul(o, a, b, NULL, M, K, N, trans_b, 1.0f);
    else
      cblas_sgemm(CblasRowMajor, CblasNoTrans, trans_b ? CblasTrans : CblasNoTrans, M, N, K, 1.0f, a, K, b,
                  trans_b ? K : N, 0.0f, o, N);
    double dt = now() - t0;
    best = dt < best ? dt : best;
  }
  return best;
}

// Weights as the forward pass sees them: `copies` matrices (K,N) read in turn, 1 GiB or
// more in all, so that none is still in the caches when it is read again (this VM's L3 is
// 260 MiB: with 256 MiB in all, the second of two passes over them read from it).
static int bench_smallm(void) {
  const int shapes[][3] = {{768, 2304, 0}, {768, 3072, 0}, {3072, 768, 0}, {768, 50257, 1}};
  for (size_t s = 0; s < sizeof shapes / sizeof *shapes; s++) {
    int K = shapes[s][0], N = shapes[s][1];
    bool tb = shapes[s][2];
    size_t nb = (size_t)K * N, copies = ((size_t)1 << 30) / (nb * 4) + 1;
    float *a = malloc(16 * (size_t)K * 4), *o = malloc(16 * (size_t)N * 4), *b = malloc(nb * copies * 4);
    if (!a || !o || !b) return 1;
    for (size_t i = 0; i < 16 * (size_t)K; i++) a[i] = (float)(i % 11) * 0.01f;
    for (size_t i = 0; i < nb * copies; i++) b[i] = (float)(i % 5) * 0.01f;
    static const int Ms[] = {1, 4, 8, 16};
    for (size_t i = 0; i < sizeof Ms / sizeof *Ms; i++) {
      double ours = 0, blas = 0;
      for (size_t c = 0; c < copies; c++) ours += time_small(Ms[i], K, N, tb, true, a, b + c * nb, o);
      for (size_t c = 0; c < copies; c++) blas += time_small(Ms[i], K, N, tb, false, a, b + c * nb, o);
      printf("smallm M %d K %d N %d trans_b %d ours_gbps %.2f sgemm_gbps %.2f\n", Ms[i], K, N, (int)tb,
             (double)nb * copies * 4 / ours * 1e-9, (double)nb * copies * 4 / blas * 1e-9);
    }
    free(a), free(b), free(o);
  }
  return 0;
}

// ---- new memory -------------------------------------------------------------------------
// ms to write one byte per 64 over n bytes at p.
static double touch_ms(char *p, size_t n, char value) {
  double t0 = now();
  for (size_t i = 0; i < n; i += 64) ((volatile char *)p)[i] = value;
  return (now() - t0) * 1e3;
}

static int bench_fresh(size_t mib, double pause_s) {
  const size_t huge = (size_t)2 << 20, n = mib << 20;
  for (int round = 0; round < 4; round++) {
    char *map = mmap(NULL, n + huge, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (map == MAP_FAILED) {
      fprintf(stderr, "bench_probes: cannot map %zu MiB\n", mib);
      return 1;
    }
    char *p = (char *)(((uintptr_t)map + huge - 1) & ~(uintptr_t)(huge - 1));  // on a 2 MiB boundary
    madvise(p, n, MADV_HUGEPAGE);
    double first = touch_ms(p, n, 1), again = touch_ms(p, n, 2);
    printf("fresh mib %zu pause_s %.1f round %d first_ms %.1f again_ms %.1f\n", mib, pause_s, round, first, again);
    munmap(map, n + huge);
    usleep((useconds_t)(pause_s * 1e6));
  }
  return 0;
}

int main(int argc, char **argv) {
  if (argc >= 3 && strcmp(argv[1], "bandwidth") == 0) return bench_bandwidth(atoi(argv[2]));
  if (argc >= 3 && strcmp(argv[1], "sgemm") == 0) return bench_sgemm(atoi(argv[2]));
  if (argc >= 3 && strcmp(argv[1], "peak") == 0) return bench_peak(atoi(argv[2]));
  if (argc >= 2 && strcmp(argv[1], "smallm") == 0) return bench_smallm();
  if (argc >= 4 && strcmp(argv[1], "fresh") == 0 && atol(argv[2]) > 0)
    return bench_fresh((size_t)atol(argv[2]), atof(argv[3]));
  fprintf(stderr, "usage: bench_probes bandwidth THREADS | peak THREADS | sgemm T | smallm | fresh MIB PAUSE_S\n");
  return 2;
}
