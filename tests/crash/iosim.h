/*
 * iosim.h - the journal the I/O shim (iosim.c, LD_PRELOADed into the
 * daemon) writes and the power-cut rebuilder (disk.c) reads.  Test-only.
 *
 * A journal is a sequence of records, in the order the operations reached
 * the kernel: a fixed header in host byte order, then `len` payload bytes.
 */
#ifndef ARB_IOSIM_H
#define ARB_IOSIM_H

#include <stdint.h>

typedef struct iosim_rec {
    uint32_t type;      /* IOSIM_* */
    uint32_t id;        /* the open the operation went through; 0: none */
    uint64_t off;       /* file offset, new size, flags, count... */
    uint64_t len;       /* payload bytes that follow */
} iosim_rec_t;

enum {
    IOSIM_OPEN = 'O',       /* payload: the path, NUL-terminated; off: flags */
    IOSIM_WRITE = 'W',      /* payload: the bytes written at off */
    IOSIM_WRITE_SYNC = 'D', /* the same, durable on return (O_DSYNC, msync) */
    IOSIM_SHORT = 's',      /* the write before returned only off bytes */
    IOSIM_SYNC = 'S',       /* fsync/fdatasync of the file returned 0 */
    IOSIM_TRUNCATE = 'T',   /* off: the new size */
    IOSIM_MAPPED = 'P',     /* the file is mapped shared and writable */
    IOSIM_RENAME = 'N',     /* payload: old path, NUL, new path, NUL */
    IOSIM_LINK = 'L',       /* the same */
    IOSIM_UNLINK = 'U',     /* payload: the path, NUL */
    IOSIM_COUNT = 'C',      /* one call of class off (fault accounting) */
    IOSIM_FAILED = 'F',     /* that call was failed; payload: int errno */
    IOSIM_RESYNC = 'R',     /* a sync of a file whose sync had failed */
    IOSIM_KILLED = 'K'      /* the power cut: SIGKILL after `off` ops */
};

#define IOSIM_O_TRUNC 1u
#define IOSIM_O_CREAT 2u

/* Fault classes of ARB_IOSIM_FAIL, in this order. */
enum { IOSIM_C_WRITE, IOSIM_C_SYNC, IOSIM_C_MSYNC, IOSIM_C_OPEN,
       IOSIM_C_MMAP, IOSIM_NCLASS };

#endif
