# VOTECL_CHECK_CUDA
# -----------------
# --enable-cuda[=CUDA_PREFIX] builds the CUDA backend (lib/backend-cuda.c): AM_CONDITIONAL
# VOTECL_WITH_CUDA and the config.h define of the same name. The build needs no CUDA headers
# or libraries: the driver API (libcuda.so.1) and NVRTC are loaded with dlopen when a context
# asks for CUDA, so the library still links only the OpenCL ICD loader (plus libm and libdl).
# CUDA_PREFIX (for example /usr/local/cuda) becomes VOTECL_CUDA_PREFIX, where NVRTC is looked
# for in lib64 after the dynamic loader's own search path.
AC_DEFUN([VOTECL_CHECK_CUDA], [
AC_ARG_ENABLE([cuda],
    [AS_HELP_STRING([--enable-cuda@<:@=CUDA_PREFIX@:>@],
        [build the CUDA backend; CUDA_PREFIX is searched for NVRTC at run time @<:@no@:>@])],
    [], [enable_cuda=no])
votecl_cuda_prefix=
AS_CASE([$enable_cuda],
    [yes|no], [],
    [/*], [votecl_cuda_prefix=$enable_cuda
           enable_cuda=yes],
    [AC_MSG_ERROR([--enable-cuda=$enable_cuda: give yes, no or an absolute CUDA_PREFIX])])
AS_IF([test "x$enable_cuda" = xyes], [
    AC_SEARCH_LIBS([dlopen], [dl], [],
        [AC_MSG_ERROR([--enable-cuda needs dlopen to load the CUDA driver at run time])])
    AC_DEFINE([VOTECL_WITH_CUDA], [1], [Build the CUDA backend (loaded with dlopen).])
    AS_IF([test -n "$votecl_cuda_prefix"], [
        AC_DEFINE_UNQUOTED([VOTECL_CUDA_PREFIX], ["$votecl_cuda_prefix"],
            [Where the CUDA backend looks for NVRTC (lib64) after the loader's path.])
        AS_IF([test -d "$votecl_cuda_prefix"], [],
            [AC_MSG_WARN([CUDA_PREFIX $votecl_cuda_prefix does not exist here; it is only searched at run time])])])])
AM_CONDITIONAL([VOTECL_WITH_CUDA], [test "x$enable_cuda" = xyes])
VOTECL_CUDA_SUMMARY=$enable_cuda${votecl_cuda_prefix:+ (NVRTC also in $votecl_cuda_prefix/lib64)}
])
