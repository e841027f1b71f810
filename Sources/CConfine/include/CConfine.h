#ifndef MAMSIM_CCONFINE_H
#define MAMSIM_CCONFINE_H
#include <stddef.h>

/* The kernel's Landlock ABI version, or a negative errno when it has none. */
int mamsim_landlock_abi(void);

/* Restricts the calling process (and all it starts) to reading and executing the machine
   except `hide`, and to full use of each `allowed` directory inside it (and /dev). Returns 0,
   or -1 with the reason in `error`. */
int mamsim_confine(const char *hide, const char *const *allowed, int count, char *error, size_t size);

#endif
