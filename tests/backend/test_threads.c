// The OpenBLAS backend on several threads: the thread pool (src/backend/host_pool.c) runs
// every item of every job exactly once and uses its workers (also when they were spinning,
// asleep or parked); and every op that the pool splits gives the same bits on 2 and 3
// threads as on 1, at sizes above the split threshold with odd widths (parts that end
// mid-vector, heads that straddle parts), the backward pass's split ops too; and
// softmax_nll gives the bits of softmax and nll.
#include <cblas.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <cmocka.h>

#include "backend/backend.h"
#include "backend/host_pool.h"
#include "ops_util.h"

// ---- the pool ------------------------------------------------------------------------
typedef struct {
  atomic_int *hits;
  atomic_int by_thread[4];
  int meet;  // > 0: a thread's first item waits (up to 20 s) until `meet` threads have come
  atomic_int arrived;
} count_ctx;

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

// With `meet`, every thread that takes an item holds it until all threads have taken one,
// so a worker that wakes late (a loaded machine) still finds items left; one that never
// wakes (a lost wake-up) leaves the others waiting 20 s and then ran no item.
static void count_item(void *ctx, int i, int thread) {
  count_ctx *c = ctx;
  bool first = atomic_fetch_add(&c->by_thread[thread], 1) == 0;
  if (c->meet > 0 && first) {
    atomic_fetch_add(&c->arrived, 1);
    double give_up = now_s() + 20.0;
    while (atomic_load(&c->arrived) < c->meet && now_s() < give_up) nanosleep(&(struct timespec){0, 100000}, NULL);
  }
  atomic_fetch_add(&c->hits[i], 1);
}

static void test_pool_runs_each_item_once(void **state) {
  (void)state;
  for (int threads = 1; threads <= 3; threads++) {
    tt_host_pool *p;
    tt_error err = {0};
    assert_int_equal(tt_host_pool_create(threads, &p, &err), TT_OK);
    assert_int_equal(tt_host_pool_threads(p), threads);
    enum { N = 97 };
    atomic_int hits[N];
    for (int job = 0; job < 3000; job++) {  // many short jobs: a late worker must not take a later job's items
      int n = 1 + job % N;
      for (int i = 0; i < N; i++) atomic_init(&hits[i], 0);
      count_ctx c = {.hits = hits};
      tt_host_pool_run(p, n, count_item, &c);
      for (int i = 0; i < N; i++)
        if (atomic_load(&hits[i]) != (i < n))
          fail_msg("%d threads, job %d: item %d ran %d times", threads, job, i, hits[i]);
    }
    for (int i = 0; i < N; i++) atomic_init(&hits[i], 0);
    count_ctx c = {.hits = hits, .meet = threads};
    tt_host_pool_run(p, N, count_item, &c);
    for (int t = 0; t < threads; t++)  // every thread took items
      if (atomic_load(&c.by_thread[t]) == 0) fail_msg("%d threads: thread %d ran no item", threads, t);
    tt_host_pool_destroy(p);
  }
}

// Idle workers spin a while after a job, then sleep; a parked pool's workers sleep at once.
// A job that comes while they spin, after they have gone to sleep (2 ms later), or after
// tt_host_pool_park still runs every item once, and every thread takes items (a wake-up
// lost between spinning and sleeping would leave a worker out).
static void test_pool_wakes_from_spin_sleep_and_park(void **state) {
  (void)state;
  for (int threads = 2; threads <= 3; threads++) {
    tt_host_pool *p;
    tt_error err = {0};
    assert_int_equal(tt_host_pool_create(threads, &p, &err), TT_OK);
    enum { N = 97 };
    atomic_int hits[N];
    for (int round = 0; round < 12; round++) {
      int how = round % 3;  // 0: at once (spinning), 1: after 2 ms (asleep), 2: parked
      if (how == 1) nanosleep(&(struct timespec){0, 2000000}, NULL);
      if (how == 2) tt_host_pool_park(p);
      for (int i = 0; i < N; i++) atomic_init(&hits[i], 0);
      count_ctx c = {.hits = hits, .meet = threads};
      tt_host_pool_run(p, N, count_item, &c);
      for (int i = 0; i < N; i++)
        if (atomic_load(&hits[i]) != 1)
          fail_msg("%d threads, round %d: item %d ran %d times", threads, round, i, hits[i]);
      for (int t = 0; t < threads; t++)
        if (atomic_load(&c.by_thread[t]) == 0)
          fail_msg("%d threads, round %d: thread %d ran no item", threads, round, t);
    }
    tt_host_pool_destroy(p);
  }
}

