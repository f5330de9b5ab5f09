// prompt_arg: gather the prompt and check it is non-empty valid UTF-8 without NUL bytes;
// parse --ids lists.
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "prompt_arg.h"

// Reads all of stdin; a NUL byte is refused (C strings would drop what follows it).
static tt_status read_stdin(char **out, tt_error *err) {
  size_t cap = 4096, len = 0;
  char *buf = malloc(cap);
  if (!buf) return tt_fail(err, TT_ERR_NOMEM, "out of memory");
  size_t n;
  while ((n = fread(buf + len, 1, cap - len - 1, stdin)) > 0) {
    len += n;
    if (len + 1 == cap) {
      char *grown = realloc(buf, cap *= 2);
      if (!grown) {
        free(buf);
        return tt_fail(err, TT_ERR_NOMEM, "out of memory");
      }
      buf = grown;
    }
  }
  if (ferror(stdin)) {  // e.g. standard input is a folder
    int e = errno;
    free(buf);
    return tt_fail(err, TT_ERR_IO, "cannot read standard input: %s", strerror(e));
  }
  if (len && buf[len - 1] == '\n') len--;
  buf[len] = 0;
  const char *nul = memchr(buf, 0, len);
  if (nul) {
    size_t at = (size_t)(nul - buf);
    free(buf);
    return tt_fail(err, TT_ERR_ARG, "the prompt has a NUL byte at offset %zu", at);
  }
  *out = buf;
  return TT_OK;
}

tt_status tt_prompt_from_args(int argc, char **argv, char **out, tt_error *err) {
  *out = NULL;
  if (argc <= 0) return tt_fail(err, TT_ERR_ARG, "no prompt given");
  tt_status st;
  if (argc == 1 && strcmp(argv[0], "-") == 0) {
    st = read_stdin(out, err);
    if (st) return st;
  } else {
    size_t len = 1;
    for (int i = 0; i < argc; i++) len += strlen(argv[i]) + 1;
    char *p = *out = calloc(len, 1);
    if (!p) return tt_fail(err, TT_ERR_NOMEM, "out of memory");
    for (int i = 0; i < argc; i++) {
      if (i) *p++ = ' ';
      size_t n = strlen(argv[i]);
      memcpy(p, argv[i], n);
      p += n;
    }
  }
  size_t bad;
  if (!(*out)[0])
    st = tt_fail(err, TT_ERR_ARG, "the prompt is empty");
  else if (!tt_utf8_valid(*out, strlen(*out), &bad))
    st = tt_fail(err, TT_ERR_ARG, "the prompt is not valid UTF-8 (bad byte 0x%02X at offset %zu)",
                 (unsigned char)(*out)[bad], bad);
  else
    return TT_OK;
  free(*out);
  *out = NULL;
  return st;
}

// One entry of an --ids list, [s, s + len) with spaces trimmed → id.
static tt_status parse_id(const char *s, size_t len, int32_t *id, tt_error *err) {
  while (len && isspace((unsigned char)*s)) s++, len--;
  while (len && isspace((unsigned char)s[len - 1])) len--;
  char word[64];
  snprintf(word, sizeof word, "%.*s", (int)len, s);
  bool digits = len > 0 && len < sizeof word;
  for (size_t i = (len && s[0] == '-') ? 1 : 0; digits && i < len; i++) digits = isdigit((unsigned char)s[i]);
  if (!digits || (len == 1 && s[0] == '-'))
    return tt_fail(err, TT_ERR_ARG, "--ids: '%s' is not a token id (expected numbers separated by commas)", word);
  errno = 0;
  long long v = strtoll(word, NULL, 10);
  if (errno == ERANGE || v > INT32_MAX || v < INT32_MIN)
    return tt_fail(err, TT_ERR_ARG, "--ids: %s is beyond the range of a 32-bit token id", word);
  *id = (int32_t)v;
  return TT_OK;
}

tt_status tt_ids_from_arg(const char *list, int32_t **ids, int *n, tt_error *err) {
  *ids = NULL;
  *n = 0;
  size_t count = 1;
  for (const char *c = list; *c; c++) count += *c == ',';
  int32_t *out = malloc(count * sizeof *out);
  if (!out) return tt_fail(err, TT_ERR_NOMEM, "out of memory");
  int k = 0;
  for (const char *item = list;; item += strcspn(item, ",") + 1) {
    size_t len = strcspn(item, ",");
    tt_status st = parse_id(item, len, &out[k], err);
    if (st) {
      free(out);
      return st;
    }
    k++;
    if (!item[len]) break;
  }
  *ids = out;
  *n = k;
  return TT_OK;
}
