// ttrace import: another implementation's activations (safetensors) → a trace for `ttrace diff`.
#include <getopt.h>
#include <stdlib.h>

#include "cli.h"
#include "import/import.h"
#include "trace/trace.h"
#include "trace_arg.h"

static const char usage[] =
    "usage: ttrace import FILE.safetensors|FILE.npz --like TRACE -o OUT.safetensors\n"
    "\n"
    "Reads activations another implementation saved for the same model and prompt and writes\n"
    "them as a trace, so that `ttrace diff --tol R TRACE OUT` names the first hook where the\n"
    "two implementations part. FILE (safetensors, or .npz as np.savez writes it) is one of:\n"
    "  a Hugging Face output_hidden_states dump: hidden_states.N ([1,T,C] or [T,C]) and\n"
    "    optionally logits; hidden_states.N is blocks.N.hook_resid_pre, the last one (ln_f\n"
    "    applied) ln_final.hook_out, logits hook_logits;\n"
    "  a TransformerLens cache saved with safetensors' save_file: its hook names; q, k, v, z\n"
    "    [batch,pos,head,d_head] become [H,T,D], hook_scale [batch,pos,1] becomes [T], the\n"
    "    batch dimension (1) is dropped; hooks ttrace does not have are skipped.\n"
    "The prompt, tokens and config come from TRACE, a ttrace trace of the same model and\n"
    "prompt, which must hold every imported hook with the shape it has there.\n"
    "\n"
    "  --like TRACE   the ttrace trace to take the metadata and shapes from\n"
    "  -o, --out OUT  the trace to write (atomically)\n"
    "\n"
    "Exit status: 0 written, 2 bad usage, 3 a file that does not map (named), 4 unreadable\n"
    "or unwritable files.\n";

int tt_cmd_import(int argc, char **argv) {
  static const struct option longs[] = {{"like", required_argument, 0, 'l'},
                                        {"out", required_argument, 0, 'o'},
                                        {"help", no_argument, 0, 'h'},
                                        {0, 0, 0, 0}};
  const char *like_path = NULL, *out_path = NULL;
  int c;
  optind = 1;
  while ((c = getopt_long(argc, argv, ":o:h", longs, NULL)) != -1) {
    switch (c) {
    case 'l':
      like_path = optarg;
      break;
    case 'o':
      out_path = optarg;
      break;
    case 'h':
      fputs(usage, stdout);
      return 0;
    default:
      return tt_cli_option_error("import", c, argv);
    }
  }
  if (argc - optind != 1) return tt_cli_usage_error("import", "need one file to import");
  if (!like_path)
    return tt_cli_usage_error("import", "need --like TRACE (a ttrace trace of the same model and prompt)");
  if (!out_path) return tt_cli_usage_error("import", "need -o OUT.safetensors");
  tt_error err = {0};
  tt_trace *like = NULL, *tr = NULL;
  tt_import_report rep;
  tt_status st = tt_cli_load_trace(like_path, &like, &err);
  if (!st) st = tt_import(argv[optind], like, &tr, &rep, &err);
  if (!st) st = tt_trace_save(tr, out_path, &err);
  tt_trace_destroy(like);
  tt_trace_destroy(tr);
  if (st) return tt_cli_fail("import", &err);
  printf("wrote %s: %d hook%s from a %s dump (%d tensor%s skipped)\n", out_path, rep.imported,
         rep.imported == 1 ? "" : "s", rep.kind, rep.skipped, rep.skipped == 1 ? "" : "s");
  return 0;
}
