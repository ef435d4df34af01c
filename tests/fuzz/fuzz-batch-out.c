/* votecl batch's --out resume scanner (tools/batch-out.c, batch_out_scan_file) on any file.
 * Properties: the records are exactly the lines ended by '\n', in order, each start right
 * after the previous newline; good is the end of the last of them; nothing after good holds
 * a newline. */
#include "config.h"

#include "batch-out.h"
#include "fuzz.h"

#include <stdio.h>
#include <string.h>

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    batch_out_scan scan;
    char error[256];
    FILE *f = fmemopen((void *)data, size > 0 ? size : 1, "r");
    uint64_t lines = 0;
    if (f == NULL)
        return 0;
    if (size == 0) { /* fmemopen of 0 bytes is refused: an empty stream instead */
        fclose(f);
        f = fopen("/dev/null", "r");
        if (f == NULL)
            return 0;
    }
    FUZZ_CHECK(batch_out_scan_file(f, &scan, error, sizeof error) == 0);
    fclose(f);
    for (size_t i = 0; i < size; i++)
        lines += data[i] == '\n';
    FUZZ_CHECK(scan.n == lines);
    FUZZ_CHECK(scan.good <= size);
    FUZZ_CHECK(scan.good == 0 || data[scan.good - 1] == '\n');
    FUZZ_CHECK(memchr(data + scan.good, '\n', size - scan.good) == NULL);
    for (uint64_t k = 0; k < scan.n; k++) {
        FUZZ_CHECK(k == 0 ? scan.starts[k] == 0 : data[scan.starts[k] - 1] == '\n');
        FUZZ_CHECK(k == 0 || scan.starts[k] > scan.starts[k - 1]);
    }
    batch_out_scan_free(&scan);
    return 0;
}
