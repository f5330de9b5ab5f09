// trace_arg: a trace file named on the command line.
#ifndef TT_TRACE_ARG_H
#define TT_TRACE_ARG_H

#include "trace/trace.h"

// tt_trace_load, first checking that path starts like a safetensors file, so that a file
// of another kind is "not a trace file" rather than a header-length number.
tt_status tt_cli_load_trace(const char *path, tt_trace **out, tt_error *err);

#endif
