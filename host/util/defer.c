/*
 * defer.c - run a function on the loop's next turn (defer.h).
 */
#include "defer.h"

#include <errno.h>
#include <stdlib.h>

struct deferred {
	uv_timer_t timer; /* embedded: freed in its close callback */
	void (*fn)(void *arg);
	void *arg;
};

static void closed_cb(uv_handle_t *h)
{
	free(h->data);
}

static void fire_cb(uv_timer_t *t)
{
	struct deferred *d = t->data;

	d->fn(d->arg);
	uv_close((uv_handle_t *)&d->timer, closed_cb);
}

int defer_call(uv_loop_t *loop, void (*fn)(void *arg), void *arg)
{
	struct deferred *d = malloc(sizeof(*d));

	if (!d)
		return -ENOMEM;
	d->fn = fn;
	d->arg = arg;
	uv_timer_init(loop, &d->timer);
	d->timer.data = d;
	uv_timer_start(&d->timer, fire_cb, 0, 0);
	return 0;
}
