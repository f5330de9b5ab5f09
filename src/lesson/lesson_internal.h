// Shared between the lesson module's files; not part of the public API.
#ifndef TT_LESSON_INTERNAL_H
#define TT_LESSON_INTERNAL_H

#include "lesson.h"

struct tt_lesson {
  tt_arena *arena;  // every string and list below
  const char *name, *title, *lang, *model;
  const char *traces_dir;  // default folder for trace files ("" when parsed from memory)
  tt_lesson_trace *traces;
  int n_traces, cap_traces;
  tt_lesson_step *steps;
  int n_steps, cap_steps;
  struct tt_lesson_derived *derived;  // the model and lenses the lens placeholders computed (derived.c)
};

// ---- placeholders: {{ [FUNC] [TRACE:]REF[IDX,...] [FMT] }} ----
typedef enum {
  TT_PH_VALUE,
  TT_PH_MAX,
  TT_PH_MIN,
  TT_PH_ABSMAX,
  TT_PH_MEAN,
  TT_PH_STD,
  TT_PH_SUM,
  TT_PH_NORM,
  TT_PH_ARGMAX,
  TT_PH_ARGMIN,
  TT_PH_WORD,
  TT_PH_LIST,
  TT_PH_SHAPE,
  TT_PH_SIZE,
  TT_PH_TOKEN,
  TT_PH_CONFIG,
  TT_PH_LENS_WORD,  // the logit lens's top token of a stream at a position (derived.c)
  TT_PH_LENS_P,     // its probability
  TT_PH_LENS_ID,    // its id
  TT_PH_COST,       // a FLOP or byte count of the trace's pass (derived.c)
  TT_PH_NEAR_WORD,  // the K-th nearest row of W_E to token P's: its word (derived.c)
  TT_PH_NEAR_ID,    // its id
  TT_PH_NEAR_COS,   // its cosine similarity
  TT_PH_COSINE      // the cosine similarity of the rows of W_E of tokens P and Q
} tt_ph_func;

#define TT_PH_ANY INT64_MIN  // ':' in an index list

typedef struct {
  tt_ph_func func;
  char trace[64];  // "" = the step's trace
  char ref[128];   // hook name, token index (token) or config key (config)
  int n_idx;
  int64_t idx[TT_MAX_DIMS];
  char fmt[16];  // printf format for floats ("" = %.3g); "pct" style handled by fill
  bool percent;  // fmt ended in 'p': multiply by 100 and add '%'
} tt_placeholder;

// The values of a placeholder's slice (fixed axes from its index list, the rest in row-major
// order), as doubles; v is malloc'd (tt_slice_free).
typedef struct {
  double *v;
  int64_t n;
  int n_free;     // axes that were not fixed
  bool integral;  // the tensor holds integers
} tt_slice;
tt_status tt_lesson_slice(const tt_placeholder *ph, const tt_trace *tr, tt_slice *out, tt_error *err);
void tt_slice_free(tt_slice *s);

// Parses the inside of one {{...}} (s, n bytes). The error names the problem, not the line.
tt_status tt_placeholder_parse(const char *s, size_t n, tt_placeholder *ph, tt_error *err);
// Checks every placeholder's syntax and trace name in a narration (at parse time).
tt_status tt_lesson_check_placeholders(const tt_lesson *l, const char *text, int line, tt_error *err);

// Splits "A OP B" (OP surrounded by spaces) into its parts; false when there is no operator.
bool tt_claim_split(const char *claim, char *a, size_t na, char *op, char *b, size_t nb);
// Checks a claim's syntax and trace names at parse time.
tt_status tt_claim_check_syntax(const tt_lesson *l, const char *claim, int line, tt_error *err);

// ---- derived.c: placeholders computed from the trace with the model or the shapes ----
// {{lensword/lensp/lensid STREAM[pos]}}: the lens's top token id and probability at pos of stream
// ph->ref, with the model the trace names (else the lesson's `model:` header).
tt_status tt_lesson_lens_top(const tt_lesson *l, const tt_trace *tr, const tt_placeholder *ph, int32_t *id, double *p,
                             tt_error *err);
// {{cost KEY}}: KEY one of tt_lesson_cost_keys (NULL-terminated): the prefill's flops, bytes,
// matmul_share, intensity (FLOPs per byte), logits_share (the unembedding's part of the
// FLOPs), the same with decode_ for one decode step after the prompt (T_ctx = T), and
// qkv_flops, qkv_fused_bytes, qkv_separate_bytes (one (T,C)·(C,3C) against three (T,C)·(C,C)).
extern const char *const tt_lesson_cost_keys[];
// {{nearword/nearid/nearcos tokens[P,K]}}: the K-th (0: the nearest) row of W_E to token P's
// row by cosine similarity, rows that tokens share bit for bit counted once (model/model.h
// tt_embedding_neighbours), its id in *id and cosine in *v; {{cosine tokens[P,Q]}}: the
// cosine of tokens P's and Q's rows in *v. The model as for the lens placeholders.
tt_status tt_lesson_embed_value(const tt_lesson *l, const tt_trace *tr, const tt_placeholder *ph, int32_t *id,
                                double *v, tt_error *err);
// The cache of the lens placeholders: the model, loaded at first use, and the lens of each
// trace it was asked about; owned by the lesson.
struct tt_lesson_derived *tt_lesson_derived_create(void);
void tt_lesson_derived_destroy(struct tt_lesson_derived *d);
tt_status tt_lesson_cost_value(const tt_trace *tr, const char *key, double *v, tt_error *err);

#endif
