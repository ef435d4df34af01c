/* A main for the fuzz targets without libFuzzer: runs every file named on the command line
 * (directories: every file in them) through LLVMFuzzerTestOneInput, printing one TAP result
 * for them all (a finding aborts, as under libFuzzer). With no
 * file arguments (as make check runs it, through tests/tap-test) it replays the target's
 * committed corpus, $VOTECL_TEST_SRCDIR/fuzz/corpus/<target>, the target being the program's
 * name without "fuzz-". Options starting with '-' are ignored (--tap, -k, libFuzzer's). */
#include "fuzz.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static int count;

static int
replay_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    unsigned char *data = NULL;
    size_t size = 0, cap = 0, got;

    if (f == NULL) {
        printf("# %s: cannot open\n", path);
        return 1;
    }
    do {
        if (size == cap) {
            unsigned char *grown = realloc(data, cap = cap ? 2 * cap : 4096);
            if (grown == NULL) {
                fclose(f);
                free(data);
                printf("# %s: out of memory\n", path);
                return 1;
            }
            data = grown;
        }
        got = fread(data + size, 1, cap - size, f);
        size += got;
    } while (got > 0);
    fclose(f);
    fflush(stdout);
    LLVMFuzzerTestOneInput(data, size);
    free(data);
    count++;
    return 0;
}

static int
compare_names(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The files of dir, in name order, so that runs are reproducible. */
static int
replay_path(const char *path)
{
    struct stat st;
    DIR *d;
    struct dirent *e;
    char **names = NULL;
    size_t n = 0;
    int failed = 0;

    if (stat(path, &st) != 0 || !S_ISDIR(st.st_mode))
        return replay_file(path);
    if ((d = opendir(path)) == NULL)
        return replay_file(path);
    while ((e = readdir(d)) != NULL) {
        char **grown;
        if (e->d_name[0] == '.')
            continue;
        if ((grown = realloc(names, (n + 1) * sizeof *names)) == NULL)
            break;
        names = grown;
        if ((names[n] = malloc(strlen(path) + strlen(e->d_name) + 2)) == NULL)
            break;
        sprintf(names[n++], "%s/%s", path, e->d_name);
    }
    closedir(d);
    qsort(names, n, sizeof *names, compare_names);
    for (size_t i = 0; i < n; i++) {
        failed |= replay_path(names[i]);
        free(names[i]);
    }
    free(names);
    return failed;
}

int
main(int argc, char **argv)
{
    const char *self = strrchr(argv[0], '/') ? strrchr(argv[0], '/') + 1 : argv[0];

    int given = 0, failed = 0;

    if (strncmp(self, "lt-", 3) == 0) /* a libtool wrapper's */
        self += 3;
    for (int i = 1; i < argc; i++) {
        if (argv[i][0] == '-')
            continue;
        given = 1;
        failed |= replay_path(argv[i]);
    }
    if (!given) {
        const char *srcdir = getenv("VOTECL_TEST_SRCDIR");
        const char *target = strncmp(self, "fuzz-", 5) == 0 ? self + 5 : self;
        char *dir;

        if (srcdir == NULL)
            srcdir = "tests";
        dir = malloc(strlen(srcdir) + strlen(target) + 16);
        if (dir == NULL)
            return 1;
        sprintf(dir, "%s/fuzz/corpus/%s", srcdir, target);
        failed |= replay_path(dir);
        free(dir);
    }
    printf("%s 1 - %d inputs replayed\n1..1\n", failed || count == 0 ? "not ok" : "ok", count);
    return failed;
}
