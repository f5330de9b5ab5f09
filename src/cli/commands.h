// The subcommands, in the order `ttrace --help` lists them. Each line is guarded by
// TT_HAVE_CMD_<name>, which meson sets when src/cli/cmd_<name>.c exists.
#if TT_HAVE_CMD_tokenize
TT_COMMAND(tokenize, "split text into GPT-2 tokens and ids; --merges shows the BPE steps")
#endif
#if TT_HAVE_CMD_trace
TT_COMMAND(trace, "run a prompt through a model and save every tensor to a trace file")
#endif
#if TT_HAVE_CMD_dump
TT_COMMAND(dump, "print a trace's tensors: summaries, or one tensor as a labelled table")
#endif
#if TT_HAVE_CMD_diff
TT_COMMAND(diff, "compare two traces hook by hook (max abs and relative difference)")
#endif
#if TT_HAVE_CMD_demo
TT_COMMAND(demo, "the classroom demo: trace \"The weather is nice\" and open the window")
#endif
#if TT_HAVE_CMD_view
TT_COMMAND(view, "open a saved trace (or trace a prompt) in the window")
#endif
#if TT_HAVE_CMD_render
TT_COMMAND(render, "export one view of a trace as PNG or SVG, without a display")
#endif
#if TT_HAVE_CMD_lesson
TT_COMMAND(lesson, "play a narrated lesson in the window or as text")
#endif
#if TT_HAVE_CMD_devices
TT_COMMAND(devices, "list OpenCL platforms and devices")
#endif
