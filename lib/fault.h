/* Fault injection for tests: the library's choke points ask votecl__fault_hit() whether the
 * event they are about to run must fail instead. Compiled in only with
 * ./configure --enable-fault-injection (VOTECL_FAULT_INJECTION); otherwise every hook is the
 * constant 0 and costs nothing. Armed by VOTECL_FAULT (docs/env.md) or by tests through
 * votecl__fault_arm(). Never installed. */
#ifndef VOTECL_FAULT_H
#define VOTECL_FAULT_H

typedef enum votecl__fault_kind {
    VOTECL__FAULT_ALLOC = 0,        /* votecl__malloc, votecl__calloc, votecl__realloc */
    VOTECL__FAULT_DEVICE_ALLOC = 1, /* votecl_buffer_new and the zero-copy wrap */
    VOTECL__FAULT_BUILD = 2,        /* the backend's program build */
    VOTECL__FAULT_READ = 3,         /* votecl_buffer_read: a read-back from the device */
    VOTECL__FAULT_LAUNCH = 4,       /* votecl__launch: a kernel launch (a lost device) */
    VOTECL__FAULT_NKINDS = 5
} votecl__fault_kind;

#ifdef VOTECL_FAULT_INJECTION
/* Counts one event of kind; nonzero when it is the armed K-th one, which must fail. */
int votecl__fault_hit(votecl__fault_kind kind);
#else
#define votecl__fault_hit(kind) 0
#endif

/* 1 when the build has fault injection, else 0 (and the functions below do nothing). */
int votecl__fault_enabled(void);
/* Restarts the count of every kind and makes the k-th event of kind fail, once (k = 0:
 * nothing fails). Other kinds are disarmed. Thread-safe. */
void votecl__fault_arm(votecl__fault_kind kind, unsigned long k);
/* Disarms every kind (counting goes on). */
void votecl__fault_disarm(void);
/* Events of kind counted since the last arm. */
unsigned long votecl__fault_events(votecl__fault_kind kind);
/* Nonzero when the armed event has happened (and failed) since the last arm. */
int votecl__fault_fired(void);
/* "alloc", "device-alloc", "build", "read", "launch"; NULL for other values. */
const char *votecl__fault_kind_name(votecl__fault_kind kind);

#endif
