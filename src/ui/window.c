// window: the SDL2 window and its loop: input → state → draw (the same painters as the
// headless renderer), play mode, screenshots, retracing a typed prompt, and the state
// dump that tests read.
#include <SDL_image.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "ui_int.h"

bool tt_ui_display_available(void) {
  // Without any display variable there is nothing to connect to (and probing Wayland
  // would print its own complaint).
  const char *drv_env = getenv("SDL_VIDEODRIVER");
  if (!getenv("DISPLAY") && !getenv("WAYLAND_DISPLAY") && !(drv_env && drv_env[0])) return false;
  if (SDL_WasInit(SDL_INIT_VIDEO) == 0 && SDL_InitSubSystem(SDL_INIT_VIDEO) != 0) return false;
  const char *drv = SDL_GetCurrentVideoDriver();
  bool ok = drv && strcmp(drv, "dummy") != 0 && strcmp(drv, "offscreen") != 0;
  if (!ok) SDL_QuitSubSystem(SDL_INIT_VIDEO);
  return ok;
}

static void count_layers(tt_ui *ui) {
  tt_config cfg;
  if (tt_trace_config(ui->tr, &cfg)) {
    ui->n_layers = cfg.n_layer;
    ui->n_heads = cfg.n_head;
  } else {
    ui->n_layers = ui->n_heads = 1;
  }
}

void tt_ui_set_trace(tt_ui *ui, const tt_trace *tr) {
  if (ui->tr != tr) tt_derived_reset(ui->derived);  // differences made from the old trace
  ui->tr = tr;
  ui->lay->n_panels = 0;  // the last layout points into the previous trace
  ui->lay->n_nav = 0;
  count_layers(ui);
  tt_viz_data_extras(ui->vd, tr, &ui->ex);
  tt_render_set_extras(ui->rc, &ui->ex);  // also drops textures made from the old trace
  if (ui->vs.layer >= ui->n_layers) ui->vs.layer = ui->n_layers - 1;
  if (ui->vs.head >= ui->n_heads) ui->vs.head = ui->n_heads - 1;
  ui->vs.position = -1;
  ui->vs.pin_row = ui->vs.pin_col = -1;
  if (ui->vs.step >= 0) tt_step_hook(ui->tr, ui->vs.step, ui->vs.layer, ui->vs.hook, sizeof ui->vs.hook);
  tt_view_follow_grad(&ui->vs, ui->tr);
  snprintf(ui->prompt, sizeof ui->prompt, "%s", tt_trace_meta(tr, "prompt") ? tt_trace_meta(tr, "prompt") : "");
  ui->dirty = true;
}

void tt_ui_retrace(tt_ui *ui) {
  tt_error err = {0};
  tt_status st = TT_OK;
  if (!ui->sess) {
    tt_session_opts so = {0};
    so.model_dir = ui->opts.model_dir ? ui->opts.model_dir : tt_trace_meta(ui->tr, "model");
    so.backend = ui->opts.backend;
    st = tt_session_open(&so, &ui->sess, &err);
    if (st && !ui->opts.model_dir) {  // the trace's model folder may be gone: the default model
      so.model_dir = NULL;
      st = tt_session_open(&so, &ui->sess, &err);
    }
  }
  tt_trace *tr = NULL;
  tt_trace_input in = {.prompt = ui->prompt, .bos = ui->opts.bos};
  if (!st) st = tt_session_trace_input(ui->sess, &in, &tr, &err);
  if (st) {  // the box opens again with the rejected text, to be corrected
    snprintf(ui->status, sizeof ui->status, tt_str(ui->vs.lang, TT_S_STATUS_TRACE_FAILED_FMT), err.msg);
    ui->editing = true;
    SDL_StartTextInput();
    return;
  }
  tt_trace *old = ui->own;
  ui->own = tr;
  tt_ui_set_trace(ui, tr);
  tt_trace_destroy(old);
  snprintf(ui->status, sizeof ui->status, tt_str(ui->vs.lang, TT_S_STATUS_TRACED_FMT), tt_trace_n_tokens(tr),
           tt_trace_meta(tr, "time_ms") ? tt_trace_meta(tr, "time_ms") : "?");
  tt_ui_knobs_retrace(ui);  // the what-if follows the new prompt
}