// ---- every split op: the same bits on 1, 2 and 3 threads ------------------------------
enum {
  N_EL = 100003,
  ROWS = 77,
  COLS = 1031,
  H = 3,
  TM = 257,
  NT = 97,
  NC = 769,
  HT = 301,
  HH = 5,
  HD = 24,
  LT = 41,
  LV = 5003,
  B = 5,
  BM = 67,
  BK = 33,
  BN = 129
};

enum { MAX_RESULTS = 64 };
typedef struct {
  float *outs[MAX_RESULTS];
  size_t sizes[MAX_RESULTS];
  int n;
} results;

static float *keep(results *r, tt_backend *be, tt_buf b, size_t n) {
  float *h = malloc(n * sizeof *h);
  tt_error err = {0};
  assert_int_equal(be->download(be, b, h, n, &err), TT_OK);
  assert_true(r->n < MAX_RESULTS);
  r->outs[r->n] = h, r->sizes[r->n] = n, r->n++;
  return h;
}

static const float *x_el, *y_el, *scores, *norm_x, *gamma_v, *beta_v, *qkv_v, *logits_v, *ba, *bb;
static int32_t ids[LT];

static void run_ops(tt_backend *be, results *r) {
  tt_error err = {0};
  tt_buf x = up(be, x_el, N_EL), y = up(be, y_el, N_EL), o = up(be, NULL, N_EL);
  assert_int_equal(be->add(be, o, x, y, N_EL, &err), TT_OK);
  keep(r, be, o, N_EL);
  assert_int_equal(be->scale(be, o, x, 0.3f, N_EL, &err), TT_OK);
  keep(r, be, o, N_EL);
  for (tt_act_kind a = TT_ACT_GELU_TANH; a <= TT_ACT_IDENTITY; a++) {
    assert_int_equal(be->activation(be, o, x, N_EL, a, &err), TT_OK);
    keep(r, be, o, N_EL);
  }
  size_t ns = (size_t)H * TM * TM;
  tt_buf s = up(be, scores, ns), m = up(be, NULL, ns), p = up(be, NULL, ns);
  assert_int_equal(be->causal_mask(be, m, s, H, TM, &err), TT_OK);
  keep(r, be, m, ns);
  assert_int_equal(be->softmax(be, p, m, H * TM, TM, &err), TT_OK);  // causal rows: trailing -inf
  keep(r, be, p, ns);
  assert_int_equal(be->softmax(be, p, s, ROWS, COLS, &err), TT_OK);
  keep(r, be, p, (size_t)ROWS * COLS);
  tt_buf nx = up(be, norm_x, (size_t)NT * NC), g = up(be, gamma_v, NC), bt = up(be, beta_v, NC);
  tt_buf no = up(be, NULL, (size_t)NT * NC), nn = up(be, NULL, (size_t)NT * NC), mean = up(be, NULL, NT),
         sc = up(be, NULL, NT);
  for (int rms = 0; rms <= 1; rms++) {
    assert_int_equal(be->norm(be, no, nn, mean, sc, nx, g, bt, NT, NC, 1e-5f, rms, &err), TT_OK);
    keep(r, be, no, (size_t)NT * NC), keep(r, be, nn, (size_t)NT * NC), keep(r, be, mean, NT), keep(r, be, sc, NT);
  }
  size_t nh = (size_t)HT * HH * HD;
  tt_buf qkv = up(be, qkv_v, 3 * nh), q = up(be, NULL, nh), k = up(be, NULL, nh), v = up(be, NULL, nh);
  assert_int_equal(be->split_heads(be, q, k, v, qkv, HT, HH, HD, &err), TT_OK);
  keep(r, be, q, nh), keep(r, be, k, nh), keep(r, be, v, nh);
  tt_buf merged = up(be, NULL, nh);
  assert_int_equal(be->merge_heads(be, merged, k, HT, HH, HD, &err), TT_OK);
  keep(r, be, merged, nh);
  tt_buf lg = up(be, logits_v, (size_t)LT * LV), loss = up(be, NULL, LT - 1);
  assert_int_equal(be->nll(be, loss, lg, ids, LT, LV, &err), TT_OK);
  float *nll = keep(r, be, loss, LT - 1);
  tt_buf probs = up(be, NULL, (size_t)LT * LV), probs2 = up(be, NULL, (size_t)LT * LV), loss2 = up(be, NULL, LT - 1);
  assert_int_equal(be->softmax(be, probs, lg, LT, LV, &err), TT_OK);
  float *soft = keep(r, be, probs, (size_t)LT * LV);
  assert_int_equal(be->softmax_nll(be, probs2, loss2, lg, ids, LT, LV, &err), TT_OK);  // the bits of the two ops
  float *fused_p = keep(r, be, probs2, (size_t)LT * LV), *fused_l = keep(r, be, loss2, LT - 1);
  assert_memory_equal(fused_p, soft, (size_t)LT * LV * sizeof(float));
  assert_memory_equal(fused_l, nll, (size_t)(LT - 1) * sizeof(float));
  tt_buf in_place = up(be, logits_v, (size_t)LT * LV), loss3 = up(be, NULL, LT - 1);  // probs over the logits
  assert_int_equal(be->softmax_nll(be, in_place, loss3, in_place, ids, LT, LV, &err), TT_OK);
  float *placed_p = malloc((size_t)LT * LV * sizeof(float)), *placed_l = malloc((LT - 1) * sizeof(float));
  assert_int_equal(be->download(be, in_place, placed_p, (size_t)LT * LV, &err), TT_OK);
  assert_int_equal(be->download(be, loss3, placed_l, LT - 1, &err), TT_OK);
  assert_memory_equal(placed_p, soft, (size_t)LT * LV * sizeof(float));
  assert_memory_equal(placed_l, nll, (size_t)(LT - 1) * sizeof(float));
  free(placed_p), free(placed_l);
  be->release(be, &probs), be->release(be, &probs2), be->release(be, &loss2), be->release(be, &in_place),
      be->release(be, &loss3);
  tt_buf ma = up(be, ba, (size_t)B * BM * BK), mb = up(be, bb, (size_t)B * BK * BN),
         mo = up(be, NULL, (size_t)B * BM * BN);
  for (int tb = 0; tb <= 1; tb++) {
    assert_int_equal(be->matmul_batched(be, mo, ma, mb, B, BM, BK, tb ? BK : BN, tb, 0.7f, &err), TT_OK);
    keep(r, be, mo, (size_t)B * BM * (tb ? BK : BN));
  }
  // small-M products (M <= 16), split by columns (K·N above 2 · 64 Ki floats): with bias, and trans_b
  tt_buf bias = up(be, gamma_v, NC), sm = up(be, NULL, (size_t)16 * LV);
  for (int M = 1; M <= 16; M += 3) {
    assert_int_equal(be->matmul(be, sm, nx, lg, bias, M, 200, NC, false, &err), TT_OK);
    keep(r, be, sm, (size_t)M * NC);
    assert_int_equal(be->matmul(be, sm, nx, lg, (tt_buf){0}, M, 40, LV, true, &err), TT_OK);
    keep(r, be, sm, (size_t)M * LV);
  }
  // small-M products over several K segments (small_m.h): segments and column ranges
  // spread over the threads, the partial products added in segment order; K = 3000 has 8
  // segments, which 2 and 3 threads take as runs of consecutive ones
  for (int M = 1; M <= 16; M += 5) {
    for (int K = 500; K <= 1000; K += 500) {
      assert_int_equal(be->matmul(be, sm, nx, lg, bias, M, K, 200, false, &err), TT_OK);
      keep(r, be, sm, (size_t)M * 200);
    }
    assert_int_equal(be->matmul(be, sm, nx, lg, bias, M, 3000, 64, false, &err), TT_OK);
    keep(r, be, sm, (size_t)M * 64);
  }
  // mid-M products (17..128 rows; mid_m.c on AVX-512), split by columns above 4 M products
  for (int M = 17; M <= NT; M += 20) {
    assert_int_equal(be->matmul(be, sm, nx, lg, bias, M, 200, NC, false, &err), TT_OK);
    keep(r, be, sm, (size_t)M * NC);
  }
  tt_buf all[] = {x, y, o, s, m, p, nx, g, bt, no, nn, mean, sc, qkv, q, k, v, merged, lg, loss, ma, mb, mo, bias, sm};
  for (size_t i = 0; i < sizeof all / sizeof *all; i++) be->release(be, &all[i]);
}

