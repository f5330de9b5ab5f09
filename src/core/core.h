// core: status codes and error messages, dtypes and tensor views, the arena, atomic
// file writes, UTF-8 checks and where the assets live. Every other module builds on it.
//
// Shape legend used in comments across the project:
//   T tokens, C width (n_embd), H heads, D head width (C/H; head_dim for Llama), F FFN width,
//   V vocabulary size, P positions (n_positions), L layers, G key/value heads (H_kv: fewer
//   than H with grouped-query attention, else H). "3C" is three widths side by side, "T-1"
//   one less than T (the next-token loss).
#ifndef TT_CORE_H
#define TT_CORE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/types.h>

// ---- status and errors -------------------------------------------------------------
typedef enum {
  TT_OK = 0,
  TT_ERR_ARG,          // bad argument or user input (empty prompt, bad UTF-8, bad option)
  TT_ERR_IO,           // a file or folder is missing, unreadable or unwritable
  TT_ERR_FORMAT,       // a file is malformed or truncated
  TT_ERR_SHAPE,        // a tensor's shape disagrees with the config
  TT_ERR_UNSUPPORTED,  // a dtype, version or feature this build does not handle
  TT_ERR_NOMEM,        // out of memory (host or device)
  TT_ERR_DEVICE,       // a backend or device failure
} tt_status;

typedef struct {
  tt_status status;
  char msg[1024];
} tt_error;

