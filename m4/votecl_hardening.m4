# VOTECL_HARDENING: the configure options of the reliability work (docs/reliability.md).
#   --enable-fault-injection  debug builds: VOTECL_FAULT and tests/test-fault (never ship it)
#   --enable-fuzzing          libFuzzer targets in tests/fuzz (needs clang and libFuzzer)
# and valgrind for make check-valgrind.
AC_DEFUN([VOTECL_HARDENING], [
AC_ARG_ENABLE([fault-injection],
    [AS_HELP_STRING([--enable-fault-injection],
        [compile the VOTECL_FAULT hooks in (debug and test builds only)])],
    [], [enable_fault_injection=no])
AS_IF([test "x$enable_fault_injection" = xyes],
    [AC_DEFINE([VOTECL_FAULT_INJECTION], [1], [Fault injection hooks are compiled in.])])
AM_CONDITIONAL([FAULT_INJECTION], [test "x$enable_fault_injection" = xyes])

AC_ARG_ENABLE([fuzzing],
    [AS_HELP_STRING([--enable-fuzzing],
        [build the libFuzzer targets of tests/fuzz and instrument everything for them
         (CC=clang)])],
    [], [enable_fuzzing=no])
AS_IF([test "x$enable_fuzzing" = xyes], [
    votecl_save_CFLAGS=$CFLAGS
    CFLAGS="$CFLAGS -fsanitize=fuzzer"
    AC_MSG_CHECKING([whether $CC links libFuzzer targets])
    AC_LINK_IFELSE([AC_LANG_SOURCE([[#include <stddef.h>
#include <stdint.h>
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) { return data == 0 && size > 0; }
]])],
        [AC_MSG_RESULT([yes])],
        [AC_MSG_RESULT([no])
         AC_MSG_ERROR([--enable-fuzzing needs clang with libFuzzer: CC=clang and the Debian packages clang and libclang-rt-14-dev])])
    CFLAGS=$votecl_save_CFLAGS
    # Coverage feedback from the library and the targets; linking needs it too.
    CFLAGS="$CFLAGS -fsanitize=fuzzer-no-link"
    LDFLAGS="$LDFLAGS -fsanitize=fuzzer-no-link"
])
AM_CONDITIONAL([FUZZING], [test "x$enable_fuzzing" = xyes])

AC_PATH_PROG([VALGRIND], [valgrind], [])
])
