/* Fault injection (lib/fault.h): one counter per kind of event, C11 atomics so that threads
 * count without a lock. The armed event fails once; the count goes on, so a sweep over
 * k = 1, 2, ... fails each event of a call in turn until the call no longer reaches the k-th.
 *
 * VOTECL_FAULT ("kind:K", several separated by commas, e.g. "alloc:12" or "read:1") arms the
 * process once, at its first counted event. This is the one environment variable read outside
 * context.c: the hook exists only in debug builds and must reach allocations made before any
 * context. */
#include "votecl-private.h"

#include "fault.h"

#include <stdlib.h>
#include <string.h>

static const char *const kind_names[VOTECL__FAULT_NKINDS] = {"alloc", "device-alloc", "build",
                                                             "read", "launch"};

const char *
votecl__fault_kind_name(votecl__fault_kind kind)
{
    return (unsigned)kind < VOTECL__FAULT_NKINDS ? kind_names[kind] : NULL;
}

#ifdef VOTECL_FAULT_INJECTION

#include <pthread.h>
#include <stdatomic.h>

static atomic_ulong counts[VOTECL__FAULT_NKINDS];
static atomic_ulong targets[VOTECL__FAULT_NKINDS];
static atomic_int fired;
static pthread_once_t env_once = PTHREAD_ONCE_INIT;

/* "kind:K[,kind:K...]"; malformed entries are ignored (a debug hook must not fail calls). */
static void
read_environment(void)
{
    const char *p = getenv("VOTECL_FAULT");

    while (p != NULL && *p != '\0') {
        const char *colon = strchr(p, ':');
        const char *comma = strchr(p, ',');
        if (colon == NULL || (comma != NULL && comma < colon))
            break;
        for (int k = 0; k < VOTECL__FAULT_NKINDS; k++) {
            if ((size_t)(colon - p) == strlen(kind_names[k]) &&
                strncmp(p, kind_names[k], (size_t)(colon - p)) == 0)
                atomic_store(&targets[k], strtoul(colon + 1, NULL, 10));
        }
        p = comma != NULL ? comma + 1 : NULL;
    }
}

int
votecl__fault_hit(votecl__fault_kind kind)
{
    unsigned long n, target;

    pthread_once(&env_once, read_environment);
    n = atomic_fetch_add(&counts[kind], 1) + 1;
    target = atomic_load(&targets[kind]);
    if (target == 0 || n != target)
        return 0;
    atomic_store(&fired, 1);
    return 1;
}

int
votecl__fault_enabled(void)
{
    return 1;
}

void
votecl__fault_arm(votecl__fault_kind kind, unsigned long k)
{
    pthread_once(&env_once, read_environment);
    for (int i = 0; i < VOTECL__FAULT_NKINDS; i++) {
        atomic_store(&targets[i], 0);
        atomic_store(&counts[i], 0);
    }
    atomic_store(&fired, 0);
    if ((unsigned)kind < VOTECL__FAULT_NKINDS)
        atomic_store(&targets[kind], k);
}

void
votecl__fault_disarm(void)
{
    pthread_once(&env_once, read_environment);
    for (int i = 0; i < VOTECL__FAULT_NKINDS; i++)
        atomic_store(&targets[i], 0);
}

unsigned long
votecl__fault_events(votecl__fault_kind kind)
{
    return (unsigned)kind < VOTECL__FAULT_NKINDS ? atomic_load(&counts[kind]) : 0;
}

int
votecl__fault_fired(void)
{
    return atomic_load(&fired);
}

#else /* !VOTECL_FAULT_INJECTION */

int
votecl__fault_enabled(void)
{
    return 0;
}

void
votecl__fault_arm(votecl__fault_kind kind, unsigned long k)
{
}

void
votecl__fault_disarm(void)
{
}

unsigned long
votecl__fault_events(votecl__fault_kind kind)
{
    return 0;
}

int
votecl__fault_fired(void)
{
    return 0;
}

#endif
