/* Option tables for the votecl tool: a command's plain options (flags, strings, whole numbers
 * in a range, reals) described once as rows naming the member they set, instead of one
 * hand-written test per option. Options that set several members or check their value
 * against a list stay in the command's own option function, which consults the table last. */
#ifndef VOTECL_TOOL_OPTIONS_H
#define VOTECL_TOOL_OPTIONS_H

#include <stddef.h>

typedef enum tool_option_kind {
    TOOL_OPTION_FLAG,   /* no value: the member (any integer) becomes 1 */
    TOOL_OPTION_STRING, /* a const char * member: the value as given */
    TOOL_OPTION_NUMBER, /* an unsigned member: a whole number in [min, max] */
    TOOL_OPTION_DOUBLE  /* a double member */
} tool_option_kind;

typedef struct tool_option_spec {
    const char *name; /* "--max-lines" */
    tool_option_kind kind;
    size_t offset, size; /* of the member in the struct the table's caller passes */
    unsigned long min, max;
} tool_option_spec;

#define TOOL_MEMBER(type, member) offsetof(type, member), sizeof(((type *)0)->member)
#define TOOL_OPT_FLAG(type, member, name)                                                          \
    {                                                                                              \
        name, TOOL_OPTION_FLAG, TOOL_MEMBER(type, member), 0, 0                                    \
    }
#define TOOL_OPT_STRING(type, member, name)                                                        \
    {                                                                                              \
        name, TOOL_OPTION_STRING, TOOL_MEMBER(type, member), 0, 0                                  \
    }
#define TOOL_OPT_RANGE(type, member, name, min, max)                                               \
    {                                                                                              \
        name, TOOL_OPTION_NUMBER, TOOL_MEMBER(type, member), min, max                              \
    }
#define TOOL_OPT_NUMBER(type, member, name, max) TOOL_OPT_RANGE(type, member, name, 0, max)
#define TOOL_OPT_DOUBLE(type, member, name)                                                        \
    {                                                                                              \
        name, TOOL_OPTION_DOUBLE, TOOL_MEMBER(type, member), 0, 0                                  \
    }
#define TOOL_OPTION_COUNT(table) (sizeof(table) / sizeof((table)[0]))

/* Matches argv[*i] against the n rows of table and sets the member of base the row names,
 * as tool_option_value() and tool_parse_ulong()/tool_parse_double() would. Returns 1 when
 * taken (*i advanced past a separate value), 0 when no row matches, -1 after a usage error
 * was printed (the member is then unchanged). */
int tool_option_table(const tool_option_spec *table, size_t n, void *base, int argc, char **argv,
                      int *i);

#endif
