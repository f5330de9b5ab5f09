// atomic: write a file so that it appears complete or not at all, whatever interrupts it.
//
// On Linux the data goes to an unnamed file (O_TMPFILE) in the target's folder: until the
// commit it has no name, so SIGINT, SIGTERM, SIGKILL or a crash leave nothing behind. The
// commit links it in through /proc/self/fd/N (linkat with AT_SYMLINK_FOLLOW: the kernel
// resolves the descriptor itself, no path is looked up twice). linkat never replaces a
// name, so a new file is linked straight to its name; an existing one gets a short random
// name first (retried on EEXIST, so no one else's file is ever taken) and is then renamed
// over the target, which is atomic. Only a SIGKILL between those two calls (a few
// microseconds, with SIGINT/SIGTERM/SIGHUP blocked) could leave that name behind.
//
// Elsewhere (no O_TMPFILE, a filesystem without it, no /proc) a named temporary file is
// used and a handler for SIGINT, SIGTERM and SIGHUP removes it before the signal takes
// its default course. Temporary names are short (".ttrace-" + 12 characters) in the
// target's folder, so a target name of 255 bytes still works.
//
// Only regular files are replaced (a symlink to one: the file it points to); a directory,
// FIFO, device or socket is refused. The target keeps its mode; a new file gets 0666 & ~umask.
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "core.h"

const char *tt_file_kind(mode_t mode) {
  if (S_ISREG(mode)) return "a regular file";
  if (S_ISDIR(mode)) return "a directory";
  if (S_ISFIFO(mode)) return "a FIFO";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  if (S_ISSOCK(mode)) return "a socket";
  return "not a regular file";
}

// ---- the named fallback: temporary paths a signal handler removes --------------------
// A signal handler can only reach file-scope state, hence this one table (the process's
// pending temporary files; changed only with the signals blocked).
#define MAX_PENDING 16
static const char *volatile pending[MAX_PENDING];
static const int cleanup_signals[] = {SIGINT, SIGTERM, SIGHUP};
static struct sigaction saved_actions[3];
static bool handlers_installed;

static void remove_pending_and_reraise(int sig) {
  for (int i = 0; i < MAX_PENDING; i++)
    if (pending[i]) unlink(pending[i]);
  signal(sig, SIG_DFL);
  raise(sig);
}

static void block_signals(sigset_t *old) {
  sigset_t set;
  sigemptyset(&set);
  for (size_t i = 0; i < 3; i++) sigaddset(&set, cleanup_signals[i]);
  sigprocmask(SIG_BLOCK, &set, old);
}

static void track_pending(const char *path, bool add) {
  sigset_t old;
  block_signals(&old);
  int used = 0;
  for (int i = 0; i < MAX_PENDING; i++) {
    if (add && !pending[i] && path)
      pending[i] = path, path = NULL;
    else if (!add && pending[i] == path)
      pending[i] = NULL;
    used += pending[i] != NULL;
  }
  if (used && !handlers_installed) {
    for (size_t i = 0; i < 3; i++) {
      struct sigaction sa = {0};
      sa.sa_handler = remove_pending_and_reraise;
      sigemptyset(&sa.sa_mask);
      sigaction(cleanup_signals[i], NULL, &saved_actions[i]);
      if (saved_actions[i].sa_handler != SIG_IGN) sigaction(cleanup_signals[i], &sa, NULL);
    }
    handlers_installed = true;
  } else if (!used && handlers_installed) {
    for (size_t i = 0; i < 3; i++) sigaction(cleanup_signals[i], &saved_actions[i], NULL);
    handlers_installed = false;
  }
  sigprocmask(SIG_SETMASK, &old, NULL);
}

// ---- the target ------------------------------------------------------------------
// Resolves af->path to the file to replace; *mode is its mode, or -1 for a new file.
static tt_status check_target(tt_atomic_file *af, const char *path, long *mode, tt_error *err) {
  struct stat st, lst;
  *mode = -1;
  if (stat(path, &st) != 0) {
    if (errno != ENOENT) return tt_fail(err, TT_ERR_IO, "cannot write %s: %s", path, strerror(errno));
    if (lstat(path, &lst) == 0)
      return tt_fail(err, TT_ERR_IO, "cannot write %s: it is a symbolic link to nothing", path);
    af->path = strdup(path);
    return af->path ? TT_OK : tt_fail(err, TT_ERR_NOMEM, "out of memory");
  }
  if (!S_ISREG(st.st_mode))
    return tt_fail(err, TT_ERR_IO, "cannot write %s: it is %s, not a regular file", path, tt_file_kind(st.st_mode));
  *mode = (long)(st.st_mode & 07777);
  bool link = lstat(path, &lst) == 0 && S_ISLNK(lst.st_mode);
  af->path = link ? realpath(path, NULL) : strdup(path);
  if (!af->path) return tt_fail(err, TT_ERR_IO, "cannot write %s: %s", path, strerror(errno));
  return TT_OK;
}

// The folder of af->path ("." for a bare name) into af->dir.
static tt_status target_dir(tt_atomic_file *af, tt_error *err) {
  const char *slash = strrchr(af->path, '/');
  size_t n = slash ? (size_t)(slash - af->path) : 1;
  af->dir = malloc(n + 2);
  if (!af->dir) return tt_fail(err, TT_ERR_NOMEM, "out of memory");
  if (!slash)
    strcpy(af->dir, ".");
  else if (n == 0)
    strcpy(af->dir, "/");
  else
    memcpy(af->dir, af->path, n), af->dir[n] = 0;
  return TT_OK;
}

