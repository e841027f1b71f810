/*
 * Landlock confinement of one simulated app, shared by the launcher (mamsim-confine, which
 * then executes the app) and the built-in runtime (mamsim-app, which confines itself before
 * it reads its channel, saving an exec per app). See mamsim-confine/main.c for the rules.
 */
#define _GNU_SOURCE
#include "CConfine.h"
#ifdef __linux__
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <linux/landlock.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

int mamsim_landlock_abi(void) {
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

static int fail(char *error, size_t size, const char *what, const char *detail) {
  if (error && size) snprintf(error, size, "%s%s%s", what, detail ? ": " : "", detail ? detail : "");
  return -1;
}

/* Grants `rights` beneath `path` (rights a file cannot have are dropped for files). */
static int allow(int ruleset, const char *path, uint64_t rights, uint64_t handled, char *error, size_t size) {
  int fd = open(path, O_PATH | O_CLOEXEC);
  if (fd < 0) return 0; /* vanished between listing and opening: nothing to grant */
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
      /* A name that leads to a pipe or a socket (/dev/stderr when stderr is a pipe, a link
         into /proc/self/fd) can hold no rule: it is left out, so it stays denied. */
      struct stat st;
      if (fstat(fd, &st) == 0 && (S_ISFIFO(st.st_mode) || S_ISSOCK(st.st_mode))) {
        close(fd);
        return 0;
      }
      close(fd);
      return fail(error, size, "cannot add a rule for", path);
    }
  }
  close(fd);
  return 0;
}

/* Grants read access to every entry of `dir` except `skip`. */
static int allow_siblings(int ruleset, const char *dir, const char *skip, uint64_t handled, char *error, size_t size) {
  DIR *d = opendir(dir);
  if (!d) return fail(error, size, "cannot list", dir);
  struct dirent *e;
  char path[4096];
  while ((e = readdir(d))) {
    if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..") || !strcmp(e->d_name, skip)) continue;
    snprintf(path, sizeof path, "%s%s%s", dir, strcmp(dir, "/") ? "/" : "", e->d_name);
    uint64_t rights = READ_ONLY;
    /* /dev/null, /dev/tty, ptys: all of /dev as before when the hidden directory is under it
       (a device in /dev/shm), where /dev is walked through instead of granted whole. */
    if (!strcmp(path, "/dev") || !strncmp(path, "/dev/", 5)) rights = all_fs_rights(99);
    if (allow(ruleset, path, rights, handled, error, size) != 0) {
      closedir(d);
      return -1;
    }
  }
  closedir(d);
  return 0;
}

int mamsim_confine(const char *hide, const char *const *allowed, int count, char *error, size_t size) {
  if (!hide || hide[0] != '/') return fail(error, size, "the hidden directory must be an absolute path", hide);
  int abi = mamsim_landlock_abi();
  if (abi < 1) return fail(error, size, "Landlock is not available", strerror(-abi));
  uint64_t handled = all_fs_rights(abi);
  struct landlock_ruleset_attr attr = {.handled_access_fs = handled};
  int ruleset = (int)syscall(SYS_landlock_create_ruleset, &attr, sizeof attr, 0);
  if (ruleset < 0) return fail(error, size, "cannot create a Landlock ruleset", strerror(errno));

  /* Walk down the hidden directory's path, granting the siblings of each component. */
  char prefix[4096] = "/";
  char rest[4096];
  snprintf(rest, sizeof rest, "%s", hide + 1);
  char *save = NULL;
  for (char *part = strtok_r(rest, "/", &save); part; part = strtok_r(NULL, "/", &save)) {
    if (allow_siblings(ruleset, prefix, part, handled, error, size) != 0) { close(ruleset); return -1; }
    size_t len = strlen(prefix);
    snprintf(prefix + len, sizeof prefix - len, "%s%s", len > 1 ? "/" : "", part);
  }
  for (int k = 0; k < count; k++) {
    if (allow(ruleset, allowed[k], handled, handled, error, size) != 0) { close(ruleset); return -1; }
  }
  if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) { close(ruleset); return fail(error, size, "cannot set no_new_privs", strerror(errno)); }
  if (syscall(SYS_landlock_restrict_self, ruleset, 0) != 0) { close(ruleset); return fail(error, size, "cannot restrict itself", strerror(errno)); }
  close(ruleset);
  return 0;
}
#else
#include <stdio.h>
int mamsim_landlock_abi(void) { return -38; /* ENOSYS */ }
int mamsim_confine(const char *hide, const char *const *allowed, int count, char *error, size_t size) {
  (void)hide; (void)allowed; (void)count;
  if (error && size) snprintf(error, size, "Landlock is not available on this system");
  return -1;
}
#endif
