// meta: measured op times written into, and read back from, a trace's metadata strings.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cost.h"

char *tt_cost_times_format(const tt_cost_pass *p, const tt_cost_machine *m, char **machine) {
  size_t cap = (size_t)p->n * 128 + 1, at = 0;
  char *s = malloc(cap);
  *machine = malloc(256);
  if (!s || !*machine) {
    free(s);
    free(*machine);
    *machine = NULL;
    return NULL;
  }
  s[0] = 0;
  for (int i = 0; i < p->n; i++)
    at += (size_t)snprintf(s + at, cap - at, "%s%s=%.9g", i ? ";" : "", p->ops[i].name, p->ops[i].seconds);
  snprintf(*machine, 256, "sgemm_flops=%.9g;bandwidth=%.9g;wall_seconds=%.9g", m->sgemm_flops, m->bandwidth,
           p->wall_seconds);
  return s;
}

// The value of key in "k=v;k=v", as a number; false when absent.
static bool field(const char *s, const char *key, double *out) {
  size_t k = strlen(key);
  for (const char *at = s; at && *at; at = strchr(at, ';') ? strchr(at, ';') + 1 : NULL)
    if (strncmp(at, key, k) == 0 && at[k] == '=') {
      char *end;
      *out = strtod(at + k + 1, &end);
      return end != at + k + 1 && (*end == ';' || *end == 0);
    }
  return false;
}

bool tt_cost_times_parse(tt_cost_pass *p, tt_cost_machine *m, const char *seconds, const char *machine) {
  memset(m, 0, sizeof *m);
  if (!seconds || !machine) return false;
  double total = 0, v;
  for (int i = 0; i < p->n; i++) {
    if (!field(seconds, p->ops[i].name, &v) || v < 0) {
      for (int j = 0; j < p->n; j++) p->ops[j].seconds = -1;
      return false;
    }
    p->ops[i].seconds = v;
    total += v;
  }
  p->seconds = total;
  if (field(machine, "wall_seconds", &v)) p->wall_seconds = v;
  field(machine, "sgemm_flops", &m->sgemm_flops);
  field(machine, "bandwidth", &m->bandwidth);
  return true;
}