// Frames in a row that may leave cell images for the next; the one after them draws whole
// (so a view ends whole even if its images could not all stay cached).
#define MAX_PARTIAL_FRAMES 30

static void draw(tt_ui *ui);

tt_status tt_ui_screenshot(tt_ui *ui, const char *path, char *written, size_t len, tt_error *err) {
  if (tt_render_incomplete(ui->rc)) {  // the picture has every cell image
    ui->partial_frames = MAX_PARTIAL_FRAMES;
    draw(ui);
  }
  SDL_Surface *s = SDL_CreateRGBSurfaceWithFormat(0, ui->out_w, ui->out_h, 24, SDL_PIXELFORMAT_RGB24);
  if (!s) return tt_fail(err, TT_ERR_NOMEM, "cannot make a %dx%d image", ui->out_w, ui->out_h);
  if (SDL_RenderReadPixels(ui->ren, NULL, SDL_PIXELFORMAT_RGB24, s->pixels, s->pitch) != 0) {
    SDL_FreeSurface(s);
    return tt_fail(err, TT_ERR_DEVICE, "cannot read the window's pixels: %s", SDL_GetError());
  }
  tt_status st = tt_render_save_png(s, path, err);
  SDL_FreeSurface(s);
  if (!st) {
    char *abs = realpath(path, NULL);
    snprintf(written, len, "%s", abs ? abs : path);
    free(abs);
  }
  return st;
}

void tt_ui_shot_status(tt_ui *ui, const char *path) {
  char written[4400];
  tt_error err = {0};
  if (tt_ui_screenshot(ui, path, written, sizeof written, &err) == TT_OK)
    snprintf(ui->status, sizeof ui->status, tt_str(ui->vs.lang, TT_S_STATUS_SHOT_SAVED_FMT), written);
  else
    snprintf(ui->status, sizeof ui->status, tt_str(ui->vs.lang, TT_S_STATUS_SHOT_FAILED_FMT), err.msg);
}

tt_status tt_ui_write_state(tt_ui *ui, const char *path, tt_error *err) {
  tt_atomic_file af;
  tt_status st = tt_atomic_open(&af, path, err);
  if (st) return st;
  FILE *fp = af.fp;
  const tt_view_state *vs = &ui->vs;
  fprintf(fp, "step %d\n", vs->step);
  fprintf(fp, "step_id %s\n", vs->step >= 0 ? tt_step_get(ui->tr, vs->step)->id : "-");
  fprintf(fp, "hook %s\n", vs->hook);
  fprintf(fp, "layer %d\nhead %d\nview %s\n", vs->layer, vs->head, tt_view_name(vs->view));
  fprintf(fp, "zoom %.4g\npan %.4g %.4g\n", (double)vs->zoom, (double)vs->pan_row, (double)vs->pan_col);
  fprintf(fp, "theme %s\nlang %s\n", vs->theme == TT_THEME_DARK ? "dark" : "light", tt_lang_code(vs->lang));
  fprintf(fp, "pin %d %d\nplaying %d\nhelp %d\n", vs->pin_row, vs->pin_col, vs->playing, vs->show_help);
  fprintf(fp, "temperature %.4g\nposition %d\npair %d\n", (double)vs->temperature, vs->position, vs->pair);
  fprintf(fp, "prompt %s\ntokens %d\n", tt_trace_meta(ui->tr, "prompt") ? tt_trace_meta(ui->tr, "prompt") : "",
          tt_trace_n_tokens(ui->tr));
  fprintf(fp, "size %d %d\nscale %.3g\n", ui->out_w, ui->out_h, (double)ui->scale);
  fprintf(fp, "mouse %d %d\n", vs->mouse_x, vs->mouse_y);
  fprintf(fp, "grad %d\nstatus %s\n", vs->grad, ui->status);
  tt_pick pk;
  if (vs->mouse_x >= 0 && tt_render_pick(ui->lay, ui->tr, vs->mouse_x, vs->mouse_y, &pk)) {
    fprintf(fp, "hover_tensor %s\nhover_index %d %d %d\nhover_value %.9g\n", pk.t->name, pk.t->ndim == 3 ? pk.head : -1,
            pk.row, pk.col, (double)pk.value);
    fprintf(fp, "hover_row_label %s\nhover_col_label %s\n", pk.row_label, pk.col_label);
  } else {
    fprintf(fp, "hover_tensor -\n");
  }
  fprintf(fp, "panels %d\n", ui->lay->n_panels);
  if (ui->lay->n_panels > 0) {
    const tt_panel *pn = &ui->lay->panels[0];
    fprintf(fp, "panel0 %d %d %d %d rows %d cols %d first %.4g %.4g cell %.4g %.4g\n", pn->rect.x, pn->rect.y,
            pn->rect.w, pn->rect.h, pn->rows, pn->cols, (double)pn->row0, (double)pn->col0, (double)pn->cell_w,
            (double)pn->cell_h);
  }
  fprintf(fp, "status %s\n", ui->status);
  fprintf(fp, "knobs %d\nvariant %s\n", ui->knobs_open, ui->variant ? ui->variant_label : "-");
  fprintf(fp, "font_scale %.4g\nfullscreen %d\nediting %d\nedit_text %s\n", (double)ui->vs.font_scale,
          (SDL_GetWindowFlags(ui->win) & SDL_WINDOW_FULLSCREEN_DESKTOP) != 0, ui->editing, ui->prompt);
  if (ui->lesson)
    tt_ui_lesson_state(ui, fp);
  else if (ui->cmp.b)
    tt_ui_compare_state(ui, fp, &ui->cmp);
  return tt_atomic_commit(&af, err);
}