static void make_inputs(void) {
  if (x_el) return;
  x_el = rand_vec(N_EL, -4.0f, 4.0f), y_el = rand_vec(N_EL, -1.0f, 1.0f),
  scores = rand_vec((size_t)H * TM * TM > (size_t)ROWS * COLS ? (size_t)H * TM * TM : (size_t)ROWS * COLS, -6.0f, 6.0f);
  norm_x = rand_vec((size_t)NT * NC, -3.0f, 3.0f), gamma_v = rand_vec(NC, -1.0f, 1.0f),
  beta_v = rand_vec(NC, -1.0f, 1.0f);
  qkv_v = rand_vec((size_t)3 * HT * HH * HD, -1.0f, 1.0f), logits_v = rand_vec((size_t)LT * LV, -8.0f, 8.0f);
  ba = rand_vec((size_t)B * BM * BK, -1.0f, 1.0f), bb = rand_vec((size_t)B * BK * BN, -1.0f, 1.0f);
  for (int t = 0; t < LT; t++) ids[t] = (int32_t)((t * 977) % LV);
}

// run(be, results) on backends of 1, 2 and 3 threads: every output the same bits.
static void same_bits_on_every_thread_count(void (*run)(tt_backend *, results *)) {
  make_inputs();
  results r[3] = {0};
  for (int threads = 1; threads <= 3; threads++) {
    openblas_set_num_threads(threads);
    tt_backend *be;
    tt_error err = {0};
    assert_int_equal(tt_backend_create("openblas", &be, NULL, 0, &err), TT_OK);
    char want[32];
    snprintf(want, sizeof want, "CPU, %d thread", threads);
    if (strncmp(be->device, want, strlen(want)) != 0)
      fail_msg("backend on %d threads says \"%s\"", threads, be->device);
    run(be, &r[threads - 1]);
    tt_backend_destroy(be);
  }
  for (int t = 1; t < 3; t++) {
    assert_int_equal(r[t].n, r[0].n);
    for (int i = 0; i < r[0].n; i++)
      for (size_t j = 0; j < r[0].sizes[i]; j++)
        if (memcmp(&r[t].outs[i][j], &r[0].outs[i][j], sizeof(float)) != 0)
          fail_msg("output %d differs between 1 and %d threads at %zu of %zu: %.9g, %.9g", i, t + 1, j, r[0].sizes[i],
                   r[t].outs[i][j], r[0].outs[i][j]);
  }
  for (int t = 0; t < 3; t++)
    for (int i = 0; i < r[t].n; i++) free(r[t].outs[i]);
}

