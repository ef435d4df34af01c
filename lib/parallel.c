/* A team of host threads over a loop's items (parallel.h). */
#include "votecl-private.h"

#include "parallel.h"

#include <pthread.h>
#include <stdatomic.h>
#include <unistd.h>

#define TEAM_MAX 64 /* helpers a run makes at most: the host stages' items are a few hundred */

unsigned
votecl__host_cores(void)
{
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    return cores > 1 ? (unsigned)(cores < 1024 ? cores : 1024) : 1;
}

/* Helpers the process may still start under host_threads 0: the cores less one, less those
 * running now; -1 until first asked. */
static _Atomic int spare = -1;

static unsigned
reserve(unsigned want)
{
    int have = atomic_load(&spare), take;

    if (have < 0) {
        int cores = (int)votecl__host_cores() - 1, unset = -1;
        atomic_compare_exchange_strong(&spare, &unset, cores);
        have = atomic_load(&spare);
    }
    do {
        take = have < (int)want ? have : (int)want;
        if (take <= 0)
            return 0;
    } while (!atomic_compare_exchange_weak(&spare, &have, have - take));
    return (unsigned)take;
}

void
votecl__team_open(votecl__team *team, unsigned host_threads, size_t n, size_t grain)
{
    size_t claims, want;

    team->n = n;
    team->grain = grain > 0 ? grain : 1;
    team->reserved = 0;
    claims = n / team->grain + (n % team->grain != 0);
    want = host_threads > 0 ? host_threads - 1u : votecl__host_cores() - 1u;
    want = want < TEAM_MAX ? want : TEAM_MAX;
    if (claims <= 1)
        want = 0;
    else if (want > claims - 1)
        want = claims - 1;
    if (host_threads == 0)
        want = team->reserved = reserve((unsigned)want);
    team->workers = 1u + (unsigned)want;
}

void
votecl__team_close(votecl__team *team)
{
    if (team->reserved > 0)
        atomic_fetch_add(&spare, (int)team->reserved);
    team->reserved = 0;
}

typedef struct {
    const votecl__team *team;
    votecl__team_fn fn;
    void *user;
    _Atomic size_t next;                /* the next claim's first item */
    _Atomic int failed;                 /* a worker's status was not OK: no more claims */
    votecl_status status[1 + TEAM_MAX]; /* per worker */
} run_state;

typedef struct {
    run_state *run;
    unsigned worker;
} worker_arg;

/* Claims items until none are left or a worker failed. */
static void *
work(void *p)
{
    worker_arg *a = p;
    run_state *r = a->run;
    size_t n = r->team->n, grain = r->team->grain;

    while (!atomic_load(&r->failed)) {
        size_t begin = atomic_fetch_add(&r->next, grain);
        votecl_status st;
        if (begin >= n)
            break;
        st = r->fn(r->user, begin, n - begin < grain ? n : begin + grain, a->worker);
        if (st != VOTECL_OK) {
            r->status[a->worker] = st;
            atomic_store(&r->failed, 1);
        }
    }
    return NULL;
}

votecl_status
votecl__team_run(votecl__team *team, votecl__team_fn fn, void *user)
{
    run_state state = {0}, *r = &state;
    pthread_t threads[TEAM_MAX];
    worker_arg args[1 + TEAM_MAX];
    unsigned made = 0;
    votecl_status status = VOTECL_OK;

    r->team = team;
    r->fn = fn;
    r->user = user;
    atomic_init(&r->next, 0);
    atomic_init(&r->failed, 0);
    for (unsigned w = 0; w < team->workers; w++)
        args[w] = (worker_arg){r, w};
    /* helper w runs as worker w; one that cannot be made leaves its claims to the others */
    for (unsigned w = 1; w < team->workers; w++)
        if (pthread_create(&threads[made], NULL, work, &args[made + 1]) == 0)
            made++;
    work(&args[0]);
    for (unsigned t = 0; t < made; t++)
        pthread_join(threads[t], NULL);
    for (unsigned w = 0; w <= made && status == VOTECL_OK; w++)
        status = r->status[w];
    votecl__team_close(team);
    return status;
}
