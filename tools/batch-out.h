/* The --out file of votecl batch (docs/batch.md, "Resuming"): opened under an advisory lock
 * so that two runs never write one file, scanned for the records a killed run left (an
 * unfinished last line cut), and read back record by record to check that a rerun continues
 * the same collection with the same algorithm and options. */
#ifndef VOTECL_TOOL_BATCH_OUT_H
#define VOTECL_TOOL_BATCH_OUT_H

#include <stdint.h>
#include <stdio.h>

/* The complete lines of an --out file: where each starts, and where the last one ends. */
typedef struct batch_out_scan {
    uint64_t *starts; /* owned: byte offset of each complete line */
    uint64_t n;       /* complete lines */
    uint64_t good;    /* bytes up to the end of the last complete line */
} batch_out_scan;

/* Scans f from its start: each line ended by '\n' is a record (any length: nothing is held
 * in memory but the offsets). scan: caller-owned output, freed with batch_out_scan_free.
 * Returns 0, or -1 with a message in error (a read error, out of memory). */
int batch_out_scan_file(FILE *f, batch_out_scan *scan, char *error, size_t size);
void batch_out_scan_free(batch_out_scan *scan);

typedef struct batch_out {
    FILE *file;          /* append here; stdout when no --out */
    batch_out_scan done; /* the records already there (none with --overwrite) */
    int regular;         /* a regular file: locked, resumable */
} batch_out;

/* Opens path for the records: a regular file is locked (flock, exclusive, not waiting: a
 * second run on the same file is refused), then emptied (overwrite) or scanned and cut after
 * its last complete record; anything else (/dev/null, a FIFO) is written as it is. Nothing
 * is changed before the lock is held. Returns 0, or -1 with a message. */
int batch_out_open(batch_out *out, const char *path, int overwrite, char *error, size_t size);
void batch_out_close(batch_out *out);

/* Reads up to cap - 1 bytes of record k (NUL-terminated, the line's newline included where it
 * fits) into buf. Returns the bytes read, or -1. */
long batch_out_record(batch_out *out, uint64_t k, char *buf, size_t cap);

#endif
