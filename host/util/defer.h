/*
 * defer.h - run a function on the loop's next turn.
 *
 * For a function that takes a callback and knows its result at once: the
 * callback contract (docs/architecture.md) says a completion callback never
 * runs before the function that started the work has returned, so such a
 * result is handed over through the loop.
 */
#ifndef SBX_DEFER_H
#define SBX_DEFER_H

#include <uv.h>

/* fn(arg) runs exactly once from the loop, unless this returns -ENOMEM
 * (then it never runs). */
int defer_call(uv_loop_t *loop, void (*fn)(void *arg), void *arg);

#endif
