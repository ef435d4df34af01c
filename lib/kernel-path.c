/* Kernel source lookup: the search list, finding a file in it, reading it whole. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE 1 /* O_CLOEXEC under -std=c11 */
#endif

#include "votecl-private.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Kernel sources are a few hundred kilobytes at most; anything bigger is a wrong path. */
#define VOTECL__MAX_SOURCE_BYTES ((size_t)64 << 20)

/* Appends the non-empty entries of list to out (which has room), separated by ':'. */
static void
append_entries(char *out, size_t *used, const char *list)
{
    if (list == NULL)
        return;
    for (const char *p = list; *p != '\0';) {
        size_t n = strcspn(p, ":");
        if (n > 0) {
            if (*used > 0)
                out[(*used)++] = ':';
            memcpy(out + *used, p, n);
            *used += n;
        }
        p += n;
        if (*p == ':')
            p++;
    }
    out[*used] = '\0';
}

char *
votecl__kernel_path_join(const char *env_path, const char *option_path, const char *installed)
{
    const char *parts[3] = {env_path, option_path, installed};
    size_t total = 1;
    for (unsigned i = 0; i < 3; i++)
        if (parts[i] != NULL)
            total += strlen(parts[i]) + 1;

    char *out = votecl__malloc(total);
    if (out == NULL)
        return NULL;
    size_t used = 0;
    out[0] = '\0';
    for (unsigned i = 0; i < 3; i++)
        append_entries(out, &used, parts[i]);
    return out;
}

/* dir/file, without doubling a trailing slash of dir; NULL when out of memory. */
static char *
path_concat(const char *dir, size_t dir_len, const char *file)
{
    while (dir_len > 1 && dir[dir_len - 1] == '/')
        dir_len--;
    size_t file_len = strlen(file);
    char *out = votecl__malloc(dir_len + 1 + file_len + 1);
    if (out == NULL)
        return NULL;
    memcpy(out, dir, dir_len);
    size_t used = dir_len;
    if (dir[dir_len - 1] != '/')
        out[used++] = '/';
    memcpy(out + used, file, file_len + 1);
    return out;
}

static int
is_readable_regular_file(const char *filename)
{
    struct stat st;
    return stat(filename, &st) == 0 && S_ISREG(st.st_mode) && access(filename, R_OK) == 0;
}

/* The first file named file in an absolute directory of path (malloc'd in *candidate), or
 * VOTECL_KERNEL_NOT_FOUND. */
static votecl_status
first_candidate(const char *path, const char *file, char **candidate)
{
    *candidate = NULL;
    if (path == NULL || file == NULL || file[0] == '\0')
        return VOTECL_KERNEL_NOT_FOUND;
    for (const char *p = path; *p != '\0';) {
        size_t n = strcspn(p, ":");
        /* A relative entry would depend on the current directory, which is never searched. */
        if (n > 0 && p[0] == '/') {
            char *c = path_concat(p, n, file);
            if (c == NULL)
                return VOTECL_OUT_OF_HOST_MEMORY;
            if (is_readable_regular_file(c)) {
                *candidate = c;
                return VOTECL_OK;
            }
            free(c);
        }
        p += n;
        if (*p == ':')
            p++;
    }
    return VOTECL_KERNEL_NOT_FOUND;
}

/* A kernel file is code the device runs in the caller's process: like the disk cache's
 * entries (docs/env.md), it is used only where no one but this user and root can change it.
 * An untrusted first match is refused, not skipped: a later directory would give other code
 * than the path named. */
votecl_status
votecl__kernel_path_find(const char *path, const char *file, char **found)
{
    votecl_status status = first_candidate(path, file, found);
    if (status == VOTECL_OK && !votecl__path_trusted(*found)) {
        free(*found);
        *found = NULL;
        status = VOTECL_KERNEL_NOT_FOUND;
    }
    return status;
}

char *
votecl__kernel_path_untrusted(const char *path, const char *file)
{
    char *candidate = NULL;
    if (first_candidate(path, file, &candidate) == VOTECL_OK && votecl__path_trusted(candidate)) {
        free(candidate);
        candidate = NULL;
    }
    return candidate;
}

/* Reads fd to the end into a NUL-terminated buffer sized from hint; grows if the file did. */
static votecl_status
read_all(int fd, size_t hint, char **text, size_t *size)
{
    /* Room for the NUL and one spare byte, so reaching end of file needs no reallocation. */
    size_t capacity = hint + 2;
    size_t used = 0;
    char *buffer = votecl__malloc(capacity);
    if (buffer == NULL)
        return VOTECL_OUT_OF_HOST_MEMORY;

    votecl_status status = VOTECL_OK;
    for (;;) {
        if (used + 1 == capacity) {
            if (used >= VOTECL__MAX_SOURCE_BYTES) {
                status = VOTECL_IO_ERROR;
                goto out;
            }
            size_t grown = capacity < 4096 ? 4096 : capacity * 2;
            char *bigger = votecl__realloc(buffer, grown);
            if (bigger == NULL) {
                status = VOTECL_OUT_OF_HOST_MEMORY;
                goto out;
            }
            buffer = bigger;
            capacity = grown;
        }
        ssize_t got = read(fd, buffer + used, capacity - 1 - used);
        if (got < 0 && errno == EINTR)
            continue;
        if (got < 0) {
            status = VOTECL_IO_ERROR;
            goto out;
        }
        if (got == 0)
            break;
        used += (size_t)got;
    }
    if (used > VOTECL__MAX_SOURCE_BYTES)
        status = VOTECL_IO_ERROR;

out:
    if (status != VOTECL_OK) {
        free(buffer);
        return status;
    }
    buffer[used] = '\0';
    *text = buffer;
    if (size != NULL)
        *size = used;
    return VOTECL_OK;
}

votecl_status
votecl__read_file(const char *filename, char **text, size_t *size)
{
    *text = NULL;
    if (size != NULL)
        *size = 0;
    if (filename == NULL)
        return VOTECL_IO_ERROR;

    int fd;
    do
        fd = open(filename, O_RDONLY | O_CLOEXEC);
    while (fd < 0 && errno == EINTR);
    if (fd < 0)
        return errno == ENOMEM ? VOTECL_OUT_OF_HOST_MEMORY : VOTECL_IO_ERROR;

    votecl_status status;
    struct stat st;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size < 0 ||
        (uint64_t)st.st_size > VOTECL__MAX_SOURCE_BYTES)
        status = VOTECL_IO_ERROR;
    else
        status = read_all(fd, (size_t)st.st_size, text, size);
    close(fd);
    return status;
}
