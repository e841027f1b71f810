/*
 * mamsim-confine: starts one simulated app under a Landlock ruleset, so it can read and
 * write its own container and app groups and nothing else of the device directory.
 *
 *   mamsim-confine --probe
 *       prints the kernel's Landlock ABI version and exits 0, or says why not and exits 1.
 *   mamsim-confine --hide DIR [--allow DIR]... -- PROGRAM [ARG]...
 *       everything on the machine stays readable and executable except DIR; each --allow
 *       directory (inside DIR) is fully usable; /dev stays writable (/dev/null, ptys).
 *       Then PROGRAM is executed with the ruleset in force, for it and all it starts.
 *
 * Landlock only adds rights beneath the directories it is given, so "everything but DIR" is
 * built by granting each sibling along DIR's path: the entries of "/" except DIR's first
 * component, the entries of that component except the next one, and so on. Entries created
 * later beside DIR's ancestors are not reachable (a child has no need for them). The ruleset
 * is built by CConfine, which the built-in runtime also calls on itself.
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

static void die(const char *what, const char *detail) {
  fprintf(stderr, "mamsim-confine: %s%s%s\n", what, detail ? ": " : "", detail ? detail : "");
  exit(126);
}

int main(int argc, char **argv) {
  int abi = mamsim_landlock_abi();
  if (argc == 2 && !strcmp(argv[1], "--probe")) {
    if (abi < 1) {
      printf("Landlock is not available (%s)\n", strerror(-abi));
      return 1;
    }
    printf("%d\n", abi);
    return 0;
  }
  const char *hide = NULL;
  const char *allowed[256];
  int n_allowed = 0, i = 1;
  for (; i < argc; i++) {
    if (!strcmp(argv[i], "--")) { i++; break; }
    if (!strcmp(argv[i], "--hide") && i + 1 < argc) { hide = argv[++i]; continue; }
    if (!strcmp(argv[i], "--allow") && i + 1 < argc && n_allowed < 256) { allowed[n_allowed++] = argv[++i]; continue; }
    die("unknown argument", argv[i]);
  }
  if (!hide || i >= argc || hide[0] != '/') die("usage", "mamsim-confine --hide /ABS/DIR [--allow DIR]... -- PROGRAM [ARG]...");
  char error[4400];
  if (mamsim_confine(hide, allowed, n_allowed, error, sizeof error) != 0) die(error, NULL);
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
