/* votecl._fast: the per-call path of the package's hot calls in C.
 *
 * ctypes converts every argument of every call in Python-level code (7 to 22 us a call,
 * issue 25), more than a small histogram's device time. This module takes NumPy arrays (any
 * object with the buffer protocol) and calls the library directly, the GIL released as ctypes
 * does. It never loads libvotecl itself: bind() hands it the addresses of the functions of
 * the library ctypes loaded (votecl._lib), so both always call one copy of the library, and
 * the module builds with Python's headers alone. An array that does not fit the fast path
 * (another format, not C-contiguous) makes a call return None: the caller then takes the
 * ctypes path, which converts or refuses it with the package's messages.
 *
 * Built against the stable ABI of Python 3.11 (Py_buffer joined it there), so one build loads
 * into any later CPython. */
#ifndef Py_LIMITED_API
#define Py_LIMITED_API 0x030b0000
#endif
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <stdint.h>
#include <string.h>
#include <time.h>

/* votecl_hist_run's prototype (include/votecl/votecl-vote.h), repeated so that the module
 * needs no libvotecl headers; statuses are ints there too. */
typedef int (*hist_run_fn)(void *plan, const void *x, const void *y, const float *weights, size_t n,
                           void *bins);

static hist_run_fn hist_run;

/* The arguments of one histogram call, their buffers held (has_*) until released. */
typedef struct hist_call {
    void *plan;
    Py_buffer x, y, w, out;
    int has_x, has_y, has_w, has_out;
    size_t n;
} hist_call;

static void
hist_call_release(hist_call *c)
{
    if (c->has_x)
        PyBuffer_Release(&c->x);
    if (c->has_y)
        PyBuffer_Release(&c->y);
    if (c->has_w)
        PyBuffer_Release(&c->w);
    if (c->has_out)
        PyBuffer_Release(&c->out);
}

/* A C-contiguous buffer of obj in the format fmt (NumPy's, e.g. "B" for uint8); 0 when obj
 * does not fit (no exception left set). */
static int
get_buffer(PyObject *obj, const char *fmt, int flags, Py_buffer *view)
{
    if (PyObject_GetBuffer(obj, view, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT | flags) != 0) {
        PyErr_Clear();
        return 0;
    }
    if (view->format == NULL || strcmp(view->format, fmt) != 0) {
        PyBuffer_Release(view);
        return 0;
    }
    return 1;
}

/* Holds every array of a call: 1 when all fit, else 0 with none held. out is uint32 counts
 * or float32 sums. */
static int
hist_call_buffers(PyObject *const *args, const char *fmt, hist_call *c)
{
    c->has_x = get_buffer(args[1], fmt, 0, &c->x);
    c->has_y = c->has_x && args[2] != Py_None && get_buffer(args[2], fmt, 0, &c->y);
    c->has_w = c->has_x && args[3] != Py_None && get_buffer(args[3], "f", 0, &c->w);
    c->has_out = c->has_x && (get_buffer(args[6], "I", PyBUF_WRITABLE, &c->out) ||
                              get_buffer(args[6], "f", PyBUF_WRITABLE, &c->out));
    if (c->has_x && c->has_y == (args[2] != Py_None) && c->has_w == (args[3] != Py_None) &&
        c->has_out)
        return 1;
    hist_call_release(c);
    return 0;
}

/* Whether a function got the want arguments it takes; else a TypeError saying message. */
static int
arity_ok(Py_ssize_t nargs, Py_ssize_t want, const char *message)
{
    if (nargs == want)
        return 1;
    PyErr_SetString(PyExc_TypeError, message);
    return 0;
}

/* Parses (plan, x, y, weights, format, channels, out) into c: 1 when every array fits,
 * 0 when one does not (nothing held), -1 with an exception for arguments of a wrong type. */
static int
hist_call_parse(PyObject *const *args, Py_ssize_t nargs, hist_call *c)
{
    memset(c, 0, sizeof *c);
    if (!arity_ok(nargs, 7, "hist_run: 7 arguments"))
        return -1;
    c->plan = PyLong_AsVoidPtr(args[0]);
    const char *fmt = PyUnicode_AsUTF8AndSize(args[4], NULL);
    unsigned long channels = PyLong_AsUnsignedLong(args[5]);
    if (PyErr_Occurred())
        return -1;
    if (c->plan == NULL || channels == 0) {
        PyErr_SetString(PyExc_ValueError, "hist_run: a plan handle and channels > 0");
        return -1;
    }
    if (!hist_call_buffers(args, fmt, c))
        return 0;
    c->n = (size_t)(c->x.len / c->x.itemsize) / channels;
    return 1;
}