// Fills err (if not NULL) with a one-line message and returns st. Control bytes coming from
// the arguments (a name read from a file) are escaped as \n, \x1B, ...; newlines stay only
// when fmt itself has one.
tt_status tt_fail(tt_error *err, tt_status st, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
// Prefixes the message already in err with "prefix: ".
tt_status tt_fail_prefix(tt_error *err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
const char *tt_status_name(tt_status st);
// Process exit code for a status (documented in the README): 0 ok, 2 usage, 3 input, 4 io, 5 device.
int tt_status_exit_code(tt_status st);
// Stops the program with the file, line and condition when an internal invariant does not
// hold: a bug in ttrace, never bad input (bad input is an error returned with tt_fail).
#define TT_ASSERT(cond) \
  ((cond) ? (void)0     \
          : (fprintf(stderr, "%s:%d: internal error: '%s' does not hold\n", __FILE__, __LINE__, #cond), abort()))

// ---- dtypes and tensor views -------------------------------------------------------
// Every dtype the safetensors format defines, so any valid file opens; ttrace computes
// with F32 and reads F16/BF16 weights; traces hold F32 and I32.
typedef enum {
  TT_F32,
  TT_F16,
  TT_BF16,
  TT_I32,
  TT_I64,
  TT_U8,
  TT_F64,
  TT_I8,
  TT_I16,
  TT_U16,
  TT_U32,
  TT_U64,
  TT_BOOL,
  TT_F8_E4M3,
  TT_F8_E5M2,
} tt_dtype;

size_t tt_dtype_size(tt_dtype dt);
const char *tt_dtype_name(tt_dtype dt);                // safetensors spelling: "F32", "I32", ...
bool tt_dtype_parse(const char *name, tt_dtype *out);  // false for names we do not know

#define TT_MAX_DIMS 4
typedef struct {
  const char *name;
  tt_dtype dtype;
  int ndim;
  int64_t shape[TT_MAX_DIMS];
  void *data;  // row-major, contiguous
} tt_tensor;

int64_t tt_tensor_numel(const tt_tensor *t);
size_t tt_tensor_nbytes(const tt_tensor *t);
// "(4, 128)" into buf.
const char *tt_shape_str(const int64_t *shape, int ndim, char *buf, size_t len);

float tt_f16_to_f32(uint16_t h);
uint16_t tt_f32_to_f16(float f);  // round to nearest even
float tt_bf16_to_f32(uint16_t b);
// dst (n) = src (n) converted from dt; src may be unaligned. dt must be F32, F16 or BF16.
void tt_convert_to_f32(float *dst, const void *src, tt_dtype dt, size_t n);
// Element i (flat, row-major) of t, any dtype, as a double: integers exactly up to 2^53,
// BOOL as 0/1, F16/BF16/F8 decoded (element.c). The one reader for tensors of unknown dtype.
double tt_tensor_get(const tt_tensor *t, int64_t i);
bool tt_dtype_is_integer(tt_dtype dt);  // I*, U* and BOOL

// ---- hash ---------------------------------------------------------------------------
// 64-bit FNV-1a of n bytes at p, continuing from h; start with TT_FNV1A64_BASIS (hash.c).
#define TT_FNV1A64_BASIS 14695981039346656037ull
uint64_t tt_fnv1a64(uint64_t h, const void *p, size_t n);

// ---- clock --------------------------------------------------------------------------
// CLOCK_MONOTONIC, in nanoseconds and in seconds (clock.c).
uint64_t tt_now_ns(void);
double tt_now_seconds(void);

// ---- pages: large write-once buffers (pages.c) --------------------------------------
// bytes of memory, 64-byte aligned, not zeroed; from 2 MiB on, mapped on a 2 MiB boundary
// with huge pages asked for (one fault per 2 MiB rather than per 4 KiB) unless *huge says
// they are slow here. A holder starts at TT_HUGE_UNTRIED; its first large buffer times its
// first huge page and sets *huge. NULL when out of memory. Free with tt_pages_free and the
// same bytes.
typedef enum { TT_HUGE_UNTRIED, TT_HUGE_FAST, TT_HUGE_SLOW } tt_huge_pages;
void *tt_pages_alloc(size_t bytes, tt_huge_pages *huge);
void tt_pages_free(void *p, size_t bytes);
// Faults in the pages of [p, p + bytes) writable, on this thread, without changing what
// they hold (MADV_POPULATE_WRITE): false where the kernel does not (the writers then fault
// them). For memory that an op's threads are about to write: see pages.c.
bool tt_pages_populate(void *p, size_t bytes);

// ---- arena: bump allocator in chunks; memory never moves, freed all at once --------
typedef struct tt_arena tt_arena;
tt_arena *tt_arena_create(size_t chunk_bytes);
void *tt_arena_alloc(tt_arena *a, size_t bytes, size_t align);  // NULL when out of memory
char *tt_arena_strdup(tt_arena *a, const char *s);
size_t tt_arena_used(const tt_arena *a);
void tt_arena_destroy(tt_arena *a);

// ---- atomic file writes (atomic.c): the file appears complete or not at all --------
// On Linux an unnamed temporary file (O_TMPFILE) linked into place at the commit, so an
// interrupted or killed writer leaves nothing; elsewhere a named temporary file removed on
// SIGINT/SIGTERM/SIGHUP. Only a regular file (or a symlink to one) is replaced; it keeps
// its mode. A directory, FIFO, device or socket at path is refused (TT_ERR_IO).
typedef struct {
  FILE *fp;
  char *path;      // the file to replace, symlinks resolved
  char *dir;       // its folder
  char *tmp_path;  // the named temporary file, NULL when the file is unnamed
} tt_atomic_file;
tt_status tt_atomic_open(tt_atomic_file *af, const char *path, tt_error *err);
tt_status tt_atomic_commit(tt_atomic_file *af, tt_error *err);  // flush, fsync, link or rename
void tt_atomic_abort(tt_atomic_file *af);                       // drop the temporary file
// "a directory", "a FIFO", "a character device", ... for a stat mode.
const char *tt_file_kind(mode_t mode);

// Reads a whole regular file into a NUL-terminated malloc'd buffer; anything else (a FIFO,
// a device, a directory) is refused without blocking.
tt_status tt_read_file(const char *path, char **out, size_t *len, tt_error *err);
// Opens a regular file for reading (*fd, *size its length); a FIFO, device or directory is
// refused before it is opened and checked again after (O_NONBLOCK: nothing blocks).
tt_status tt_open_regular(const char *path, int *fd, size_t *size, tt_error *err);

// ---- text ---------------------------------------------------------------------------
// True when s[0..len) is valid UTF-8; otherwise *bad_offset is the first bad byte.
bool tt_utf8_valid(const char *s, size_t len, size_t *bad_offset);
// Decodes one code point at s (len bytes left); returns bytes used (0 when invalid).
int tt_utf8_decode(const char *s, size_t len, uint32_t *cp);
// Number of code points in a valid UTF-8 string.
size_t tt_utf8_length(const char *s);
// How many bytes at the end of s[0..len) begin a UTF-8 character without finishing it
// (0..3): what text arriving in pieces (one token at a time) holds back for the next piece.
size_t tt_utf8_incomplete_tail(const char *s, size_t len);
// Copies s into dst (cap bytes, always NUL-terminated, cut before an escape that does not
// fit) with what a terminal would act on escaped: \n \t \r, other C0 controls and DEL as
// \xNN, C1 controls as \u0080..\u009F, bytes that are not UTF-8 as \xNN. Newlines stay
// when keep_newlines. Returns dst (escape.c).
const char *tt_escape_text(const char *s, char *dst, size_t cap, bool keep_newlines);
// The same into a malloc'd string (NULL when out of memory).
char *tt_escape_text_dup(const char *s);
// s[0..len) as valid UTF-8 (malloc'd; NULL when out of memory): each byte that is not part
// of a whole character as \xNN, everything else as it is (newlines and controls too).
char *tt_utf8_escape_invalid_dup(const char *s, size_t len);
// Terminal columns of a UTF-8 string: 2 for wide East Asian characters (Hangul, CJK) and
// emoji, 0 for combining marks and joiners, else 1; an invalid byte counts as one column.
int tt_utf8_columns(const char *s);

// ---- recorder: how the engine hands each computed tensor to whoever listens ----
// The recorder decides per hook: it returns host memory for numel floats (or int32s for
// "tokens") to receive the tensor, or NULL to skip it. On a host backend the engine
// computes straight into that memory; elsewhere it downloads into it.

// A hook that is an exact rule on an F32 hook recorded before it, of the same shape:
// out = factor · src element by element (one float product each), and, with causal_mask,
// −inf above the diagonal of each (T,T) matrix (entry (…, i, j) with j > i); with row_fn
// (a softmax, or an activation with factor 1), each row of that is then replaced by
// row_fn(row, row, its length) — the very function the engine computed the hook with (its
// bits, not a re-derivation). A masked row goes through row_fn up to its diagonal (i + 1
// entries) and is 0 after it: row_fn must give those entries the bits it gives them in the
// whole row, as a softmax whose −inf entries add exact zeros does.
typedef void (*tt_row_fn)(float *out, const float *in, size_t cols);  // out may be in
// A product rule instead (keys set): out (H,T,T) = scores_fn(out, src, keys, H, G, T, D,
// true), the raw attention scores of the queries src (H,T,D) against the keys (G,T,D), both
// F32 hooks recorded before it — made by the very function the engine's attention makes
// them with (factor, causal_mask and row_fn unused). Rules on such a tensor may follow it.
// With every false the function may leave entries above the diagonal unwritten (a masked
// rule on the scores reads none of them).
typedef void (*tt_scores_fn)(float *raw, const float *q, const float *k, int H, int G, int T, int D, bool every);
// A sum rule instead (addend set): out = src + addend element by element, one float add
// each, both F32 hooks of its shape recorded before it (factor, causal_mask and row_fn
// unused): the residual stream, the embeddings plus the positions. An element or a sum
// rule's src may itself be a rule of the same shape (one residual on the one before).
// A heads rule instead (heads set): out (H,T,D) = columns column … column + H·D − 1 of the
// recorded src (T,W), head h the D from column + h·D, copied: GPT-2's q, k and v, the
// thirds of the fused qkv. A product rule's q and k may be heads rules.
// A norm rule instead (norm_fn set): each row of out (…,C) = norm_fn(out row, src row, C,
// &norm), the very function the engine's norm computes a row with, its statistics made
// again from src: with norm.gamma NULL the normalized row, else normalized·γ + β (β may be
// NULL). γ and β (C each) are read during the offer only. src is an F32 hook of out's
// shape recorded before it (or a rule itself, as for an element rule).
typedef struct {
  float eps;
  bool rms;                   // RMSNorm: no mean taken
  const float *gamma, *beta;  // (C) each; NULL: none
} tt_norm_params;
typedef void (*tt_norm_row_fn)(float *out, const float *x, size_t cols, const tt_norm_params *p);  // out may be x
typedef struct {
  const char *src;  // the source hook's full name (a product rule: the queries)
  float factor;
  bool causal_mask;
  tt_row_fn row_fn;        // NULL: none
  const char *keys;        // NULL: an element rule as above; else the keys' full hook name
  tt_scores_fn scores_fn;  // with keys
  const char *addend;      // NULL: not a sum rule; else the addend's full hook name
  bool heads;              // a heads rule
  int64_t column;          // with heads: where head 0's columns start in src
  tt_norm_row_fn norm_fn;  // NULL: not a norm rule
  tt_norm_params norm;     // with norm_fn
} tt_hook_rule;

typedef struct {
  void *(*reserve)(void *ctx, const char *name, tt_dtype dtype, int ndim, const int64_t *shape);
  void *ctx;
  // Optional (NULL: not called; the engine then never waits for a device between ops): after
  // each op has run and, on a device backend, finished, the hook name of its last output and
  // the seconds since the previous op ended (or the run began). An op without a hook of its
  // own (the heads' merge) is counted in the next op's time.
  void (*op_done)(void *ctx, const char *name, double seconds);
  // Optional (NULL: every hook goes through reserve): offered, in place of reserve, a hook
  // the engine computes exactly as `rule` says. true: the recorder keeps the rule instead
  // of the bytes (and the engine computes the hook only if it needs it itself); false: the
  // engine offers the hook through reserve as any other.
  bool (*derive)(void *ctx, const char *name, const tt_hook_rule *rule, int ndim, const int64_t *shape);
} tt_recorder;

// ---- assets -------------------------------------------------------------------------
// The assets folder: $TTRACE_ASSETS, else the source tree's assets/ when the executable runs
// from a build tree (decided at run time: a "ttrace-source-root" file meson leaves in the
// build folder), else the installed copy beside the executable (<bindir>/../share/ttrace),
// else the install prefix's. No build path is compiled in. Writes the path of `relative`
// inside it into buf; returns false when not found.
bool tt_asset_path(const char *relative, char *buf, size_t len);
// The lessons folder, found the same way ($TTRACE_LESSONS, the source tree's lessons/, the
// installed share/ttrace/lessons).
bool tt_lessons_path(char *buf, size_t len);

#endif
