// lesson_views_text: the lens, neighbours and cost views of a lesson step as terminal tables
// (`ttrace lesson --text`), in English or Korean.
#ifndef TT_LESSON_VIEWS_TEXT_H
#define TT_LESSON_VIEWS_TEXT_H

#include "tokenizer/tokenizer.h"
#include "trace/trace.h"

// The lens grid: one line per stream, the top token and its probability per position;
// with the model the trace names (or the default model). tok may be NULL (ids only).
void tt_cli_print_lens(const tt_trace *tr, const tt_tokenizer *tok, bool ko);
// The nearest rows of W_E to the token at pos (-1: the last) by cosine similarity, rows that
// tokens share bit for bit said to be shared; with the model as for the lens.
void tt_cli_print_neighbours(const tt_trace *tr, const tt_tokenizer *tok, int pos, bool ko);
// The cost of the trace's pass, summed over the layers per step: FLOPs and bytes.
void tt_cli_print_cost(const tt_trace *tr, bool ko);

#endif