static void test_ops_same_bits_on_every_thread_count(void **state) {
  (void)state;
  same_bits_on_every_thread_count(run_ops);
}

// The backward pass's split ops (openblas_backward.c) at sizes above the split threshold.
static void run_backward_ops(tt_backend *be, results *r) {
  tt_error err = {0};
  size_t nn = (size_t)NT * NC;
  tt_buf d_out = up(be, norm_x, nn), nrm = up(be, norm_x + 1, nn - 1), sc = up(be, gamma_v, NT);
  tt_buf g = up(be, gamma_v, NC), dx = up(be, NULL, nn), dn = up(be, NULL, nn);
  for (int rms = 0; rms <= 1; rms++) {
    tt_buf dg = up(be, beta_v, NC), db = up(be, gamma_v, NC);  // added to: start non-zero
    assert_int_equal(be->norm_backward(be, dx, dn, dg, db, d_out, nrm, sc, g, NT - 1, NC, rms, &err), TT_OK);
    keep(r, be, dx, nn - NC), keep(r, be, dn, nn - NC), keep(r, be, dg, NC), keep(r, be, db, NC);
    be->release(be, &dg), be->release(be, &db);
  }
  tt_buf sums = up(be, beta_v, NC);  // (NC) += the column sums of a (NT, NC)
  assert_int_equal(be->add_row_sums(be, sums, d_out, NT, NC, &err), TT_OK);
  keep(r, be, sums, NC);
  tt_buf x = up(be, x_el, N_EL), dy = up(be, y_el, N_EL), out = up(be, NULL, N_EL), y = up(be, NULL, N_EL);
  const tt_act_kind acts[] = {TT_ACT_GELU_TANH, TT_ACT_SILU, TT_ACT_GELU_ERF};
  for (size_t k = 0; k < sizeof acts / sizeof *acts; k++) {
    assert_int_equal(be->activation_backward(be, out, y, x, dy, N_EL, acts[k], &err), TT_OK);
    keep(r, be, out, N_EL), keep(r, be, y, N_EL);
  }
  tt_buf sy = up(be, scores, (size_t)ROWS * COLS), sdy = up(be, x_el, (size_t)ROWS * COLS),
         sdx = up(be, NULL, (size_t)ROWS * COLS);
  assert_int_equal(be->softmax_backward(be, sdx, sy, sdy, ROWS, COLS, &err), TT_OK);
  keep(r, be, sdx, (size_t)ROWS * COLS);
  tt_buf probs = up(be, logits_v, (size_t)LT * LV), dl = up(be, NULL, (size_t)LT * LV);
  assert_int_equal(be->nll_backward(be, dl, probs, ids, LT, LV, 0x1p-100f, &err), TT_OK);
  keep(r, be, dl, (size_t)LT * LV);
  tt_buf all[] = {d_out, nrm, sc, g, dx, dn, sums, x, dy, out, y, sy, sdy, sdx, probs, dl};
  for (size_t i = 0; i < sizeof all / sizeof *all; i++) be->release(be, &all[i]);
}

static void test_backward_ops_same_bits_on_every_thread_count(void **state) {
  (void)state;
  same_bits_on_every_thread_count(run_backward_ops);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_pool_runs_each_item_once),
      cmocka_unit_test(test_pool_wakes_from_spin_sleep_and_park),
      cmocka_unit_test(test_ops_same_bits_on_every_thread_count),
      cmocka_unit_test(test_backward_ops_same_bits_on_every_thread_count),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
