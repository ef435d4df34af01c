/* The --out file of votecl batch (batch-out.h). */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "batch-out.h"

static int
scan_push(batch_out_scan *scan, uint64_t *cap, uint64_t start)
{
    if (scan->n == *cap) {
        uint64_t grown = *cap ? 2 * *cap : 256;
        uint64_t *p = realloc(scan->starts, grown * sizeof *p);
        if (p == NULL)
            return -1;
        scan->starts = p;
        *cap = grown;
    }
    scan->starts[scan->n++] = start;
    return 0;
}

int
batch_out_scan_file(FILE *f, batch_out_scan *scan, char *error, size_t size)
{
    unsigned char block[65536];
    uint64_t cap = 0, pos = 0, line_start = 0;
    size_t got;
    memset(scan, 0, sizeof *scan);
    while ((got = fread(block, 1, sizeof block, f)) > 0) {
        for (size_t i = 0; i < got; i++) {
            if (block[i] != '\n')
                continue;
            if (scan_push(scan, &cap, line_start) < 0) {
                batch_out_scan_free(scan);
                return snprintf(error, size, "out of memory"), -1;
            }
            line_start = pos + i + 1;
        }
        pos += got;
    }
    if (ferror(f)) {
        batch_out_scan_free(scan);
        return snprintf(error, size, "read error: %s", strerror(errno)), -1;
    }
    scan->good = line_start;
    return 0;
}

void
batch_out_scan_free(batch_out_scan *scan)
{
    free(scan->starts);
    memset(scan, 0, sizeof *scan);
}

/* Locks the open file, then empties it or keeps its complete records. */
static int
prepare_regular(batch_out *out, const char *path, int overwrite, char *error, size_t size)
{
    int fd = fileno(out->file);
    char detail[256];
    if (flock(fd, LOCK_EX | LOCK_NB) != 0)
        return snprintf(error, size, "%s: %s", path,
                        errno == EWOULDBLOCK ? "another votecl batch is writing it (locked)"
                                             : strerror(errno)),
               -1;
    if (!overwrite && batch_out_scan_file(out->file, &out->done, detail, sizeof detail) < 0)
        return snprintf(error, size, "%s: %s", path, detail), -1;
    if (ftruncate(fd, (off_t)out->done.good) != 0 || fseeko(out->file, 0, SEEK_END) != 0)
        return snprintf(error, size, "%s: %s", path, strerror(errno)), -1;
    return 0;
}

int
batch_out_open(batch_out *out, const char *path, int overwrite, char *error, size_t size)
{
    struct stat st;
    int fd;
    memset(out, 0, sizeof *out);
    /* no O_TRUNC: the file is emptied only under the lock */
    fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NONBLOCK, 0666);
    if (fd < 0 && errno == ENXIO) /* a FIFO with no reader yet: wait for one as fopen would */
        fd = open(path, O_WRONLY | O_CLOEXEC);
    if (fd < 0)
        return snprintf(error, size, "%s: %s", path, strerror(errno)), -1;
    if (fstat(fd, &st) != 0 || S_ISDIR(st.st_mode)) {
        close(fd);
        return snprintf(error, size, "%s: is a directory", path), -1;
    }
    out->regular = S_ISREG(st.st_mode);
    fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
    if ((out->file = fdopen(fd, out->regular ? "r+" : "w")) == NULL) {
        close(fd);
        return snprintf(error, size, "%s: %s", path, strerror(errno)), -1;
    }
    if (out->regular && prepare_regular(out, path, overwrite, error, size) < 0) {
        batch_out_close(out);
        return -1;
    }
    return 0;
}

void
batch_out_close(batch_out *out)
{
    if (out->file != NULL && out->file != stdout)
        fclose(out->file); /* releases the lock */
    batch_out_scan_free(&out->done);
    memset(out, 0, sizeof *out);
}

long
batch_out_record(batch_out *out, uint64_t k, char *buf, size_t cap)
{
    ssize_t n;
    if (k >= out->done.n || cap == 0)
        return -1;
    n = pread(fileno(out->file), buf, cap - 1, (off_t)out->done.starts[k]);
    if (n < 0)
        return -1;
    buf[n] = '\0';
    return (long)n;
}
