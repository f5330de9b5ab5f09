// train_report: the before/after summary of `ttrace train-step --report` (train_report.c).
#ifndef TT_TRAIN_REPORT_H
#define TT_TRAIN_REPORT_H

#include "core/core.h"
#include "trace/trace.h"

// Prints, for the model folder model_dir and new_dir made from it by training: the loss at
// each position in before (traced on model_dir) and after (on new_dir), the weights that
// moved most (‖W_after − W_before‖), and the rows of W_E that changed beside the prompt's
// distinct tokens (before's ids).
tt_status tt_train_report(const char *model_dir, const char *new_dir, const tt_trace *before, const tt_trace *after,
                          tt_error *err);

#endif
