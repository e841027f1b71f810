// Preloaded into a Swift program run under valgrind 3.19 (scripts/bench-instructions).
//
// An `async` main ends in libdispatch's main-thread park, which calls sigsuspend with a mask
// that lies in read-only memory. valgrind 3.19 rewrites a sigsuspend mask in place (to keep
// its own signals out of it), so it faults on that page and aborts with "the 'impossible'
// happened" before the program runs. Suspending on a writable copy of the mask changes
// nothing for the program and lets valgrind do its rewrite.
#define _GNU_SOURCE
#include <signal.h>
#include <sys/syscall.h>
#include <unistd.h>

int sigsuspend(const sigset_t *mask) {
    sigset_t copy = *mask;
    return (int)syscall(SYS_rt_sigsuspend, &copy, (size_t)(_NSIG / 8));
}
