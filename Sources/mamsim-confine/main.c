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
 * later beside DIR's ancestors are not reachable (a child has no need for them).
 */
#define _GNU_SOURCE
#ifdef __linux__
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/landlock.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

static int landlock_abi(void) {
  long v = syscall(SYS_landlock_create_ruleset, NULL, 0, LANDLOCK_CREATE_RULESET_VERSION);
  return v < 0 ? -errno : (int)v;
}

/* Every filesystem right the running kernel's ABI knows. */
static uint64_t all_fs_rights(int abi) {
  uint64_t r = LANDLOCK_ACCESS_FS_EXECUTE | LANDLOCK_ACCESS_FS_WRITE_FILE | LANDLOCK_ACCESS_FS_READ_FILE |
               LANDLOCK_ACCESS_FS_READ_DIR | LANDLOCK_ACCESS_FS_REMOVE_DIR | LANDLOCK_ACCESS_FS_REMOVE_FILE |
               LANDLOCK_ACCESS_FS_MAKE_CHAR | LANDLOCK_ACCESS_FS_MAKE_DIR | LANDLOCK_ACCESS_FS_MAKE_REG |
               LANDLOCK_ACCESS_FS_MAKE_SOCK | LANDLOCK_ACCESS_FS_MAKE_FIFO | LANDLOCK_ACCESS_FS_MAKE_BLOCK |
               LANDLOCK_ACCESS_FS_MAKE_SYM;
#ifdef LANDLOCK_ACCESS_FS_REFER
  if (abi >= 2) r |= LANDLOCK_ACCESS_FS_REFER;
#endif
#ifdef LANDLOCK_ACCESS_FS_TRUNCATE
  if (abi >= 3) r |= LANDLOCK_ACCESS_FS_TRUNCATE;
#endif
#ifdef LANDLOCK_ACCESS_FS_IOCTL_DEV
  if (abi >= 5) r |= LANDLOCK_ACCESS_FS_IOCTL_DEV;
#endif
  return r;
}

static const uint64_t READ_ONLY =
    LANDLOCK_ACCESS_FS_EXECUTE | LANDLOCK_ACCESS_FS_READ_FILE | LANDLOCK_ACCESS_FS_READ_DIR;

static void die(const char *what, const char *detail) {
  fprintf(stderr, "mamsim-confine: %s%s%s\n", what, detail ? ": " : "", detail ? detail : "");
  exit(126);
}

/* Grants `rights` beneath `path` (rights a file cannot have are dropped for files). */
static void allow(int ruleset, const char *path, uint64_t rights, uint64_t handled) {
  int fd = open(path, O_PATH | O_CLOEXEC);
  if (fd < 0) return; /* vanished between listing and opening: nothing to grant */
  struct landlock_path_beneath_attr attr = {.allowed_access = rights & handled, .parent_fd = fd};
  if (syscall(SYS_landlock_add_rule, ruleset, LANDLOCK_RULE_PATH_BENEATH, &attr, 0) != 0) {
    /* A file (not a directory) accepts only file rights. */
    attr.allowed_access &= LANDLOCK_ACCESS_FS_EXECUTE | LANDLOCK_ACCESS_FS_READ_FILE | LANDLOCK_ACCESS_FS_WRITE_FILE
#ifdef LANDLOCK_ACCESS_FS_TRUNCATE
                           | LANDLOCK_ACCESS_FS_TRUNCATE
#endif
#ifdef LANDLOCK_ACCESS_FS_IOCTL_DEV
                           | LANDLOCK_ACCESS_FS_IOCTL_DEV
#endif
        ;
    if (syscall(SYS_landlock_add_rule, ruleset, LANDLOCK_RULE_PATH_BENEATH, &attr, 0) != 0) {
      close(fd);
      die("cannot add a rule for", path);
    }
  }
  close(fd);
}

/* Grants read access to every entry of `dir` except `skip`. */
static void allow_siblings(int ruleset, const char *dir, const char *skip, uint64_t handled) {
  DIR *d = opendir(dir);
  if (!d) die("cannot list", dir);
  struct dirent *e;
  char path[4096];
  while ((e = readdir(d))) {
    if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..") || !strcmp(e->d_name, skip)) continue;
    snprintf(path, sizeof path, "%s%s%s", dir, strcmp(dir, "/") ? "/" : "", e->d_name);
    uint64_t rights = READ_ONLY;
    if (!strcmp(path, "/dev")) rights = all_fs_rights(99); /* /dev/null, /dev/tty, ptys */
    allow(ruleset, path, rights, handled);
  }
  closedir(d);
}

int main(int argc, char **argv) {
  int abi = landlock_abi();
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
  if (abi < 1) die("Landlock is not available", strerror(-abi));

  uint64_t handled = all_fs_rights(abi);
  struct landlock_ruleset_attr attr = {.handled_access_fs = handled};
  int ruleset = (int)syscall(SYS_landlock_create_ruleset, &attr, sizeof attr, 0);
  if (ruleset < 0) die("cannot create a Landlock ruleset", strerror(errno));

  /* Walk down the hidden directory's path, granting the siblings of each component. */
  char prefix[4096] = "/";
  char rest[4096];
  snprintf(rest, sizeof rest, "%s", hide + 1);
  char *save = NULL;
  for (char *part = strtok_r(rest, "/", &save); part; part = strtok_r(NULL, "/", &save)) {
    allow_siblings(ruleset, prefix, part, handled);
    size_t len = strlen(prefix);
    snprintf(prefix + len, sizeof prefix - len, "%s%s", len > 1 ? "/" : "", part);
  }
  for (int k = 0; k < n_allowed; k++) allow(ruleset, allowed[k], handled, handled);

  if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) die("cannot set no_new_privs", strerror(errno));
  if (syscall(SYS_landlock_restrict_self, ruleset, 0) != 0) die("cannot restrict itself", strerror(errno));
  close(ruleset);
  /* Only stdin, stdout, stderr and the channel (fd 3) go on to the program. */
  syscall(SYS_close_range, 4, ~0U, 0);
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
#else
/* Landlock is Linux's: elsewhere there is nothing to confine with, and the host says so. */
#include <stdio.h>
int main(void) {
  printf("Landlock is not available on this system\n");
  return 1;
}
#endif
