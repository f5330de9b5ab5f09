// prompt_arg: the prompt from the remaining command-line words ("-" reads standard input).
#ifndef TT_PROMPT_ARG_H
#define TT_PROMPT_ARG_H

#include "core/core.h"

// Joins args with single spaces into a malloc'd string; "-" alone reads stdin (one trailing
// newline dropped). Fails on no words, an empty prompt, or invalid UTF-8.
tt_status tt_prompt_from_args(int argc, char **argv, char **out, tt_error *err);

#endif
