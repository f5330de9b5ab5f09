// prompt_arg: the prompt from the remaining command-line words ("-" reads standard input).
#ifndef TT_PROMPT_ARG_H
#define TT_PROMPT_ARG_H

#include "core/core.h"

// Joins args with single spaces into a malloc'd string; "-" alone reads stdin (one trailing
// newline dropped). Fails on no words, an empty prompt, or invalid UTF-8.
tt_status tt_prompt_from_args(int argc, char **argv, char **out, tt_error *err);

// Token ids from "464,6193,318" (--ids): decimal integers separated by commas (spaces
// around them allowed). A word that is not a number, or a number beyond int32, fails
// naming it; the vocabulary range is checked later (tt_input_ids). *ids malloc'd.
tt_status tt_ids_from_arg(const char *list, int32_t **ids, int *n, tt_error *err);

#endif
