/* Status strings from the one X-macro list in votecl-status.h. */
#include "votecl-private.h"

const char *
votecl_status_string(votecl_status status)
{
    switch (status) {
#define VOTECL__STATUS_TEXT(name, value, text) \
    case name:                                 \
        return text;
        VOTECL_STATUS_LIST(VOTECL__STATUS_TEXT)
#undef VOTECL__STATUS_TEXT
    }
    return "unknown status";
}

const char *
votecl_status_name(votecl_status status)
{
    switch (status) {
#define VOTECL__STATUS_NAME(name, value, text) \
    case name:                                 \
        return #name;
        VOTECL_STATUS_LIST(VOTECL__STATUS_NAME)
#undef VOTECL__STATUS_NAME
    }
    return NULL;
}