static void draw(tt_ui *ui) {
  SDL_GetRendererOutputSize(ui->ren, &ui->out_w, &ui->out_h);
  int ww, wh;
  SDL_GetWindowSize(ui->win, &ww, &wh);
  ui->scale = ww > 0 ? (float)ui->out_w / (float)ww : 1;
  ui->vs.prompt_edit = ui->editing ? ui->prompt : NULL;
  // No tooltip under the prompt box while typing.
  int mx = ui->vs.mouse_x, my = ui->vs.mouse_y;
  if (ui->editing) ui->vs.mouse_x = ui->vs.mouse_y = -1;
  ui->vs.status = ui->status;
  tt_ui_knobs_prepare(ui);
  bool whole = ui->partial_frames >= MAX_PARTIAL_FRAMES;
  tt_render_set_frame_budget(ui->rc, whole ? 0 : TT_RENDER_FRAME_BUDGET_MS);
  if (ui->lesson)
    tt_ui_lesson_draw(ui);
  else if (ui->cmp.b)
    tt_ui_compare_draw(ui);
  else
    tt_render_draw(ui->rc, ui->ren, (SDL_Rect){0, 0, ui->out_w, ui->out_h}, ui->tr, &ui->vs, ui->lay);
  SDL_RenderPresent(ui->ren);
  ui->vs.mouse_x = mx;
  ui->vs.mouse_y = my;
  bool partial = tt_render_incomplete(ui->rc);  // the images left out come in the next frames
  ui->partial_frames = partial ? ui->partial_frames + 1 : 0;
  ui->dirty = partial;
}