static int
hist_call_run(const hist_call *c)
{
    return hist_run(c->plan, c->x.buf, c->has_y ? c->y.buf : NULL,
                    c->has_w ? (const float *)c->w.buf : NULL, c->n, c->out.buf);
}

/* hist_run(plan, x, y, weights, format, channels, out) -> status, or None when an array
 * does not fit. The output's size is the caller's to get right (the plan's bins). */
static PyObject *
fast_hist_run(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    (void)self;
    hist_call c;
    int fit = hist_call_parse(args, nargs, &c);
    if (fit <= 0)
        return fit < 0 ? NULL : Py_NewRef(Py_None);
    if (hist_run == NULL) {
        hist_call_release(&c);
        PyErr_SetString(PyExc_RuntimeError, "votecl._fast: bind() was not called");
        return NULL;
    }
    PyThreadState *saved = PyEval_SaveThread(); /* the GIL released, as ctypes does */
    int status = hist_call_run(&c);
    PyEval_RestoreThread(saved);
    hist_call_release(&c);
    return PyLong_FromLong(status);
}

static double
seconds(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* time_hist_run(plan, x, y, weights, format, channels, out, calls) -> seconds per call of
 * votecl_hist_run in a C loop: what a C program pays, for python/bench_percall.py. */
static PyObject *
fast_time_hist_run(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    (void)self;
    if (!arity_ok(nargs, 8, "time_hist_run: 8 arguments"))
        return NULL;
    long calls = PyLong_AsLong(args[7]);
    if (calls <= 0 && !PyErr_Occurred())
        PyErr_SetString(PyExc_ValueError, "time_hist_run: calls > 0");
    if (PyErr_Occurred())
        return NULL;
    hist_call c;
    int fit = hist_call_parse(args, 7, &c);
    if (fit <= 0) {
        if (fit == 0)
            PyErr_SetString(PyExc_ValueError, "time_hist_run: an array does not fit");
        return NULL;
    }
    int status = 0;
    PyThreadState *saved = PyEval_SaveThread();
    double start = seconds();
    for (long i = 0; i < calls && status == 0; i++)
        status = hist_call_run(&c);
    double end = seconds();
    PyEval_RestoreThread(saved);
    hist_call_release(&c);
    if (status != 0)
        return PyErr_Format(PyExc_RuntimeError, "time_hist_run: status %d", status);
    return PyFloat_FromDouble((end - start) / (double)calls);
}

/* A votecl_hist_run that does nothing: bound in its place, it leaves only the caller's own
 * cost per call (python/bench_percall.py's floor). */
static int
stub_hist_run(void *plan, const void *x, const void *y, const float *weights, size_t n, void *bins)
{
    (void)plan, (void)x, (void)y, (void)weights, (void)n, (void)bins;
    return 0;
}

static PyObject *
fast_stub(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    (void)self, (void)args, (void)nargs;
    return PyLong_FromVoidPtr((void *)(uintptr_t)stub_hist_run);
}

/* bind(hist_run) with the function's address (ctypes.cast(f, c_void_p).value). */
static PyObject *
fast_bind(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    (void)self;
    if (!arity_ok(nargs, 1, "bind: 1 argument (votecl_hist_run's address)"))
        return NULL;
    void *p = PyLong_AsVoidPtr(args[0]);
    if (p == NULL) {
        if (!PyErr_Occurred())
            PyErr_SetString(PyExc_ValueError, "bind: a NULL address");
        return NULL;
    }
    hist_run = (hist_run_fn)(uintptr_t)p;
    return Py_NewRef(Py_None);
}

static PyMethodDef fast_methods[] = {
    {"bind", (PyCFunction)(void (*)(void))fast_bind, METH_FASTCALL,
     "bind(hist_run): the address of the loaded library's votecl_hist_run."},
    {"hist_run", (PyCFunction)(void (*)(void))fast_hist_run, METH_FASTCALL,
     "hist_run(plan, x, y, weights, format, channels, out) -> status, or None when an array "
     "is not C-contiguous of the format (out: uint32 or float32)."},
    {"time_hist_run", (PyCFunction)(void (*)(void))fast_time_hist_run, METH_FASTCALL,
     "time_hist_run(plan, x, y, weights, format, channels, out, calls) -> seconds per call "
     "of votecl_hist_run in a C loop."},
    {"stub", (PyCFunction)(void (*)(void))fast_stub, METH_FASTCALL,
     "stub() -> the address of a function of votecl_hist_run's prototype that does nothing."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef fast_module = {
    PyModuleDef_HEAD_INIT,
    "_fast",
    "libvotecl's per-call path without ctypes (votecl._fast.c).",
    -1,
    fast_methods,
    NULL,
    NULL,
    NULL,
    NULL,
};

PyMODINIT_FUNC
PyInit__fast(void)
{
    return PyModule_Create(&fast_module);
}
