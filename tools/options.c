/* Option tables (options.h). */
#include "config.h"

#include <stdint.h>
#include <string.h>

#include "options.h"
#include "tool.h"

/* Stores x in the unsigned member of size bytes at p (the tables' members are unsigned,
 * uint32_t, size_t, unsigned long or int flags). */
static void
store_unsigned(void *p, size_t size, unsigned long x)
{
    if (size == sizeof(uint64_t)) {
        uint64_t v = x;
        memcpy(p, &v, size);
    } else if (size == sizeof(uint32_t)) {
        uint32_t v = (uint32_t)x;
        memcpy(p, &v, size);
    } else if (size == sizeof(uint16_t)) {
        uint16_t v = (uint16_t)x;
        memcpy(p, &v, size);
    } else {
        uint8_t v = (uint8_t)x;
        memcpy(p, &v, 1);
    }
}

static int
take(const tool_option_spec *s, char *member, int argc, char **argv, int *i)
{
    const char *v = NULL;
    unsigned long x = 0;
    double d = 0;
    int r;

    if (s->kind == TOOL_OPTION_FLAG) {
        if (strcmp(argv[*i], s->name) != 0)
            return 0;
        store_unsigned(member, s->size, 1);
        return 1;
    }
    if ((r = tool_option_value(argc, argv, i, s->name, &v)) <= 0)
        return r;
    if (s->kind == TOOL_OPTION_STRING) {
        memcpy(member, &v, sizeof v);
        return 1;
    }
    if (s->kind == TOOL_OPTION_DOUBLE) {
        if (tool_parse_double(s->name, v, &d) < 0)
            return -1;
        memcpy(member, &d, sizeof d);
        return 1;
    }
    if (tool_parse_ulong(s->name, v, s->min, s->max, &x) < 0)
        return -1;
    store_unsigned(member, s->size, x);
    return 1;
}

int
tool_option_table(const tool_option_spec *table, size_t n, void *base, int argc, char **argv,
                  int *i)
{
    for (size_t k = 0; k < n; k++) {
        int r = take(&table[k], (char *)base + table[k].offset, argc, argv, i);
        if (r != 0)
            return r;
    }
    return 0;
}
