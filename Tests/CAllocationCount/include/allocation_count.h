#ifndef MAMSIM_ALLOCATION_COUNT_H
#define MAMSIM_ALLOCATION_COUNT_H
#include <stdint.h>

// The heap allocations (malloc, calloc, realloc and the aligned forms) the calling thread has
// made since it started. Linked into an executable, allocation_count.c interposes the
// allocator for the whole process; the count is the only thing it adds.
uint64_t mamsim_allocations(void);

// The heap allocations of every thread of the process so far.
uint64_t mamsim_process_allocations(void);

// 1 where the allocator is interposed (Linux with glibc), 0 where nothing is counted.
int mamsim_allocations_counted(void);

#endif