tt_status tt_ui_open(tt_ui *ui, const tt_ui_opts *o, const tt_trace *tr, tt_error *err) {
  if (!tt_ui_display_available()) return tt_fail(err, TT_ERR_DEVICE, "no display: %s", SDL_GetError());
  ui->opts = *o;
  ui->cmp = (tt_compare){o->compare, o->label_a ? o->label_a : "A", o->label_b ? o->label_b : "B"};
  ui->lay = calloc(1, sizeof *ui->lay);
  tt_status st = ui->lay ? TT_OK : tt_fail(err, TT_ERR_NOMEM, "out of memory");
  if (!st) st = tt_render_create(&ui->rc, err);
  if (!st) st = tt_derived_create(&ui->derived, err);
  if (!st) st = tt_viz_data_open(o->model_dir, tr, &ui->vd, err);
  if (!st && o->script && !tt_script_open(&ui->script, o->script, err)) st = err->status;
  if (!st) {
    SDL_SetHint(SDL_HINT_VIDEO_X11_NET_WM_BYPASS_COMPOSITOR, "0");
    ui->win = SDL_CreateWindow("ttrace", SDL_WINDOWPOS_CENTERED, SDL_WINDOWPOS_CENTERED, o->width > 0 ? o->width : 1280,
                               o->height > 0 ? o->height : 800, SDL_WINDOW_RESIZABLE | SDL_WINDOW_ALLOW_HIGHDPI);
    if (!ui->win) st = tt_fail(err, TT_ERR_DEVICE, "cannot open a window: %s", SDL_GetError());
  }
  if (!st) {
    ui->ren = SDL_CreateRenderer(ui->win, -1, SDL_RENDERER_ACCELERATED | SDL_RENDERER_PRESENTVSYNC);
    if (!ui->ren) ui->ren = SDL_CreateRenderer(ui->win, -1, SDL_RENDERER_SOFTWARE);
    if (!ui->ren) st = tt_fail(err, TT_ERR_DEVICE, "cannot draw in the window: %s", SDL_GetError());
  }
  if (!st) {
    SDL_SetWindowMinimumSize(ui->win, 640, 400);
    SDL_StopTextInput();  // only the prompt box takes text
    tt_view_state_init(&ui->vs);
    ui->vs.frame = true;
    ui->vs.lang = o->lang;
    ui->vs.theme = o->theme;
    ui->vs.playing = o->start_playing;
    ui->vs.font_scale = o->font_scale > 0 ? o->font_scale : 1;
    ui->next_play = SDL_GetTicks() + 3000;
    tt_view_goto_step(&ui->vs, tr, 0);
    tt_ui_set_trace(ui, tr);
    ui->dirty = true;
  }
  return st;
}

void tt_ui_loop(tt_ui *ui) {
  while (!ui->quit) {
    if (ui->dirty) draw(ui);
    SDL_Event e;
    if (ui->script.fp && !ui->script.done) tt_script_pump(ui);
    int wait_ms = ui->dirty ? 0 : ui->script.fp && !ui->script.done ? 10 : 100;  // dirty: a frame to finish
    if (SDL_WaitEventTimeout(&e, wait_ms)) {
      do tt_ui_handle(ui, &e);
      while (!ui->quit && SDL_PollEvent(&e));
    }
    if (ui->vs.playing && SDL_TICKS_PASSED(SDL_GetTicks(), ui->next_play)) {
      ui->next_play = SDL_GetTicks() + 3000;
      if (ui->vs.step + 1 >= tt_step_count_for(ui->tr))
        ui->vs.playing = false;
      else
        tt_ui_step(ui, 1);
    }
  }
}

void tt_ui_close(tt_ui *ui) {
  tt_script_close(&ui->script);
  if (ui->rc) tt_render_forget(ui->rc);
  if (ui->ren) SDL_DestroyRenderer(ui->ren);
  if (ui->win) SDL_DestroyWindow(ui->win);
  tt_render_destroy(ui->rc);
  tt_derived_destroy(ui->derived);
  tt_viz_data_close(ui->vd);
  tt_session_close(ui->sess);
  tt_ui_knobs_close(ui);
  tt_trace_destroy(ui->own);
  free(ui->lay);
  free(ui);
}

tt_status tt_ui_run(const tt_ui_opts *o, const tt_trace *tr, tt_error *err) {
  tt_ui *ui = calloc(1, sizeof *ui);
  if (!ui) return tt_fail(err, TT_ERR_NOMEM, "out of memory");
  tt_status st = tt_ui_open(ui, o, tr, err);
  if (!st) {
    tt_ui_loop(ui);
    if (o->state_out) st = tt_ui_write_state(ui, o->state_out, err);
  }
  tt_ui_close(ui);
  return st;
}
