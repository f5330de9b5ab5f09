// The subcommands, in the order `ttrace --help` lists them. The window and the painters
// need SDL2: a build without it (-Dgui=disabled) has no demo, view or render.
#include "build_config.h"

TT_COMMAND(tokenize, "split text into GPT-2 tokens and ids; --merges shows the BPE steps")
TT_COMMAND(trace, "run a prompt through a model and save every tensor to a trace file")
TT_COMMAND(generate, "append tokens to a prompt one at a time with a KV cache (sampling, seeded)")
TT_COMMAND(train_step, "one or more plain SGD steps on a prompt, saved as a new model folder")
TT_COMMAND(dump, "print a trace's tensors: summaries, or one tensor as a labelled table")
TT_COMMAND(diff, "compare two traces hook by hook (max abs and relative difference)")
TT_COMMAND(import, "another implementation's activations (Hugging Face, TransformerLens) as a trace")
TT_COMMAND(lens, "the logit lens: every layer's stream through the final norm and unembedding, top tokens")
TT_COMMAND(cost, "where the computation goes: FLOPs, bytes and measured time per step; prefill vs decode roofline")
#if TT_HAVE_GUI
TT_COMMAND(demo, "the classroom demo: trace \"The weather is nice\" and open the window")
TT_COMMAND(view, "open a saved trace (or trace a prompt) in the window")
TT_COMMAND(render, "export one view of a trace as PNG or SVG, without a display")
TT_COMMAND(export_html, "a lesson or a trace as one self-contained HTML page for a browser")
#endif
TT_COMMAND(lesson, "play a narrated lesson in the window or as text")
TT_COMMAND(devices, "list OpenCL platforms and devices")
