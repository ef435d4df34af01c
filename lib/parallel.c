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

/* Claims items of r as worker until none are left or a worker failed. */
static void
work(run_state *r, unsigned worker)
{
    size_t n = r->team->n, grain = r->team->grain;

    while (!atomic_load(&r->failed)) {
        size_t begin = atomic_fetch_add(&r->next, grain);
        votecl_status st;
        if (begin >= n)
            break;
        st = r->fn(r->user, begin, n - begin < grain ? n : begin + grain, worker);
        if (st != VOTECL_OK) {
            r->status[worker] = st;
            atomic_store(&r->failed, 1);
        }
    }
}

/* --- the pool: helper threads kept parked between runs (making 15 threads cost 0.16-0.33 ms
 * a run on a loaded 2-core host, more than a small stage's work), joined when the library is
 * unloaded or the process exits, and forgotten in a forked child (which has none of them) --- */

/* A run's offer to the pool: up to slots helpers, worker indices 1..slots in the order taken. */
typedef struct job {
    struct job *next; /* the pool's list of jobs with slots left */
    run_state *run;
    unsigned slots, taken, finished;
    int closed; /* the run stopped offering: no more takers */
} job;

static pthread_mutex_t pool_mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t pool_wake = PTHREAD_COND_INITIALIZER; /* a job offered, or stop */
static pthread_cond_t pool_done = PTHREAD_COND_INITIALIZER; /* a closed job's taker finished */
static job *pool_jobs;
static pthread_t pool_ids[TEAM_MAX];
static unsigned pool_threads, pool_busy;
static int pool_stop;
static pthread_once_t pool_once = PTHREAD_ONCE_INIT;

/* Unlinks j from the list of jobs with slots left (the lock held). */
static void
pool_unlink(job *j)
{
    for (job **p = &pool_jobs; *p != NULL; p = &(*p)->next)
        if (*p == j) {
            *p = j->next;
            return;
        }
}

static void *
pool_main(void *unused)
{
    (void)unused;
    pthread_mutex_lock(&pool_mu);
    for (;;) {
        job *j;
        unsigned worker;
        while (!pool_stop && pool_jobs == NULL)
            pthread_cond_wait(&pool_wake, &pool_mu);
        if (pool_stop)
            break;
        j = pool_jobs;
        worker = ++j->taken;
        if (j->taken == j->slots)
            pool_unlink(j);
        pool_busy++;
        pthread_mutex_unlock(&pool_mu);
        work(j->run, worker);
        pthread_mutex_lock(&pool_mu);
        pool_busy--;
        if (++j->finished == j->taken && j->closed)
            pthread_cond_broadcast(&pool_done);
    }
    pthread_mutex_unlock(&pool_mu);
    return NULL;
}

/* The child of a fork has the pool's memory but none of its threads (and the lock may have
 * been held by one of them): a pool of its own starts from nothing. */
static void
pool_forked(void)
{
    pthread_mutex_init(&pool_mu, NULL);
    pthread_cond_init(&pool_wake, NULL);
    pthread_cond_init(&pool_done, NULL);
    pool_jobs = NULL;
    pool_threads = pool_busy = 0;
    pool_stop = 0;
}

static void
pool_register(void)
{
    pthread_atfork(NULL, NULL, pool_forked);
}

__attribute__((destructor)) static void
pool_end(void)
{
    unsigned n;

    pthread_mutex_lock(&pool_mu);
    pool_stop = 1;
    n = pool_threads;
    pthread_cond_broadcast(&pool_wake);
    pthread_mutex_unlock(&pool_mu);
    for (unsigned t = 0; t < n; t++)
        pthread_join(pool_ids[t], NULL);
}

/* Offers j (the lock held): threads made while fewer than its slots are idle, up to
 * TEAM_MAX in all; one that cannot be made leaves its claims to the others. */
static void
pool_offer(job *j)
{
    unsigned idle = pool_threads - pool_busy;

    while (idle < j->slots && pool_threads < TEAM_MAX && !pool_stop &&
           pthread_create(&pool_ids[pool_threads], NULL, pool_main, NULL) == 0) {
        pool_threads++;
        idle++;
    }
    j->next = pool_jobs;
    pool_jobs = j;
    pthread_cond_broadcast(&pool_wake);
}

votecl_status
votecl__team_run(votecl__team *team, votecl__team_fn fn, void *user)
{
    run_state state = {0}, *r = &state;
    job j = {NULL, r, team->workers - 1, 0, 0, 0};
    votecl_status status = VOTECL_OK;

    r->team = team;
    r->fn = fn;
    r->user = user;
    atomic_init(&r->next, 0);
    atomic_init(&r->failed, 0);
    if (j.slots > 0) {
        pthread_once(&pool_once, pool_register);
        pthread_mutex_lock(&pool_mu);
        pool_offer(&j);
        pthread_mutex_unlock(&pool_mu);
    }
    work(r, 0);
    if (j.slots > 0) { /* no more takers; those that took a slot finish their claims */
        pthread_mutex_lock(&pool_mu);
        pool_unlink(&j);
        j.closed = 1;
        while (j.finished < j.taken)
            pthread_cond_wait(&pool_done, &pool_mu);
        pthread_mutex_unlock(&pool_mu);
    }
    for (unsigned w = 0; w < team->workers && status == VOTECL_OK; w++)
        status = r->status[w];
    votecl__team_close(team);
    return status;
}
