/* Host stages over the host's cores: a team of threads that runs a loop's independent items
 * (the GHT's fits and confidences, PClines' line fits). Each item writes only its own
 * output, so the results are the same whatever the team's size and order; a caller that
 * needs scratch keeps one per worker (team.workers of them, worker 0 being the caller's own
 * thread). The helpers are a pool of threads the library keeps parked between runs (made
 * when a run first needs them, joined when the library is unloaded or the process exits); a
 * run waits for the helpers that joined it before it returns, and a helper that cannot be
 * made leaves its share to the others. */
#ifndef VOTECL_PARALLEL_H
#define VOTECL_PARALLEL_H

#include <stddef.h>

#include <votecl.h>

/* Runs items [begin, end) on worker (below team.workers); a status other than VOTECL_OK stops
 * the run (the items not started are not run) and is the run's result. */
typedef votecl_status (*votecl__team_fn)(void *user, size_t begin, size_t end, unsigned worker);

typedef struct votecl__team {
    unsigned workers;  /* the caller's thread and the helpers reserved, at least 1 */
    size_t n, grain;   /* items and items a claim */
    unsigned reserved; /* helpers taken from the process's budget (votecl__team_close) */
} votecl__team;

/* A team for n items in claims of grain (at least 1) under a context's host_threads
 * (votecl__host_threads): at most one worker a claim. host_threads 0 draws helpers from a
 * budget the process shares, the host's online cores less one (so that a batch's contexts,
 * each in its own thread, do not oversubscribe the host), a set figure takes that many
 * whatever the host (tests and measurements). Always succeeds (1 worker at worst). */
void votecl__team_open(votecl__team *team, unsigned host_threads, size_t n, size_t grain);
/* Runs fn over the team's items and closes it. */
votecl_status votecl__team_run(votecl__team *team, votecl__team_fn fn, void *user);
/* Gives the team's helpers back (for a caller that stops before running it); idempotent. */
void votecl__team_close(votecl__team *team);

/* The host's online cores (at least 1). */
unsigned votecl__host_cores(void);

#endif
