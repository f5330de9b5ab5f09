// views: the one list of view names.
#include <string.h>

#include "pipeline.h"

static const char *const view_names[TT_VIEW_COUNT] = {
    [TT_VIEW_AUTO] = "auto",           [TT_VIEW_HEATMAP] = "heatmap",
    [TT_VIEW_TABLE] = "table",         [TT_VIEW_GRID] = "grid",
    [TT_VIEW_OVERVIEW] = "overview",   [TT_VIEW_TOKENS] = "tokens",
    [TT_VIEW_BARS] = "bars",           [TT_VIEW_LAYERNORM] = "layernorm",
    [TT_VIEW_GELU] = "gelu",           [TT_VIEW_EMBED] = "embed",
    [TT_VIEW_POSITIONS] = "positions", [TT_VIEW_QKV] = "qkv",
    [TT_VIEW_COLLAPSE] = "collapse",   [TT_VIEW_GRADNORM] = "gradnorm",
    [TT_VIEW_TIMELINE] = "timeline",   [TT_VIEW_KVCACHE] = "kvcache",
    [TT_VIEW_LENS] = "lens",           [TT_VIEW_COST] = "cost",
    [TT_VIEW_ROPE] = "rope",           [TT_VIEW_GQA] = "gqa",
    [TT_VIEW_SWIGLU] = "swiglu",       [TT_VIEW_BLOCKS] = "blocks"};

const char *tt_view_name(tt_view_kind v) {
  return (unsigned)v < TT_VIEW_COUNT ? view_names[v] : "?";
}

bool tt_view_parse(const char *name, tt_view_kind *out) {
  for (int i = 0; name && i < TT_VIEW_COUNT; i++)
    if (strcmp(name, view_names[i]) == 0) {
      *out = (tt_view_kind)i;
      return true;
    }
  return false;
}