// dir + "/.ttrace-" + 12 characters from the clock, the pid and a counter, into a new string.
static char *temp_name(const char *dir, unsigned attempt) {
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  unsigned long long x = ((unsigned long long)ts.tv_nsec << 20) ^ ((unsigned long long)getpid() << 40) ^
                         (unsigned long long)ts.tv_sec ^ ((unsigned long long)attempt * 0x9E3779B97F4A7C15ull);
  static const char digits[] = "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ";
  char suffix[13];
  for (int i = 0; i < 12; i++, x /= 62) suffix[i] = digits[x % 62];
  suffix[12] = 0;
  size_t len = strlen(dir) + 24;
  char *s = malloc(len);
  if (s) snprintf(s, len, "%s/.ttrace-%s", dir, suffix);
  return s;
}

static mode_t current_umask(void) {
  mode_t m = umask(022);
  umask(m);
  return m;
}

// Opens an unnamed file in af->dir; -1 when this system or filesystem has none.
static int open_unnamed(const tt_atomic_file *af) {
#ifdef O_TMPFILE
  if (getenv("TTRACE_NO_O_TMPFILE") || access("/proc/self/fd", X_OK) != 0) return -1;
  return open(af->dir, O_TMPFILE | O_WRONLY | O_CLOEXEC, 0666);
#else
  (void)af;
  return -1;
#endif
}

static int open_named(tt_atomic_file *af) {
  for (unsigned attempt = 0; attempt < 100; attempt++) {
    af->tmp_path = temp_name(af->dir, attempt);
    if (!af->tmp_path) return -1;
    int fd = open(af->tmp_path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    if (fd >= 0) {
      track_pending(af->tmp_path, true);
      return fd;
    }
    free(af->tmp_path);
    af->tmp_path = NULL;
    if (errno != EEXIST) return -1;
  }
  return -1;
}

tt_status tt_atomic_open(tt_atomic_file *af, const char *path, tt_error *err) {
  memset(af, 0, sizeof *af);
  long mode;
  tt_status st = check_target(af, path, &mode, err);
  if (!st) st = target_dir(af, err);
  if (st) {
    tt_atomic_abort(af);
    return st;
  }
  int fd = open_unnamed(af);
  if (fd < 0) fd = open_named(af);
  if (fd < 0) {
    st = tt_fail(err, TT_ERR_IO, "cannot write %s: %s", path, strerror(errno));
    tt_atomic_abort(af);
    return st;
  }
  fchmod(fd, mode >= 0 ? (mode_t)mode : 0666 & ~current_umask());
  af->fp = fdopen(fd, "wb");
  if (!af->fp) {
    close(fd);
    tt_atomic_abort(af);
    return tt_fail(err, TT_ERR_NOMEM, "cannot write %s: out of memory", path);
  }
  return TT_OK;
}

// Gives the unnamed file af->fp the name af->path; errno set on failure.
static bool link_unnamed(tt_atomic_file *af) {
  char proc[64];
  snprintf(proc, sizeof proc, "/proc/self/fd/%d", fileno(af->fp));
  if (linkat(AT_FDCWD, proc, AT_FDCWD, af->path, AT_SYMLINK_FOLLOW) == 0) return true;
  if (errno != EEXIST) return false;
  sigset_t old;
  block_signals(&old);
  bool ok = false;
  for (unsigned attempt = 0; attempt < 100; attempt++) {
    char *tmp = temp_name(af->dir, attempt);
    if (!tmp) break;
    if (linkat(AT_FDCWD, proc, AT_FDCWD, tmp, AT_SYMLINK_FOLLOW) == 0) {
      ok = rename(tmp, af->path) == 0;
      int saved = errno;
      if (!ok) unlink(tmp);
      errno = saved;
      free(tmp);
      break;
    }
    free(tmp);
    if (errno != EEXIST) break;
  }
  int saved = errno;
  sigprocmask(SIG_SETMASK, &old, NULL);
  errno = saved;
  return ok;
}

// The target may have changed since the open: still only a regular file is replaced.
static bool target_still_replaceable(const tt_atomic_file *af, tt_error *err) {
  struct stat st;
  if (lstat(af->path, &st) != 0 || S_ISREG(st.st_mode)) return true;
  tt_fail(err, TT_ERR_IO, "cannot write %s: it is now %s, not a regular file", af->path, tt_file_kind(st.st_mode));
  return false;
}

tt_status tt_atomic_commit(tt_atomic_file *af, tt_error *err) {
  bool ok = fflush(af->fp) == 0 && !ferror(af->fp) && fsync(fileno(af->fp)) == 0;
  int saved = errno;
  if (!target_still_replaceable(af, err)) {
    tt_atomic_abort(af);
    return TT_ERR_IO;
  }
  if (ok) {
    ok = af->tmp_path ? rename(af->tmp_path, af->path) == 0 : link_unnamed(af);
    saved = errno;
  }
  ok = (fclose(af->fp) == 0) && ok;
  af->fp = NULL;
  if (!ok) {
    tt_status st = tt_fail(err, TT_ERR_IO, "cannot write %s: %s", af->path, strerror(saved));
    tt_atomic_abort(af);
    return st;
  }
  if (af->tmp_path) track_pending(af->tmp_path, false);
  free(af->tmp_path);
  af->tmp_path = NULL;
  tt_atomic_abort(af);
  return TT_OK;
}

void tt_atomic_abort(tt_atomic_file *af) {
  if (af->fp) fclose(af->fp);
  if (af->tmp_path) {
    unlink(af->tmp_path);
    track_pending(af->tmp_path, false);
  }
  free(af->tmp_path);
  free(af->path);
  free(af->dir);
  memset(af, 0, sizeof *af);
}
