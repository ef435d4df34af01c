/* Device selectors in OpenCV's style, "platform:type:name-or-index", shared by the device
 * backends: each part may be empty; platform and name match case-insensitive substrings,
 * type is CPU, GPU (dGPU, iGPU) or ACCELERATOR, and a number as the last part counts among
 * the matching devices. */
#include "votecl-private.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static int
contains_nocase(const char *haystack, const char *needle)
{
    size_t n = strlen(needle);
    if (n == 0)
        return 1;
    for (; *haystack != '\0'; haystack++)
        if (strncasecmp(haystack, needle, n) == 0)
            return 1;
    return 0;
}

static int
type_matches(const char *want, votecl_device_type type)
{
    if (want[0] == '\0')
        return 1;
    if (strcasecmp(want, "GPU") == 0 || strcasecmp(want, "dGPU") == 0 ||
        strcasecmp(want, "iGPU") == 0)
        return type == VOTECL_DEVICE_GPU;
    if (strcasecmp(want, "CPU") == 0)
        return type == VOTECL_DEVICE_CPU;
    if (strcasecmp(want, "ACCELERATOR") == 0 || strcasecmp(want, "ACC") == 0)
        return type == VOTECL_DEVICE_ACCELERATOR;
    return -1;
}

static int
is_number(const char *s)
{
    if (*s == '\0')
        return 0;
    for (; *s != '\0'; s++)
        if (!isdigit((unsigned char)*s))
            return 0;
    return 1;
}

static const votecl_device_info *
info_at(const votecl_device_info *first, size_t stride, size_t i)
{
    return (const votecl_device_info *)((const char *)first + i * stride);
}

long
votecl__device_select(const votecl_device_info *first, size_t stride, size_t n,
                      const char *selector)
{
    char buf[256], *parts[3] = {"", "", ""};
    size_t nparts = 0;
    long index = -1, seen = 0;

    if (selector == NULL || selector[0] == '\0') {
        for (size_t i = 0; i < n; i++)
            if (info_at(first, stride, i)->type == VOTECL_DEVICE_GPU)
                return (long)i;
        return n > 0 ? 0 : -1;
    }
    if (strlen(selector) >= sizeof buf)
        return -2;
    strcpy(buf, selector);
    for (char *s = buf, *colon; nparts < 3; s = colon + 1) {
        parts[nparts++] = s;
        if ((colon = strchr(s, ':')) == NULL)
            break;
        *colon = '\0';
    }
    if (type_matches(parts[1], VOTECL_DEVICE_OTHER) < 0)
        return -2;
    if (is_number(parts[2]))
        index = strtol(parts[2], NULL, 10);
    for (size_t i = 0; i < n; i++) {
        const votecl_device_info *info = info_at(first, stride, i);
        if (!contains_nocase(info->platform, parts[0]) || type_matches(parts[1], info->type) != 1)
            continue;
        if (index < 0 && !contains_nocase(info->name, parts[2]))
            continue;
        if (index < 0 || seen++ == index)
            return (long)i;
    }
    return -1;
}
