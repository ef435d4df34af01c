/* "compiling kernels ..." on stderr while a kernel build lasts over a second: the library
 * reports each build's start and end (votecl_context_set_build_callback) from inside the
 * blocking call, so a watcher thread waits out the second and speaks only when the build is
 * still running then. Quick builds (a GPU, or PoCL finding the program in its own cache)
 * print nothing. */
#include "config.h"

#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "tool.h"

static struct {
    pthread_mutex_t lock;
    pthread_cond_t changed;
    int started;          /* the watcher thread runs */
    unsigned long serial; /* builds begun so far */
    int building;         /* a build is under way */
    int announced;        /* and its message was printed */
    char device[128];
} watch = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, 0, 0, 0, 0, ""};

static void *
watcher(void *unused)
{
    (void)unused;
    pthread_mutex_lock(&watch.lock);
    for (;;) {
        while (!watch.building)
            pthread_cond_wait(&watch.changed, &watch.lock);
        unsigned long serial = watch.serial;
        struct timespec until;
        clock_gettime(CLOCK_REALTIME, &until);
        until.tv_sec += 1;
        while (watch.building && watch.serial == serial &&
               pthread_cond_timedwait(&watch.changed, &watch.lock, &until) == 0) {
        }
        if (watch.building && watch.serial == serial && !watch.announced) {
            fprintf(stderr, "votecl: compiling kernels for %s (first use; cached afterwards)...",
                    watch.device);
            fflush(stderr);
            watch.announced = 1;
        }
        while (watch.building && watch.serial == serial)
            pthread_cond_wait(&watch.changed, &watch.lock);
    }
    return NULL;
}

static void
on_build(votecl_build_event event, const char *what, double seconds, void *user)
{
    (void)what;
    (void)user;
    pthread_mutex_lock(&watch.lock);
    if (event == VOTECL_BUILD_STARTED) {
        watch.serial++;
        watch.building = 1;
    } else {
        watch.building = 0;
        if (watch.announced)
            fprintf(stderr, " %.1f s\n", seconds);
        watch.announced = 0;
    }
    pthread_cond_broadcast(&watch.changed);
    pthread_mutex_unlock(&watch.lock);
}

void
tool_build_progress_attach(const tool_options *options, votecl_context *ctx)
{
    votecl_device_info info;
    pthread_t thread;

    if (options->quiet || !isatty(STDERR_FILENO))
        return;
    pthread_mutex_lock(&watch.lock);
    if (votecl_context_get_device_info(ctx, &info) == VOTECL_OK)
        snprintf(watch.device, sizeof watch.device, "%s", info.name);
    if (!watch.started && pthread_create(&thread, NULL, watcher, NULL) == 0) {
        pthread_detach(thread);
        watch.started = 1;
    }
    pthread_mutex_unlock(&watch.lock);
    if (watch.started)
        votecl_context_set_build_callback(ctx, on_build, NULL);
}
