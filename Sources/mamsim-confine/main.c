/*
 * mamsim-confine: starts one simulated app in a default-deny sandbox (CConfine.h says what it
 * may use), then executes it with the sandbox in force for it and all it starts.
 *
 *   mamsim-confine --probe
 *       prints the kernel's Landlock ABI version and what confinement puts in force, e.g.
 *       "7 filesystem tcp signals abstract-unix device-ioctl", and exits 0; or says why not
 *       and exits 1.
 *   mamsim-confine [--read PATH]... [--write PATH]... [--memory BYTES] [--file-size BYTES]
 *                  [--open-files N] [--processes N] [--cgroup PROCS_FILE] -- PROGRAM [ARG]...
 *       each --read path (the program's own files, an interpreter) is readable and
 *       executable, each --write path (the app's container and app groups) fully usable;
 *       nothing else of the machine beyond the system's libraries. --cgroup joins the cgroup
 *       whose cgroup.procs file it names (the host made it, with a process limit).
 */
#define _GNU_SOURCE
#include <CConfine.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#ifdef __linux__
#include <sys/syscall.h>
#endif

#define MAX_PATHS 1024

static void die(const char *what, const char *detail) {
  fprintf(stderr, "mamsim-confine: %s%s%s\n", what, detail ? ": " : "", detail ? detail : "");
  exit(126);
}

static unsigned long long number(const char *text, const char *option) {
  char *end = NULL;
  errno = 0;
  unsigned long long v = strtoull(text, &end, 10);
  if (errno || !end || *end || text[0] == '-' || text[0] == '\0') die("not a number", option);
  return v;
}

int main(int argc, char **argv) {
  int abi = mamsim_landlock_abi();
  if (argc == 2 && !strcmp(argv[1], "--probe")) {
    if (abi < 1) {
      printf("Landlock is not available (%s)\n", strerror(-abi));
      return 1;
    }
    unsigned f = mamsim_confinement_features();
    printf("%d%s%s%s%s%s\n", abi, f & MAMSIM_CONFINE_FILESYSTEM ? " filesystem" : "", f & MAMSIM_CONFINE_TCP ? " tcp" : "",
           f & MAMSIM_CONFINE_SIGNALS ? " signals" : "", f & MAMSIM_CONFINE_ABSTRACT_UNIX ? " abstract-unix" : "",
           f & MAMSIM_CONFINE_DEVICE_IOCTL ? " device-ioctl" : "");
    return 0;
  }
  static const char *read[MAX_PATHS], *write[MAX_PATHS];
  int n_read = 0, n_write = 0, i = 1;
  struct mamsim_limits limits = {0, 0, 0, 0, NULL};
  for (; i < argc; i++) {
    if (!strcmp(argv[i], "--")) { i++; break; }
    if (i + 1 >= argc) die("this option needs a value", argv[i]);
    if (!strcmp(argv[i], "--read")) {
      if (n_read == MAX_PATHS) die("too many --read paths", NULL);
      read[n_read++] = argv[++i];
    } else if (!strcmp(argv[i], "--write")) {
      if (n_write == MAX_PATHS) die("too many --write paths", NULL);
      write[n_write++] = argv[++i];
    } else if (!strcmp(argv[i], "--memory")) limits.memory_bytes = number(argv[++i], "--memory");
    else if (!strcmp(argv[i], "--file-size")) limits.file_bytes = number(argv[++i], "--file-size");
    else if (!strcmp(argv[i], "--open-files")) limits.open_files = number(argv[++i], "--open-files");
    else if (!strcmp(argv[i], "--processes")) limits.processes = number(argv[++i], "--processes");
    else if (!strcmp(argv[i], "--cgroup")) limits.cgroup_procs = argv[++i];
    else die("unknown argument", argv[i]);
  }
  if (i >= argc) die("usage", "mamsim-confine [--read PATH]... [--write PATH]... -- PROGRAM [ARG]...");
  char error[4400];
  if (mamsim_confine(read, n_read, write, n_write, &limits, error, sizeof error) != 0) die(error, NULL);
#ifdef __linux__
  /* Only stdin, stdout, stderr and the channel (fd 3) go on to the program. */
  syscall(SYS_close_range, 4, ~0U, 0);
#endif
  /* ETXTBSY: the program was just written and another process forked while it was open for
     writing (a well-known race of exec after write); it clears as soon as that fd closes. */
  for (int attempt = 0; attempt < 100; attempt++) {
    execv(argv[i], argv + i);
    if (errno != ETXTBSY) break;
    usleep(10000);
  }
  char why[4200];
  snprintf(why, sizeof why, "%s (%s)", argv[i], strerror(errno));
  die("cannot execute", why);
  return 126;
}
