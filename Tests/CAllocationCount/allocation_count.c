// Counts heap allocations, per thread and per process: malloc and friends are defined here, so
// the executable that links this file (or a process that preloads it as a shared object,
// scripts/bench-allocations) interposes them for every library it loads; they forward to
// glibc's own entry points. Only the counts are added; the allocator is glibc's. Linux only.
#define _GNU_SOURCE
#include <errno.h>
#include <stddef.h>
#include <stdint.h>

#include "allocation_count.h"

#if defined(__linux__) && defined(__GLIBC__)
int mamsim_allocations_counted(void) { return 1; }

extern void *__libc_malloc(size_t);
extern void *__libc_calloc(size_t, size_t);
extern void *__libc_realloc(void *, size_t);
extern void *__libc_memalign(size_t, size_t);
extern void __libc_free(void *);

static __thread uint64_t allocations __attribute__((tls_model("initial-exec")));
static uint64_t process_allocations;

uint64_t mamsim_allocations(void) { return allocations; }
uint64_t mamsim_process_allocations(void) { return __atomic_load_n(&process_allocations, __ATOMIC_RELAXED); }

static inline void counted(void) {
    allocations++;
    __atomic_fetch_add(&process_allocations, 1, __ATOMIC_RELAXED);
}

void *malloc(size_t n) { counted(); return __libc_malloc(n); }
void *calloc(size_t n, size_t m) { counted(); return __libc_calloc(n, m); }
void *realloc(void *p, size_t n) { counted(); return __libc_realloc(p, n); }
void free(void *p) { __libc_free(p); }
void *memalign(size_t a, size_t n) { counted(); return __libc_memalign(a, n); }
void *aligned_alloc(size_t a, size_t n) { counted(); return __libc_memalign(a, n); }
int posix_memalign(void **out, size_t a, size_t n) {
    if (a < sizeof(void *) || (a & (a - 1)) != 0) return EINVAL;
    counted();
    void *p = __libc_memalign(a, n);
    if (p == NULL) return ENOMEM;
    *out = p;
    return 0;
}
#else
// Elsewhere the allocator is not interposed and nothing is counted.
int mamsim_allocations_counted(void) { return 0; }
uint64_t mamsim_allocations(void) { return 0; }
uint64_t mamsim_process_allocations(void) { return 0; }
#endif
